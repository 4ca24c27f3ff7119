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


def _solve_books_dp(pr: _BookProblem, k: int) -> list[tuple[int, tuple[int, ...],
                                                            tuple[tuple[int, int], ...]]]:
    """The hand-written exact method (valuations without negative weights): every
    affordable set of books, best optimistic bound first; for each, the best
    arrangement by dynamic programming along the track from the ink jar (which book,
    if any, ends on top of each space while the chain lasts), the other books being
    buried under a later book or put beyond the end of the chain. Stops when no
    remaining set's bound can enter the k best."""
    w = pr.w
    ahead = pr.ahead
    size = len(ahead)
    space_v = [w.space[kk] for kk in ahead]
    rw = [w.reward[kk] for kk in ahead]
    olds = [pr.old_top(kk) for kk in ahead]
    a_place = [pr.placeable("A", kk) for kk in ahead]
    any_a_from = [False] * (size + 1)
    for i in range(size - 1, -1, -1):
        any_a_from[i] = a_place[i] or any_a_from[i + 1]
    meet, bval = w.meet, w.book_value
    can_move = w.can_move
    letter = pr.letter

    def exact(queue: list[int]) -> tuple[int, list[int]]:
        """Best track value for these books (placing order) and each book's space."""
        m = len(queue)
        is_a = [letter[b] == "A" for b in queue]
        ok = [meet[b] and can_move for b in queue]
        memo: dict[tuple[int, int, int], tuple[int, Any]] = {}

        def feasible(i: int, used: int, max_a: int) -> bool:
            max_all = used.bit_length() - 1
            for q in range(m):
                if (used >> q) & 1:
                    continue
                if is_a[q]:
                    if not (any_a_from[i] or max_a > q):
                        return False
                elif not (i < size or max_all > q):
                    return False
            return True

        def rec(i: int, used: int, max_a: int) -> tuple[int, Any]:
            key = (i, used, max_a)
            hit = memo.get(key)
            if hit is not None:
                return hit
            best: tuple[int, Any] = (_NEG, None)
            if feasible(i, used, max_a):
                best = (0, ("stop",))
            if i < size and can_move:
                enterable, c_old = olds[i]
                if enterable:
                    v = rec(i + 1, used, max_a)[0]
                    if v > _NEG and space_v[i] + c_old + v > best[0]:
                        best = (space_v[i] + c_old + v, ("old",))
                for q in range(m):
                    if (used >> q) & 1 or not ok[q] or (is_a[q] and not a_place[i]):
                        continue
                    v = rec(i + 1, used | (1 << q), max(max_a, q) if a_place[i] else max_a)[0]
                    if v > _NEG:
                        total = space_v[i] + (rw[i] * bval[queue[q]]) // SCALE + v
                        if total > best[0]:
                            best = (total, ("new", q))
            memo[key] = best
            return best

        value, _ = rec(0, 0, -1)
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
        return value, [ahead[i] for i in where]

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

    def subsets(start: int, budget: int, chosen: tuple[int, ...], money: int, tokens: int,
                best_c: int) -> None:
        bound = base_gain + money + chain_bound(tokens, best_c)
        bounded.append((-bound, tuple(display[d][0] for d in chosen), chosen))
        for d in range(start, len(display)):
            _, b, cost, coins = display[d]
            if cost <= budget:
                good = meet[b]
                subsets(d + 1, budget - cost, (*chosen, d), money + pound * (coins - cost),
                        tokens + good, max(best_c, bval[b]) if good else best_c)

    subsets(0, pr.points, (), 0, start_tokens, start_best)
    bounded.sort()
    top: list[tuple[int, tuple[int, ...], tuple[tuple[int, int], ...]]] = []
    for neg_bound, spaces, chosen in bounded:
        if len(top) == k and -neg_bound < top[-1][0]:
            break
        queue = list(pr.pre) + [display[d][1] for d in chosen]
        tv, where = exact(queue)
        if tv <= _NEG:
            continue
        cost = sum(display[d][2] for d in chosen)
        coins = sum(display[d][3] for d in chosen)
        value = w.pound * (pr.points - cost + coins) + tv - pr.before
        top.append((value, spaces, tuple(zip(queue, where, strict=True))))
        top.sort(key=lambda e: (-e[0], e[1]))
        del top[k:]
    return top
