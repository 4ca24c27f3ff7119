"""Storage of games: creation parameters and every accepted step, in order; and of the
component catalogues saved under a name. In SQLite (a file: the embedded default) or in
PostgreSQL (``postgresql://...``: several service replicas share it); the SQL is written
once, and :mod:`advisor_api.store_sql` holds what differs between the two.

States are deterministic, so a game is stored as its parameters and its steps (player
steps, and chance outcomes whether dealt by the service or reported), and reloaded by
replaying them. Every write is committed before it returns. Every write of a game's
history or parameters adds one to its version (``games.rev``); a write made under
:meth:`Store.expecting` applies only if the game is still at the version its writer
knew (and, for an AI move, if that replica still holds the game's AI lease), else it
raises :class:`GameChanged` and nothing is written: two replicas never both extend a
game from the same position. The version is announced to the other replicas at commit
(PostgreSQL ``NOTIFY``, :data:`advisor_api.store_sql.CHANNEL`).

A catalogue's JSON text is stored once by its SHA-256 (``catalogue_bodies``); a name
(``catalogues``) points at one body, and a game that plays with a stored catalogue names
its body in its parameters (``{"catalogue": {"name": ..., "sha256": ...}}``). A body is
dropped only when no name and no game points at it any more, so a game replays with
exactly its components after its name was replaced or deleted.

Waiting for the database. Every write is one transaction (SQLite: ``BEGIN IMMEDIATE``,
WAL mode, readers never wait for a writer; PostgreSQL: the rows it changes locked, and an
advisory lock for the writes that count a catalogue's users). When another connection
holds what a write needs, the write waits for it at most ``busy_ms``
(``MOMBASA_DB_BUSY_MS``) in all, retrying a few times with a growing pause when the
database refuses at once (SQLite busy or locked; PostgreSQL lock or statement time-out,
serialization failure, deadlock); a retry comes only after the failed attempt was
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
>>> st.rev("g1")
1
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from advisor_api.errors import Conflict, StorageBusy
from advisor_api.store_sql import CATALOGUE_LOCK, SCHEMA_LOCK, Conn, dialect_for

T = TypeVar("T")

#: One stored step: (index, player (0-based, -1 chance), notation, source, group).
Row = tuple[int, int, str, str, int]

#: Every table and its columns, in the order a copy fills them (``mombasa db migrate``);
#: ``ai_leases`` (who drives a game's AI seats now) is not copied.
TABLES: dict[str, tuple[str, ...]] = {
    "catalogue_bodies": ("sha256", "body", "summary", "created"),
    "catalogues": ("name", "sha256", "created", "updated"),
    "games": ("id", "created", "params", "rev"),
    "steps": ("game", "idx", "player", "step", "source", "grp"),
    "game_activity": ("game", "touched"),
    "reviews": ("game", "id", "created", "params", "result"),
}

#: Retries of an operation the database refused at once as busy (within ``busy_ms``).
RETRIES = 3
#: The health check: how long it may wait for the write lock, how long the route waits
#: for it, and how old a known state may be before it is checked again (seconds).
PROBE_TIMEOUT = 0.15
HEALTH_WAIT = 0.2
HEALTH_FRESH = 0.5

#: The conditions of the game writes made under :meth:`Store.expecting`.
_EXPECT: ContextVar[tuple[int, str | None] | None] = ContextVar("mombasa_store_expect",
                                                                default=None)


class StoreBusy(StorageBusy):
    """The database stayed locked by another connection past the busy timeout and the
    retries: nothing was written (503 ``storage-busy``, Retry-After)."""


class GameChanged(Conflict):
    """409: the game is no longer at the version the write expected (another replica of
    the service changed or deleted it meanwhile, or took over its AI seats): nothing was
    written."""

    def __init__(self, game: str) -> None:
        super().__init__(f"game {game!r} changed meanwhile (a request answered by another "
                         "replica of the service): nothing was stored; read the game "
                         "again and send the step again if it still applies", field="id")
        self.game = game


class NameTaken(Exception):
    """A catalogue of that name exists already (names compare case-insensitively)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class NotEmpty(Exception):
    """A copy's target database holds data already (``counts``: rows per table)."""

    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__(counts)
        self.counts = counts


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


@dataclass(frozen=True)
class Snapshot:
    """A game as one read of the database saw it: parameters, steps, version and when
    it was last active (epoch seconds)."""

    params: dict[str, Any]
    rows: list[Row]
    rev: int
    touched: float


class Store:
    """The games database. One connection writes and one reads (the same one for a
    database in memory), each behind its lock, so the methods may be called from any
    thread; a write waits for the database at most ``busy_ms`` milliseconds in all
    (``StoreBusy`` past that). ``path``: a SQLite file, ``:memory:``, or a
    ``postgresql://`` URL (``shared``: several service processes may use it)."""

    def __init__(self, path: str, busy_ms: int = 3000) -> None:
        self.path = path
        self.busy_ms = max(0, int(busy_ms))
        self.dialect = dialect_for(path)
        self.shared = self.dialect.shared
        self._memory = path == ":memory:"
        if not self._memory and not self.shared:
            Path(path).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        self._db = self._connect(self.busy_ms)
        self.dialect.prepare(self._db)
        self._create_schema()
        self._read_db = self._db if self._memory else self._connect(self.busy_ms)
        self._write_lock = threading.Lock()
        self._read_lock = self._write_lock if self._memory else threading.Lock()
        self._local = threading.local()  # when the current off_loop call was made
        # The database's last known state: (ok | busy | error, monotonic time, message).
        self._status: tuple[str, float, str | None] = ("ok", time.monotonic(), None)
        self._probe_db: Conn | None = None
        self._prober = ThreadPoolExecutor(1, thread_name_prefix="mombasa-db-probe")
        self._probe: asyncio.Future[str] | None = None
        self._probe_started = 0.0

    def _connect(self, timeout_ms: int) -> Conn:
        return self.dialect.connect(self.path, timeout_ms)

    def _create_schema(self) -> None:
        """The tables (a database from before a column gets it), in one transaction;
        replicas starting together take turns (an advisory lock)."""
        db = self._db
        self.dialect.begin_write(db)
        try:
            self.dialect.exclusive(db, SCHEMA_LOCK)
            for statement in self.dialect.schema():
                db.execute(statement)
            if not self.dialect.has_column(db, "games", "rev"):
                db.execute("ALTER TABLE games ADD COLUMN rev INTEGER NOT NULL DEFAULT 0")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

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

    @staticmethod
    @contextmanager
    def expecting(rev: int, lease: str | None = None) -> Iterator[None]:
        """Within this block (and the threads :meth:`off_loop` starts from it), a write
        of a game's history or parameters (``append``, ``truncate``, ``set_stopped``)
        applies only if the game is at version ``rev`` and, with ``lease``, if that
        holder still holds the game's AI lease; else :class:`GameChanged`."""
        token = _EXPECT.set((rev, lease))
        try:
            yield
        finally:
            _EXPECT.reset(token)

    # -- games ---------------------------------------------------------------------------
    def create(self, game: str, params: dict[str, Any], rows: Sequence[Row] = ()) -> None:
        """A new game and its first steps (one transaction)."""
        def write(db: Conn) -> None:
            if params.get("catalogue"):  # counted as its text's user from now on
                self.dialect.exclusive(db, CATALOGUE_LOCK)
            db.execute("INSERT INTO games (id, created, params) VALUES (?, ?, ?)",
                       (game, time.time(), json.dumps(params, sort_keys=True)))
            _insert_steps(db, game, rows)
        self._write(write)

    def append(self, game: str, rows: Sequence[Row]) -> None:
        """Add steps (one transaction, committed on return)."""
        def write(db: Conn) -> None:
            self._bump(db, game)
            _insert_steps(db, game, rows)
        if rows:
            self._write(write)

    def truncate(self, game: str, start: int) -> None:
        """Forget the steps from index ``start`` on (undo)."""
        def write(db: Conn) -> None:
            self._bump(db, game)
            db.execute("DELETE FROM steps WHERE game = ? AND idx >= ?", (game, start))
        self._write(write)

    def set_stopped(self, game: str, stopped: bool) -> bool:
        """Store whether a game's AI seats are stopped, as ``stopped`` in its parameters
        (read back by :meth:`load`: a database from before this has no such key, and its
        games read as not stopped). False if there is no such game."""
        def write(db: Conn) -> bool:
            row = db.execute("SELECT params FROM games WHERE id = ?" + self.dialect.for_update,
                             (game,)).fetchone()
            if row is None:
                return False
            self._bump(db, game)
            params = {**json.loads(row[0]), "stopped": bool(stopped)}
            db.execute("UPDATE games SET params = ? WHERE id = ?",
                       (json.dumps(params, sort_keys=True), game))
            return True
        return self._write(write)

    def _bump(self, db: Conn, game: str) -> int:
        """Add one to the game's version (its row locked until the commit), under the
        conditions of :meth:`expecting`; announce it. The new version."""
        sql = "UPDATE games SET rev = rev + 1 WHERE id = ?"
        args: list[Any] = [game]
        expected = _EXPECT.get()
        if expected is not None:
            sql += " AND rev = ?"
            args.append(expected[0])
            if expected[1] is not None:
                sql += " AND EXISTS (SELECT 1 FROM ai_leases WHERE game = ? AND holder = ?)"
                args += [game, expected[1]]
        if db.execute(sql, args).rowcount != 1:
            raise GameChanged(game)
        rev = int(db.execute("SELECT rev FROM games WHERE id = ?", (game,)).fetchone()[0])
        self.dialect.notify(db, f"{game} {rev}")
        return rev

    def load(self, game: str) -> tuple[dict[str, Any], list[Row]] | None:
        """Parameters and steps of a game, None if unknown."""
        snap = self.snapshot(game)
        return None if snap is None else (snap.params, snap.rows)

    def snapshot(self, game: str) -> Snapshot | None:
        """A game's parameters, steps, version and last activity, read in one snapshot;
        None if unknown."""
        def read(db: Conn) -> Snapshot | None:
            self.dialect.begin_snapshot(db)  # one snapshot for every query
            try:
                row = db.execute(
                    "SELECT g.params, g.rev, COALESCE(a.touched, g.created) FROM games g "
                    "LEFT JOIN game_activity a ON a.game = g.id WHERE g.id = ?",
                    (game,)).fetchone()
                if row is None:
                    return None
                steps = db.execute("SELECT idx, player, step, source, grp FROM steps "
                                   "WHERE game = ? ORDER BY idx", (game,)).fetchall()
            finally:
                db.execute("COMMIT")
            return Snapshot(json.loads(row[0]), [tuple(r) for r in steps], int(row[1]),
                            float(row[2]))
        return self._read(read)

    def rev(self, game: str) -> int | None:
        """The game's version (one more at every write of its steps or parameters);
        None if there is no such game."""
        def read(db: Conn) -> int | None:
            row = db.execute("SELECT rev FROM games WHERE id = ?", (game,)).fetchone()
            return None if row is None else int(row[0])
        return self._read(read)

    def games(self) -> list[str]:
        return self._read(lambda db: [r[0] for r in db.execute(
            "SELECT id FROM games ORDER BY created, id")])

    # -- activity and deletion (games.py: DELETE /v1/games/{id}, MOMBASA_GAME_TTL_HOURS) --
    def touch(self, game: str, when: float) -> None:
        """Note activity on a game at ``when`` (epoch seconds): idle games expire."""
        self._write(lambda db: db.execute(
            "INSERT INTO game_activity (game, touched) SELECT ?, ? WHERE EXISTS (SELECT 1 "
            "FROM games WHERE id = ?) ON CONFLICT (game) DO UPDATE SET touched = "
            "excluded.touched WHERE excluded.touched > game_activity.touched",
            (game, when, game)))

    def idle_games(self, before: float) -> list[str]:
        """The games with no activity since ``before`` (epoch seconds; a game never
        touched counts from its creation)."""
        return self._read(lambda db: [r[0] for r in db.execute(
            "SELECT g.id FROM games g LEFT JOIN game_activity a ON a.game = g.id "
            "WHERE COALESCE(a.touched, g.created) < ? ORDER BY g.created", (before,))])

    def last_active(self, game: str) -> float | None:
        """When the game was last active (its creation if never touched); None if unknown."""
        def read(db: Conn) -> float | None:
            row = db.execute(
                "SELECT COALESCE(a.touched, g.created) FROM games g LEFT JOIN game_activity a "
                "ON a.game = g.id WHERE g.id = ?", (game,)).fetchone()
            return None if row is None else float(row[0])
        return self._read(read)

    def delete_game(self, game: str) -> tuple[bool, list[str]]:
        """Forget a game: its steps, reviews, activity and parameters (one transaction). Returns
        (whether it existed, the catalogue bodies dropped with it: a stored catalogue's
        text that no name and no other game uses)."""
        def write(db: Conn) -> tuple[bool, list[str]]:
            self.dialect.exclusive(db, CATALOGUE_LOCK)
            row = db.execute(f"SELECT {self.dialect.json_text('params', 'catalogue', 'sha256')}"
                             " FROM games WHERE id = ?" + self.dialect.for_update,
                             (game,)).fetchone()
            if row is None:
                return False, []
            for table, column in (("steps", "game"), ("reviews", "game"),
                                  ("game_activity", "game"), ("ai_leases", "game"),
                                  ("games", "id")):
                db.execute(f"DELETE FROM {table} WHERE {column} = ?", (game,))
            self.dialect.notify(db, f"{game} deleted")
            return True, self._drop_unused(db, [row[0]]) if row[0] else []
        return self._write(write)

    # -- the AI lease: which replica drives a game's AI seats (advisor_api.replicas) ------
    def take_lease(self, game: str, holder: str, seconds: float) -> bool:
        """Take (or keep) the game's AI lease for ``seconds`` on the database's clock:
        True if ``holder`` has it now (it was free, expired, or its own already)."""
        return self._write(lambda db: db.execute(
            "INSERT INTO ai_leases (game, holder, expires) VALUES (?, ?, "
            f"{self.dialect.now} + ?) ON CONFLICT (game) DO UPDATE SET holder = "
            "excluded.holder, expires = excluded.expires WHERE ai_leases.holder = "
            f"excluded.holder OR ai_leases.expires < {self.dialect.now}",
            (game, holder, seconds)).rowcount == 1)

    def renew_leases(self, holder: str, seconds: float) -> list[str]:
        """Extend every lease ``holder`` holds by ``seconds`` from now; the games whose
        lease it still holds."""
        def write(db: Conn) -> list[str]:
            db.execute(f"UPDATE ai_leases SET expires = {self.dialect.now} + ? "
                       "WHERE holder = ?", (seconds, holder))
            return [r[0] for r in db.execute(
                "SELECT game FROM ai_leases WHERE holder = ? ORDER BY game", (holder,))]
        return self._write(write)

    def release_lease(self, game: str, holder: str | None, handover: bool = False) -> None:
        """Give a lease back (``holder`` None: only if it expired): deleted, or with
        ``handover`` marked expired, so that another replica takes the game's AI seats
        over at once. The other replicas are told."""
        def write(db: Conn) -> None:
            if holder is None:
                db.execute(f"DELETE FROM ai_leases WHERE game = ? AND expires < "
                           f"{self.dialect.now}", (game,))
            elif handover:
                db.execute(f"UPDATE ai_leases SET expires = {self.dialect.now} - 1 "
                           "WHERE game = ? AND holder = ?", (game, holder))
            else:
                db.execute("DELETE FROM ai_leases WHERE game = ? AND holder = ?",
                           (game, holder))
            self.dialect.notify(db, f"{game} lease")
        self._write(write)

    def expired_leases(self) -> list[str]:
        """The games whose AI lease ran out: their driver died or handed them over."""
        return self._read(lambda db: [r[0] for r in db.execute(
            f"SELECT game FROM ai_leases WHERE expires < {self.dialect.now} ORDER BY game")])

    def lease(self, game: str) -> tuple[str, float] | None:
        """Who holds the game's AI lease and for how many more seconds (negative:
        expired); None if nobody."""
        def read(db: Conn) -> tuple[str, float] | None:
            row = db.execute(f"SELECT holder, expires - {self.dialect.now} FROM ai_leases "
                             "WHERE game = ?", (game,)).fetchone()
            return None if row is None else (str(row[0]), float(row[1]))
        return self._read(read)

    # -- reviews (advisor_api.review_jobs: POST /v1/games/{id}/review) ---------------------
    def put_review(self, game: str, review: str, created: float, params: dict[str, Any],
                   result: dict[str, Any]) -> bool:
        """Keep a finished review of a game, begun at ``created`` (epoch seconds), in one
        transaction; False, and nothing written, if the game is gone (deleted while the
        review ran)."""
        def write(db: Conn) -> bool:
            if db.execute("SELECT 1 FROM games WHERE id = ?" + self.dialect.for_share,
                          (game,)).fetchone() is None:
                return False
            db.execute("INSERT INTO reviews (game, id, created, params, result) "
                       "VALUES (?, ?, ?, ?, ?)",
                       (game, review, created, json.dumps(params, sort_keys=True),
                        json.dumps(result, separators=(",", ":"))))
            return True
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
        def read(db: Conn) -> tuple[float, dict[str, Any], dict[str, Any]] | None:
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
        def write(db: Conn) -> tuple[bool, list[str]]:
            self.dialect.exclusive(db, CATALOGUE_LOCK)
            now = time.time()
            old = db.execute("SELECT name, sha256 FROM catalogues WHERE lower(name) = "
                             "lower(?)", (name,)).fetchone()
            if old is not None and not replace:
                raise NameTaken(old[0])
            db.execute(
                "INSERT INTO catalogue_bodies (sha256, body, summary, created) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING",
                (sha256, body, json.dumps(summary, sort_keys=True), now))
            if old is None:
                db.execute("INSERT INTO catalogues (name, sha256, created, updated) "
                           "VALUES (?, ?, ?, ?)", (name, sha256, now, now))
                return True, []
            # A replacement keeps the name's creation time and takes the new spelling.
            db.execute("UPDATE catalogues SET name = ?, sha256 = ?, updated = ? "
                       "WHERE lower(name) = lower(?)", (name, sha256, now, name))
            return False, self._drop_unused(db, [old[1]])
        return self._write(write)

    def catalogue(self, name: str) -> CatalogueRow | None:
        """A stored catalogue by name (case-insensitive), None if there is none."""
        def read(db: Conn) -> CatalogueRow | None:
            row = db.execute(
                "SELECT c.name, c.sha256, b.summary, c.created, c.updated FROM catalogues c "
                "JOIN catalogue_bodies b ON b.sha256 = c.sha256 WHERE lower(c.name) = "
                "lower(?)", (name,)).fetchone()
            return None if row is None else self._catalogue_row(db, row)
        return self._read(read)

    def catalogues(self) -> list[CatalogueRow]:
        """Every stored catalogue, by name."""
        def read(db: Conn) -> list[CatalogueRow]:
            rows = db.execute(
                "SELECT c.name, c.sha256, b.summary, c.created, c.updated FROM catalogues c "
                "JOIN catalogue_bodies b ON b.sha256 = c.sha256 ORDER BY lower(c.name), "
                "c.name").fetchall()
            return [self._catalogue_row(db, r) for r in rows]
        return self._read(read)

    def catalogue_body(self, sha256: str) -> str | None:
        """The JSON text stored under its SHA-256 (a name's or a game's), None if none."""
        def read(db: Conn) -> str | None:
            row = db.execute("SELECT body FROM catalogue_bodies WHERE sha256 = ?",
                             (sha256,)).fetchone()
            return None if row is None else str(row[0])
        return self._read(read)

    def delete_catalogue(self, name: str) -> list[str] | None:
        """Forget a name; None if there was none, else the bodies dropped with it (its
        text, unless a game or another name still uses it)."""
        def write(db: Conn) -> list[str] | None:
            self.dialect.exclusive(db, CATALOGUE_LOCK)
            row = db.execute("SELECT sha256 FROM catalogues WHERE lower(name) = lower(?)",
                             (name,)).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM catalogues WHERE lower(name) = lower(?)", (name,))
            return self._drop_unused(db, [row[0]])
        return self._write(write)

    def _games_using(self, db: Conn, sha256: str) -> int:
        row = db.execute(
            f"SELECT COUNT(*) FROM games WHERE "
            f"{self.dialect.json_text('params', 'catalogue', 'sha256')} = ?",
            (sha256,)).fetchone()
        return int(row[0])

    def _drop_unused(self, db: Conn, shas: list[str]) -> list[str]:
        dropped = []
        for sha in shas:
            named = db.execute("SELECT 1 FROM catalogues WHERE sha256 = ? LIMIT 1",
                               (sha,)).fetchone()
            if named is None and self._games_using(db, sha) == 0:
                db.execute("DELETE FROM catalogue_bodies WHERE sha256 = ?", (sha,))
                dropped.append(sha)
        return dropped

    def _catalogue_row(self, db: Conn, row: Sequence[Any]) -> CatalogueRow:
        name, sha, summary, created, updated = row
        return CatalogueRow(name, sha, json.loads(summary), created, updated,
                            self._games_using(db, sha))

    # -- a whole database (mombasa db migrate) -------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Rows per table (:data:`TABLES`)."""
        return self._read(lambda db: {t: int(db.execute(
            f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in TABLES})

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table of :data:`TABLES`, read in one snapshot."""
        def read(db: Conn) -> dict[str, list[tuple[Any, ...]]]:
            self.dialect.begin_snapshot(db)
            try:
                return {t: [tuple(r) for r in db.execute(
                    f"SELECT {', '.join(cols)} FROM {t} ORDER BY {', '.join(cols[:2])}")]
                    for t, cols in TABLES.items()}
            finally:
                db.execute("COMMIT")
        return self._read(read)

    def restore(self, tables: dict[str, list[tuple[Any, ...]]]) -> None:
        """Fill an empty database with :meth:`dump`'s rows (one transaction); raises
        :class:`NotEmpty` (nothing written) if any table holds a row."""
        def write(db: Conn) -> None:
            self.dialect.exclusive(db, CATALOGUE_LOCK)
            held = {t: int(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
                    for t in TABLES}
            if any(held.values()):
                raise NotEmpty(held)
            for table, cols in TABLES.items():
                if tables.get(table):
                    db.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
                                   f"({', '.join('?' for _ in cols)})", tables[table])
        self._write(write)

    # -- waiting for the database ------------------------------------------------------------
    def _write(self, fn: Callable[[Conn], T]) -> T:
        """``fn`` in one write transaction, committed on return (see the module's doc)."""
        return self._run(self._write_lock, fn, write=True)

    def _read(self, fn: Callable[[Conn], T]) -> T:
        return self._run(self._read_lock, fn, write=False)

    def _conn(self, write: bool) -> Conn:
        """The connection of writes (or reads), connected again if the server dropped it."""
        name = "_db" if write or self._memory else "_read_db"
        db: Conn = getattr(self, name)
        if self.shared and (db.raw.closed or db.raw.broken):
            db = self._connect(self.busy_ms)
            setattr(self, name, db)
        return db

    def _run(self, lock: threading.Lock, fn: Callable[[Conn], T], *, write: bool) -> T:
        called = getattr(self._local, "called", None) or time.monotonic()
        deadline = called + self.busy_ms / 1000
        if not lock.acquire(timeout=max(deadline - time.monotonic(), 0.001)):
            self._note("busy", "this service's own writes queue for the database")
            raise self._busy()
        timeout = self.busy_ms
        try:
            db = self._conn(write)
            for attempt in range(RETRIES + 1):
                left = int((deadline - time.monotonic()) * 1000)
                if left < timeout - 20:  # some of the time went waiting already
                    timeout = max(left, 0)
                    self.dialect.wait_at_most(db, timeout)
                try:
                    result = self._attempt(db, fn) if write else fn(db)
                except self.dialect.operational as exc:
                    if not self.dialect.transient(exc):
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
                self._restore_wait()
            lock.release()

    def _restore_wait(self) -> None:
        try:
            self.dialect.wait_at_most(self._db, self.busy_ms)
            if self._read_db is not self._db:
                self.dialect.wait_at_most(self._read_db, self.busy_ms)
        except self.dialect.error:  # a broken connection: connected again when next used
            pass

    def _attempt(self, db: Conn, fn: Callable[[Conn], T]) -> T:
        """``fn`` in one transaction: committed, or rolled back before the error goes on
        (a retry starts from nothing; if even the rollback fails the error is not
        retried)."""
        self.dialect.begin_write(db)
        try:
            result = fn(db)
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except self.dialect.error as failed:
                    raise self.dialect.error(f"rollback failed ({failed}) after: {exc}") \
                        from exc
            raise
        return result

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
        ``PROBE_TIMEOUT``) on a connection of its own, and give it back at once
        (PostgreSQL: a statement on a writable server). ``ok``, ``busy`` or ``error``;
        remembered for :meth:`health`."""
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
                    self._probe_db = self._connect(int(PROBE_TIMEOUT * 1000))
                self.dialect.probe(self._probe_db)
        except self.dialect.operational as exc:
            self._note("busy" if self.dialect.transient(exc) else "error", str(exc))
            self._drop_probe()
            return self._status[0]
        except self.dialect.error as exc:
            self._note("error", str(exc))
            self._drop_probe()
            return "error"
        self._note("ok")
        return "ok"

    def _drop_probe(self) -> None:
        """A PostgreSQL probe connects afresh next time (the server may have gone)."""
        if self.shared and self._probe_db is not None:
            try:
                self._probe_db.close()
            finally:
                self._probe_db = None

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


def _insert_steps(db: Conn, game: str, rows: Sequence[Row]) -> None:
    # (game, idx) is the primary key: a step stored twice would fail, never duplicate.
    if rows:
        db.executemany("INSERT INTO steps (game, idx, player, step, source, grp) "
                       "VALUES (?, ?, ?, ?, ?, ?)", [(game, *r) for r in rows])
