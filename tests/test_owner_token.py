"""A game with no human seat has an owner token (issue 52, point 4): answered once, at
creation; it deletes, stops and resumes the game; a stop is stored (a restart does not
resume the AI) and nothing else changes; the token acts for no seat. A game's AI moves
count as the work of the client that created it."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from advisor_api.access import token_hash
from tests.test_api_helpers import auth, client, new_game

SLOW = "mcts:time=0.3"  # an AI-only game of these lasts minutes: it is stopped first
FAST = "mcts:iterations=10"  # ... of these, about a second
AI_ONLY = [{"kind": "ai", "bot": SLOW}, {"kind": "ai", "bot": SLOW}]
HUMAN_VS_AI = [{"kind": "human"}, {"kind": "ai", "bot": SLOW}]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("owner")) as c:
        yield c


def _bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def _view(api: TestClient, gid: str, token: str | None = None) -> dict[str, Any]:
    r = api.get(f"/v1/games/{gid}", headers=_bearer(token))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _stored_steps(api: TestClient, gid: str) -> int:
    """The game's steps in the database (a connection of the test's own)."""
    path = api.app.state.service.settings.db_path  # type: ignore[attr-defined]
    db = sqlite3.connect(path)
    try:
        return int(db.execute("SELECT COUNT(*) FROM steps WHERE game = ?",
                              (gid,)).fetchone()[0])
    finally:
        db.close()


def _until(check: Callable[[], bool], seconds: float, what: str) -> None:
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, f"not within {seconds} s: {what}"
        time.sleep(0.05)


def _stop(api: TestClient, gid: str, token: str | None, **kw: Any) -> httpx.Response:
    return api.post(f"/v1/games/{gid}/stop", headers=_bearer(token), **kw)


def test_only_a_game_with_no_human_seat_answers_an_owner_token(api: TestClient) -> None:
    g = new_game(api, AI_ONLY)
    owner = g["owner_token"]
    assert isinstance(owner, str) and len(owner) >= 32 and g["tokens"] == {}
    assert new_game(api, HUMAN_VS_AI)["owner_token"] is None
    live = new_game(api, [{"kind": "ai"}, {"kind": "ai"}], mode="live")  # every seat a token
    assert live["owner_token"] is None and set(live["tokens"]) == {"1", "2"}
    # only in the creation answer: the views (anyone's, the owner's own) never show it
    for body in (_view(api, g["id"]), _view(api, g["id"], owner)):
        assert "owner_token" not in body and body["seat"] is None
    _stop(api, g["id"], owner)


def test_no_view_shows_the_owner_token_or_its_hash(api: TestClient) -> None:
    g = new_game(api, AI_ONLY)
    gid, owner = g["id"], g["owner_token"]
    secret = (owner, token_hash(owner))
    answers = [api.get(f"/v1/games/{gid}"), api.get(f"/v1/games/{gid}", headers=_bearer(owner)),
               api.get(f"/v1/games/{gid}/score"), api.get(f"/v1/games/{gid}/catalogue"),
               _stop(api, gid, owner), api.post(f"/v1/games/{gid}/resume",
                                                headers=_bearer(owner)),
               _stop(api, gid, owner)]
    for r in answers:
        assert r.status_code == 200, r.text
        assert not any(s in r.text for s in secret), r.request.url
    with api.stream("GET", f"/v1/games/{gid}/events") as stream:
        first = next(stream.iter_lines())
        assert first.startswith("event:") and not any(s in first for s in secret)
    # kept hashed, as the seat tokens are
    path = api.app.state.service.settings.db_path  # type: ignore[attr-defined]
    db = sqlite3.connect(path)
    try:
        params = json.loads(db.execute("SELECT params FROM games WHERE id = ?",
                                       (gid,)).fetchone()[0])
    finally:
        db.close()
    assert params["owner"] == token_hash(owner) and owner not in json.dumps(params)


def test_the_owner_token_deletes_the_game_and_no_other_does(api: TestClient) -> None:
    g = new_game(api, AI_ONLY)
    gid, owner = g["id"], g["owner_token"]
    other = new_game(api, AI_ONLY)
    r = api.delete(f"/v1/games/{gid}")
    assert r.status_code == 401 and r.json()["field"] == "token"
    assert "owner token" in r.json()["message"] and r.headers["www-authenticate"] == "Bearer"
    for wrong in ("x" * 32, other["owner_token"], owner + "x"):
        r = api.delete(f"/v1/games/{gid}", headers=_bearer(wrong))
        assert r.status_code == 403 and r.json()["error"] == "forbidden"
    assert _view(api, gid)["id"] == gid  # refused: nothing changed
    r = api.delete(f"/v1/games/{gid}", headers=_bearer(owner))
    assert r.status_code == 200 and r.json() == {"id": gid, "deleted": True}
    assert api.get(f"/v1/games/{gid}").status_code == 404
    assert _stored_steps(api, gid) == 0
    _stop(api, other["id"], other["owner_token"])


def test_the_owner_token_acts_for_no_seat(api: TestClient) -> None:
    g = new_game(api, AI_ONLY)
    gid, owner = g["id"], g["owner_token"]
    head = _bearer(owner)
    refused = [
        api.get(f"/v1/games/{gid}", params={"seat": 1}, headers=head),
        api.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": "ready"}, headers=head),
        api.post(f"/v1/games/{gid}/undo", json={}, headers=head),
        api.get(f"/v1/games/{gid}/analysis", params={"seat": 1, "iterations": 10},
                headers=head),
    ]
    for r in refused:
        assert r.status_code == 403, r.text
        assert "owner token" in r.json()["message"]
    _stop(api, gid, owner)


def test_stop_holds_the_ai_at_once_and_across_a_restart(tmp_path: Path) -> None:
    with client(tmp_path) as api:
        g = new_game(api, AI_ONLY)
        gid, owner = g["id"], g["owner_token"]
        _until(lambda: _view(api, gid)["steps"] > g["steps"], 10, "an AI move")
        assert _stop(api, gid, None).status_code == 401
        assert _stop(api, gid, "not-the-token").status_code == 403
        assert not _view(api, gid)["stopped"]  # refused: nothing changed
        start = time.monotonic()
        r = _stop(api, gid, owner)
        took = time.monotonic() - start
        assert r.status_code == 200, r.text
        assert took < 0.5, f"the stop took {took:.2f} s"
        v = r.json()
        assert v["stopped"] and not v["ai"]["thinking"] and v["seat"] is None
        steps = v["steps"]
        assert _stored_steps(api, gid) == steps  # no move stored after the answer
        time.sleep(1.5)  # several of the bots' moves' time
        assert _view(api, gid)["steps"] == steps == _stored_steps(api, gid)
        again = _stop(api, gid, owner)  # stopping a stopped game changes nothing
        assert again.status_code == 200 and again.json()["steps"] == steps
    with client(tmp_path) as api:
        v = _view(api, gid)  # read (which would resume an AI seat to move): stays
        assert v["stopped"] and not v["ai"]["thinking"]
        time.sleep(1.0)
        assert _view(api, gid)["steps"] == steps == _stored_steps(api, gid)
        r = api.post(f"/v1/games/{gid}/resume", headers=_bearer(owner))
        assert r.status_code == 200 and not r.json()["stopped"] and r.json()["ai"]["thinking"]
        _until(lambda: _stored_steps(api, gid) > steps, 10, "the AI moving again")
        assert _stop(api, gid, owner).json()["stopped"]


def test_a_seat_token_stops_and_resumes_a_game_with_human_seats(api: TestClient) -> None:
    g = new_game(api, HUMAN_VS_AI, seed=19, reproducible=True)
    gid = g["id"]
    r = api.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": g["legal"][0]["text"]},
                 headers=auth(gid, 1))
    assert r.status_code == 200 and r.json()["ai"]["thinking"]
    steps = r.json()["steps"]
    r = api.post(f"/v1/games/{gid}/stop", headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["stopped"] and v["seat"] == 1 and not v["ai"]["thinking"]
    assert v["steps"] == steps and not v["your_turn"]
    time.sleep(1.0)
    assert _stored_steps(api, gid) == steps
    r = api.post(f"/v1/games/{gid}/resume", json={}, headers=auth(gid, 1))
    assert r.status_code == 200 and not r.json()["stopped"]
    v = api.get(f"/v1/games/{gid}", params={"wait": 10}, headers=auth(gid, 1)).json()
    assert v["your_turn"] and v["history"][steps]["source"] == "ai"


def test_bad_stops_are_refused_and_change_nothing(api: TestClient) -> None:
    g = new_game(api, AI_ONLY)
    gid, owner = g["id"], g["owner_token"]
    r = _stop(api, gid, owner, json={"now": True})
    assert r.status_code == 422 and r.json()["field"] == "now"
    r = api.post(f"/v1/games/{gid}/stop", content="stop",
                 headers={**_bearer(owner), "Content-Type": "text/plain"})
    assert r.status_code == 415
    assert not _view(api, gid)["stopped"]
    assert _stop(api, "f" * 16, owner).status_code == 404
    assert _stop(api, gid, owner).status_code == 200
    live = new_game(api, [{"kind": "human"}, {"kind": "ai"}], mode="live")
    r = api.post(f"/v1/games/{live['id']}/stop", headers=auth(live["id"], 1))
    assert r.status_code == 409 and "live mode" in r.json()["message"]
    assert not _view(api, live["id"], live["tokens"]["1"])["stopped"]
    done = new_game(api, [{"kind": "ai", "bot": FAST}, {"kind": "ai", "bot": FAST}])
    v = api.get(f"/v1/games/{done['id']}", params={"wait": 30}).json()
    assert v["over"]
    r = _stop(api, done["id"], done["owner_token"])
    assert r.status_code == 409 and "over" in r.json()["message"]
    assert not _view(api, done["id"])["stopped"]


def test_a_games_ai_moves_are_its_creators_work(
        api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    pool = api.app.state.service.pool  # type: ignore[attr-defined]
    real, clients = pool.run, []

    async def run(tasks: Any, limit: float, **kw: Any) -> Any:
        clients.append(kw.get("client"))
        return await real(tasks, limit, **kw)

    monkeypatch.setattr(pool, "run", run)
    g = new_game(api, [{"kind": "ai", "bot": FAST}, {"kind": "ai", "bot": FAST}])
    game = api.app.state.service.games.kept.in_memory[g["id"]]  # type: ignore[attr-defined]
    assert game.client == "testclient"  # TestClient's address: the creator's identity
    api.get(f"/v1/games/{g['id']}", params={"wait": 30})
    assert clients and set(clients) == {"testclient"}
