"""The hand-written exact method (``"dp"``, for valuations without negative weights):
every affordable set of books, best optimistic bound first, each arranged at its best by
dynamic programming along the track from the ink jar, until no remaining set's bound
can enter the ``k`` best."""

from __future__ import annotations

from typing import Any

from search.solvers.bookkeeping.problem import _BookProblem
from search.solvers.common import SCALE

_NEG = -(1 << 62)


def _nonnegative(pr: _BookProblem) -> bool:
    w = pr.w
    return (w.pound >= 0 and min(w.space) >= 0 and min(w.reward) >= 0
            and min(w.book_value) >= 0)


class _Track:
    """The best arrangement of a queue of books along the track from the ink jar, by
    dynamic programming: which book, if any, ends on top of each space while the chain
    lasts. A class rather than a recursive closure: a closure that calls itself holds
    itself, and it, its memo and every tuple in it would wait for the cyclic garbage
    collector, which a search pauses (``search/collector.py``)."""

    def __init__(self, pr: _BookProblem) -> None:
        w = pr.w
        self.ahead = ahead = pr.ahead
        self.size = size = len(ahead)
        self.space_v = [w.space[kk] for kk in ahead]
        self.rw = [w.reward[kk] for kk in ahead]
        self.olds = [pr.old_top(kk) for kk in ahead]
        self.a_place = a_place = [pr.placeable("A", kk) for kk in ahead]
        self.any_a_from = any_a_from = [False] * (size + 1)
        for i in range(size - 1, -1, -1):
            any_a_from[i] = a_place[i] or any_a_from[i + 1]
        self.bval, self.can_move, self.letter, self.meet = (w.book_value, w.can_move,
                                                            pr.letter, w.meet)
        # Of the queue being arranged (set by ``exact``):
        self.queue: list[int] = []
        self.is_a: list[bool] = []
        self.ok: list[bool] = []
        self.memo: dict[tuple[int, int, int], tuple[int, Any]] = {}

    def exact(self, queue: list[int]) -> tuple[int, list[int]]:
        """Best track value for these books (placing order) and each book's space."""
        m = len(queue)
        self.queue = queue
        self.is_a = is_a = [self.letter[b] == "A" for b in queue]
        self.ok = [self.meet[b] and self.can_move for b in queue]
        memo: dict[tuple[int, int, int], tuple[int, Any]] = {}
        self.memo = memo
        a_place, size = self.a_place, self.size
        value, _ = self._rec(0, 0, -1)
        if value <= _NEG:  # no arrangement places every book: no choices to follow
            return value, []
        # Follow the choices: tops, then where every other book goes.
        where = [-1] * m
        i, used, max_a = 0, 0, -1
        while True:
            choice = memo[(i, used, max_a)][1]
            if choice[0] == "stop":
                break
            if choice[0] == "new":
                q = choice[1]
                where[q] = i
                if a_place[i]:
                    max_a = max(max_a, q)
                used |= 1 << q
            i += 1
        stop = i
        for q in range(m):
            if where[q] >= 0:
                continue
            later = [p for p in range(q + 1, m) if where[p] >= 0 and where[p] < stop
                     and (not is_a[q] or a_place[where[p]])]
            if later:
                where[q] = where[later[-1]]  # buried under a later book
            else:
                spots = [j for j in range(stop, size) if not is_a[q] or a_place[j]]
                where[q] = spots[-1]  # beyond the end of the chain
        return value, [self.ahead[i] for i in where]

    def _feasible(self, i: int, used: int, max_a: int) -> bool:
        max_all = used.bit_length() - 1
        is_a = self.is_a
        for q in range(len(self.queue)):
            if (used >> q) & 1:
                continue
            if is_a[q]:
                if not (self.any_a_from[i] or max_a > q):
                    return False
            elif not (i < self.size or max_all > q):
                return False
        return True

    def _rec(self, i: int, used: int, max_a: int) -> tuple[int, Any]:
        key = (i, used, max_a)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        best: tuple[int, Any] = (_NEG, None)
        if self._feasible(i, used, max_a):
            best = (0, ("stop",))
        if i < self.size and self.can_move:
            space_v = self.space_v
            enterable, c_old = self.olds[i]
            if enterable:
                v = self._rec(i + 1, used, max_a)[0]
                if v > _NEG and space_v[i] + c_old + v > best[0]:
                    best = (space_v[i] + c_old + v, ("old",))
            a_here = self.a_place[i]
            is_a, ok, queue = self.is_a, self.ok, self.queue
            for q in range(len(queue)):
                if (used >> q) & 1 or not ok[q] or (is_a[q] and not a_here):
                    continue
                v = self._rec(i + 1, used | (1 << q), max(max_a, q) if a_here else max_a)[0]
                if v > _NEG:
                    total = space_v[i] + (self.rw[i] * self.bval[queue[q]]) // SCALE + v
                    if total > best[0]:
                        best = (total, ("new", q))
        self.memo[key] = best
        return best


def _solve_books_dp(pr: _BookProblem, k: int) -> list[tuple[int, tuple[int, ...],
                                                            tuple[tuple[int, int], ...]]]:
    """The hand-written exact method (valuations without negative weights): every
    affordable set of books, best optimistic bound first; for each, the best
    arrangement by dynamic programming along the track from the ink jar (which book,
    if any, ends on top of each space while the chain lasts), the other books being
    buried under a later book or put beyond the end of the chain. Stops when no
    remaining set's bound can enter the k best."""
    w = pr.w
    track = _Track(pr)
    size, space_v, rw, olds = track.size, track.space_v, track.rw, track.olds
    meet, bval, can_move = w.meet, w.book_value, w.can_move

    # Every affordable set of books from the display, with an optimistic bound: the
    # chain can cross at most one non-enterable space per meetable book, and no space
    # can hold a better book than the best of the set.
    display = pr.display
    pre_ok = [b for b in pr.pre if meet[b]]
    tv_bound: dict[tuple[int, int], int] = {}

    def chain_bound(tokens: int, best_c: int) -> int:
        key = (tokens, best_c)
        hit = tv_bound.get(key)
        if hit is not None:
            return hit
        tv = 0
        if can_move:
            for i in range(size):
                extra = (rw[i] * best_c) // SCALE if best_c >= 0 else 0
                if olds[i][0]:
                    tv += space_v[i] + max(olds[i][1], extra)
                elif tokens:
                    tokens -= 1
                    tv += space_v[i] + extra
                else:
                    break
        tv_bound[key] = tv
        return tv

    bounded: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    pound = w.pound
    base_gain = pound * pr.points - pr.before
    start_tokens = len(pre_ok)
    start_best = max((bval[b] for b in pre_ok), default=-1)

    # Depth first, as a recursion would: a closure that calls itself holds itself, a
    # cycle left for the garbage collector, which a search pauses (search/collector.py).
    stack: list[tuple[int, int, tuple[int, ...], int, int, int]] = [
        (0, pr.points, (), 0, start_tokens, start_best)]
    while stack:
        start, budget, chosen, money, tokens, best_c = stack.pop()
        bound = base_gain + money + chain_bound(tokens, best_c)
        bounded.append((-bound, tuple(display[d][0] for d in chosen), chosen))
        for d in range(len(display) - 1, start - 1, -1):
            _, b, cost, coins = display[d]
            if cost <= budget:
                good = meet[b]
                stack.append((d + 1, budget - cost, (*chosen, d), money + pound * (coins - cost),
                              tokens + good, max(best_c, bval[b]) if good else best_c))

    bounded.sort()
    top: list[tuple[int, tuple[int, ...], tuple[tuple[int, int], ...]]] = []
    for neg_bound, spaces, chosen in bounded:
        if len(top) == k and -neg_bound < top[-1][0]:
            break
        queue = list(pr.pre) + [display[d][1] for d in chosen]
        tv, where = track.exact(queue)
        if tv <= _NEG:
            continue
        cost = sum(display[d][2] for d in chosen)
        coins = sum(display[d][3] for d in chosen)
        value = w.pound * (pr.points - cost + coins) + tv - pr.before
        top.append((value, spaces, tuple(zip(queue, where, strict=True))))
        top.sort(key=lambda e: (-e[0], e[1]))
        del top[k:]
    return top
