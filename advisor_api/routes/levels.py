"""``GET /v1/levels``: the playing levels an AI seat may take (``level:N``), each with
its measured rating (:mod:`search.levels`, ``docs/levels.md``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from advisor_api.schemas import LevelList
from search import levels

router = APIRouter(tags=["games"])


@router.get("/v1/levels", response_model=LevelList)
async def list_levels() -> dict[str, Any]:
    """The playing levels, 1 (beginner) to 8 (the full search): the bot spec of an AI
    seat at that level (``{"kind": "ai", "bot": "level:3"}``), what it does, and its
    rating on the ladder measured over the levels and the named bots, with the 95%
    interval, the anchor, the command and the commit of that measurement."""
    ladder = levels.ladder()
    return {"levels": levels.describe(), "anchor": ladder["anchor"],
            "command": ladder["command"], "commit": ladder.get("commit")}
