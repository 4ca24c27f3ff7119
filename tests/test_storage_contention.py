"""Storage that waits, then says so (issue 15, item 4): while another connection holds
the database's write lock, a write waits at most ``MOMBASA_DB_BUSY_MS``, then answers
503 ``storage-busy`` with Retry-After and changes nothing; a lock released in time lets
it through; ``/v1/health`` answers at once and says the database is busy; a retried
write is never applied twice."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import engine
from advisor_api.store import RETRIES, Store, StoreBusy
from tests.test_api_helpers import client

BUSY_MS = 800
HUMANS = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("contention"), db_busy_ms=BUSY_MS) as c:
        yield c


def _db(api: TestClient) -> str:
    path: str = api.app.state.service.settings.db_path  # type: ignore[attr-defined]
    return path


@contextmanager
def write_lock(path: str) -> Iterator[sqlite3.Connection]:
    """Another connection holding the database's write lock (BEGIN IMMEDIATE)."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield other
        other.execute("ROLLBACK")
    finally:
        other.close()


#: The seat tokens of each game (seat -> token), when the service gives them.
TOKENS: dict[str, dict[int, str]] = {}


def _auth(gid: str, seat: int) -> dict[str, str]:
    token = TOKENS.get(gid, {}).get(seat)
    return {"Authorization": f"Bearer {token}"} if token else {}


def _game(api: TestClient) -> str:
    r = api.post("/v1/games", json={"seats": HUMANS})
    assert r.status_code == 201, r.text
    gid: str = r.json()["id"]
    TOKENS[gid] = {int(k): v for k, v in (r.json().get("tokens") or {}).items()}
    return gid


def _decider_view(api: TestClient, gid: str) -> dict[str, Any]:
    """The view of the seat whose decision it is (its legal steps)."""
    seat = api.get(f"/v1/games/{gid}").json()["decision"]["seat"]
    r = api.get(f"/v1/games/{gid}", params={"seat": seat}, headers=_auth(gid, seat))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _step(api: TestClient, gid: str, view: dict[str, Any]) -> httpx.Response:
    return api.post(f"/v1/games/{gid}/steps", headers=_auth(gid, view["seat"]),
                    json={"seat": view["seat"], "step": view["legal"][0]["text"]})


def _count(path: str, table: str) -> int:
    with sqlite3.connect(path) as db:
        n: int = db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    return n


def _timed(fn: Any, *args: Any, **kw: Any) -> tuple[Any, float]:
    t0 = time.monotonic()
    out = fn(*args, **kw)
    return out, time.monotonic() - t0


def _busy_answer(r: httpx.Response, elapsed: float) -> None:
    assert r.status_code == 503, r.text
    body = r.json()
    assert body["error"] == "storage-busy" and "MOMBASA_DB_BUSY_MS" in body["message"]
    assert int(r.headers["Retry-After"]) >= 1
    # about the busy timeout: it waited, and not much longer
    # it waited for the lock, then gave up (the upper bound only catches a hang: a loaded
    # machine may take seconds longer)
    assert BUSY_MS / 1000 * 0.8 <= elapsed <= BUSY_MS / 1000 + 15, elapsed


def test_a_step_and_a_new_game_answer_503_and_change_nothing(api: TestClient) -> None:
    path = _db(api)
    gid = _game(api)
    before = _decider_view(api, gid)
    games, steps = _count(path, "games"), _count(path, "steps")
    with write_lock(path):
        r, elapsed = _timed(_step, api, gid, before)
        _busy_answer(r, elapsed)
        r, elapsed = _timed(api.post, "/v1/games", json={"seats": HUMANS})
        _busy_answer(r, elapsed)
        # reads go on meanwhile (WAL), and show the game as it was
        assert _decider_view(api, gid) == before
    assert _decider_view(api, gid) == before
    assert (_count(path, "games"), _count(path, "steps")) == (games, steps)
    # the same step now goes through
    r = _step(api, gid, before)
    assert r.status_code == 200, r.text
    assert r.json()["steps"] > before["steps"]
    assert _count(path, "steps") > steps


def test_saving_a_catalogue_answers_503_and_stores_nothing(api: TestClient) -> None:
    path = _db(api)
    shipped = json.loads(Path(engine.default_catalogue().path).read_text())
    body = {"name": "Busy copy", "catalogue": shipped}
    with write_lock(path):
        r, elapsed = _timed(api.post, "/v1/catalogues", json=body)
        _busy_answer(r, elapsed)
    assert api.get("/v1/catalogues/Busy copy").status_code == 404
    assert api.post("/v1/catalogues", json=body).status_code == 201


def test_health_answers_at_once_and_says_busy(api: TestClient) -> None:
    path = _db(api)
    gid = _game(api)
    view = _decider_view(api, gid)
    answers: list[httpx.Response] = []
    with write_lock(path):
        # a write waiting for the lock must not hold up the event loop
        writer = threading.Thread(target=lambda: answers.append(_step(api, gid, view)))
        writer.start()
        time.sleep(0.1)
        seen = []
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            r, elapsed = _timed(api.get, "/v1/health")
            assert r.status_code == 200 and elapsed < 0.5, elapsed
            seen.append(r.json()["database"])
            if seen[-1] == "busy":
                break
            time.sleep(0.05)
        assert seen[-1] == "busy", seen
        assert r.json()["database_message"]
        writer.join(5)
    assert answers and answers[0].status_code == 503
    # once the lock is gone, health says ok again soon
    deadline = time.monotonic() + 3
    while api.get("/v1/health").json()["database"] != "ok":
        assert time.monotonic() < deadline, "the database stays busy after the lock went"
        time.sleep(0.1)


def test_a_lock_released_in_time_lets_the_request_through(api: TestClient) -> None:
    path = _db(api)
    gid = _game(api)
    view = _decider_view(api, gid)
    taken = threading.Event()

    def hold() -> None:
        with write_lock(path):
            taken.set()
            time.sleep(BUSY_MS / 1000 / 2)

    holder = threading.Thread(target=hold)
    holder.start()
    taken.wait(5)
    r, elapsed = _timed(_step, api, gid, view)
    holder.join()
    assert r.status_code == 200, r.text
    assert elapsed >= BUSY_MS / 1000 / 2 * 0.7  # it did wait for the lock
    r, elapsed = _timed(api.post, "/v1/games", json={"seats": HUMANS})
    assert r.status_code == 201, r.text


# -- the store alone ----------------------------------------------------------------------

class _Flaky:
    """A connection whose chosen statements fail as "database is locked" a few times
    (at once, as SQLite does when it cannot wait), the rest passed on."""

    def __init__(self, db: sqlite3.Connection, sql: str, times: int) -> None:
        self.db, self.sql, self.left = db, sql, times
        self.failed = 0

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == self.sql and self.left > 0:
            self.left -= 1
            self.failed += 1
            raise sqlite3.OperationalError("database is locked")
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def _flaky(store: Store, sql: str, times: int) -> _Flaky:
    flaky = _Flaky(store._db, sql, times)
    store._db = flaky  # type: ignore[assignment]
    return flaky


def test_a_commit_refused_is_rolled_back_then_retried_once(tmp_path: Path) -> None:
    st = Store(str(tmp_path / "s.db"), busy_ms=1000)
    st.create("g", {"players": 2})
    flaky = _flaky(st, "COMMIT", 2)
    st.append("g", [(0, -1, "deal-card B7 L1", "chance", 0), (1, 0, "x", "human", 1)])
    assert flaky.failed == 2
    loaded = st.load("g")
    assert loaded is not None and len(loaded[1]) == 2  # applied exactly once
    st._db = flaky.db
    st.close()


def test_busy_at_once_is_retried_with_backoff_then_503(tmp_path: Path) -> None:
    st = Store(str(tmp_path / "s.db"), busy_ms=2000)
    flaky = _flaky(st, "BEGIN IMMEDIATE", RETRIES)
    st.create("g", {"players": 2})  # refused RETRIES times, then through
    assert flaky.failed == RETRIES and st.load("g") == ({"players": 2}, [])
    flaky.left = RETRIES + 1
    t0 = time.monotonic()
    with pytest.raises(StoreBusy) as exc:
        st.append("g", [(0, -1, "deal-card B7 L1", "chance", 0)])
    assert time.monotonic() - t0 < 1.0  # a few short pauses, not the whole timeout
    assert exc.value.status == 503 and exc.value.headers == {"Retry-After": "2"}
    assert st.load("g") == ({"players": 2}, [])
    st._db = flaky.db
    st.close()


def test_the_store_waits_its_timeout_then_raises(tmp_path: Path) -> None:
    path = str(tmp_path / "s.db")
    st = Store(path, busy_ms=300)
    st.create("g", {"players": 2})
    with write_lock(path):
        t0 = time.monotonic()
        with pytest.raises(StoreBusy):
            st.append("g", [(0, -1, "deal-card B7 L1", "chance", 0)])
        assert 0.25 <= time.monotonic() - t0 < 15  # waited its budget, then gave up
        assert st.load("g") == ({"players": 2}, [])  # reads are not held up (WAL)
        assert st.probe() == "busy"
    assert st.probe() == "ok"
    st.append("g", [(0, -1, "deal-card B7 L1", "chance", 0)])
    st.close()
