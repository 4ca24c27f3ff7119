"""Candidate steps from the solvers: expansions and bookkeeping are not enumerated blindly.

At an expansion decision the candidates are the first steps of the solver's ``k`` best
routes; at a bookkeeping-points decision, the first steps of its ``k`` best purchases;
at an ink-jar decision, the solver's best move. Elsewhere (or if a solver cannot
help) every legal step is a candidate. The solvers cache their answers, so asking again
at the next step of the same route is cheap.

>>> import engine
>>> s = engine.new_game(players=2, seed=0)
>>> candidate_steps(s, s.legal_steps()) == s.legal_steps()
True
"""

from __future__ import annotations

from engine import State, Step
from search.solvers import SolverError, best_bookkeeping, best_expansions, best_ink_move

TOP_K = 3


def _plans(state: State, k: int) -> list[tuple[Step, ...]] | None:
    """Step sequences of the solvers' ``k`` best plans at this decision, best first;
    None where no solver answers (not a solved decision, or the solver refuses)."""
    kind = state.decision.kind
    try:
        if kind == "expansion":
            company = state.decision.company
            assert company is not None
            return [p.steps for p in best_expansions(state, company, k=k) if p.steps]
        if kind == "bookkeeping-points":
            return [p.steps for p in best_bookkeeping(state, k=k) if p.steps]
        if kind == "ink-jar":
            plan = best_ink_move(state)
            return [plan.steps] if plan.steps else []
    except SolverError:  # the solver refuses the position: every legal step
        return None
    return None


def _worth_solving(state: State, legal: list[Step]) -> bool:
    """Whether to ask the solvers: more than two legal steps, or an ink-jar decision
    (halt or go on: the evaluator alone halted bots in front of books they could enter)."""
    return len(legal) > 2 or (len(legal) == 2 and state.decision.kind == "ink-jar")


def candidate_steps(state: State, legal: list[Step], k: int = TOP_K) -> list[Step]:
    """The steps worth considering at this decision (a non-empty subset of ``legal``)."""
    if not _worth_solving(state, legal):
        return legal
    plans = _plans(state, k)
    if plans is None:
        return legal
    allowed = set(legal)
    out = list(dict.fromkeys(p[0] for p in plans if p[0] in allowed))
    return out or legal


def leftmost_plan_steps(legal: list[Step], after_card: int = -1) -> list[Step]:
    """``legal`` with its plan steps cut to those into the leftmost slot they offer and
    of a card numbered above ``after_card`` (the card planned last; ``ready`` and any
    other step kept): each set of cards is then planned one way only, left to right in
    card order, as a player who does not mind which resting deck a card joins would.

    >>> import engine
    >>> s = engine.new_game(2, seed=1)
    >>> while s.decision.kind != "plan":
    ...     s = s.apply(s.legal_steps()[0])
    >>> kept = leftmost_plan_steps(s.legal_steps())
    >>> sorted({st.b for st in kept if st.kind == "plan"}) == [min(
    ...     st.b for st in s.legal_steps() if st.kind == "plan")]
    True
    >>> any(st.kind == "ready" for st in kept)
    True
    """
    slots = [st.b for st in legal if st.kind == "plan"]
    if not slots:
        return legal
    first = min(slots)
    return [st for st in legal
            if st.kind != "plan" or (st.b == first and st.a > after_card)]


def best_plan(state: State, legal: list[Step], k: int = TOP_K) -> tuple[Step, ...]:
    """The whole best plan whose first step is ``candidate_steps(state, legal, k)[0]``
    (the same solver call, so the same cache entry), or just that step where no solver
    answers. A rollout can follow the plan instead of solving again after each step.

    >>> import engine
    >>> s = engine.new_game(players=2, seed=0)
    >>> best_plan(s, s.legal_steps()) == (s.legal_steps()[0],)
    True
    """
    if _worth_solving(state, legal):
        allowed = set(legal)
        for plan in _plans(state, k) or ():
            if plan[0] in allowed:
                return plan
    return (legal[0],)
