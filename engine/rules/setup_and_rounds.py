"""Setup and the round: the chance events (track cards, display cards, books, starting
tiles), the starting-tile choice and resting cards, the reveal, turn order, ending the
action phase, and Preparation (rulebook: "Setup", "Course of a round", "Preparation
phase for the next round")."""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from typing import TYPE_CHECKING

from engine.decision import Decision
from engine.primitives import (
    ACTIONS,
    HIDDEN,
    NOBODY,
    OVER,
    PLANNING,
    SETUP,
    Item,
    bits,
    replace_at,
)
from engine.rules.common import _new, collect_reward, replace_top
from engine.rules.pending import CHANCE, DECISION, THEN, Fixed, Pending, seats_deciding
from engine.steps import Step
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import State

ROUNDS = 7


def _legal_c_track(s: State, item: Item) -> list[Step]:
    used_letters = {s.tracks[c] // 2 for c in range(item[2]) if s.tracks[c] >= 0}
    out = []
    for a, b in s.cat.track_cards:
        if a // 2 in used_letters:
            continue
        out.append(_new(Step, ("deal-track", item[2], a, -1)))
        out.append(_new(Step, ("deal-track", item[2], b, -1)))
    return out


def stack_layer(s: State) -> int:
    for layer in tables(s.cat).layer_masks:
        m = s.stack & layer
        if m:
            return m
    return 0


def _legal_c_card(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("deal-card", c, item[2], -1)) for c in bits(stack_layer(s))]


def book_candidates(s: State, space: int) -> int:
    letter = s.cat.book_space_letter[space]
    return s.book_supply & tables(s.cat).letter_books[letter]


def _legal_c_book(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("deal-book", b, item[2], -1)) for b in bits(book_candidates(s, item[2]))]


def _dealt_tiles(s: State) -> set[int]:
    return {t for p in s.players for t in p.tile_options}


def _legal_c_tile(s: State, item: Item) -> list[Step]:
    dealt = _dealt_tiles(s)
    return [_new(Step, ("deal-tile", item[2], t, -1)) for t in range(len(s.cat.starting_tiles))
            if t not in dealt]


def _legal_tile(s: State, item: Item) -> list[Step]:
    options = s.players[item[1]].tile_options
    if HIDDEN in options:
        # Dealt face down at a live table (unseen_deal): the seat keeps any tile nobody
        # else is known to hold or to have kept.
        others = {t for i, p in enumerate(s.players) if i != item[1]
                  for t in (*p.tile_options, p.tile) if t >= 0}
        options = tuple(t for t in range(len(s.cat.starting_tiles)) if t not in others)
    return [_new(Step, ("tile", t, -1, -1)) for t in options]


def unseen_deal(s: State, step: Step) -> bool:
    """True for a starting tile dealt to a seat that the user at a live table does not
    see: ``deal-tile P2 ?``. It is never among the chance outcomes (play mode deals real
    tiles); the seat's tile choice is then entered at the reveal from every tile
    nobody else holds."""
    item = s.todo[0]
    return (item[0] == "c_tile" and step.kind == "deal-tile" and step.a == item[2]
            and step.b == HIDDEN)


def _legal_rest(s: State, item: Item) -> list[Step]:
    cards = _tile_cards(s, item[1])
    return [Step("rest", *perm) for perm in permutations(cards)]


def _tile_cards(s: State, player: int) -> tuple[int, int, int]:
    p = s.players[player]
    tile = s.cat.starting_tiles[p.tile]
    seat = s.cat.seat_cards[player]
    by_code = {s.cat.cards[c].code: c for c in seat}
    a, b, c = (by_code[code] for code in tile.cards)
    return a, b, c


def _ap_deal_track(s: State, item: Item, step: Step) -> None:
    s.tracks = replace_at(s.tracks, step.a, step.b)
    s.todo = s.todo[1:]


def _ap_deal_card(s: State, item: Item, step: Step) -> None:
    s.stack &= ~(1 << step.a)
    s.display = replace_at(s.display, step.b, step.a)
    s.todo = s.todo[1:]


def _ap_deal_book(s: State, item: Item, step: Step) -> None:
    s.book_supply &= ~(1 << step.a)
    s.book_display = replace_at(s.book_display, step.b, step.a)
    s.todo = s.todo[1:]


def _ap_deal_tile(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(step.a)
    p.tile_options = p.tile_options + (step.b,)
    s.todo = s.todo[1:]


def _ap_tile(s: State, item: Item, step: Step) -> None:
    s.player_mut(item[1]).tile = step.a
    s.todo = s.todo[1:]


def _ap_rest(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    t = tables(s.cat)
    resting = list(p.resting)
    for slot, card in zip(t.base_slot_list, (step.a, step.b, step.c), strict=True):
        p.hand &= ~(1 << card)
        resting[slot] = (card,)
    p.resting = tuple(resting)
    s.todo = s.todo[1:]


def _ap_end(s: State, item: Item, step: Step) -> None:
    """End your own action phase: take one resting deck, then clean up the area."""
    player = item[1]
    p = s.player_mut(player)
    resting = list(p.resting)
    if step.a >= 0:
        for c in resting[step.a]:
            p.hand |= 1 << c
        resting[step.a] = ()
    for k, c in enumerate(p.slots):
        if c >= 0:
            resting[k] = resting[k] + (c,)
    p.resting = tuple(resting)
    p.slots = (-1,) * len(p.slots)
    p.used = 0
    s.tile_supply |= p.tiles
    p.tiles = 0
    p.plus1_on = -1
    p.ended = True
    s.todo = s.todo[1:]
    _next_turn(s, player)


def _next_turn(s: State, player: int) -> None:
    for i in range(1, s.n + 1):
        q = (player + i) % s.n
        if not s.players[q].ended:
            s.turn = q
            s.todo = (("act", q),) + s.todo
            return
    s.todo = (("prep",),) + s.todo


def _auto_finish(s: State, item: Item) -> None:
    player, advance = item[1], item[2]
    if s.pool > 0:
        s.todo = (("spend", player, -1),) + s.todo
        return
    if s.turn_books:
        s.todo = (("place", player),) + s.todo
        return
    refill = tuple(("c_book", NOBODY, k) for k, b in enumerate(s.book_display)
                   if b < 0 and book_candidates(s, k))
    if refill:
        s.todo = refill + s.todo
        return
    s.todo = s.todo[1:]
    if advance:
        _next_turn(s, player)


def _auto_reveal(s: State, item: Item) -> None:
    s.revealed = True
    s.phase = ACTIONS
    s.turn = s.first
    replace_top(s, (("act", s.first),))


def _auto_setup_tiles(s: State, item: Item) -> None:
    """Starting tiles: reveal the choices, then resting cards and starting bonuses."""
    cat = s.cat
    items: list[Item] = []
    for i in range(s.n):
        p = s.player_mut(i)
        if not s.variable:
            p.tile = cat.first_game_tiles[i]
        p.tile_options = ()  # the unchosen tiles go back to the box, unseen
        items.append(("rest", i))
    for i in range(s.n):
        items.append(("bonus_start", i))
    items.append(("round",))
    s.revealed = True
    replace_top(s, tuple(items))


def _auto_bonus_start(s: State, item: Item) -> None:
    player = item[1]
    tile = s.cat.starting_tiles[s.players[player].tile]
    items = collect_reward(s, player, tile.bonus, -1)
    replace_top(s, items + (("finish", player, False),))


def _auto_round(s: State, item: Item) -> None:
    """Start the next round: markers and reserved tiles come back, then Planning."""
    s.round += 1
    s.bonus = (NOBODY,) * len(s.bonus)
    if s.next_first >= 0:
        s.first = s.next_first
        s.next_first = NOBODY
    for i in range(s.n):
        p = s.player_mut(i)
        p.markers = p.markers_total
        p.tiles |= p.reserved
        s.tile_supply &= ~p.reserved
        p.reserved = 0
        p.ended = False
    s.revealed = False
    s.phase = PLANNING
    # Every seat plans at once (planning.py); the reveal follows the last seat's plan.
    replace_top(s, tuple(("plan", (s.first + k) % s.n, -1) for k in range(s.n))
                + (("reveal",),))


def _auto_prep(s: State, item: Item) -> None:
    """Preparation phase (or the end of the game after round 7)."""
    cat = s.cat
    t = tables(cat)
    if s.round >= ROUNDS:
        s.phase = OVER
        s.todo = ()
        return
    # A. Coins of the leftmost round-track stack go under the book column of its number.
    k = s.round - 1
    coins = s.round_coins[k]
    if coins:
        col = cat.book_columns.index(s.round + 1)
        bc = list(s.book_coins)
        for row in range(min(coins, cat.book_rows)):
            bc[col * cat.book_rows + row] += 1
        s.book_coins = tuple(bc)
        s.round_coins = replace_at(s.round_coins, k, 0)
    # B. Discard the right column, slide rows right, refill right/middle/left top-down.
    rows, ncol = cat.display_rows, len(cat.display_columns)
    disp = list(s.display)
    for row in range(rows):
        right = (ncol - 1) * rows + row
        if disp[right] >= 0:
            s.discard |= 1 << disp[right]
            disp[right] = -1
        cards = [disp[col * rows + row] for col in range(ncol) if disp[col * rows + row] >= 0]
        for col in range(ncol):
            disp[col * rows + row] = -1
        for j, c in enumerate(reversed(cards)):
            disp[(ncol - 1 - j) * rows + row] = c
    s.display = tuple(disp)
    refill = tuple(("c_card", NOBODY, sp) for sp in t.display_fill_order if disp[sp] < 0)
    replace_top(s, refill + (("round",),))


def _skip_c_card(s: State, item: Item) -> bool:
    if stack_layer(s):
        return False
    s.todo = s.todo[1:]  # the stack is empty: the space stays empty
    return True


def _skip_c_book(s: State, item: Item) -> bool:
    if book_candidates(s, item[2]):
        return False
    s.todo = s.todo[1:]
    return True


_SETUP = frozenset({SETUP})
_SETUP_ACTIONS = frozenset({SETUP, ACTIONS})

PENDING = (
    Pending("c_track", CHANCE, "deal-track", _SETUP, (("company", "company"),)),
    Pending("c_card", CHANCE, "deal-card", _SETUP_ACTIONS, (("space", "dspace"),)),
    Pending("c_book", CHANCE, "deal-book", _SETUP_ACTIONS, (("space", "bspace"),)),
    Pending("c_tile", CHANCE, "deal-tile", _SETUP, (("seat", "seat"),)),
    Pending("tile", DECISION, "starting-tile", _SETUP, once_per_seat=True, simultaneous=True,
            decision=lambda s, item: Decision("starting-tile", item[1],
                                              seats=seats_deciding(s, "tile"))),
    Pending("setup_tiles", THEN, "tile-reveal", _SETUP, seatless=True),
    Pending("rest", DECISION, "resting-cards", _SETUP, once_per_seat=True,
            decision=lambda s, item: Decision("resting-cards", item[1])),
    Pending("bonus_start", THEN, "starting-bonus", _SETUP, once_per_seat=True),
    # The end of an action (or of a starting bonus): the bookkeeping it left, the book
    # display's refills, then the next turn: only an action passes the turn.
    Pending("finish", THEN, "end-of-action", _SETUP_ACTIONS, (("next_turn", "bool"),), fixed=(
        Fixed("next_turn", ACTIONS, True,
              "true in the action phase (an action passes the turn)"),
        Fixed("next_turn", SETUP, False,
              "false during setup (a starting bonus passes no turn)"))),
    Pending("reveal", THEN, "reveal", frozenset({PLANNING}), seatless=True,
            closes="the seats still planning"),
    Pending("round", THEN, "new-round", _SETUP_ACTIONS, seatless=True),
    Pending("prep", THEN, "preparation", frozenset({ACTIONS}), seatless=True),
)


LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    "c_track": _legal_c_track,
    "c_card": _legal_c_card,
    "c_book": _legal_c_book,
    "c_tile": _legal_c_tile,
    "tile": _legal_tile,
    "rest": _legal_rest,
}


APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "deal-track": _ap_deal_track,
    "deal-card": _ap_deal_card,
    "deal-book": _ap_deal_book,
    "deal-tile": _ap_deal_tile,
    "tile": _ap_tile,
    "rest": _ap_rest,
    "end": _ap_end,
}


AUTO: dict[str, Callable[[State, Item], None]] = {
    "finish": _auto_finish,
    "reveal": _auto_reveal,
    "setup_tiles": _auto_setup_tiles,
    "bonus_start": _auto_bonus_start,
    "round": _auto_round,
    "prep": _auto_prep,
}


SKIP: dict[str, Callable[[State, Item], bool]] = {
    "c_card": _skip_c_card,
    "c_book": _skip_c_book,
}
