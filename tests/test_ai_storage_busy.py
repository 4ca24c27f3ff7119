"""An AI move that meets the database locked past its busy budget (issue 52, point 3):
the move is tried again with a growing pause, the view says it waits, and the game goes
on by itself once the lock is released, every step stored exactly once; an undo or a
deletion meanwhile drops the waiting move."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient

from advisor_api import ai_driver
from advisor_api.ai_driver import AiDriver
from advisor_api.game_model import Game
from advisor_api.game_store import GameStore
from advisor_api.pool import WorkerPool
from advisor_api.store import Row, Store, StoreBusy
from search.bots import RandomBot
from tests.test_api_helpers import auth, client, remember, small_settings

BUSY_MS = 200  # each try waits this long for the database
LOCKED = 1.5  # seconds the other connection holds the write lock: several tries
AI = "mcts:iterations=10"
AI_ONLY = [{"kind": "ai", "bot": AI}, {"kind": "ai", "bot": AI}]
HUMAN_VS_AI = [{"kind": "human"}, {"kind": "ai", "bot": AI}]
WAITS = "waits for the database"


@contextmanager
def write_lock(path: str) -> Iterator[None]:
    """Another connection holding the database's write lock (BEGIN IMMEDIATE)."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def _stored(path: str, gid: str) -> list[Row]:
    """The game's rows as the database has them (a connection of the test's own)."""
    db = sqlite3.connect(path)
    try:
        return [tuple(r) for r in db.execute(  # type: ignore[misc]
            "SELECT idx, player, step, source, grp FROM steps WHERE game = ? ORDER BY idx",
            (gid,))]
    finally:
        db.close()


def _in_memory(game: Game) -> list[Row]:
    """The game's history as rows, as the service keeps it in memory."""
    cat = game.state.cat
    return [(i, r.player, r.step.text(cat), r.source, r.group)
            for i, r in enumerate(game.history)]


def _svc(api: TestClient) -> Any:
    return api.app.state.service  # type: ignore[attr-defined]


def _until(check: Callable[[], bool], seconds: float, what: str) -> float:
    """Poll ``check`` until true (AssertionError naming ``what`` after ``seconds``);
    the seconds it took."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, f"not within {seconds} s: {what}"
        time.sleep(0.02)
    return time.monotonic() - start


def _refuse_ai_writes(api: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """From now on the store refuses, as busy, every write of rows with an AI step (a
    person's steps go through); the times of the refusals."""
    store = _svc(api).store
    real = store.append
    refused: list[float] = []

    def append(game: str, rows: Sequence[Row]) -> None:
        if any(r[3] == "ai" for r in rows):
            refused.append(time.monotonic())
            raise StoreBusy("the database is busy (test)", retry_after=1)
        real(game, rows)

    monkeypatch.setattr(store, "append", append)
    return refused


def test_a_lock_past_the_busy_budget_is_waited_out_and_the_game_goes_on(
        tmp_path: Path) -> None:
    with client(tmp_path, db_busy_ms=BUSY_MS) as api:
        r = api.post("/v1/games", json={"seats": AI_ONLY})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        db = _svc(api).settings.db_path
        with write_lock(db):
            time.sleep(LOCKED)
            held = _stored(db, gid)
            v = api.get(f"/v1/games/{gid}").json()
            # still the AI's task, waiting (not "the AI stopped"), the move not shown
            assert v["ai"]["thinking"] and WAITS in (v["ai"]["error"] or ""), v["ai"]
            assert v["steps"] == len(held) and not v["over"]
        released = time.monotonic()
        # No request from here on: the game must go on by itself.
        took = _until(lambda: len(_stored(db, gid)) > len(held), 5.0,
                      "the AI's move stored after the release")
        assert took < 5.0
        v = api.get(f"/v1/games/{gid}", params={"wait": 60}).json()
        assert v["over"] and not v["ai"]["thinking"] and v["ai"]["error"] is None
        rows = _stored(db, gid)
        assert [row[0] for row in rows] == list(range(len(rows))) == list(range(v["steps"]))
        assert _in_memory(_svc(api).games.kept.in_memory[gid]) == rows
        assert time.monotonic() - released < 60
    with client(tmp_path, db_busy_ms=BUSY_MS) as api:  # replayed: the same game
        again = api.get(f"/v1/games/{gid}").json()
        assert again["history"] == v["history"] and again["steps"] == v["steps"]


def test_the_humans_step_waits_for_the_ai_move_then_the_game_goes_on(
        tmp_path: Path) -> None:
    with client(tmp_path, db_busy_ms=BUSY_MS) as api:
        g = remember(api.post("/v1/games", json={"seats": [
            {"kind": "human"}, {"kind": "ai", "bot": "mcts:time=0.5"}],
            "seed": 19, "reproducible": True}).json())
        gid = g["id"]
        db = _svc(api).settings.db_path
        # the human's step is answered before the lock; the AI's half-second search
        # ends while the lock is held
        r = api.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": g["legal"][0]["text"]},
                     headers=auth(gid, 1))
        assert r.status_code == 200, r.text
        after_human = r.json()["steps"]
        with write_lock(db):
            time.sleep(LOCKED)
            v = api.get(f"/v1/games/{gid}", params={"seat": 1}, headers=auth(gid, 1)).json()
            assert v["ai"]["thinking"] and WAITS in (v["ai"]["error"] or ""), v["ai"]
            assert v["steps"] == after_human and not v["your_turn"]
            r = api.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": "ready"},
                         headers=auth(gid, 1))
            assert r.status_code == 409  # the AI's decision, as before the lock
        _until(lambda: len(_stored(db, gid)) > after_human, 5.0, "the AI's move stored")
        v = api.get(f"/v1/games/{gid}", params={"seat": 1, "wait": 10},
                    headers=auth(gid, 1)).json()
        assert v["your_turn"] and v["ai"]["error"] is None
        assert v["history"][after_human]["source"] == "ai"
        assert _in_memory(_svc(api).games.kept.in_memory[gid]) == _stored(db, gid)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("ai-busy"), db_busy_ms=BUSY_MS) as c:
        yield c


def test_an_undo_while_the_ai_move_waits_drops_that_move(
        api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    g = remember(api.post("/v1/games", json={"seats": HUMAN_VS_AI, "seed": 19,
                                             "reproducible": True}).json())
    gid = g["id"]
    db = _svc(api).settings.db_path
    refused = _refuse_ai_writes(api, monkeypatch)
    r = api.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": g["legal"][0]["text"]},
                 headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    _until(lambda: len(refused) >= 2, 5.0, "the AI's move tried twice")
    r = api.post(f"/v1/games/{gid}/undo", json={}, headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["steps"] == g["steps"] and v["your_turn"] and not v["ai"]["thinking"]
    assert v["ai"]["error"] is None
    monkeypatch.undo()  # the database takes writes again: the dropped move stays dropped
    time.sleep(0.5)
    assert len(_stored(db, gid)) == g["steps"]
    r = api.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": g["legal"][1]["text"]},
                 headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    v = api.get(f"/v1/games/{gid}", params={"seat": 1, "wait": 10},
                headers=auth(gid, 1)).json()
    assert v["your_turn"] and v["history"][g["steps"]]["step"] == g["legal"][1]["text"]
    assert _in_memory(_svc(api).games.kept.in_memory[gid]) == _stored(db, gid)


def test_a_deletion_while_the_ai_move_waits_drops_that_move(
        api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    g = api.post("/v1/games", json={"seats": AI_ONLY}).json()
    gid, owner = g["id"], g["owner_token"]
    db = _svc(api).settings.db_path
    refused = _refuse_ai_writes(api, monkeypatch)
    _until(lambda: len(refused) >= 2, 5.0, "an AI move tried twice")
    r = api.delete(f"/v1/games/{gid}", headers={"Authorization": f"Bearer {owner}"})
    assert r.status_code == 200 and r.json() == {"id": gid, "deleted": True}
    tries = len(refused)
    monkeypatch.undo()
    time.sleep(0.5)
    assert len(refused) == tries and _stored(db, gid) == []
    assert api.get(f"/v1/games/{gid}").status_code == 404


# -- the retry itself, without the pool: a game changed meanwhile drops the move ---------------

def _driver_game(tmp_path: Path, failures: int, *, change: bool = False
                 ) -> tuple[bool, Game, list[Row], list[float], list[Row], list[str | None]]:
    """Create an AI-only game and store a random move of its first AI seat through
    AiDriver._store_move (no search), the first ``failures`` writes refused as busy;
    ``change``: the game changes (its version moves on, as an undo or a person's step at
    a simultaneous decision do) while the move waits. (stored?, the game, its rows
    before, the times of the writes tried, the rows after, the game's ``ai_error`` at
    each write)."""
    store = Store(str(tmp_path / "games.db"), busy_ms=50)
    kept = GameStore(store, small_settings(tmp_path))
    real, tried, notes = store.append, [], []

    def append(game: str, rows: Sequence[Row]) -> None:
        tried.append(time.monotonic())
        notes.append(kept.in_memory[game].ai_error)
        if len(tried) <= failures:
            raise StoreBusy("busy (test)", retry_after=1)
        real(game, rows)

    async def meddle(game: Game) -> None:
        while not tried:
            await asyncio.sleep(0.01)
        async with game.lock:  # taken while the move waits, its lock released
            game.version += 1

    async def run() -> tuple[bool, Game, list[Row]]:
        game, _, _ = await kept.create(AI_ONLY, None, False, "play")
        before = store.load(game.id)
        assert before is not None
        turn = ai_driver._turn(game)
        assert turn is not None
        steps = list(RandomBot(turn.seed).choose(turn.obs).steps)
        driver = AiDriver(kept, cast(WorkerPool, None), kept.settings)
        meddling = asyncio.ensure_future(meddle(game)) if change else None
        stored = await driver._store_move(game, turn, steps)
        if meddling is not None:
            await meddling
        return stored, game, before[1]

    store.append = append  # type: ignore[method-assign]
    try:
        stored, game, before = asyncio.run(run())
        loaded = store.load(game.id)
        assert loaded is not None
        return stored, game, before, tried, loaded[1], notes
    finally:
        store.close()


def test_a_busy_move_is_tried_again_with_a_growing_pause_and_stored_once(
        tmp_path: Path) -> None:
    stored, game, before, tried, after, notes = _driver_game(tmp_path, 3)
    assert stored and len(tried) == 4
    gaps = [b - a for a, b in zip(tried, tried[1:], strict=False)]
    assert gaps[0] >= ai_driver.RETRY_FIRST and gaps[1] >= 2 * ai_driver.RETRY_FIRST
    assert gaps[2] >= 4 * ai_driver.RETRY_FIRST
    assert after[:len(before)] == before and len(after) > len(before)
    assert after == _in_memory(game)
    # the game said so while the move waited, and no more once it was stored
    assert notes[0] is None and all(WAITS in (n or "") for n in notes[1:])
    assert game.ai_error is None


def test_a_game_changed_while_the_move_waits_drops_it(tmp_path: Path) -> None:
    stored, game, before, tried, after, _ = _driver_game(tmp_path, 99, change=True)
    assert not stored and len(tried) == 1
    assert after == before == _in_memory(game) and game.ai_error is None
