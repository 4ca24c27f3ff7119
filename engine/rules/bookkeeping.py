"""Bookkeeping: the bookkeeper, flipping a book, the ink jar, spending bookkeeping points
on books and pounds, placing books (rulebook: "Book tiles and bookkeeping points", "Use 1
bookkeeper card")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.decision import Decision
from engine.player_board import measures
from engine.primitives import ACTIONS, SETUP, Item, replace_at
from engine.rules.common import _new, collect_reward, replace_top
from engine.rules.pending import DECISION, Pending
from engine.steps import Step
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import PlayerState, State

# Rulebook, "Use 1 bookkeeper card": flipping a book on your track costs 2 pounds.
FLIP_COST = 2


def _flippable(s: State, p: PlayerState) -> list[int]:
    if p.cash < FLIP_COST:
        return []
    return [k for k in range(p.ink + 1, len(p.books))
            if p.books[k] and not (p.flipped >> p.books[k][-1]) & 1]


def _legal_flip(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    flips = [_new(Step, ("flip", k, -1, -1)) for k in _flippable(s, p)]
    return [_new(Step, ("noflip", -1, -1, -1)), *flips]


def _can_enter_book(s: State, p: PlayerState) -> bool:
    nxt = p.ink + 1
    if nxt >= len(p.books) or not p.books[nxt]:
        return False
    book = p.books[nxt][-1]
    if (p.flipped >> book) & 1:
        return True
    needs = s.cat.books[book].needs
    if not needs:
        return True
    have = measures(s, p)
    return all(have[m] >= amount for m, amount in needs)


def _legal_ink(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    out = [_new(Step, ("halt", -1, -1, -1))]
    if _can_enter_book(s, p):
        out.append(_new(Step, ("ink", -1, -1, -1)))
    return out


def _placeable(s: State, p: PlayerState, letter: str, space: int) -> bool:
    stack = p.books[space]
    if letter != "A":
        return True
    if not stack:
        return space not in s.cat.crossed_a
    return tables(s.cat).book_letter[stack[-1]] == "A"


def _book_spaces(s: State, p: PlayerState) -> range:
    """Spaces a new book may go on: any space of the track (not the starting tile's).
    Behind the ink jar a book is dead, which can still beat blocking the way ahead."""
    return range(1, len(p.books))


def _legal_spend(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    last = item[2]
    cat = s.cat
    t = tables(cat)
    out = [_new(Step, ("pounds", -1, -1, -1))]
    spaces = _book_spaces(s, p)
    a_ok = any(_placeable(s, p, "A", k) for k in spaces)
    for space in range(last + 1, t.n_book_spaces):
        book = s.book_display[space]
        if book < 0:
            continue
        letter = t.book_letter[book]
        if cat.book_costs[letter] > s.pool:
            continue
        if letter == "A" and not a_ok:
            continue
        out.append(_new(Step, ("take", space, -1, -1)))
    return out


def _legal_place(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    t = tables(s.cat)
    book = s.turn_books[0]
    letter = t.book_letter[book]
    pending_a = any(t.book_letter[b] == "A" for b in s.turn_books[1:])
    out = []
    for k in _book_spaces(s, p):
        if not _placeable(s, p, letter, k):
            continue
        if pending_a and letter != "A" and _placeable(s, p, "A", k):
            # Covering this space must leave somewhere for the A-books still to place.
            others = [j for j in _book_spaces(s, p) if j != k and _placeable(s, p, "A", j)]
            if not others:
                continue
        out.append(_new(Step, ("place", book, k, -1)))
    return out


def _ap_keeper(s: State, item: Item, step: Step) -> None:
    player = item[1]
    replace_top(s, (("flip", player, step.a), ("ink", player, step.a, 0),
                     ("finish", player, True)))


def _ap_flip(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.cash -= FLIP_COST
    p.flipped |= 1 << p.books[step.a][-1]
    s.todo = s.todo[1:]


def _ap_noflip(s: State, item: Item, step: Step) -> None:
    s.todo = s.todo[1:]


def _ap_ink(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.ink += 1
    replace_top(s, (("ink", item[1], item[2], item[3] + 1),))


def _ap_halt(s: State, item: Item, step: Step) -> None:
    _, player, card, moved = item
    p = s.player_mut(player)
    items: tuple[Item, ...] = ()
    if moved:
        book = p.books[p.ink][-1]
        if not (p.flipped >> book) & 1:
            items = collect_reward(s, player, s.cat.books[book].reward, -1)
    p.used |= 1 << card
    s.pool += tables(s.cat).card_value[card]
    replace_top(s, items)


def _ap_take(s: State, item: Item, step: Step) -> None:
    player = item[1]
    book = s.book_display[step.a]
    s.pool -= s.cat.book_costs[tables(s.cat).book_letter[book]]
    s.turn_books = s.turn_books + (book,)
    coins = s.book_coins[step.a]
    if coins:
        s.player_mut(player).cash += coins
        s.book_coins = replace_at(s.book_coins, step.a, 0)
    s.book_display = replace_at(s.book_display, step.a, -1)
    replace_top(s, (("spend", player, step.a),) if s.pool > 0 else ())


def _ap_pounds(s: State, item: Item, step: Step) -> None:
    s.player_mut(item[1]).cash += s.pool
    s.pool = 0
    s.todo = s.todo[1:]


def _ap_place(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.books = replace_at(p.books, step.b, p.books[step.b] + (step.a,))
    s.turn_books = s.turn_books[1:]
    if not s.turn_books:
        s.todo = s.todo[1:]


def _skip_flip(s: State, item: Item) -> bool:
    if _flippable(s, s.players[item[1]]):
        return False
    s.todo = s.todo[1:]
    return True


def _skip_ink(s: State, item: Item) -> bool:
    if _can_enter_book(s, s.players[item[1]]):
        return False
    _ap_halt(s, item, Step("halt"))
    return True


def _skip_spend(s: State, item: Item) -> bool:
    player = item[1]
    p = s.players[player]
    if s.pool <= 0:
        s.todo = s.todo[1:]
        return True
    if p.ink >= tables(s.cat).bk_last:
        # The ink jar at the last space: every bookkeeping point pays 2 pounds instead.
        s.player_mut(player).cash += s.pool * s.cat.bookkeeping_end_pounds
        s.pool = 0
        s.todo = s.todo[1:]
        return True
    return False


def _skip_place(s: State, item: Item) -> bool:
    if s.turn_books:
        return False
    s.todo = s.todo[1:]
    return True


_ACTIONS = frozenset({ACTIONS})
_SETUP_ACTIONS = frozenset({SETUP, ACTIONS})  # bookkeeping points of a starting bonus too

PENDING = (
    Pending("flip", DECISION, "bookkeeper-flip", _ACTIONS, (("bookkeeper", "card"),),
            decision=lambda s, item: Decision("bookkeeper-flip", item[1], card=item[2])),
    Pending("ink", DECISION, "ink-jar", _ACTIONS, (("bookkeeper", "card"), ("moved", "int")),
            decision=lambda s, item: Decision("ink-jar", item[1], card=item[2],
                                              moved=item[3])),
    Pending("spend", DECISION, "bookkeeping-points", _SETUP_ACTIONS,
            (("last_space", "bspace"),),
            decision=lambda s, item: Decision("bookkeeping-points", item[1], points=s.pool,
                                              space=item[2])),
    Pending("place", DECISION, "place-book", _SETUP_ACTIONS,
            decision=lambda s, item: Decision("place-book", item[1], books=s.turn_books)),
)


LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    "flip": _legal_flip,
    "ink": _legal_ink,
    "spend": _legal_spend,
    "place": _legal_place,
}


APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "keeper": _ap_keeper,
    "flip": _ap_flip,
    "noflip": _ap_noflip,
    "ink": _ap_ink,
    "halt": _ap_halt,
    "take": _ap_take,
    "pounds": _ap_pounds,
    "place": _ap_place,
}


SKIP: dict[str, Callable[[State, Item], bool]] = {
    "flip": _skip_flip,
    "ink": _skip_ink,
    "spend": _skip_spend,
    "place": _skip_place,
}
