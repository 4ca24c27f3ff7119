"""SQLite storage of games: creation parameters and every accepted step, in order; and
of the component catalogues saved under a name.

States are deterministic, so a game is stored as its parameters and its steps (player
steps, and chance outcomes whether dealt by the service or reported), and reloaded by
replaying them. Every write is committed before it returns.

A catalogue's JSON text is stored once by its SHA-256 (``catalogue_bodies``); a name
(``catalogues``) points at one body, and a game that plays with a stored catalogue names
its body in its parameters (``{"catalogue": {"name": ..., "sha256": ...}}``). A body is
dropped only when no name and no game points at it any more, so a game replays with
exactly its components after its name was replaced or deleted.

Waiting for the database. The file is in WAL mode (readers never wait for a writer) and
every write is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``). When another
connection holds the write lock, a write waits for it at most ``busy_ms``
(``MOMBASA_DB_BUSY_MS``) in all, retrying a few times with a growing pause when SQLite
answers "busy" or "locked" at once; a retry comes only after the failed attempt was
rolled back, so a write is never applied twice. Past that it raises :class:`StoreBusy`
(503 ``storage-busy`` with Retry-After) and nothing was written. The methods block their
thread while they wait: the service calls them through :meth:`Store.off_loop`, never on
its event loop. :meth:`Store.health` says whether the database takes writes (``ok``,
``busy``, ``error``) without waiting for it more than a fraction of a second.

>>> st = Store(":memory:")
>>> st.create("g1", {"players": 2})
>>> st.append("g1", [(0, -1, "deal-card B7 L1", "chance", 0)])
>>> st.load("g1")
({'players': 2}, [(0, -1, 'deal-card B7 L1', 'chance', 0)])
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from advisor_api.errors import StorageBusy

T = TypeVar("T")

#: One stored step: (index, player (0-based, -1 chance), notation, source, group).
Row = tuple[int, int, str, str, int]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    params TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
    game TEXT NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    player INTEGER NOT NULL,
    step TEXT NOT NULL,
    source TEXT NOT NULL,
    grp INTEGER NOT NULL,
    PRIMARY KEY (game, idx)
);
CREATE TABLE IF NOT EXISTS catalogue_bodies (
    sha256 TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    summary TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS catalogues (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    sha256 TEXT NOT NULL REFERENCES catalogue_bodies(sha256),
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS game_activity (
    game TEXT PRIMARY KEY REFERENCES games(id),
    touched REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS reviews (
    game TEXT NOT NULL REFERENCES games(id),
    id TEXT NOT NULL,
    created REAL NOT NULL,
    params TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (game, id)
);
"""


#: Retries of an operation SQLite refused at once as busy or locked (within ``busy_ms``).
RETRIES = 3
#: The health check: how long it may wait for the write lock, how long the route waits
#: for it, and how old a known state may be before it is checked again (seconds).
PROBE_TIMEOUT = 0.15
HEALTH_WAIT = 0.2
HEALTH_FRESH = 0.5


class StoreBusy(StorageBusy):
    """The database stayed locked by another connection past the busy timeout and the
    retries: nothing was written (503 ``storage-busy``, Retry-After)."""


class NameTaken(Exception):
    """A catalogue of that name exists already (names compare case-insensitively)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


@dataclass(frozen=True)
class CatalogueRow:
    """A stored catalogue: its name, the SHA-256 of its JSON text, the summary of its
    components (JSON), times (epoch seconds) and how many games play with that text."""

    name: str
    sha256: str
    summary: dict[str, Any]
    created: float
    updated: float
    games: int


class Store:
    """The games database. One connection writes and one reads (the same one for a
    database in memory), each behind its lock, so the methods may be called from any
    thread; a write waits for the database at most ``busy_ms`` milliseconds in all
    (``StoreBusy`` past that)."""

    def __init__(self, path: str, busy_ms: int = 3000) -> None:
        self.path = path
        self.busy_ms = max(0, int(busy_ms))
        self._memory = path == ":memory:"
        if not self._memory:
            Path(path).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        self._db = self._connect(self.busy_ms / 1000)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        self._read_db = self._db if self._memory else self._connect(self.busy_ms / 1000)
        self._write_lock = threading.Lock()
        self._read_lock = self._write_lock if self._memory else threading.Lock()
        self._local = threading.local()  # when the current off_loop call was made
        # The database's last known state: (ok | busy | error, monotonic time, message).
        self._status: tuple[str, float, str | None] = ("ok", time.monotonic(), None)
        self._probe_db: sqlite3.Connection | None = None
        self._prober = ThreadPoolExecutor(1, thread_name_prefix="mombasa-db-probe")
        self._probe: asyncio.Future[str] | None = None
        self._probe_started = 0.0

    def _connect(self, timeout: float) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=timeout, check_same_thread=False,
                               isolation_level=None)

    def close(self) -> None:
        self._prober.shutdown(wait=True, cancel_futures=True)
        with self._write_lock:
            if self._read_db is not self._db:
                self._read_db.close()
            self._db.close()
            if self._probe_db is not None:
                self._probe_db.close()

    async def off_loop(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` (a store method, or code calling them) in a thread, so that the
        event loop goes on while it waits for the database; the busy timeout counts from
        this call, time spent waiting for a thread included."""
        called = time.monotonic()

        def run() -> T:
            self._local.called = called
            try:
                return fn(*args)
            finally:
                self._local.called = None

        return await asyncio.to_thread(run)

    # -- games ---------------------------------------------------------------------------
    def create(self, game: str, params: dict[str, Any], rows: Sequence[Row] = ()) -> None:
        """A new game and its first steps (one transaction)."""
        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO games (id, created, params) VALUES (?, ?, ?)",
                       (game, time.time(), json.dumps(params, sort_keys=True)))
            _insert_steps(db, game, rows)
        self._write(write)

    def append(self, game: str, rows: Sequence[Row]) -> None:
        """Add steps (one transaction, committed on return)."""
        if rows:
            self._write(lambda db: _insert_steps(db, game, rows))

    def truncate(self, game: str, start: int) -> None:
        """Forget the steps from index ``start`` on (undo)."""
        self._write(lambda db: db.execute("DELETE FROM steps WHERE game = ? AND idx >= ?",
                                          (game, start)))

    def set_stopped(self, game: str, stopped: bool) -> bool:
        """Store whether a game's AI seats are stopped, as ``stopped`` in its parameters
        (read back by :meth:`load`: a database from before this has no such key, and its
        games read as not stopped). False if there is no such game."""
        def write(db: sqlite3.Connection) -> bool:
            cur = db.execute("UPDATE games SET params = json_set(params, '$.stopped', "
                             "json(?)) WHERE id = ?", (json.dumps(bool(stopped)), game))
            return cur.rowcount > 0
        return self._write(write)

    def load(self, game: str) -> tuple[dict[str, Any], list[Row]] | None:
        """Parameters and steps of a game, None if unknown."""
        def read(db: sqlite3.Connection) -> tuple[dict[str, Any], list[Row]] | None:
            db.execute("BEGIN")  # one snapshot for both queries
            try:
                row = db.execute("SELECT params FROM games WHERE id = ?", (game,)).fetchone()
                if row is None:
                    return None
                steps = db.execute("SELECT idx, player, step, source, grp FROM steps "
                                   "WHERE game = ? ORDER BY idx", (game,)).fetchall()
            finally:
                db.execute("COMMIT")
            return json.loads(row[0]), [tuple(r) for r in steps]
        return self._read(read)

    def games(self) -> list[str]:
        return self._read(lambda db: [r[0] for r in db.execute(
            "SELECT id FROM games ORDER BY created")])

    # -- activity and deletion (games.py: DELETE /v1/games/{id}, MOMBASA_GAME_TTL_HOURS) --
    def touch(self, game: str, when: float) -> None:
        """Note activity on a game at ``when`` (epoch seconds): idle games expire."""
        self._write(lambda db: db.execute(
            "INSERT INTO game_activity (game, touched) VALUES (?, ?) ON CONFLICT(game) "
            "DO UPDATE SET touched = MAX(touched, excluded.touched)", (game, when)))

    def idle_games(self, before: float) -> list[str]:
        """The games with no activity since ``before`` (epoch seconds; a game never
        touched counts from its creation)."""
        return self._read(lambda db: [r[0] for r in db.execute(
            "SELECT g.id FROM games g LEFT JOIN game_activity a ON a.game = g.id "
            "WHERE COALESCE(a.touched, g.created) < ? ORDER BY g.created", (before,))])

    def last_active(self, game: str) -> float | None:
        """When the game was last active (its creation if never touched); None if unknown."""
        def read(db: sqlite3.Connection) -> float | None:
            row = db.execute(
                "SELECT COALESCE(a.touched, g.created) FROM games g LEFT JOIN game_activity a "
                "ON a.game = g.id WHERE g.id = ?", (game,)).fetchone()
            return None if row is None else float(row[0])
        return self._read(read)

    def delete_game(self, game: str) -> tuple[bool, list[str]]:
        """Forget a game: its steps, reviews, activity and parameters (one transaction). Returns
        (whether it existed, the catalogue bodies dropped with it: a stored catalogue's
        text that no name and no other game uses)."""
        def write(db: sqlite3.Connection) -> tuple[bool, list[str]]:
            row = db.execute("SELECT json_extract(params, '$.catalogue.sha256') FROM games "
                             "WHERE id = ?", (game,)).fetchone()
            if row is None:
                return False, []
            db.execute("DELETE FROM steps WHERE game = ?", (game,))
            db.execute("DELETE FROM reviews WHERE game = ?", (game,))
            db.execute("DELETE FROM game_activity WHERE game = ?", (game,))
            db.execute("DELETE FROM games WHERE id = ?", (game,))
            return True, _drop_unused(db, [row[0]]) if row[0] else []
        return self._write(write)

    # -- reviews (advisor_api.review_jobs: POST /v1/games/{id}/review) ---------------------
    def put_review(self, game: str, review: str, created: float, params: dict[str, Any],
                   result: dict[str, Any]) -> bool:
        """Keep a finished review of a game, begun at ``created`` (epoch seconds), in one
        transaction; False, and nothing written, if the game is gone (deleted while the
        review ran)."""
        def write(db: sqlite3.Connection) -> bool:
            cur = db.execute(
                "INSERT INTO reviews (game, id, created, params, result) SELECT ?, ?, ?, ?, ? "
                "WHERE EXISTS (SELECT 1 FROM games WHERE id = ?)",
                (game, review, created, json.dumps(params, sort_keys=True),
                 json.dumps(result, separators=(",", ":")), game))
            return cur.rowcount > 0
        return self._write(write)

    def reviews(self, game: str) -> list[tuple[str, float, dict[str, Any]]]:
        """A game's stored reviews, oldest first: (id, created, parameters)."""
        return self._read(lambda db: [
            (r[0], float(r[1]), json.loads(r[2])) for r in db.execute(
                "SELECT id, created, params FROM reviews WHERE game = ? ORDER BY created, id",
                (game,))])

    def review(self, game: str, review: str
               ) -> tuple[float, dict[str, Any], dict[str, Any]] | None:
        """One stored review: (created, parameters, result), None if there is none."""
        def read(db: sqlite3.Connection) -> tuple[float, dict[str, Any], dict[str, Any]] | None:
            row = db.execute("SELECT created, params, result FROM reviews WHERE game = ? "
                             "AND id = ?", (game, review)).fetchone()
            return None if row is None else (float(row[0]), json.loads(row[1]),
                                              json.loads(row[2]))
        return self._read(read)

    def delete_review(self, game: str, review: str) -> bool:
        """Forget a stored review; False if there was none."""
        return self._write(lambda db: db.execute(
            "DELETE FROM reviews WHERE game = ? AND id = ?", (game, review)).rowcount > 0)

    # -- catalogues ------------------------------------------------------------------------
    def put_catalogue(self, name: str, sha256: str, body: str, summary: dict[str, Any],
                      replace: bool) -> tuple[bool, list[str]]:
        """Save ``body`` under ``name`` (one transaction). Returns (created, the bodies
        dropped: the one the name pointed at before, if nothing else uses it). Raises
        ``NameTaken`` if the name exists and ``replace`` is false (nothing is written)."""
        def write(db: sqlite3.Connection) -> tuple[bool, list[str]]:
            now = time.time()
            old = db.execute("SELECT name, sha256 FROM catalogues WHERE name = ?",
                             (name,)).fetchone()
            if old is not None and not replace:
                raise NameTaken(old[0])
            db.execute(
                "INSERT OR IGNORE INTO catalogue_bodies (sha256, body, summary, created) "
                "VALUES (?, ?, ?, ?)", (sha256, body, json.dumps(summary, sort_keys=True), now))
            if old is None:
                db.execute("INSERT INTO catalogues (name, sha256, created, updated) "
                           "VALUES (?, ?, ?, ?)", (name, sha256, now, now))
                return True, []
            # A replacement keeps the name's creation time and takes the new spelling.
            db.execute("UPDATE catalogues SET name = ?, sha256 = ?, updated = ? "
                       "WHERE name = ?", (name, sha256, now, name))
            return False, _drop_unused(db, [old[1]])
        return self._write(write)

    def catalogue(self, name: str) -> CatalogueRow | None:
        """A stored catalogue by name (case-insensitive), None if there is none."""
        def read(db: sqlite3.Connection) -> CatalogueRow | None:
            row = db.execute(
                "SELECT c.name, c.sha256, b.summary, c.created, c.updated FROM catalogues c "
                "JOIN catalogue_bodies b ON b.sha256 = c.sha256 WHERE c.name = ?",
                (name,)).fetchone()
            return None if row is None else _catalogue_row(db, row)
        return self._read(read)

    def catalogues(self) -> list[CatalogueRow]:
        """Every stored catalogue, by name."""
        def read(db: sqlite3.Connection) -> list[CatalogueRow]:
            rows = db.execute(
                "SELECT c.name, c.sha256, b.summary, c.created, c.updated FROM catalogues c "
                "JOIN catalogue_bodies b ON b.sha256 = c.sha256 ORDER BY c.name").fetchall()
            return [_catalogue_row(db, r) for r in rows]
        return self._read(read)

    def catalogue_body(self, sha256: str) -> str | None:
        """The JSON text stored under its SHA-256 (a name's or a game's), None if none."""
        def read(db: sqlite3.Connection) -> str | None:
            row = db.execute("SELECT body FROM catalogue_bodies WHERE sha256 = ?",
                             (sha256,)).fetchone()
            return None if row is None else str(row[0])
        return self._read(read)

    def delete_catalogue(self, name: str) -> list[str] | None:
        """Forget a name; None if there was none, else the bodies dropped with it (its
        text, unless a game or another name still uses it)."""
        def write(db: sqlite3.Connection) -> list[str] | None:
            row = db.execute("SELECT sha256 FROM catalogues WHERE name = ?",
                             (name,)).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM catalogues WHERE name = ?", (name,))
            return _drop_unused(db, [row[0]])
        return self._write(write)

    # -- waiting for the database ------------------------------------------------------------
    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn`` in one write transaction, committed on return (see the module's doc)."""
        return self._run(self._db, self._write_lock, fn, write=True)

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return self._run(self._read_db, self._read_lock, fn, write=False)

    def _run(self, db: sqlite3.Connection, lock: threading.Lock,
             fn: Callable[[sqlite3.Connection], T], *, write: bool) -> T:
        called = getattr(self._local, "called", None) or time.monotonic()
        deadline = called + self.busy_ms / 1000
        if not lock.acquire(timeout=max(deadline - time.monotonic(), 0.001)):
            self._note("busy", "this service's own writes queue for the database")
            raise self._busy()
        timeout = self.busy_ms
        try:
            for attempt in range(RETRIES + 1):
                left = int((deadline - time.monotonic()) * 1000)
                if left < timeout - 20:  # some of the time went waiting already
                    timeout = max(left, 0)
                    db.execute(f"PRAGMA busy_timeout = {timeout}")
                try:
                    result = _attempt(db, fn) if write else fn(db)
                except sqlite3.OperationalError as exc:
                    if not _transient(exc):
                        self._note("error", str(exc))
                        raise
                    left = int((deadline - time.monotonic()) * 1000)
                    if attempt == RETRIES or left <= 0:
                        self._note("busy", str(exc))
                        raise self._busy() from None
                    # refused at once (not after a wait): pause a little, then again
                    time.sleep(min(left / 1000, 0.01 * 2 ** attempt * random.uniform(1, 2)))
                    continue
                if write:
                    self._note("ok")
                return result
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            if timeout != self.busy_ms:
                db.execute(f"PRAGMA busy_timeout = {self.busy_ms}")
            lock.release()

    def _busy(self) -> StoreBusy:
        wait = self.busy_ms / 1000
        return StoreBusy(f"the database is busy: another connection held it for more than "
                         f"{wait:g} s (MOMBASA_DB_BUSY_MS); nothing was changed, try again",
                         retry_after=max(1, math.ceil(wait)))

    def _note(self, state: str, message: str | None = None) -> None:
        self._status = (state, time.monotonic(), message)

    # -- health ------------------------------------------------------------------------------
    def probe(self) -> str:
        """Whether the database takes writes now: take its write lock (waiting at most
        ``PROBE_TIMEOUT``) on a connection of its own, and give it back at once. ``ok``,
        ``busy`` or ``error``; remembered for :meth:`health`."""
        try:
            if self._memory:
                if not self._write_lock.acquire(timeout=PROBE_TIMEOUT):
                    self._note("busy", "this service's own writes hold the database")
                    return "busy"
                try:
                    self._db.execute("SELECT 1")
                finally:
                    self._write_lock.release()
            else:
                if self._probe_db is None:
                    self._probe_db = self._connect(PROBE_TIMEOUT)
                self._probe_db.execute("BEGIN IMMEDIATE")
                self._probe_db.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            self._note("busy" if _transient(exc) else "error", str(exc))
            return self._status[0]
        except sqlite3.Error as exc:
            self._note("error", str(exc))
            return "error"
        self._note("ok")
        return "ok"

    async def health(self) -> dict[str, Any]:
        """The database's state for ``/v1/health``, never waiting for the database more
        than ``HEALTH_WAIT``: the last one known (a write's outcome or a check), checked
        again (in a thread of its own) when older than ``HEALTH_FRESH``. ``database``:
        ``ok``, ``busy`` (writes wait: another connection holds the lock) or ``error``;
        ``database_checked``: seconds since it was known; ``database_message``: why not
        ok."""
        if time.monotonic() - self._status[1] > HEALTH_FRESH:
            if self._probe is None or self._probe.done():
                self._probe = asyncio.get_running_loop().run_in_executor(self._prober,
                                                                         self.probe)
                self._probe_started = time.monotonic()
            await asyncio.wait({self._probe}, timeout=HEALTH_WAIT)
        state, at, message = self._status
        stuck = time.monotonic() - self._probe_started
        if self._probe is not None and not self._probe.done() and stuck > 1.0:
            state, message = "busy", f"the database has not answered a check for {stuck:.1f} s"
        return {"database": state, "database_checked": round(time.monotonic() - at, 3),
                "database_message": message}


def _attempt(db: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """``fn`` in one transaction: committed, or rolled back before the error goes on (a
    retry starts from nothing; if even the rollback fails the error is not retried)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        result = fn(db)
        db.execute("COMMIT")
    except BaseException as exc:
        if db.in_transaction:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error as failed:
                raise sqlite3.DatabaseError(f"rollback failed ({failed}) after: {exc}") \
                    from exc
        raise
    return result


def _transient(exc: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED (with their extended codes): worth waiting for."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _insert_steps(db: sqlite3.Connection, game: str, rows: Sequence[Row]) -> None:
    # (game, idx) is the primary key: a step stored twice would fail, never duplicate.
    db.executemany("INSERT INTO steps (game, idx, player, step, source, grp) "
                   "VALUES (?, ?, ?, ?, ?, ?)", [(game, *r) for r in rows])


def _games_using(db: sqlite3.Connection, sha256: str) -> int:
    row = db.execute(
        "SELECT COUNT(*) FROM games WHERE json_extract(params, '$.catalogue.sha256') = ?",
        (sha256,)).fetchone()
    return int(row[0])


def _drop_unused(db: sqlite3.Connection, shas: list[str]) -> list[str]:
    dropped = []
    for sha in shas:
        named = db.execute("SELECT 1 FROM catalogues WHERE sha256 = ? LIMIT 1",
                           (sha,)).fetchone()
        if named is None and _games_using(db, sha) == 0:
            db.execute("DELETE FROM catalogue_bodies WHERE sha256 = ?", (sha,))
            dropped.append(sha)
    return dropped


def _catalogue_row(db: sqlite3.Connection, row: Sequence[Any]) -> CatalogueRow:
    name, sha, summary, created, updated = row
    return CatalogueRow(name, sha, json.loads(summary), created, updated,
                        _games_using(db, sha))
