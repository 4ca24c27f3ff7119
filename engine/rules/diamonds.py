"""Diamond merchants and mines (rulebook: "Use 1 diamond merchant")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.player_board import face_up
from engine.primitives import Item
from engine.rules.common import diamond_steps, replace_top
from engine.steps import Step
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import State


def company_mines(s: State, company: int) -> int:
    mines = tables(s.cat).mines_of_region
    return sum(mines[r] for r, o in enumerate(s.owners) if o == company)


def _ap_merchant(s: State, item: Item, step: Step) -> None:
    player = item[1]
    cat = s.cat
    t = tables(cat)
    card = cat.cards[step.a]
    p = s.player_mut(player)
    if card.letter == "T":
        # The merchant tile: its steps, +1 per other face-up merchant card.
        others = face_up(p) & t.merchant_mask & ~(1 << step.a)
        steps, pounds = card.value + others.bit_count(), 0
    elif card.company < 0:
        steps, pounds = cat.plain_merchant
    else:
        base, pounds, per = cat.company_merchant
        steps = base + company_mines(s, card.company) // per
    p.used |= 1 << step.a
    p.cash += pounds
    diamond_steps(s, player, steps)
    replace_top(s, (("finish", player, True),))


APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "merchant": _ap_merchant,
}
