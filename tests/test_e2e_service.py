"""End to end: ``mombasa serve`` as a real process on a free port, games over HTTP,
and a restart (after SIGKILL) on the same database in the middle of a game."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.service_process import serving
from tests.test_api_helpers import auth, remember

AI = "mcts:iterations=10"


@contextmanager
def served(db: Path, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client]]:
    """``mombasa serve`` on a free port; yields the process and a client for it."""
    env = {"MOMBASA_WORKERS": "2", "MOMBASA_MAX_BOT_TIME": "2"}
    with serving(db, log, env) as (proc, base), httpx.Client(base_url=base, timeout=30) as http:
        yield proc, http


def _view(http: httpx.Client, gid: str, seat: int | None = 1, wait: float = 20
          ) -> dict[str, Any]:
    """``seat``'s view with its token (None: the spectator's, without one)."""
    if seat is None:
        r = http.get(f"/v1/games/{gid}", params={"wait": wait})
    else:
        r = http.get(f"/v1/games/{gid}", params={"seat": seat, "wait": wait},
                     headers=auth(gid, seat))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _human_step(http: httpx.Client, gid: str, rng: random.Random) -> dict[str, Any]:
    v = _view(http, gid)
    assert v["your_turn"] and not v["ai"]["thinking"], v["decision"]
    choice = rng.choice(v["legal"])
    r = http.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": choice["json"]},
                  headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _finish(http: httpx.Client, gid: str, rng: random.Random) -> dict[str, Any]:
    for _ in range(3000):
        v = _view(http, gid)
        if v["over"]:
            return v
        _human_step(http, gid, rng)
    raise AssertionError("the game did not end")


def test_complete_game_against_the_ai(tmp_path: Path) -> None:
    with served(tmp_path / "games.db", tmp_path / "serve.log") as (_, http):
        assert http.get("/openapi.json").status_code == 200
        assert http.get("/docs").status_code == 200
        r = http.post("/v1/games", json={"seats": [{"kind": "human"},
                                                   {"kind": "ai", "bot": AI}], "seed": 21,
                                         "reproducible": True})
        assert r.status_code == 201, r.text
        gid = remember(r.json())["id"]
        v = _finish(http, gid, random.Random(21))
        assert v["over"] and v["winners"]
        sources = {h["source"] for h in v["history"]}
        assert sources == {"chance", "human", "ai"}
        score = http.get(f"/v1/games/{gid}/score").json()
        assert score["final"] and len(score["score"]) == 2
        # one more analysis on the way out: a mid-game position of another game
        r = http.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}],
                                         "seed": 4, "reproducible": True})
        g2 = remember(r.json())["id"]
        r = http.get(f"/v1/games/{g2}/analysis", params={"iterations": 50},
                     headers=auth(g2, 1))
        assert r.status_code == 200 and r.json()["lines"]


def test_kill_and_restart_mid_game(tmp_path: Path) -> None:
    db, log = tmp_path / "games.db", tmp_path / "serve.log"
    rng = random.Random(5)
    with served(db, log) as (proc, http):
        r = http.post("/v1/games", json={"seats": [{"kind": "human"},
                                                   {"kind": "ai", "bot": AI}], "seed": 5,
                                         "reproducible": True})
        gid = remember(r.json())["id"]
        for _ in range(15):
            _human_step(http, gid, rng)
        before = [_view(http, gid, seat) for seat in (1, None)]
        assert not before[0]["over"], "the game must still be running when the server dies"
        proc.kill()  # SIGKILL: no shutdown, no flush but what was committed
        proc.wait()
    with served(db, log) as (proc, http):
        after = [_view(http, gid, seat, wait=0) for seat in (1, None)]
        assert after == before
        # a step acknowledged just before a kill is kept, whatever the AI was doing
        acked = _human_step(http, gid, rng)
        proc.kill()
        proc.wait()
    with served(db, log) as (_, http):
        v = _view(http, gid)
        kept = v["history"][: acked["steps"]]
        assert len(kept) == len(acked["history"])
        for now, then in zip(kept, acked["history"], strict=True):
            # the same steps (a hidden plan step may have been revealed since)
            assert then["step"] in (None, now["step"]) and then["source"] == now["source"]
        v = _finish(http, gid, rng)
        assert v["over"] and v["winners"]
