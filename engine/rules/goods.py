"""Goods: using goods cards, buying a display card, moving on the company tracks
(rulebook: "Use goods cards")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.decision import Decision
from engine.player_board import card_price, display_prices
from engine.primitives import ACTIONS, SETUP, Item, bits, replace_at
from engine.rules.common import _new, replace_top, track_step
from engine.rules.pending import DECISION, THEN, Pending
from engine.steps import Step
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import PlayerState, State


def _legal_buy(s: State, item: Item) -> list[Step]:
    units = item[2]
    out = [_new(Step, ("nobuy", -1, -1, -1))]
    for d, price in enumerate(display_prices(s)):
        if 0 <= price <= units:
            out.append(_new(Step, ("buy", d, -1, -1)))
    return out


def _can_step(s: State, p: PlayerState, company: int) -> bool:
    track = s.cat.tracks[s.tracks[company]]
    pos = p.track[company]
    return pos == track.last or track.spaces[pos + 1].capital <= p.cash


def _legal_alloc(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    return [_new(Step, ("unit", c, -1, -1)) for c in range(4) if _can_step(s, p, c)]


def _ap_goods(s: State, item: Item, step: Step) -> None:
    player = item[1]
    p = s.player_mut(player)
    t = tables(s.cat)
    units = 0
    for c in bits(step.a):
        units += t.card_value[c]
    if p.plus1_on >= 0 and (step.a >> p.plus1_on) & 1:
        units += 1
        p.used |= 1 << t.plus1_card
    p.used |= step.a
    replace_top(s, (("buy", player, units), ("finish", player, True)))


def _ap_buy(s: State, item: Item, step: Step) -> None:
    player, units = item[1], item[2]
    price = card_price(s, step.a)
    card = s.display[step.a]
    p = s.player_mut(player)
    p.hand |= 1 << card
    s.display = replace_at(s.display, step.a, -1)
    units -= price
    replace_top(s, (("alloc", player, units),) if units > 0 else ())


def _ap_nobuy(s: State, item: Item, step: Step) -> None:
    replace_top(s, (("alloc", item[1], item[2]),))


def _ap_unit(s: State, item: Item, step: Step) -> None:
    player, units = item[1], item[2]
    extra = track_step(s, player, step.a)
    assert extra is not None  # legality checked that the step is payable
    rest: tuple[Item, ...] = (("alloc", player, units - 1),) if units > 1 else ()
    replace_top(s, extra + rest)


def _auto_track(s: State, item: Item) -> None:
    _, player, company, steps = item
    extra = track_step(s, player, company)
    if extra is None:  # a capital call the player cannot pay: stop before it
        s.todo = s.todo[1:]
        return
    rest: tuple[Item, ...] = (("track", player, company, steps - 1),) if steps > 1 else ()
    replace_top(s, extra + rest)


def _skip_buy(s: State, item: Item) -> bool:
    units = item[2]
    if any(0 <= price <= units for price in display_prices(s)):
        return False
    replace_top(s, (("alloc", item[1], units),))
    return True


def _skip_alloc(s: State, item: Item) -> bool:
    p = s.players[item[1]]
    if item[2] > 0 and any(_can_step(s, p, c) for c in range(4)):
        return False
    s.todo = s.todo[1:]  # every track is blocked: the remaining units are lost
    return True


_ACTIONS = frozenset({ACTIONS})

PENDING = (
    Pending("buy", DECISION, "goods-buy", _ACTIONS, (("units", "int"),),
            decision=lambda s, item: Decision("goods-buy", item[1], units=item[2])),
    Pending("alloc", DECISION, "goods-track", _ACTIONS, (("units", "int"),),
            decision=lambda s, item: Decision("goods-track", item[1], units=item[2])),
    # Track steps of any reward, the starting bonus's too.
    Pending("track", THEN, "track-steps", frozenset({SETUP, ACTIONS}),
            (("company", "company"), ("steps", "int"))),
)


LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    "buy": _legal_buy,
    "alloc": _legal_alloc,
}


APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "goods": _ap_goods,
    "buy": _ap_buy,
    "nobuy": _ap_nobuy,
    "unit": _ap_unit,
}


AUTO: dict[str, Callable[[State, Item], None]] = {
    "track": _auto_track,
}


SKIP: dict[str, Callable[[State, Item], bool]] = {
    "buy": _skip_buy,
    "alloc": _skip_alloc,
}
