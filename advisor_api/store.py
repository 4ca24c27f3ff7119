"""SQLite storage of games: creation parameters and every accepted step, in order.

States are deterministic, so a game is stored as its parameters and its steps (player
steps, and chance outcomes whether dealt by the service or reported), and reloaded by
replaying them. Every write is committed before it returns.

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
"""


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

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
