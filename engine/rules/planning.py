"""Planning: cards from the hand into the action slots, left to right, hidden until all
reveal (rulebook: "1. Planning phase").

Planning is simultaneous: every seat's ``("plan", seat, last_slot)`` item is queued at
the start of the round, in turn order from the first player, with the reveal after them.
The first of them is the default decider; any other seat still planning may go first
(:func:`engine.rules.decide_as` moves its item to the front), since no seat's plan
depends on another's. ``ready`` ends one seat's planning; the reveal comes when the last
seat is ready."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.decision import Decision
from engine.player_board import available_slots
from engine.primitives import PLANNING, Item, replace_at
from engine.rules.common import _new, replace_top
from engine.rules.pending import DECISION, Pending, seats_deciding
from engine.steps import Step
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import State


def _legal_plan(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    last = item[2]
    out = [_new(Step, ("ready", -1, -1, -1))]
    slots = [k for k in available_slots(s, p) if k > last]
    if slots:
        hand = p.hand & ~tables(s.cat).share_mask
        while hand:
            low = hand & -hand
            c = low.bit_length() - 1
            hand ^= low
            out += [_new(Step, ("plan", c, k, -1)) for k in slots]
    return out


def _ap_plan(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.hand &= ~(1 << step.a)
    p.slots = replace_at(p.slots, step.b, step.a)
    replace_top(s, (("plan", item[1], step.b),))


def _ap_ready(s: State, item: Item, step: Step) -> None:
    s.todo = s.todo[1:]


PENDING = (
    Pending("plan", DECISION, "plan", frozenset({PLANNING}), (("last_slot", "slot"),),
            once_per_seat=True, simultaneous=True,
            decision=lambda s, item: Decision("plan", item[1], slot=item[2],
                                              seats=seats_deciding(s, "plan"))),
)


LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    "plan": _legal_plan,
}


APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "plan": _ap_plan,
    "ready": _ap_ready,
}
