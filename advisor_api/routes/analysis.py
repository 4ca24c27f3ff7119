"""``POST /v1/analyse`` and ``POST /v1/analyse/stream``: ranked suggestions for a state
or an observation, answered at once or streamed (:mod:`advisor_api.searches`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from advisor_api import searches
from advisor_api.schemas import AnalyseRequest, AnalyseResponse, errors
from advisor_api.service import ServiceDep

router = APIRouter(tags=["analysis"])


@router.post("/v1/analyse", response_model=AnalyseResponse,
             response_model_exclude_none=True, responses=errors(409, 413, 422, 429, 500, 504))
async def analyse(req: AnalyseRequest, svc: ServiceDep) -> dict[str, Any]:
    """Ranked suggestions for the deciding player of a state (searched on that
    player's observation only) or of an observation."""
    return await searches.analyse(svc, searches.plan(req, svc))


@router.post("/v1/analyse/stream", response_class=StreamingResponse,
             responses={200: {"description": "Server-Sent Events: `lines` (interim "
                                             "answers), then `done` or `error`",
                              "content": {"text/event-stream": {}}},
                        **errors(409, 413, 422, 429)})
async def analyse_stream(req: AnalyseRequest, svc: ServiceDep) -> StreamingResponse:
    """The analysis as Server-Sent Events: the current lines every ~300 ms until the
    limit (event ``done``) or until the client disconnects (the search stops)."""
    return searches.stream_response(svc, searches.plan(req, svc))
