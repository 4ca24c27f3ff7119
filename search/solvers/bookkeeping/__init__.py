"""Spending bookkeeping points (which books to take, the rest as pounds, where to place
each book) and moving the ink jar.

The value of a bookkeeping track is a documented heuristic (:class:`TrackValuation`):
walking from the ink jar, every space whose top book the player can plausibly satisfy
with the cards they own (or that is face down) is reachable, until the first one that
is not (an empty space, or needs the player's cards cannot meet); each reachable space
is worth its score step (plus the 5th-slot unlock) and a share of its book's reward,
discounted by its distance from the ink jar. A plan is worth the pounds (the points
not spent and the coins under the books taken) plus the change of that track value.

:func:`best_bookkeeping` solves the choice exactly with a CP-SAT model (which books,
where each goes, which book ends on top of each space, how far the chain reaches);
:func:`best_ink_move` compares the few ink-jar stops directly.

>>> import engine
>>> s = engine.new_game(players=2, seed=4)
>>> tv = default_track_valuation(s, 0)
>>> tv.slots, round(tv.pound, 3)
(3, 1.0)
"""

from __future__ import annotations

from typing import Any, Literal

from engine import State, Step
from search.features import ink_reach
from search.solvers.bookkeeping.cpsat import _solve_books
from search.solvers.bookkeeping.dp import _nonnegative, _solve_books_dp
from search.solvers.bookkeeping.plans import BookPlan, InkPlan, _book_plan
from search.solvers.bookkeeping.problem import _BookProblem
from search.solvers.bookkeeping.valuation import (
    DECAY,
    MEASURE_BOOKKEEPING,
    REWARD_SHARE,
    UNLOCK_PER_ROUND,
    TrackValuation,
    _weights,
    default_track_valuation,
    meetable,
    reward_value,
    track_value,
)
from search.solvers.common import SCALE, LRUCache, SolverError, acting_player

__all__ = [
    "DECAY", "DEFAULT_METHOD", "MEASURE_BOOKKEEPING", "REWARD_SHARE", "UNLOCK_PER_ROUND",
    "BookPlan", "InkPlan", "Method", "TrackValuation", "best_bookkeeping", "best_ink_move",
    "cache_info", "clear_cache", "default_track_valuation", "meetable", "reward_value",
    "track_value",
]

Method = Literal["dp", "cpsat"]
DEFAULT_METHOD: Method = "dp"


_CACHE: LRUCache[tuple[Any, ...], tuple[BookPlan, ...]] = LRUCache(8192)


def cache_info() -> dict[str, Any]:
    """Hits, misses and size of the bookkeeping-solver cache."""
    return _CACHE.info()


def clear_cache() -> None:
    _CACHE.clear()


def best_bookkeeping(state: State, points: int | None = None, k: int = 1,
                     valuation: TrackValuation | None = None, method: Method = DEFAULT_METHOD
                     ) -> list[BookPlan]:
    """The ``k`` best ways (distinct sets of books taken) to spend bookkeeping points.

    ``state`` is at the player's ``bookkeeping-points`` decision (``points`` defaults
    to the pool; the steps are exact when it is the pool), or at the player's
    ``action`` decision with ``points`` given (hypothetical: what to do with that many
    points at the end of this turn; ``exact`` is False). ``valuation`` defaults to
    :func:`default_track_valuation`. ``method``: ``"dp"`` (the hand-written exact
    search, the default; valuations with a negative weight go to CP-SAT) or
    ``"cpsat"`` (the reference model); both give the same values. Results are cached.

    >>> import engine, random
    >>> s, rng = engine.new_game(players=3, seed=5), random.Random(5)
    >>> while s.decision.kind != "bookkeeping-points":
    ...     s = s.apply_unchecked(s.random_step(rng))
    >>> plan = best_bookkeeping(s)[0]
    >>> plan.exact and plan.points == s.pool
    True
    """
    if not isinstance(state, State):
        raise SolverError(f"not a State: {type(state).__name__}")
    if not isinstance(k, int) or k < 1:
        raise SolverError(f"k must be a positive integer, got {k!r}")
    if points is not None and (not isinstance(points, int) or points < 0):
        raise SolverError(f"points must be a non-negative integer, got {points!r}")
    if method not in ("dp", "cpsat"):
        raise SolverError(f"unknown method {method!r} (expected 'dp' or 'cpsat')")
    player = acting_player(state)
    d = state.decision
    if d.kind == "bookkeeping-points":
        assert d.points is not None and d.space is not None
        pts = d.points if points is None else points
        exact = pts == d.points
        spend_space: int | None = d.space
    elif d.kind == "action":
        if points is None:
            raise SolverError("at an action decision the points to spend must be given")
        pts, exact, spend_space = points, False, None
    else:
        raise SolverError(f"the state is at a {d.kind!r} decision; book "
                          "purchases are solved at a 'bookkeeping-points' decision (or, "
                          "with points, hypothetically at an 'action' decision)")
    p = state.players[player]
    key = (state.cat, player, pts, exact, k, method, valuation, spend_space, state.book_display,
           state.book_coins, state.turn_books, p.books, p.flipped, p.ink,
           None if valuation is not None else (
               state.round, p.hand, p.slots, p.resting, p.tiles, p.used, p.track, p.diamond,
               state.bases, state.tracks))
    cached = _CACHE.get(key)
    if cached is not None:
        return list(cached)
    tv = valuation if valuation is not None else default_track_valuation(state, player)
    if len(tv.cards) != 5:
        raise SolverError("TrackValuation.cards needs one tuple per measure (5)")
    cat = state.cat
    if p.ink >= len(p.books) - 1:
        # The ink jar at the end: every point pays the end pounds, nothing to choose.
        pounds = pts * cat.bookkeeping_end_pounds
        value = pounds * int(round(SCALE * tv.pound))
        plans: tuple[BookPlan, ...] = (BookPlan((), (), (), (), pounds, 0, pts,
                                                value / SCALE, exact),)
    else:
        pr = _BookProblem(state, player, pts, tv, exact, spend_space)
        if method == "dp" and _nonnegative(pr):
            found = _solve_books_dp(pr, k)
        else:
            found = _solve_books(pr, k)
        plans = tuple(_book_plan(pr, v, taken, placed) for v, taken, placed in found)
    _CACHE.put(key, plans)
    return list(plans)


def best_ink_move(state: State, valuation: TrackValuation | None = None) -> InkPlan:
    """How far to move the ink jar at the player's ``ink-jar`` decision: among the
    spaces it can reach with the needs met now, the stop with the best score steps +
    reward collected there + track value from there.

    >>> import engine, random
    >>> s, rng = engine.new_game(players=2, seed=8), random.Random(8)
    >>> while s.decision.kind != "ink-jar":
    ...     s = s.apply_unchecked(s.random_step(rng))
    >>> best_ink_move(s).steps[-1].kind in ("ink", "halt")
    True
    """
    if not isinstance(state, State):
        raise SolverError(f"not a State: {type(state).__name__}")
    player = acting_player(state)
    d = state.decision
    if d.kind != "ink-jar" or d.moved is None:
        raise SolverError(f"the state is at a {d.kind!r} decision; the ink jar "
                          "moves at an 'ink-jar' decision")
    moved = d.moved
    cat = state.cat
    p = state.players[player]
    tv = valuation if valuation is not None else default_track_valuation(state, player)
    reach = ink_reach(cat, p, p.measures(state.cat))
    w_now = _weights(tv, cat, p.ink)
    best: tuple[int, int] | None = None
    for j in range(p.ink, reach + 1):
        value = sum(int(round(SCALE * tv.step[kk])) if kk < len(tv.step) else 0
                    for kk in range(p.ink + 1, j + 1))
        if moved or j > p.ink:
            top = p.books[j][-1] if p.books[j] else -1
            if top >= 0 and not (p.flipped >> top) & 1:
                value += w_now.book_value[top]
        value += track_value(cat, p.books, p.flipped, j, tv)
        if best is None or value > best[0]:
            best = (value, j)
    assert best is not None
    value, target = best
    steps = [Step("ink")] * (target - p.ink)
    if target < reach:
        steps.append(Step("halt"))
    reward = None
    if moved or target > p.ink:
        top = p.books[target][-1] if p.books[target] else -1
        if top >= 0 and not (p.flipped >> top) & 1:
            reward = cat.books[top].reward
    return InkPlan(steps=tuple(steps), target=target, reward=reward, value=value / SCALE)
