"""The action decision: the menu of actions a player may take on a turn (rulebook: "2.
Action phase": goods, expansion, bookkeeper, diamond merchant, a bonus space, end)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.decision import Decision
from engine.player_board import face_up
from engine.primitives import ACTIONS, Item, bits
from engine.rules.bonus import bonus_steps
from engine.rules.common import _new, subsets
from engine.rules.pending import DECISION, Pending
from engine.steps import Step
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import State


def _legal_act(s: State, item: Item) -> list[Step]:
    player = item[1]
    p = s.players[player]
    t = tables(s.cat)
    up = face_up(p)
    out: list[Step] = []
    for g in range(3):
        m = up & t.goods_mask[g]
        if m:
            out.extend(_new(Step, ("goods", sub, -1, -1)) for sub in subsets(m))
    if up & t.expansion_mask:
        for c, cols in enumerate(s.bases):
            if cols[0] & 7 or cols[1] & 7 or cols[2] & 7:
                out.append(t.step1["expand"][c])
    for c in bits(up & t.keeper_mask):
        out.append(t.step1["keeper"][c])
    for c in bits(up & t.merchant_mask):
        out.append(t.step1["merchant"][c])
    if p.plus1_on < 0 and (p.tiles >> t.plus1_card) & 1 and not (p.used >> t.plus1_card) & 1:
        for c in bits(up & (t.goods_mask[0] | t.goods_mask[1] | t.goods_mask[2])):
            out.append(t.step1["plus1"][c])
    if p.markers > 0:
        out.extend(bonus_steps(s, player, p))
    decks = [d for d, deck in enumerate(p.resting) if deck]
    if decks:
        out.extend(t.step1["end"][d] for d in decks)
    else:
        out.append(_new(Step, ("end", -1, -1, -1)))
    return out


PENDING = (
    Pending("act", DECISION, "action", frozenset({ACTIONS}), first_only=True,
            decision=lambda s, item: Decision("action", item[1])),
)


LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    "act": _legal_act,
}
