"""The store's guarantees, the same on both databases: every test runs on SQLite (a file)
and on PostgreSQL (a fresh database on the throwaway cluster, marker ``postgres``).

One transaction a write (nothing half-applied), 503 ``storage-busy`` with Retry-After
when another connection holds what a write needs past ``busy_ms``, the version of a
game and the writes that expect one (two replicas never both extend a game from one
position), the AI lease, reviews, catalogues (names case-insensitive, texts kept while
used), expiry, and a whole database copied (``mombasa db migrate``)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from advisor_api.store import GameChanged, NameTaken, NotEmpty, Store, StoreBusy
from advisor_api.store_sql import CATALOGUE_LOCK
from tests import pg

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
DEAL = (0, -1, "deal-card B7 L1", "chance", 0)


@pytest.fixture(params=BACKENDS)
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a store lives: a SQLite file, or a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        yield str(tmp_path / "games.db")
    else:
        with pg.fresh_database() as url:
            yield url


@pytest.fixture
def st(db_path: str) -> Iterator[Store]:
    store = Store(db_path, busy_ms=400)
    yield store
    store.close()


@contextmanager
def holding(path: str, game: str | None = None) -> Iterator[None]:
    """Another connection holding what a write needs: SQLite's write lock; in
    PostgreSQL the game's row (``game``) and the catalogues' advisory lock."""
    if not path.startswith("postgresql"):
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()
        return
    import psycopg

    with psycopg.connect(path, autocommit=True) as other:
        other.execute("BEGIN")
        other.execute("SELECT pg_advisory_xact_lock(%s)", (CATALOGUE_LOCK,))
        if game is not None:
            other.execute("SELECT 1 FROM games WHERE id = %s FOR UPDATE", (game,))
        try:
            yield
        finally:
            other.execute("ROLLBACK")


def test_a_game_round_trips_with_its_version(st: Store) -> None:
    st.create("g", {"players": 2, "seats": ["a", "b"]}, [DEAL])
    assert st.rev("g") == 0 and st.rev("nope") is None
    st.append("g", [(1, 0, "x", "human", 1), (2, 1, "y", "ai", 2)])
    st.truncate("g", 2)
    assert st.set_stopped("g", True) and not st.set_stopped("nope", True)
    snap = st.snapshot("g")
    assert snap is not None and snap.rev == 3
    assert snap.params == {"players": 2, "seats": ["a", "b"], "stopped": True}
    assert snap.rows == [DEAL, (1, 0, "x", "human", 1)]
    assert st.load("g") == (snap.params, snap.rows) and st.games() == ["g"]


def test_a_step_stored_twice_fails_whole(st: Store) -> None:
    st.create("g", {"players": 2}, [DEAL])
    with pytest.raises(st.dialect.error):  # (game, idx) is the key: nothing duplicated
        st.append("g", [(1, 0, "x", "human", 1), (0, 0, "again", "human", 1)])
    assert st.load("g") == ({"players": 2}, [DEAL]) and st.rev("g") == 0  # nothing half-applied


def test_a_write_expecting_a_version_applies_only_at_that_version(st: Store) -> None:
    st.create("g", {"players": 2}, [DEAL])
    with st.expecting(0):
        st.append("g", [(1, 0, "x", "human", 1)])
    with st.expecting(0), pytest.raises(GameChanged) as exc:  # another replica's view
        st.append("g", [(1, 0, "other", "human", 1)])
    assert exc.value.status == 409
    with st.expecting(0), pytest.raises(GameChanged):
        st.truncate("g", 1)
    with st.expecting(7), pytest.raises(GameChanged):
        st.set_stopped("g", True)
    with st.expecting(0), pytest.raises(GameChanged):
        st.append("gone", [DEAL])
    assert st.load("g") == ({"players": 2}, [DEAL, (1, 0, "x", "human", 1)])
    assert st.rev("g") == 1


def test_racing_writers_at_one_version_exactly_one_wins(st: Store) -> None:
    """Threads (as replicas do) extend one game from the same version: one step stored."""
    st.create("g", {"players": 2}, [DEAL])
    won: list[int] = []
    lost: list[int] = []
    start = threading.Barrier(4)

    def writer(k: int) -> None:
        other = Store(st.path, busy_ms=2000)
        try:
            start.wait()
            with other.expecting(0):
                other.append("g", [(1, 0, f"step{k}", "human", 1)])
            won.append(k)
        except GameChanged:
            lost.append(k)
        finally:
            other.close()

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and len(lost) == 3
    loaded = st.load("g")
    assert loaded is not None and loaded[1][1][2] == f"step{won[0]}" and st.rev("g") == 1


def test_the_ai_lease(st: Store) -> None:
    st.create("g", {"players": 2}, [DEAL])
    assert st.take_lease("g", "A", 30) and not st.take_lease("g", "B", 30)
    assert st.take_lease("g", "A", 30)  # kept by its holder
    holder = st.lease("g")
    assert holder is not None and holder[0] == "A" and 25 < holder[1] <= 30
    with st.expecting(0, "B"), pytest.raises(GameChanged):  # fenced: B does not hold it
        st.append("g", [(1, 1, "x", "ai", 1)])
    with st.expecting(0, "A"):
        st.append("g", [(1, 1, "x", "ai", 1)])
    assert st.renew_leases("A", 30) == ["g"] and st.renew_leases("B", 30) == []
    assert st.expired_leases() == []
    st.release_lease("g", "A", handover=True)  # expired at once: another takes it over
    assert st.expired_leases() == ["g"] and st.take_lease("g", "B", 0.2)
    time.sleep(0.3)
    assert st.expired_leases() == ["g"]
    st.release_lease("g", None)  # only an expired one
    assert st.lease("g") is None and st.take_lease("g", "C", 30)
    st.release_lease("g", "B")  # not B's: kept
    assert st.lease("g") is not None
    st.release_lease("g", "C")
    assert st.lease("g") is None


def test_busy_past_the_budget_is_503_and_nothing_is_written(st: Store) -> None:
    st.create("g", {"players": 2}, [DEAL])
    with holding(st.path, "g"):
        t0 = time.monotonic()
        with pytest.raises(StoreBusy) as exc:
            st.append("g", [(1, 0, "x", "human", 1)])
        assert 0.3 <= time.monotonic() - t0 < 10  # waited its budget (400 ms), then gave up
        assert exc.value.status == 503 and exc.value.headers == {"Retry-After": "1"}
        with pytest.raises(StoreBusy):
            st.put_catalogue("Mine", "abc", "{}", {}, False)
        assert st.load("g") == ({"players": 2}, [DEAL])  # reads are not held up
    st.append("g", [(1, 0, "x", "human", 1)])
    assert st.rev("g") == 1 and st.catalogues() == []
    assert st.probe() == "ok"


def test_activity_expiry_and_deletion(st: Store) -> None:
    st.create("g", {"players": 2}, [DEAL])
    st.create("h", {"players": 2})
    st.touch("g", 4e9)
    st.touch("g", 100.0)  # an older note never moves it back
    st.touch("gone", 100.0)  # no such game: nothing
    assert st.last_active("g") == 4e9 and st.last_active("gone") is None
    assert st.idle_games(time.time() + 10) == ["h"]
    assert st.put_review("g", "r1", 5.0, {"budget": 1}, {"flags": []})
    assert not st.put_review("gone", "r1", 5.0, {}, {})
    assert st.reviews("g") == [("r1", 5.0, {"budget": 1})]
    assert st.review("g", "r1") == (5.0, {"budget": 1}, {"flags": []})
    assert st.take_lease("g", "A", 30)
    assert st.delete_game("g") == (True, []) and st.delete_game("g") == (False, [])
    assert st.load("g") is None and st.reviews("g") == [] and st.lease("g") is None
    assert st.counts() == {"catalogue_bodies": 0, "catalogues": 0, "games": 1, "steps": 0,
                           "game_activity": 0, "reviews": 0}


def test_catalogues_by_name_and_their_texts(st: Store) -> None:
    assert st.put_catalogue("Club", "a" * 64, '{"v":1}', {"cards": 1}, False) == (True, [])
    with pytest.raises(NameTaken) as exc:
        st.put_catalogue("CLUB", "b" * 64, '{"v":2}', {}, False)
    assert exc.value.name == "Club"
    st.create("g", {"players": 2, "catalogue": {"name": "Club", "sha256": "a" * 64}})
    # replaced: the new spelling, the old text kept (a game uses it)
    assert st.put_catalogue("club", "b" * 64, '{"v":2}', {"cards": 2}, True) == (False, [])
    row = st.catalogue("CLUB")
    assert row is not None and (row.name, row.sha256, row.games) == ("club", "b" * 64, 0)
    assert [c.name for c in st.catalogues()] == ["club"]
    assert st.catalogue_body("a" * 64) == '{"v":1}'
    assert st.delete_catalogue("Club") == ["b" * 64] and st.delete_catalogue("Club") is None
    assert st.delete_game("g") == (True, ["a" * 64])  # its last user gone
    assert st.catalogue_body("a" * 64) is None


def test_health_says_ok(st: Store) -> None:
    import asyncio

    st._status = ("ok", 0.0, None)  # old: checked again
    health: dict[str, Any] = asyncio.run(st.health())
    assert health["database"] == "ok" and health["database_message"] is None


def test_a_whole_database_is_copied_once(st: Store, tmp_path: Path) -> None:
    source = Store(str(tmp_path / "old.db"))
    source.create("g", {"players": 2, "catalogue": {"name": "C", "sha256": "c" * 64}},
                  [DEAL, (1, 0, "x", "human", 1)])
    source.put_catalogue("C", "c" * 64, "{}", {"n": 1}, False)
    source.touch("g", 123.0)
    source.put_review("g", "r", 1.0, {}, {"ok": True})
    source.set_stopped("g", True)
    st.restore(source.dump())
    assert st.counts() == source.counts() and st.snapshot("g") == source.snapshot("g")
    catalogue = st.catalogue("c")
    assert catalogue is not None and catalogue.games == 1
    with pytest.raises(NotEmpty) as exc:
        st.restore(source.dump())
    assert exc.value.counts["games"] == 1 and st.counts() == source.counts()
    source.close()
