"""Bonus spaces and bonus tiles (rulebook: "Place 1 bonus marker", "Bonus tiles")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.player_board import card_price, display_prices, measures
from engine.primitives import NOBODY, Item, replace_at
from engine.rules.common import _new, collect_reward, replace_top
from engine.steps import Step
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import PlayerState, State


def bonus_steps(s: State, player: int, p: PlayerState) -> list[Step]:
    cat = s.cat
    out: list[Step] = []
    occ = s.bonus
    meas: list[tuple[int, int, int, int, int]] | None = None
    t = tables(cat)
    for sp in t.board_spaces:
        if occ[sp.index] != NOBODY:
            continue
        kind = sp.kind
        if kind == "first_player":
            if player != s.first:
                out.append(_new(Step, ("first", -1, -1, -1)))
        elif kind == "buy_card":
            budget = p.cash - sp.cost
            for d, price in enumerate(display_prices(s)):
                if 0 <= price <= budget:
                    out.append(t.step1["buy-card"][d])
        elif kind == "remove_card":
            hand = p.hand
            while hand:
                low = hand & -hand
                out.append(t.step1["remove-card"][low.bit_length() - 1])
                hand ^= low
        elif kind == "majority":
            if meas is None:
                meas = [measures(s, q) for q in s.players]
            m = sp.measure
            mine = meas[player][m]
            if mine <= 0 or any(meas[i][m] > mine for i in range(s.n) if i != player):
                continue
            for li, line in enumerate(sp.lines):
                if mine >= line.minimum:
                    out.append(_new(Step, ("majority", sp.index, li, -1)))
        elif kind == "bonus_tile" and p.cash >= sp.cost:
            out.append(t.step1["reserve"][sp.index])
    by_track = t.track_bonus_by_track
    for c, track in enumerate(s.tracks):
        for pos, index in by_track.get(track, ()):
            if occ[index] == NOBODY and p.track[c] >= pos:
                out.append(t.step1["track-bonus"][index])
    return out


def _ap_plus1(s: State, item: Item, step: Step) -> None:
    s.player_mut(item[1]).plus1_on = step.a


def _place_marker(s: State, player: int, space: int) -> None:
    s.player_mut(player).markers -= 1
    s.bonus = replace_at(s.bonus, space, player)


def _board_space(s: State, kind: str) -> int:
    return next(sp.index for sp in s.cat.bonus_spaces if sp.kind == kind)


def _ap_first(s: State, item: Item, step: Step) -> None:
    player = item[1]
    space = _board_space(s, "first_player")
    _place_marker(s, player, space)
    s.next_first = player
    items = collect_reward(s, player, s.cat.bonus_spaces[space].reward, -1)
    replace_top(s, items + (("finish", player, True),))


def _ap_buy_card(s: State, item: Item, step: Step) -> None:
    player = item[1]
    space = _board_space(s, "buy_card")
    cost = s.cat.bonus_spaces[space].cost + card_price(s, step.a)
    _place_marker(s, player, space)
    p = s.player_mut(player)
    p.cash -= cost
    p.hand |= 1 << s.display[step.a]
    s.display = replace_at(s.display, step.a, -1)
    replace_top(s, (("finish", player, True),))


def _ap_remove_card(s: State, item: Item, step: Step) -> None:
    player = item[1]
    space = _board_space(s, "remove_card")
    _place_marker(s, player, space)
    p = s.player_mut(player)
    p.hand &= ~(1 << step.a)
    s.gone |= 1 << step.a
    p.cash += s.cat.cards[step.a].crate + s.cat.bonus_spaces[space].bonus_pounds
    replace_top(s, (("finish", player, True),))


def _ap_majority(s: State, item: Item, step: Step) -> None:
    player = item[1]
    sp = s.cat.bonus_spaces[step.a]
    line = sp.lines[step.b]
    _place_marker(s, player, step.a)
    items: tuple[Item, ...] = (("track", player, line.company, line.steps),)
    items += collect_reward(s, player, line.reward, line.company)
    replace_top(s, items + (("finish", player, True),))


def _ap_reserve(s: State, item: Item, step: Step) -> None:
    player = item[1]
    sp = s.cat.bonus_spaces[step.a]
    _place_marker(s, player, step.a)
    p = s.player_mut(player)
    p.cash -= sp.cost
    p.reserved |= 1 << sp.tile
    replace_top(s, (("finish", player, True),))


def _ap_track_bonus(s: State, item: Item, step: Step) -> None:
    player = item[1]
    sp = s.cat.bonus_spaces[step.a]
    track = next(t for t, _, idx in s.cat.track_bonus_at if idx == step.a)
    company = s.tracks.index(track)
    _place_marker(s, player, step.a)
    items = collect_reward(s, player, sp.reward, company)
    replace_top(s, items + (("finish", player, True),))


APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "plus1": _ap_plus1,
    "first": _ap_first,
    "buy-card": _ap_buy_card,
    "remove-card": _ap_remove_card,
    "majority": _ap_majority,
    "reserve": _ap_reserve,
    "track-bonus": _ap_track_bonus,
}
