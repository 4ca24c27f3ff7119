"""Game records: a whole game as a file (format ``mombasa-game/1``), its replay, and
what one seat may see of it.

A record holds the setup (players, variable setup, the catalogue's fingerprint, the
seed where known), who sat where, and every step in notation with the player who took
it and its source (``human``, ``ai``, ``bot``, ``chance``, ...). Chance outcomes are
steps like any other, so a record replays without its seed. A seat's view of an
unfinished game hides other seats' plans and starting tiles until their reveal and the
starting tiles dealt to others (``"step": null``); such a record shows the game but
cannot be replayed past its first hidden step.

>>> import engine
>>> s = engine.new_game(players=2, seed=3)
>>> rec = GameRecord.new(s, seats=[Seat("human"), Seat("bot", "greedy")])
>>> while s.decision.is_chance:
...     step = s.sample_chance()
...     rec.append(-1, step, "chance")
...     s = s.apply(step)
>>> rec2 = GameRecord.from_json(rec.to_json())
>>> rec2.replay()[-1].decision
Decision('resting-cards', P1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.catalogue import Catalogue, default_catalogue
from engine.rules import IllegalStep
from engine.scoring import score, winners
from engine.setup import new_game
from engine.state import State
from engine.steps import NotationError, Step

FORMAT = "mombasa-game/1"
SEAT_KINDS = ("human", "ai", "bot")
# Steps other seats see only at the reveal that makes them public.
HIDDEN_STEP_KINDS = frozenset({"plan", "tile"})
_SOURCE = re.compile(r"[a-z][a-z-]{0,19}")
_META_KEY = re.compile(r"[a-z][a-z0-9_-]{0,31}")
MAX_STEPS = 20_000  # far above a 4-player game's few thousand
MAX_TEXT = 200


class RecordError(ValueError):
    """A record that cannot be read or replayed. ``field`` names the part that is wrong
    (``steps[12]``, ``players``...); ``index`` is the 0-based step index for a step
    that is illegal where it stands (else None)."""

    def __init__(self, message: str, field: str = "record", index: int | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.index = index


@dataclass(frozen=True)
class Seat:
    """Who sat in a seat: ``kind`` human, ai (the service's AI seat) or bot (an arena
    bot), the bot spec where there is one, and a display name."""

    kind: str
    bot: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class RecordedStep:
    """One step of a record: the 0-based player who took it (-1: chance), the step
    (None: hidden from the record's viewer) and its source."""

    player: int
    step: Step | None
    source: str


@dataclass
class GameRecord:
    """A game from its setup to its last step (see the module's docstring)."""

    players: int
    variable: bool
    catalogue: str  # the fingerprint of the catalogue played (engine.Catalogue.fingerprint)
    seed: int | None
    seats: list[Seat]
    steps: list[RecordedStep] = field(default_factory=list)
    viewer: int | None = None  # 0-based seat whose view this is; None: every step shown
    meta: dict[str, str] = field(default_factory=dict)
    # The result the record claims (``{"totals": [...], "winners": [1-based]}``), where
    # it gives one: :meth:`replay` checks it against the final state.
    result: dict[str, list[int]] | None = None

    # -- building ------------------------------------------------------------------
    @classmethod
    def new(cls, start: State, seats: list[Seat] | None = None, seed: int | None = None,
            meta: dict[str, str] | None = None) -> GameRecord:
        """An empty record of the game that begins at ``start`` (a new game's state)."""
        if start.phase_name != "setup" or start.round != 0:
            raise ValueError("a record begins at a new game's state")
        return cls(players=start.n, variable=start.variable,
                   catalogue=start.cat.fingerprint, seed=seed,
                   seats=list(seats) if seats is not None else [Seat("human")] * start.n,
                   meta=dict(meta or {}))

    def append(self, player: int, step: Step, source: str) -> None:
        """Add a step taken by ``player`` (-1: chance)."""
        self.steps.append(RecordedStep(player, step, source))

    # -- replay --------------------------------------------------------------------
    def start(self, catalogue: Catalogue | None = None) -> State:
        """The game's first state (the record's seed, else 0, for the chance generator
        of whatever follows the record)."""
        cat = catalogue or default_catalogue()
        if cat.fingerprint != self.catalogue:
            raise RecordError(f"catalogue: the record was played with the components "
                              f"{self.catalogue}, this catalogue is {cat.fingerprint}",
                              field="catalogue")
        return new_game(players=self.players, seed=self.seed or 0, variable=self.variable,
                        catalogue=cat)

    def replay(self, catalogue: Catalogue | None = None) -> list[State]:
        """Every state of the game, the first state and one after each step; raises
        :class:`RecordError` naming the first step that is hidden, not the decider's or
        illegal where it stands, and why."""
        states = [self.start(catalogue)]
        s = states[0]
        for i, rec in enumerate(self.steps):
            s = _apply(s, i, rec)
            states.append(s)
        if self.result is not None:
            _check_result(self.result, s)
        return states

    def final_state(self, catalogue: Catalogue | None = None) -> State:
        return self.replay(catalogue)[-1]

    # -- views ---------------------------------------------------------------------
    def seen_by(self, seat: int, states: list[State]) -> GameRecord:
        """This record as ``seat`` (0-based) may see it (``states`` from
        :meth:`replay`): every step, except others' hidden steps and tiles dealt to
        others (:func:`hidden_steps`)."""
        hidden = hidden_steps([(r.player, r.step) for r in self.steps
                              if r.step is not None], states, seat)
        steps = [RecordedStep(r.player, None if h else r.step, r.source)
                 for r, h in zip(self.steps, hidden, strict=True)]
        return GameRecord(self.players, self.variable, self.catalogue, None,
                          list(self.seats), steps, seat, dict(self.meta),
                          self.result if states[-1].is_over() else None)

    # -- JSON ------------------------------------------------------------------------
    def to_json(self, cat: Catalogue | None = None, final: State | None = None
                ) -> dict[str, Any]:
        """The record as JSON (players 1-based, chance ``null``); with ``final``, the
        game's last state, a finished game's ``result`` (totals and winners, 1-based)."""
        cat = cat or default_catalogue()
        out: dict[str, Any] = {
            "format": FORMAT, "players": self.players, "variable": self.variable,
            "catalogue": self.catalogue, "seed": self.seed,
            "seats": [{"kind": st.kind, "bot": st.bot, "name": st.name} for st in self.seats],
            "view": None if self.viewer is None else self.viewer + 1,
            "meta": dict(self.meta),
            "steps": [{"player": None if r.player < 0 else r.player + 1,
                       "step": None if r.step is None else r.step.text(cat),
                       "source": r.source} for r in self.steps],
        }
        if final is not None and final.is_over():
            out["result"] = result_of(final)
        elif self.result is not None:
            out["result"] = self.result
        return out

    @classmethod
    def from_json(cls, obj: Any, cat: Catalogue | None = None) -> GameRecord:
        """A record from its JSON, checked field by field (:class:`RecordError` naming
        the field). The steps are read, not replayed: :meth:`replay` checks them, and
        the ``result`` given with them."""
        return _read(obj, cat or default_catalogue())


def _apply(s: State, i: int, rec: RecordedStep) -> State:
    where = f"steps[{i}]"
    if rec.step is None:
        raise RecordError(f"{where}: the step is hidden (this record is a seat's view): "
                          "the game cannot be replayed past it", field=where, index=i)
    text = rec.step.text(s.cat)
    d = s.decision
    if s.is_over():
        raise RecordError(f"{where}: {text!r}: the game is already over", field=where, index=i)
    if d.is_chance and rec.player >= 0 or not d.is_chance and rec.player < 0:
        who = "chance" if d.is_chance else f"a player ({d.kind})"
        raise RecordError(f"{where}: {text!r}: the decision here is {who}'s, the record "
                          f"says {'chance' if rec.player < 0 else f'P{rec.player + 1}'}",
                          field=where, index=i)
    if rec.player >= 0 and rec.player not in d.deciders:
        raise RecordError(f"{where}: {text!r}: P{rec.player + 1} has no decision here "
                          f"(the decision is {d!r})", field=where, index=i)
    try:
        return s.apply(rec.step, rec.player if rec.player >= 0 else None)
    except IllegalStep as exc:
        raise RecordError(f"{where}: {text!r} is illegal here: {exc}",
                          field=where, index=i) from None


def hidden_steps(steps: list[tuple[int, Step | None]], states: list[State],
                seat: int) -> list[bool]:
    """Which of a game's steps ``seat`` cannot see yet: another seat's plan or tile
    step with no reveal after it (``states[i + 1].revealed`` marks one), and every
    starting tile dealt to another seat (the unchosen go back unseen).

    ``steps`` are (player, step) pairs, ``states`` the states before and after them."""
    out = [False] * len(steps)
    revealed_later = False
    for i in range(len(steps) - 1, -1, -1):
        player, step = steps[i]
        if states[i + 1].revealed:
            revealed_later = True
        if step is None:
            out[i] = True
            continue
        out[i] = ((not revealed_later and step.kind in HIDDEN_STEP_KINDS and player != seat)
                  or (step.kind == "deal-tile" and step.a != seat))
    return out


def result_of(final: State) -> dict[str, list[int]]:
    """A finished game's result as records give it: totals, and winners 1-based."""
    return {"totals": [sc.total for sc in score(final)],
            "winners": [w + 1 for w in winners(final)]}


def _check_result(given: dict[str, list[int]], final: State) -> None:
    if not final.is_over():
        raise RecordError("result: the record gives a result but its steps do not "
                          "finish the game", field="result")
    if given != result_of(final):
        raise RecordError(f"result: the record says {given}, its steps give "
                          f"{result_of(final)}", field="result")


# -- reading ---------------------------------------------------------------------------
_KEYS = {"format", "players", "variable", "catalogue", "seed", "seats", "view", "meta",
         "steps", "result"}
_REQUIRED = {"format", "players", "catalogue", "seats", "steps"}


def _int(v: Any, where: str, lo: int, hi: int, none: bool = False) -> int | None:
    if v is None and none:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise RecordError(f"{where}: expected an integer in [{lo}, {hi}]"
                          f"{' or null' if none else ''}, got {_show(v)}", field=where)
    return v


def _str(v: Any, where: str, none: bool = False) -> str | None:
    if v is None and none:
        return None
    if not isinstance(v, str) or not 0 < len(v) <= MAX_TEXT:
        raise RecordError(f"{where}: expected a string of 1 to {MAX_TEXT} characters"
                          f"{' or null' if none else ''}, got {_show(v)}", field=where)
    return v


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _object(v: Any, where: str, keys: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise RecordError(f"{where}: expected an object, got {_show(v)}", field=where)
    for k in v:
        if k not in keys:
            name = str(k) if where == "record" else f"{where}.{k}"
            raise RecordError(f"{name}: unknown field", field=name)
    for k in sorted(required - set(v)):
        name = k if where == "record" else f"{where}.{k}"
        raise RecordError(f"{name}: missing", field=name)
    return v


def _read(obj: Any, cat: Catalogue) -> GameRecord:
    obj = _object(obj, "record", _KEYS, _REQUIRED)
    if obj["format"] != FORMAT:
        raise RecordError(f"format: expected {FORMAT!r}, got {_show(obj['format'])}",
                          field="format")
    players = _int(obj["players"], "players", 2, 4)
    assert players is not None
    variable = obj.get("variable", False)
    if not isinstance(variable, bool):
        raise RecordError(f"variable: expected true or false, got {_show(variable)}",
                          field="variable")
    fingerprint = _str(obj["catalogue"], "catalogue")
    assert fingerprint is not None
    seed = _int(obj.get("seed"), "seed", 0, (1 << 63) - 1, none=True)
    view = _int(obj.get("view"), "view", 0, players, none=True)  # 0: a spectator's
    seats = _read_seats(obj["seats"], players)
    meta = _read_meta(obj.get("meta", {}))
    steps = _read_steps(obj["steps"], players, cat)
    result = _read_result(obj.get("result"), players)
    if view is None and any(r.step is None for r in steps):
        i = next(k for k, r in enumerate(steps) if r.step is None)
        raise RecordError(f"steps[{i}].step: null (hidden) in a record that is nobody's "
                          "view", field=f"steps[{i}].step", index=i)
    return GameRecord(players, variable, fingerprint, seed, seats, steps,
                      None if view is None else view - 1, meta, result)


def _read_result(v: Any, players: int) -> dict[str, list[int]] | None:
    if v is None:
        return None
    obj = _object(v, "result", {"totals", "winners"}, {"totals", "winners"})
    totals, won = obj["totals"], obj["winners"]
    if not isinstance(totals, list) or len(totals) != players:
        raise RecordError(f"result.totals: expected {players} integers, got {_show(totals)}",
                          field="result.totals")
    for i, x in enumerate(totals):
        _int(x, f"result.totals[{i}]", -10_000, 10_000)
    if not isinstance(won, list) or not 1 <= len(won) <= players:
        raise RecordError(f"result.winners: expected 1 to {players} seats, got {_show(won)}",
                          field="result.winners")
    for i, x in enumerate(won):
        _int(x, f"result.winners[{i}]", 1, players)
    return {"totals": list(totals), "winners": list(won)}


def _read_seats(v: Any, players: int) -> list[Seat]:
    if not isinstance(v, list) or len(v) != players:
        raise RecordError(f"seats: expected a list of {players} seats, got {_show(v)}",
                          field="seats")
    out = []
    for i, raw in enumerate(v):
        where = f"seats[{i}]"
        seat = _object(raw, where, {"kind", "bot", "name"}, {"kind"})
        if seat["kind"] not in SEAT_KINDS:
            raise RecordError(f"{where}.kind: expected one of {', '.join(SEAT_KINDS)}, "
                              f"got {_show(seat['kind'])}", field=f"{where}.kind")
        out.append(Seat(seat["kind"], _str(seat.get("bot"), f"{where}.bot", none=True),
                        _str(seat.get("name"), f"{where}.name", none=True)))
    return out


def _read_meta(v: Any) -> dict[str, str]:
    if not isinstance(v, dict) or len(v) > 32:
        raise RecordError(f"meta: expected an object of at most 32 strings, got {_show(v)}",
                          field="meta")
    for k, x in v.items():
        if not _META_KEY.fullmatch(k):
            raise RecordError(f"meta: {_show(k)} is not a key (lower-case letters, digits, "
                              "- and _)", field="meta")
        _str(x, f"meta.{k}")
    return dict(v)


def _read_steps(v: Any, players: int, cat: Catalogue) -> list[RecordedStep]:
    if not isinstance(v, list) or len(v) > MAX_STEPS:
        raise RecordError(f"steps: expected a list of at most {MAX_STEPS} steps, "
                          f"got {_show(v)}", field="steps")
    out = []
    for i, raw in enumerate(v):
        where = f"steps[{i}]"
        entry = _object(raw, where, {"player", "step", "source"}, {"player", "step", "source"})
        player = _int(entry["player"], f"{where}.player", 1, players, none=True)
        source = entry["source"]
        if not isinstance(source, str) or not _SOURCE.fullmatch(source):
            raise RecordError(f"{where}.source: expected a word such as human, ai, bot or "
                              f"chance, got {_show(source)}", field=f"{where}.source")
        text = _str(entry["step"], f"{where}.step", none=True)
        step = None
        if text is not None:
            try:
                step = Step.parse(text, cat)
            except NotationError as exc:
                raise RecordError(f"{where}.step: {text!r}: {exc}", field=f"{where}.step",
                                  index=i) from None
        out.append(RecordedStep(-1 if player is None else player - 1, step, source))
    return out
