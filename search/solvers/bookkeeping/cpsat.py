"""The reference method (``"cpsat"``): a CP-SAT model of which books to take, where
each goes, which book ends on top of each space and how far the chain of reachable
spaces extends; it returns the ``k`` best plans, each taking a different set of books."""

from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from search.solvers.bookkeeping.problem import _BookProblem
from search.solvers.bookkeeping.valuation import _contribution

_Plan = tuple[int, tuple[int, ...], tuple[tuple[int, int], ...]]


def _solve_books(pr: _BookProblem, k: int) -> list[_Plan]:
    """CP-SAT: the k best (value, display spaces taken, placements), each with a
    different set of books taken."""
    model = cp_model.CpModel()
    w = pr.w
    take = {j: model.new_bool_var(f"take{j}") for j, _, _, _ in pr.display}
    cost = sum(c * take[j] for j, _, c, _ in pr.display)
    if take:
        model.add(cost <= pr.points)
    seq: list[tuple[int, Any]] = [(b, 1) for b in pr.pre]
    seq += [(b, take[j]) for j, b, _, _ in pr.display]
    place: dict[tuple[int, int], Any] = {}
    for q, (b, taken) in enumerate(seq):
        lits = []
        for kk in pr.ahead:
            if pr.placeable(pr.letter[b], kk):
                lit = model.new_bool_var(f"pl{q}_{kk}")
                place[(q, kk)] = lit
                lits.append(lit)
        model.add(sum(lits) == taken)
    objective: list[Any] = [w.pound * (pr.points - cost)]
    objective += [w.pound * coins * take[j] for j, _, _, coins in pr.display if coins]
    prev_reach: Any = 1
    for kk in pr.ahead:
        prev_reach = _space(model, pr, kk, seq, place, prev_reach, objective)
    return _k_best(model, pr, sum(objective), take, seq, place, k)


def _space(model: cp_model.CpModel, pr: _BookProblem, kk: int, seq: list[tuple[int, Any]],
           place: dict[tuple[int, int], Any], prev_reach: Any, objective: list[Any]) -> Any:
    """Book space ``kk``: which book ends on top (an old one or the last placed), whether
    the ink jar reaches it (``reach[k] = reach[k-1]`` and its top's needs are met), and
    its value and the top's rewards, added to ``objective``. Returns ``reach``."""
    w = pr.w
    placers = [q for q in range(len(seq)) if (q, kk) in place]
    old = model.new_bool_var(f"old{kk}")
    for q in placers:
        model.add_implication(place[(q, kk)], old.Not())
    model.add_bool_or([old] + [place[(q, kk)] for q in placers])
    ok_old, c_old = pr.old_top(kk)
    meet_terms: list[Any] = [old] if ok_old else []
    reach = model.new_bool_var(f"reach{kk}")
    rewards: list[Any] = []
    for i, q in enumerate(placers):
        top = model.new_bool_var(f"top{q}_{kk}")
        later = [place[(q2, kk)] for q2 in placers[i + 1:]]
        model.add_implication(top, place[(q, kk)])
        for lit in later:
            model.add_bool_or([top.Not(), lit.Not()])
        model.add_bool_or([top, place[(q, kk)].Not()] + later)
        b = seq[q][0]
        if w.meet[b] and w.can_move:
            meet_terms.append(top)
            c = _contribution(w, kk, b)
            if c:
                rewards.append(c * _both(model, f"z{q}_{kk}", top, reach))
    if ok_old and c_old and w.can_move:
        rewards.append(c_old * _both(model, f"zo{kk}", old, reach))
    meet = sum(meet_terms) if meet_terms and w.can_move else 0
    model.add(reach <= prev_reach)
    model.add(reach <= meet)
    model.add(reach >= prev_reach + meet - 1)
    objective.append(w.space[kk] * reach)
    objective.extend(rewards)
    return reach


def _both(model: cp_model.CpModel, name: str, a: Any, b: Any) -> Any:
    """A literal true exactly when ``a`` and ``b`` are."""
    z = model.new_bool_var(name)
    model.add_implication(z, a)
    model.add_implication(z, b)
    model.add_bool_or([z, a.Not(), b.Not()])
    return z


def _k_best(model: cp_model.CpModel, pr: _BookProblem, obj: Any, take: dict[int, Any],
            seq: list[tuple[int, Any]], place: dict[tuple[int, int], Any],
            k: int) -> list[_Plan]:
    """The ``k`` best plans, best first; distinct plans take distinct sets of books."""
    model.maximize(obj)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    out = []
    for _ in range(k):
        if solver.solve(model) != cp_model.OPTIMAL:
            break
        value = int(round(solver.objective_value)) - pr.before
        taken = tuple(j for j, _, _, _ in pr.display if solver.boolean_value(take[j]))
        placements = []
        for q, (b, _) in enumerate(seq):
            for kk in pr.ahead:
                chosen = place.get((q, kk))
                if chosen is not None and solver.boolean_value(chosen):
                    placements.append((b, kk))
        out.append((value, taken, tuple(placements)))
        model.add_bool_or([take[j].Not() if j in taken else take[j] for j in take])
    out.sort(key=lambda e: (-e[0], e[1]))
    return out
