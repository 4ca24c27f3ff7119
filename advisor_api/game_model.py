"""A game in memory: its parameters, every state reached and its history of records.

What the other game modules share (:mod:`advisor_api.games` describes the games):
storage (:mod:`~advisor_api.game_store`), the AI seats
(:mod:`~advisor_api.ai_driver`), the moves of people (:mod:`~advisor_api.game_moves`)
and the views (:mod:`~advisor_api.game_views`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import engine
from advisor_api.store import Row
from engine import IllegalStep, State, Step


@dataclass(frozen=True)
class Record:
    """One step of a game's history."""

    player: int  # 0-based decider, -1 chance
    step: Step
    source: str  # human, ai, chance, report, unseen (tiles dealt to others, live)
    group: int  # submission number (undo removes whole submissions)


class Game:
    """A game in memory: its parameters, every state reached and its history."""

    def __init__(self, gid: str, params: dict[str, Any],
                 catalogue: engine.Catalogue | None = None) -> None:
        self.id = gid
        self.params = params
        self.players: int = params["players"]
        self.seed: int = params["seed"]
        self.variable: bool = params["variable"]
        self.mode: str = params["mode"]
        self.seats: list[dict[str, Any]] = params["seats"]
        # "I am seat N" (1-based): the default seat of views, suggestions and the page.
        self.perspective: int = params.get("perspective") or next(
            (i + 1 for i, st in enumerate(self.seats) if st["kind"] == "human"), 1)
        # The components: a stored catalogue's (params["catalogue"]), else the shipped.
        self.states: list[State] = [engine.new_game(players=self.players, seed=self.seed,
                                                    variable=self.variable,
                                                    catalogue=catalogue)]
        self.history: list[Record] = []
        self.lock = asyncio.Lock()
        self.version = 0
        self.ai_task: asyncio.Task[None] | None = None
        self.ai_error: str | None = None
        # Games from before these settings showed their seed, and had no seat tokens.
        self.reproducible: bool = params.get("reproducible", True)
        humans = sum(1 for st in self.seats if st["kind"] == "human")
        self.takebacks: bool = params.get("takebacks", humans <= 1 or self.mode == "live")
        kept = params.get("tokens")  # seat -> SHA-256 of its token; None: open to all
        self.tokens: dict[int, str] | None = (
            None if kept is None else {int(k): str(v) for k, v in kept.items()})
        # A game with no human seat (play mode): the SHA-256 of its owner token, which
        # stops, resumes and deletes it (access.controller); None for the others.
        owner = params.get("owner")
        self.owner: str | None = None if owner is None else str(owner)
        # Its AI seats stopped (POST .../stop, stored): they do not move, not even after
        # a restart, until POST .../resume.
        self.stopped: bool = bool(params.get("stopped", False))
        # Whose work its AI moves are in the search pool's fair share: the client that
        # created it (limits.CLIENT); "service" for a game loaded from the database.
        self.client = "service"
        self.touched = time.time()  # last activity (epoch seconds)
        self.touch_saved = self.touched  # ... as the database has it
        self.deleted = False
        # Game-event streams (GET .../events): set, and replaced, on every change.
        self._changed = asyncio.Event()
        self.watchers = 0  # event streams open on this game (kept in memory meanwhile)

    def changed(self) -> asyncio.Event:
        """An event set at the next change (a step stored, an undo, the AI starting or
        stopping to think, the game deleted)."""
        return self._changed

    def notify(self) -> None:
        """Wake the game-event streams (after a change is in memory and stored)."""
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def next_group(self) -> int:
        return self.history[-1].group + 1 if self.history else 0

    def is_ai(self, player: int) -> bool:
        return 0 <= player < self.players and self.seats[player]["kind"] == "ai"

    def replay(self, rows: list[Row]) -> None:
        """Apply stored steps (raises IllegalStep / NotationError on a corrupt record)."""
        s = self.state
        cat = s.cat
        for idx, player, text, source, group in rows:
            if idx != len(self.history):
                raise IllegalStep(f"step index {idx} out of order")
            step = Step.parse(text, cat)
            s = s.apply(step, player if player >= 0 else None)
            self.states.append(s)
            self.history.append(Record(player, step, source, group))

    def add(self, records: list[Record], states: list[State]) -> list[Row]:
        """Append records and their states; the rows to store."""
        start = len(self.history)
        cat = self.state.cat
        self.history.extend(records)
        self.states.extend(states)
        self.version += 1
        return [(start + k, r.player, r.step.text(cat), r.source, r.group)
                for k, r in enumerate(records)]
