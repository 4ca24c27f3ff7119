"""Exact solvers for two sub-problems of a Mombasa turn.

* :func:`best_expansions`: the best routes for an expansion action (regions, order,
  base columns, where ousted posts return), exact engine steps included;
* :func:`best_bookkeeping`: how to spend bookkeeping points (books to take, pounds,
  where to place each book); :func:`best_ink_move`: how far to move the ink jar.

CP-SAT models are the reference; a hand-written exact search is used where it is
faster (see ``docs/solvers.md``). Results are cached on the parts of the state they
depend on.

>>> from search.bench.positions import mid_game
>>> s = mid_game(players=4, seed=2, round_=4)
>>> best_expansions(s, "CAI", points=2)[0].spent <= 2
True
"""

from search.solvers.bookkeeping import (
    BookPlan,
    InkPlan,
    TrackValuation,
    best_bookkeeping,
    best_ink_move,
    default_track_valuation,
    track_value,
)
from search.solvers.common import Rewards, SolverError, Valuation, default_valuation
from search.solvers.expansion import (
    ExpansionPlan,
    best_expansions,
    choose_removal,
    removal_step,
)

__all__ = [
    "BookPlan", "ExpansionPlan", "InkPlan", "Rewards", "SolverError", "TrackValuation",
    "Valuation", "best_bookkeeping", "best_expansions", "best_ink_move", "choose_removal",
    "default_track_valuation", "default_valuation", "removal_step", "track_value",
]
