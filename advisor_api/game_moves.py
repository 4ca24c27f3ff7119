"""The moves of people: a step or a whole move read from notation or JSON, checked
against whose turn it is, and applied all or nothing (409 naming the step); a suggested
line played up to what the seat has not seen yet (:class:`Line`); a chance outcome
reported at a live table. In memory only: the rows returned are for
:meth:`GameStore.commit <advisor_api.game_store.GameStore.commit>` to store.

Nothing plays past what the seat has seen (``engine.playable_prefix``, the one rule): a
whole move that goes on after the reveal of the plans is refused (409 naming the step);
a line is played up to the reveal, a deal or another seat's decision, and no further."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import engine
from advisor_api.analysis import player_name
from advisor_api.errors import Conflict, InvalidInput
from advisor_api.game_model import Game, Record
from advisor_api.game_store import deal
from advisor_api.game_views import deciders_text
from advisor_api.store import Row
from engine import IllegalStep, Move, NotationError, State, Step


def parse_step(value: Any, state: State, field: str) -> Step:
    """A step from notation or JSON; 422 naming the field if it does not parse."""
    try:
        if isinstance(value, str):
            return Step.parse(value, state.cat)
        return Step.from_json(value, state.cat)
    except NotationError as exc:
        raise InvalidInput(f"{field}: {exc}", field=field) from None


def parse_move(value: Any, seat: int, state: State) -> list[Step]:
    """A move (notation, move JSON or a list of steps) as its steps."""
    try:
        if isinstance(value, str):
            return list(Move.parse(seat - 1, value, state.cat).steps)
        if isinstance(value, dict):
            move = Move.from_json(value, state.cat)
            if move.player != seat - 1:
                raise InvalidInput(f"move.player: the move is P{move.player + 1}'s, the "
                                   f"request is for seat {seat}", field="move.player")
            return list(move.steps)
    except NotationError as exc:
        raise InvalidInput(f"move: {exc}", field="move") from None
    if not value:
        raise InvalidInput("move: expected at least one step", field="move")
    return [parse_step(v, state, f"move[{i}]") for i, v in enumerate(value)]


def check_turn(game: Game, seat: int, *, ai: bool = False) -> None:
    """422 for a seat the game does not have; 409 unless ``seat`` may decide now (not
    over, no chance pending, one of the deciders, not an AI seat unless ``ai``)."""
    s = game.state
    if not 1 <= seat <= game.players:
        raise InvalidInput(f"seat: this game has seats 1-{game.players}, got {seat}",
                           field="seat")
    if s.is_over():
        raise Conflict("the game is over", field="seat")
    d = s.decision
    if d.kind == "chance":
        raise Conflict("chance event pending: report the outcome (POST .../chance)",
                       field="seat")
    if seat - 1 not in d.deciders:
        raise Conflict(f"not seat {seat}'s decision: the decision ({d.kind}) is "
                       f"{deciders_text(d)}", field="seat")
    if game.mode == "play" and game.is_ai(seat - 1) and not ai:
        raise Conflict(f"seat {seat} is an AI seat: it moves by itself", field="seat")


@dataclass
class Line:
    """A move as ``POST .../moves`` posts it: with ``partial`` (a suggested line), played
    up to the first new information or another seat's decision, complete or not; else
    whole or not at all. :func:`submission` sets ``played`` (the steps played) and
    ``stop`` (what follows them: ``engine.playable_prefix``'s reason; None: the seat
    decides on)."""

    raw: Any
    partial: bool = False
    played: int = 0
    stop: str | None = None


# What a seat sees when a line stops at new information, for the 409 of a whole move.
NEW_INFORMATION = {"reveal": "the plans (or starting tiles) are revealed"}


def submission(game: Game, seat: int, raw: Any, whole_move: bool) -> list[Row]:
    """A person's step, or whole move or suggested line (``raw`` a :class:`Line`; live
    mode: any player's, reported), checked and applied in memory; the rows to store."""
    check_turn(game, seat)
    line = raw if isinstance(raw, Line) else Line(raw)
    if whole_move:
        steps = parse_move(line.raw, seat, game.state)
    else:
        steps = [parse_step(line.raw, game.state, "step")]
    played, why = engine.playable_prefix(game.state, seat - 1, steps)
    if line.partial:
        if why == "illegal":  # 409 naming the step, nothing played
            _apply_steps(game.state, seat - 1, steps[:played + 1], True)
        steps = steps[:played]
    elif why in NEW_INFORMATION and played < len(steps):
        raise Conflict(f"steps[{played}]: the move goes on past new information: "
                       f"{NEW_INFORMATION[why]} after steps[{played - 1}]; end the move "
                       "there and send the rest once seen (or post it with partial: "
                       "true)", field="move")
    source = "human" if game.mode == "play" else "report"
    rows = play(game, seat, steps, source, whole_move and not line.partial)
    line.played, line.stop = len(steps), why
    return rows


def play(game: Game, seat: int, steps: list[Step], source: str,
         whole_move: bool) -> list[Row]:
    """Apply a submission atomically (409 naming the step if one is illegal): its
    steps, then the chance events the service settles after it; the rows to store."""
    states = _apply_steps(game.state, seat - 1, steps, whole_move)
    if whole_move:
        _check_move_complete(states[-1] if states else game.state, seat - 1)
    group = game.next_group
    rows = game.add([Record(seat - 1, st, source, group) for st in steps], states)
    return rows + deal(game)


def _apply_steps(s: State, me: int, steps: list[Step], whole_move: bool) -> list[State]:
    """The states after each step of player ``me`` from ``s`` (409 at the first step
    that is illegal, or that comes after ``me``'s turn ended)."""
    states: list[State] = []
    for i, step in enumerate(steps):
        where = f"steps[{i}]: " if whole_move else ""
        d = s.decision
        if s.is_over() or me not in d.deciders:
            who = "nobody's (the game is over)" if s.is_over() else deciders_text(d)
            raise Conflict(f"{where}the move goes on after the turn ended (the "
                           f"decision is {who})", field="move")
        try:
            # Planning and the starting tile: any seat still deciding may go first.
            s = s.apply(step, me)
        except IllegalStep as exc:
            raise Conflict(f"{where}{exc}", field="move" if whole_move else "step") from None
        states.append(s)
    return states


def _check_move_complete(s: State, me: int) -> None:
    """409 if a whole move of ``me`` stops before its turn ends: the rule of
    engine.apply_move (Decision.starts_turn), on the state reached."""
    d = s.decision
    if not s.is_over() and d.player == me and not d.starts_turn:
        raise Conflict(f"move incomplete: {player_name(me)} still has to decide "
                       f"{d.kind!r} (send the rest, or use /steps)", field="move")


def chance_report(game: Game, raw: Any) -> list[Row]:
    """Live mode: the outcome of the pending chance event, as seen at the table,
    applied in memory with the chance events the service settles after it; the rows to
    store (409 in play mode, when over, when no chance event is pending, or for an
    outcome that cannot be)."""
    if game.mode != "live":
        raise Conflict("this game is in play mode: the service deals chance itself",
                       field="step")
    s = game.state
    if s.is_over():
        raise Conflict("the game is over", field="step")
    if s.decision.kind != "chance":
        raise Conflict(f"no chance event is pending (the decision is "
                       f"{s.decision.kind} of {player_name(s.decision.player)})",
                       field="step")
    step = parse_step(raw, s, "step")
    try:
        new = s.apply(step)
    except IllegalStep as exc:
        raise Conflict(str(exc), field="step") from None
    rows = game.add([Record(-1, step, "report", game.next_group)], [new])
    return rows + deal(game)

