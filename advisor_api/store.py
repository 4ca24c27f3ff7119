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

>>> st = Store(":memory:")
>>> st.create("g1", {"players": 2})
>>> st.append("g1", [(0, -1, "deal-card B7 L1", "chance", 0)])
>>> st.load("g1")
({'players': 2}, [(0, -1, 'deal-card B7 L1', 'chance', 0)])
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
"""


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
    """The games database (one connection, used from the service's event loop)."""

    def __init__(self, path: str) -> None:
        self.path = path
        if path != ":memory:":
            Path(path).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def create(self, game: str, params: dict[str, Any]) -> None:
        with self._tx():
            self._db.execute("INSERT INTO games (id, created, params) VALUES (?, ?, ?)",
                             (game, time.time(), json.dumps(params, sort_keys=True)))

    def append(self, game: str, rows: Sequence[Row]) -> None:
        """Add steps (one transaction, committed on return)."""
        if not rows:
            return
        with self._tx():
            self._db.executemany(
                "INSERT INTO steps (game, idx, player, step, source, grp) "
                "VALUES (?, ?, ?, ?, ?, ?)", [(game, *r) for r in rows])

    def truncate(self, game: str, start: int) -> None:
        """Forget the steps from index ``start`` on (undo)."""
        with self._tx():
            self._db.execute("DELETE FROM steps WHERE game = ? AND idx >= ?", (game, start))

    def load(self, game: str) -> tuple[dict[str, Any], list[Row]] | None:
        """Parameters and steps of a game, None if unknown."""
        row = self._db.execute("SELECT params FROM games WHERE id = ?", (game,)).fetchone()
        if row is None:
            return None
        steps = self._db.execute(
            "SELECT idx, player, step, source, grp FROM steps WHERE game = ? ORDER BY idx",
            (game,)).fetchall()
        return json.loads(row[0]), [tuple(r) for r in steps]

    def games(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM games ORDER BY created")]

    # -- catalogues ------------------------------------------------------------------------
    def put_catalogue(self, name: str, sha256: str, body: str, summary: dict[str, Any],
                      replace: bool) -> tuple[bool, list[str]]:
        """Save ``body`` under ``name`` (one transaction). Returns (created, the bodies
        dropped: the one the name pointed at before, if nothing else uses it). Raises
        ``NameTaken`` if the name exists and ``replace`` is false (nothing is written)."""
        now = time.time()
        with self._tx():
            old = self._db.execute("SELECT name, sha256 FROM catalogues WHERE name = ?",
                                   (name,)).fetchone()
            if old is not None and not replace:
                raise NameTaken(old[0])
            self._db.execute(
                "INSERT OR IGNORE INTO catalogue_bodies (sha256, body, summary, created) "
                "VALUES (?, ?, ?, ?)", (sha256, body, json.dumps(summary, sort_keys=True), now))
            if old is None:
                self._db.execute("INSERT INTO catalogues (name, sha256, created, updated) "
                                 "VALUES (?, ?, ?, ?)", (name, sha256, now, now))
                return True, []
            # A replacement keeps the name's creation time and takes the new spelling.
            self._db.execute("UPDATE catalogues SET name = ?, sha256 = ?, updated = ? "
                             "WHERE name = ?", (name, sha256, now, name))
            return False, self._drop_unused([old[1]])

    def catalogue(self, name: str) -> CatalogueRow | None:
        """A stored catalogue by name (case-insensitive), None if there is none."""
        row = self._db.execute(
            "SELECT c.name, c.sha256, b.summary, c.created, c.updated FROM catalogues c "
            "JOIN catalogue_bodies b ON b.sha256 = c.sha256 WHERE c.name = ?",
            (name,)).fetchone()
        return None if row is None else self._catalogue_row(row)

    def catalogues(self) -> list[CatalogueRow]:
        """Every stored catalogue, by name."""
        rows = self._db.execute(
            "SELECT c.name, c.sha256, b.summary, c.created, c.updated FROM catalogues c "
            "JOIN catalogue_bodies b ON b.sha256 = c.sha256 ORDER BY c.name").fetchall()
        return [self._catalogue_row(r) for r in rows]

    def catalogue_body(self, sha256: str) -> str | None:
        """The JSON text stored under its SHA-256 (a name's or a game's), None if none."""
        row = self._db.execute("SELECT body FROM catalogue_bodies WHERE sha256 = ?",
                               (sha256,)).fetchone()
        return None if row is None else str(row[0])

    def delete_catalogue(self, name: str) -> list[str] | None:
        """Forget a name; None if there was none, else the bodies dropped with it (its
        text, unless a game or another name still uses it)."""
        with self._tx():
            row = self._db.execute("SELECT sha256 FROM catalogues WHERE name = ?",
                                   (name,)).fetchone()
            if row is None:
                return None
            self._db.execute("DELETE FROM catalogues WHERE name = ?", (name,))
            return self._drop_unused([row[0]])

    def games_using(self, sha256: str) -> int:
        """How many games play with the catalogue text ``sha256``."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM games WHERE json_extract(params, '$.catalogue.sha256') = ?",
            (sha256,)).fetchone()
        return int(row[0])

    def _drop_unused(self, shas: list[str]) -> list[str]:
        dropped = []
        for sha in shas:
            named = self._db.execute("SELECT 1 FROM catalogues WHERE sha256 = ? LIMIT 1",
                                     (sha,)).fetchone()
            if named is None and self.games_using(sha) == 0:
                self._db.execute("DELETE FROM catalogue_bodies WHERE sha256 = ?", (sha,))
                dropped.append(sha)
        return dropped

    def _catalogue_row(self, row: Sequence[Any]) -> CatalogueRow:
        name, sha, summary, created, updated = row
        return CatalogueRow(name, sha, json.loads(summary), created, updated,
                            self.games_using(sha))

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
