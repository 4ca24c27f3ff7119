"""Optimal expansion routes: which regions to enter, in which order, with which base
columns, and where ousted posts go home.

Two exact methods solve the same problem:

* ``"cpsat"`` (the reference): a CP-SAT model of the set of entered regions as an
  arborescence rooted at the company's base and existing posts (one parent per entered
  region, depth ordering against cycles), the cost of each arc (border + 1 for an
  occupied region), the base's post count, how many posts leave each base column and
  how many ousted posts return to each column of the other companies (share-value
  tables per column), and the rewards through an exact table of their value;
* ``"dp"`` (what the search uses: it is much faster at these sizes): dynamic
  programming over entry orders with a memo on the set entered. Level by level (sets
  of 1, 2, ... regions), every region enterable from every kept set is tried, with
  numpy over all sets at once; a set that can still grow is kept once, with the most
  points left (its cheapest order); every set is evaluated exactly from its reward
  totals, post count and ousted posts.

Both return the ``k`` best distinct plans (a different set of regions, or column /
return choices that change the value), best first, as exact engine steps.

>>> from search.bench.positions import mid_game
>>> s = mid_game(players=4, seed=2, round_=4)
>>> plan = best_expansions(s, "CAI", points=4)[0]
>>> plan.steps[0].text(s.cat)
'expand CAI'
>>> plan.value == best_expansions(s, "CAI", points=4, method="cpsat")[0].value
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from engine import State, tables
from search.solvers.common import (
    LRUCache,
    SolverError,
    Valuation,
    acting_player,
    company_index,
    default_valuation,
)
from search.solvers.expansion.cpsat import _solve_cpsat
from search.solvers.expansion.dp import _solve_enum
from search.solvers.expansion.plan import ExpansionPlan, _assemble
from search.solvers.expansion.problem import Combo, _bits, _Problem, _Result
from search.solvers.expansion.removal import choose_removal, removal_step

__all__ = [
    "DEFAULT_METHOD", "Combo", "ExpansionPlan", "Method", "best_expansions", "cache_info",
    "choose_removal", "clear_cache", "removal_step",
]

Method = Literal["dp", "cpsat"]
DEFAULT_METHOD: Method = "dp"
_NEG = -(1 << 62)


# --------------------------------------------------------------------------------------
# Public entry point, with the cache
# --------------------------------------------------------------------------------------

_CACHE: LRUCache[tuple[Any, ...], tuple[ExpansionPlan, ...]] = LRUCache(8192)


def cache_info() -> dict[str, Any]:
    """Hits, misses and size of the expansion-solver cache."""
    return _CACHE.info()


def clear_cache() -> None:
    _CACHE.clear()


def _resolve(s: State, company: int | str, points: int | None
             ) -> tuple[int, int, int, bool]:
    """(player, company, points, at-action) after checking the input."""
    if not isinstance(s, State):
        raise SolverError(f"not a State: {type(s).__name__}")
    player = acting_player(s)
    c = company_index(s, company)
    if points is not None and (not isinstance(points, int) or points < 0):
        raise SolverError(f"points must be a non-negative integer, got {points!r}")
    d = s.decision
    ids = [co.id for co in s.cat.companies]
    if d.kind == "expansion":
        assert d.company is not None and d.points is not None
        if d.company != c:
            raise SolverError(f"the pending expansion is for {ids[d.company]}, not {ids[c]}")
        if points is not None and points != d.points:
            raise SolverError(f"the pending expansion has {d.points} point(s) left, "
                              f"not {points}")
        return player, c, d.points, False
    if d.kind == "action":
        p = s.players[player]
        # Given points are hypothetical ("what if I expanded with N"), as for books; the
        # default is the helmets of the face-up expansion cards, so it needs one.
        if points is None and not p.face_up() & tables(s.cat).expansion_mask:
            raise SolverError(f"P{player + 1} has no face-up expansion card to expand with: "
                              "give the points for a hypothetical expansion")
        if not any(s.posts(c)):
            raise SolverError(f"{ids[c]} has no trading post left in its base")
        return player, c, p.measures(s.cat)[3] if points is None else points, True
    raise SolverError(f"the state is at a {d.kind!r} decision; expansion routes are solved at "
                      "an 'expansion' decision or (hypothetically) at an 'action' decision")


def best_expansions(state: State, company: int | str, points: int | None = None, k: int = 1,
                    valuation: Valuation | None = None, method: Method = DEFAULT_METHOD
                    ) -> list[ExpansionPlan]:
    """The ``k`` best distinct expansions of ``company`` for the player deciding now.

    ``state`` is at that player's ``expansion`` decision (company and points must match
    the pending expansion; the steps begin with ``enter``/``stop``) or at the player's
    ``action`` decision (hypothetical: ``points`` defaults to the helmets of the face-up
    expansion cards and tiles, the steps begin with ``expand <company>`` and are exact
    when ``points`` is that total; given points need no face-up expansion card).
    ``valuation`` defaults to :func:`default_valuation`. ``method`` is ``"dp"`` (fast,
    the default) or ``"cpsat"`` (the reference model); both return plans of the same
    values. Results are cached (see :func:`cache_info`).

    >>> from search.bench.positions import mid_game
    >>> s = mid_game(players=2, seed=1, round_=2)
    >>> plans = best_expansions(s, "MOM", points=3, k=2)
    >>> len(plans) == 2 and plans[0].value >= plans[1].value
    True
    """
    if not isinstance(k, int) or k < 1:
        raise SolverError(f"k must be a positive integer, got {k!r}")
    if method not in ("dp", "cpsat"):
        raise SolverError(f"unknown method {method!r} (expected 'dp' or 'cpsat')")
    player, c, pts, action = _resolve(state, company, points)
    p = state.players[player]
    pending = None if action else state.decision
    key = (state.cat, player, c, pts, action, pending, k, method, valuation, state.owners,
           state.bases, state.tracks, p.cash, p.diamond, p.track,
           None if valuation is not None else (state.round, p.hand, p.slots, p.resting,
                                               p.ink))
    cached = _CACHE.get(key)
    if cached is not None:
        return list(cached)
    v = valuation if valuation is not None else default_valuation(state, player)
    pr = _Problem(state, player, c, pts, v, action)
    solve: Callable[[_Problem, int], list[_Result]] = (
        _solve_enum if method == "dp" else _solve_cpsat)
    plans = tuple(_assemble(pr, _bits(mask), combo, value)
                  for value, _key, mask, combo in solve(pr, k))
    _CACHE.put(key, plans)
    return list(plans)
