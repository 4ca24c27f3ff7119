"""The book-buying problem read from the state, for both methods: the display spaces the
player can still take from (with cost and coins), the spaces ahead of the ink jar, the
placing rule for A-books, what now lies on top of each space and the track value
before the purchase."""

from __future__ import annotations

from engine import State, tables
from search.solvers.bookkeeping.valuation import (
    TrackValuation,
    _contribution,
    _weights,
    track_value,
)
from search.solvers.common import SolverError


class _BookProblem:
    """The spending problem read from the state."""

    def __init__(self, s: State, player: int, points: int, tv: TrackValuation,
                 exact: bool, spend_space: int | None) -> None:
        cat = s.cat
        t = tables(cat)
        p = s.players[player]
        self.cat = cat
        self.points = points
        self.exact = exact
        self.tv = tv
        self.ink = p.ink
        self.last = len(p.books) - 1
        self.ahead = list(range(p.ink + 1, len(p.books)))
        self.w = _weights(tv, cat, p.ink)
        self.books = p.books
        self.flipped = p.flipped
        # At a bookkeeping-points decision: books already taken this turn, and further
        # ones come from spaces right of the last (None: a hypothetical purchase).
        last_space = spend_space if spend_space is not None else -1
        self.pre: tuple[int, ...] = tuple(s.turn_books) if spend_space is not None else ()
        self.letter = t.book_letter
        a_ok = any(self.placeable("A", k) for k in self.ahead)
        self.display: list[tuple[int, int, int, int]] = []  # (space, book, cost, coins)
        for j in range(last_space + 1, t.n_book_spaces):
            b = s.book_display[j]
            if b < 0 or not self.ahead:
                continue
            letter = t.book_letter[b]
            if letter == "A" and not a_ok:
                continue
            cost = cat.book_costs[letter]
            if cost > points:
                continue
            self.display.append((j, b, cost, s.book_coins[j]))
        self.before = track_value(cat, p.books, p.flipped, p.ink, tv)
        order = [self.letter[b] for b in self.pre] + [self.letter[b] for _, b, _, _ in
                                                      self.display]
        seen_other = False
        for letter in order:
            if letter != "A":
                seen_other = True
            elif seen_other:
                raise SolverError("the bookkeeping model needs A-books to be taken before "
                                  "B- and C-books (display spaces in that order)")

    def placeable(self, letter: str, k: int) -> bool:
        """The engine's rule on the current track (``_placeable``)."""
        stack = self.books[k]
        if letter != "A":
            return True
        if not stack:
            return k not in self.cat.crossed_a
        return self.letter[stack[-1]] == "A"

    def old_top(self, k: int) -> tuple[bool, int]:
        """(enterable, contribution) of the book now on top of space ``k``."""
        stack = self.books[k]
        if not stack:
            return False, 0
        top = stack[-1]
        if (self.flipped >> top) & 1:
            return True, 0
        if not self.w.meet[top]:
            return False, 0
        return True, _contribution(self.w, k, top)
