"""The two databases the store runs on, and what differs between them.

:class:`~advisor_api.store.Store` writes its SQL once, in the subset both understand
(``?`` placeholders, ``INSERT ... ON CONFLICT``, standard joins); a dialect supplies the
rest: connecting, the schema's column types, opening a write transaction within a time
budget, which errors mean "the database is busy, wait and try again", reading a field
of a JSON column, the database's clock, and telling the other replicas of the service
that a game changed.

* :class:`Sqlite`: a file (or ``:memory:``), one service process: the embedded default.
  A write transaction is ``BEGIN IMMEDIATE`` (one writer at a time; WAL: readers never
  wait), its budget SQLite's busy timeout; busy or locked errors are worth waiting for.
* :class:`Postgres`: a ``postgresql://`` URL (psycopg 3, the ``postgres`` extra),
  shared by several service processes (``shared``). A write transaction is ``BEGIN``
  with ``lock_timeout`` and ``statement_timeout`` set to the time left; lock time-outs,
  cancelled statements, serialization failures and deadlocks are worth waiting for.
  What SQLite's single writer gives for free is asked for explicitly: a game's row is
  locked by the write that bumps its version (``games.rev``), and the writes that
  count a catalogue text's users hold an advisory lock (:meth:`Dialect.exclusive`).
  A change is announced with ``pg_notify`` on :data:`CHANNEL` inside the transaction,
  so it is heard only once committed.

>>> dialect_for("games.db").name, dialect_for("postgresql://u@h/db").name
('sqlite', 'postgresql')
>>> Sqlite().json_text("params", "catalogue", "sha256")
"json_extract(params, '$.catalogue.sha256')"
>>> Postgres("postgresql://h/db").json_text("params", "catalogue", "sha256")
"(params::jsonb #>> '{catalogue,sha256}')"
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

#: The channel on which the replicas hear about each other's changes (PostgreSQL).
CHANNEL = "mombasa_games"

#: Keys of the advisory locks that serialize some writes across replicas (PostgreSQL).
SCHEMA_LOCK = 0x6D6F6D01
CATALOGUE_LOCK = 0x6D6F6D02

#: The schema, in both dialects: ``{real}`` a double-precision float, ``{nocase}`` the
#: case-insensitive comparison of a catalogue's name (SQLite; PostgreSQL has an index on
#: ``lower(name)`` instead, and the queries compare ``lower()``s).
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created {real} NOT NULL,
    params TEXT NOT NULL,
    rev INTEGER NOT NULL DEFAULT 0
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
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS catalogues (
    name TEXT PRIMARY KEY {nocase},
    sha256 TEXT NOT NULL REFERENCES catalogue_bodies(sha256),
    created {real} NOT NULL,
    updated {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS game_activity (
    game TEXT PRIMARY KEY REFERENCES games(id),
    touched {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS reviews (
    game TEXT NOT NULL REFERENCES games(id),
    id TEXT NOT NULL,
    created {real} NOT NULL,
    params TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (game, id)
);
CREATE TABLE IF NOT EXISTS ai_leases (
    game TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires {real} NOT NULL
)"""


class Conn:
    """One connection, speaking the store's SQL (``?`` placeholders) to its database."""

    def __init__(self, raw: Any, dialect: Dialect) -> None:
        self.raw = raw
        self.dialect = dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.raw.execute(self.dialect.translate(sql), tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.dialect.executemany(self.raw, self.dialect.translate(sql), rows)

    @property
    def in_transaction(self) -> bool:
        return self.dialect.in_transaction(self.raw)

    def close(self) -> None:
        self.raw.close()


class Dialect:
    """What differs between the databases (the SQLite defaults)."""

    name = "sqlite"
    #: Several service processes (replicas) may use the database at once.
    shared = False
    #: The database's own errors, and those of them that may mean "busy".
    error: type[Exception] = sqlite3.Error
    operational: type[Exception] = sqlite3.OperationalError
    #: ``FOR UPDATE`` / ``FOR SHARE`` on a row read in a write (no-ops in SQLite).
    for_update = ""
    for_share = ""
    #: The database's clock, in epoch seconds (leases count on one clock).
    now = "((julianday('now') - 2440587.5) * 86400.0)"

    def translate(self, sql: str) -> str:
        return sql

    def executemany(self, raw: Any, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        raw.executemany(sql, [tuple(r) for r in rows])

    def in_transaction(self, raw: Any) -> bool:
        return bool(raw.in_transaction)

    def schema(self) -> list[str]:
        return [s for s in SCHEMA.format(real="REAL", nocase="COLLATE NOCASE").split(";")]

    def json_text(self, column: str, *keys: str) -> str:
        """SQL for the text of a JSON column's field (the keys, from the top)."""
        return f"json_extract({column}, '$.{'.'.join(keys)}')"

    def has_column(self, conn: Conn, table: str, column: str) -> bool:
        return any(r[1] == column for r in conn.execute(f"PRAGMA table_info({table})"))

    def begin_write(self, conn: Conn) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def begin_snapshot(self, conn: Conn) -> None:
        """Start a read of several queries that see one state of the database."""
        conn.execute("BEGIN")

    def wait_at_most(self, conn: Conn, ms: int) -> None:
        """How long the next statements wait for a lock held by another connection."""
        conn.execute(f"PRAGMA busy_timeout = {max(0, int(ms))}")

    def exclusive(self, conn: Conn, key: int) -> None:
        """Serialize this write transaction with every other one naming ``key``
        (SQLite: every write is serialized already)."""

    def notify(self, conn: Conn, payload: str) -> None:
        """Tell the other replicas (at commit): nothing to tell in SQLite."""

    def transient(self, exc: BaseException) -> bool:
        """SQLITE_BUSY or SQLITE_LOCKED (with their extended codes): worth waiting for."""
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
        text = str(exc).lower()
        return "locked" in text or "busy" in text


class Sqlite(Dialect):
    """SQLite: a file (WAL, ``synchronous=FULL``) or ``:memory:``."""

    def connect(self, path: str, timeout_ms: int) -> Conn:
        raw = sqlite3.connect(path, timeout=timeout_ms / 1000, check_same_thread=False,
                              isolation_level=None)
        return Conn(raw, self)

    def prepare(self, conn: Conn) -> None:
        """The writing connection's settings, before the schema."""
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")

    def probe(self, conn: Conn) -> None:
        """Take the write lock and give it back (raises when the database refuses)."""
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")


#: SQLSTATEs of a wait that ran out or of a transaction the server gave up on: lock not
#: available (lock_timeout), statement cancelled (statement_timeout), serialization
#: failure, deadlock.
_PG_TRANSIENT = frozenset({"55P03", "57014", "40001", "40P01"})


class Postgres(Dialect):
    """PostgreSQL through psycopg 3 (autocommit connections; explicit transactions)."""

    name = "postgresql"
    shared = True
    for_update = " FOR UPDATE"
    for_share = " FOR SHARE"
    now = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"

    def __init__(self, url: str) -> None:
        self.url = url
        psycopg = _psycopg()
        self.error = psycopg.Error
        self.operational = psycopg.OperationalError

    def translate(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def executemany(self, raw: Any, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with raw.cursor() as cur:
            cur.executemany(sql, [tuple(r) for r in rows])

    def in_transaction(self, raw: Any) -> bool:
        psycopg = _psycopg()
        return bool(raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE)

    def schema(self) -> list[str]:
        return [*SCHEMA.format(real="DOUBLE PRECISION", nocase="").split(";"),
                "CREATE UNIQUE INDEX IF NOT EXISTS catalogues_name_nocase "
                "ON catalogues (lower(name))"]

    def json_text(self, column: str, *keys: str) -> str:
        return f"({column}::jsonb #>> '{{{','.join(keys)}}}')"

    def has_column(self, conn: Conn, table: str, column: str) -> bool:
        return conn.execute("SELECT 1 FROM information_schema.columns WHERE table_name = ? "
                            "AND column_name = ? AND table_schema = current_schema()",
                            (table, column)).fetchone() is not None

    def connect(self, path: str, timeout_ms: int) -> Conn:
        psycopg = _psycopg()
        raw = psycopg.connect(path, autocommit=True,
                              connect_timeout=max(2, int(timeout_ms / 1000) + 1),
                              application_name="mombasa")
        conn = Conn(raw, self)
        self.wait_at_most(conn, timeout_ms)
        return conn

    def prepare(self, conn: Conn) -> None:
        pass

    def probe(self, conn: Conn) -> None:
        """A statement, and a writable server (not a standby in recovery)."""
        row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
        if row is None or row[0]:
            raise self.error("the PostgreSQL server is a standby in recovery: read-only")

    def begin_write(self, conn: Conn) -> None:
        conn.execute("BEGIN")

    def begin_snapshot(self, conn: Conn) -> None:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def wait_at_most(self, conn: Conn, ms: int) -> None:
        ms = max(1, int(ms))  # 0 would mean "no limit"
        conn.execute(f"SET lock_timeout = {ms}")
        conn.execute(f"SET statement_timeout = {ms}")

    def exclusive(self, conn: Conn, key: int) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(?)", (key,))

    def notify(self, conn: Conn, payload: str) -> None:
        conn.execute("SELECT pg_notify(?, ?)", (CHANNEL, payload))

    def transient(self, exc: BaseException) -> bool:
        return getattr(exc, "sqlstate", None) in _PG_TRANSIENT

    def listen(self, deliver: Callable[[str], None], stop: threading.Event,
               timeout: float = 1.0) -> None:
        """Hear the replicas' announcements until ``stop`` is set: ``deliver`` gets each
        payload, and ``"*"`` after (re)connecting (what was said meanwhile is lost: read
        everything again). Runs in a thread of its own; reconnects after a failure."""
        psycopg = _psycopg()
        pause = 0.2
        while not stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True,
                                     application_name="mombasa-listen") as raw:
                    raw.execute(f"LISTEN {CHANNEL}")
                    deliver("*")
                    pause = 0.2
                    while not stop.is_set():
                        for note in raw.notifies(timeout=timeout):
                            deliver(note.payload)
            except psycopg.Error:
                stop.wait(pause)
                pause = min(pause * 2, 5.0)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the extra is missing
        raise ValueError("a postgresql:// database needs psycopg 3: pip install "
                         "'mombasa-advisor[postgres]' (or 'psycopg[binary]')") from None
    return psycopg


_URL = re.compile(r"^postgres(ql)?://", re.IGNORECASE)


def is_url(path: str) -> bool:
    """Whether ``path`` names a PostgreSQL database rather than a SQLite file."""
    return bool(_URL.match(path))


def dialect_for(path: str) -> Sqlite | Postgres:
    """The dialect of a database: ``postgresql://...`` (or ``postgres://``), else a
    SQLite file."""
    return Postgres(path) if is_url(path) else Sqlite()


def shown(path: str) -> str:
    """A database's name as printed: a URL without its password.

    >>> shown("postgresql://ann:secret@db.example/games")
    'postgresql://ann:***@db.example/games'
    """
    return re.sub(r"^(postgres(?:ql)?://[^:/@]*):[^@/]*@", r"\1:***@", path,
                  flags=re.IGNORECASE)
