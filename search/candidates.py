"""Candidate steps from the solvers: expansions and bookkeeping are not enumerated blindly.

At an expansion decision the candidates are the first steps of the solver's ``k`` best
routes; at a bookkeeping-points decision, the first steps of its ``k`` best purchases;
at an ink-jar decision, the solver's best move. Elsewhere (or if a solver cannot
help) every legal step is a candidate. The solvers cache their answers, so asking again
at the next step of the same route is cheap.

>>> import engine
>>> s = engine.new_game(players=2, seed=0)
>>> candidate_steps(s, engine.legal_steps(s)) == engine.legal_steps(s)
True
"""

from __future__ import annotations

from engine import State, Step
from engine.rules import decision, pending_expansion

TOP_K = 3


def candidate_steps(state: State, legal: list[Step], k: int = TOP_K) -> list[Step]:
    """The steps worth considering at this decision (a non-empty subset of ``legal``)."""
    if len(legal) <= 2:
        return legal
    kind = decision(state).kind
    firsts: list[Step] = []
    try:
        if kind == "expansion":
            from search.solvers import best_expansions

            pending = pending_expansion(state)
            assert pending is not None
            firsts = [p.steps[0] for p in best_expansions(state, pending[0], k=k) if p.steps]
        elif kind == "bookkeeping-points":
            from search.solvers import best_bookkeeping

            firsts = [p.steps[0] for p in best_bookkeeping(state, k=k) if p.steps]
        elif kind == "ink-jar":
            from search.solvers import best_ink_move

            plan = best_ink_move(state)
            firsts = list(plan.steps[:1])
        else:
            return legal
    except ValueError:  # SolverError: fall back to every legal step
        return legal
    allowed = set(legal)
    out = list(dict.fromkeys(st for st in firsts if st in allowed))
    return out or legal
