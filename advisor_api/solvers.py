"""Adapter to the exact solvers of :mod:`search.solvers`.

For an expansion or bookkeeping decision the analysis adds to each concerned line a
``solver`` field: the exact solver's route (expansion: regions, base columns, returns,
rewards) or purchase (bookkeeping: books, pounds, placements), and whether the line's
move agrees with it. Where a solver does not cover a position (it refuses with
``SolverError``) the field is left out.

>>> import engine
>>> s = engine.new_game(players=2, seed=1)
>>> solve_decision(s)   # a chance event: nothing to solve
{}
"""

from __future__ import annotations

import logging
from typing import Any

from engine import State, Step
from search.solvers import (
    BookPlan,
    ExpansionPlan,
    InkPlan,
    SolverError,
    best_bookkeeping,
    best_expansions,
    best_ink_move,
)

log = logging.getLogger("advisor_api.solvers")

#: Step kinds that take part in an expansion / a bookkeeping purchase.
EXPANSION_KINDS = frozenset({"expand", "enter", "stop", "remove-post", "return"})
BOOKKEEPING_KINDS = frozenset({"take", "pounds", "place", "ink", "halt"})
ANY = "*"  # key of a plan that holds for the whole decision


def _entry(kind: str, plan: ExpansionPlan | BookPlan | InkPlan, state: State
           ) -> dict[str, Any]:
    """A solver plan as the analysis shows it: its steps in notation and its JSON."""
    return {"kind": kind, "steps": [st.text(state.cat) for st in plan.steps],
            "plan": plan.to_json(state.cat)}


def solve_decision(state: State) -> dict[str, dict[str, Any]]:
    """Solver plans for the decision of ``state`` (the decider's observation is enough):
    ``{"expand CAI": {...}, ...}`` at an action decision, ``{"*": {...}}`` at an
    expansion, bookkeeping-points or ink-jar decision; ``{}`` when there is nothing to
    solve). A solver's refusal (:class:`SolverError`: a position it does not cover) is
    logged and leaves that plan out; any other failure is a bug and raises."""
    if state.is_over():
        return {}
    kind = state.decision.kind
    out: dict[str, dict[str, Any]] = {}
    try:
        if kind == "action":
            for st in state.legal_steps():
                if st.kind == "expand":
                    plans = best_expansions(state, st.a, k=1)
                    if plans:
                        out[st.text(state.cat)] = _entry("expansion", plans[0], state)
        elif kind == "expansion":
            company = state.decision.company
            assert company is not None
            plans = best_expansions(state, company, k=1)
            if plans:
                out[ANY] = _entry("expansion", plans[0], state)
        elif kind == "ink-jar":
            out[ANY] = _entry("ink-jar", best_ink_move(state), state)
        elif kind == "bookkeeping-points":
            purchases = best_bookkeeping(state)
            if purchases:
                out[ANY] = _entry("bookkeeping", purchases[0], state)
    except SolverError as exc:  # the solver does not cover this position
        log.info("no solver plan at a %s decision: %s", kind, exc)
    return out


def solver_for_line(solved: dict[str, dict[str, Any]], step: Step, move: list[str],
                    state: State) -> dict[str, Any] | None:
    """The solver's plan that concerns a line starting with ``step`` (its move's steps
    in notation), with ``agrees``: whether the line's move follows the plan."""
    if not solved:
        return None
    entry = solved.get(step.text(state.cat))
    if entry is None and step.kind in EXPANSION_KINDS | BOOKKEEPING_KINDS:
        entry = solved.get(ANY)
    if entry is None:
        return None
    plan_steps = entry["steps"]
    agrees = bool(plan_steps) and all(a == b for a, b in zip(plan_steps, move, strict=False))
    return {**entry, "agrees": agrees}
