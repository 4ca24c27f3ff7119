"""Two replicas in one process (two services on one fresh PostgreSQL database, marker
``postgres``): what one replica changes, the other's copy of the game shows at once,
and its AI seats follow: an undo on one cancels the AI move the other was searching, a
stop on one stops the AI the other drives, a deletion on one is a 404 on the other."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests import pg
from tests.test_api_helpers import auth, client, new_game
from tests.test_replicas import _until

pytestmark = pytest.mark.postgres


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[TestClient, TestClient]]:
    with pg.fresh_database() as url, \
            client(tmp_path / "a", db_path=url, ai_lease=1.0, max_bot_time=3.0) as a, \
            client(tmp_path / "b", db_path=url, ai_lease=1.0, max_bot_time=3.0) as b:
        yield a, b


def _view(api: TestClient, gid: str, seat: int | None = 1) -> dict[str, Any]:
    r = api.get(f"/v1/games/{gid}", headers=auth(gid, seat) if seat else {})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_an_undo_on_one_replica_cancels_the_other_ones_ai_move(
        pair: tuple[TestClient, TestClient]) -> None:
    a, b = pair
    g = new_game(a, [{"kind": "human"}, {"kind": "ai", "bot": "mcts:time=2"}], seed=19,
                 reproducible=True)
    gid = g["id"]
    r = a.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": g["legal"][0]["text"]},
               headers=auth(gid, 1))
    assert r.status_code == 200 and r.json()["ai"]["thinking"]  # A drives the AI seat
    assert _view(b, gid)["ai"]["thinking"]  # B follows
    r = b.post(f"/v1/games/{gid}/undo", json={}, headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    v = _view(a, gid)  # A's copy caught up, its search cancelled
    assert v["steps"] == g["steps"] and v["your_turn"] and not v["ai"]["thinking"]
    time.sleep(2.5)  # the cancelled move would have been stored by now
    assert _view(a, gid)["steps"] == _view(b, gid)["steps"] == g["steps"]
    r = b.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": g["legal"][1]["text"]},
               headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    v = _until(lambda: (v := _view(a, gid)) and v["your_turn"] and v, 20, "the AI's reply")
    assert v["history"][g["steps"]]["step"] == g["legal"][1]["text"]
    assert v["history"][-1]["source"] == "ai" and v["history"] == _view(b, gid)["history"]


def test_a_stop_and_a_deletion_on_one_replica_hold_on_the_other(
        pair: tuple[TestClient, TestClient]) -> None:
    a, b = pair
    g = new_game(a, [{"kind": "ai", "bot": "random"}, {"kind": "ai", "bot": "mcts:time=0.5"}])
    gid, owner = g["id"], {"Authorization": f"Bearer {g['owner_token']}"}
    _until(lambda: _view(b, gid, None)["steps"] > g["steps"], 20, "AI moves seen on B")
    r = b.post(f"/v1/games/{gid}/stop", headers=owner)
    assert r.status_code == 200, r.text
    v = _until(lambda: (v := _view(a, gid, None)) and not v["ai"]["thinking"] and v, 10,
               "A's AI stopped")
    assert v["stopped"]
    time.sleep(1.5)
    assert _view(a, gid, None)["steps"] == _view(b, gid, None)["steps"] == v["steps"]
    r = a.post(f"/v1/games/{gid}/resume", headers=owner)
    assert r.status_code == 200, r.text
    _until(lambda: _view(b, gid, None)["steps"] > v["steps"], 20, "AI moves again")
    r = b.delete(f"/v1/games/{gid}", headers=owner)
    assert r.status_code == 200, r.text
    assert a.get(f"/v1/games/{gid}").status_code == 404
