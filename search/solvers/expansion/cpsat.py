"""The reference method (``"cpsat"``): a CP-SAT model of the entered regions as an
arborescence rooted at the company's base and existing posts, with the cost of each
arc, the posts leaving each base column, the ousted posts returning to the columns of
the other companies and the rewards through the exact value tables of the problem; it
returns the ``k`` best distinct sets, best first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ortools.sat.python import cp_model

from search.solvers.expansion.dp import _solve_enum
from search.solvers.expansion.problem import Combo, _bits, _Problem, _Result

# --------------------------------------------------------------------------------------
# CP-SAT model (the reference)
# --------------------------------------------------------------------------------------

def _solve_cpsat(pr: _Problem, k: int) -> list[_Result]:
    if not pr.cand:  # nothing can be entered: only the return choices remain
        return _solve_enum(pr, k)
    m = _ExpansionModel(pr)
    # The parts are added in this order on purpose: the model (and so the solver's
    # choice among equal optima) is the same as when it was one function.
    m.add_regions()
    m.add_takes()
    m.add_returns()
    m.add_rewards()
    return m.k_best(k)


class _ExpansionModel:
    """The CP-SAT model of one expansion problem, built part by part, then solved for
    the ``k`` best distinct sets of regions."""

    def __init__(self, pr: _Problem) -> None:
        self.pr = pr
        self.model = cp_model.CpModel()
        self.x = {r: self.model.new_bool_var(f"x{r}") for r in pr.cand}
        self.n_expr: Any = sum(self.x.values()) if self.x else 0
        self.objective: list[Any] = []
        self.take_vars: list[cp_model.IntVar] = []
        self.ret_vars: dict[int, list[cp_model.IntVar]] = {}

    def add_regions(self) -> None:
        """The entered regions form an arborescence from the launching points (one
        arc into each, depths rising along arcs); the arcs' costs fit the points."""
        pr, model, x = self.pr, self.model, self.x
        occ = pr.occ
        hops = _hops(pr)
        top_depth = max(1, pr.nmax)
        depth = {r: model.new_int_var(min(hops[r], top_depth), top_depth, f"d{r}")
                 for r in pr.cand}
        arc: dict[tuple[int, int], cp_model.IntVar] = {}
        cost_terms = []
        for r in pr.cand:
            lits = []
            rc = 1 if (pr.root1 >> r) & 1 else 2 if (pr.root2 >> r) & 1 else 0
            if rc:
                lit = model.new_bool_var(f"a_root_{r}")
                lits.append(lit)
                cost_terms.append((rc + occ[r]) * lit)
            for u, border in pr.cat.neighbours[r]:
                if u not in x:
                    continue
                lit = model.new_bool_var(f"a_{u}_{r}")
                arc[(u, r)] = lit
                model.add_implication(lit, x[u])
                model.add(depth[r] >= depth[u] + 1).only_enforce_if(lit)
                lits.append(lit)
                cost_terms.append((border + occ[r]) * lit)
            model.add(sum(lits) == x[r])
            if not rc:  # redundant, but it helps: a region needs an entered neighbour
                model.add_bool_or([x[r].Not()]
                                  + [x[u] for u, _ in pr.cat.neighbours[r] if u in x])
        for (u, r), lit in arc.items():
            if u < r and (r, u) in arc:
                model.add_bool_or([lit.Not(), arc[(r, u)].Not()])
        if cost_terms:
            model.add(sum(cost_terms) <= pr.points)
        if x:
            model.add(self.n_expr <= pr.nmax)

    def add_takes(self) -> None:
        """The posts leaving the base columns (one per entered region), valued by the
        exact table of each column."""
        pr, model, w = self.pr, self.model, self.pr.w
        if not (w.share[pr.company] and self.x):
            return
        for col, tab in enumerate(pr.take_tables):
            t = model.new_int_var(0, len(tab) - 1, f"t{col}")
            vals = [v * w.share[pr.company] for v in tab]
            gain = model.new_int_var(min(vals), max(vals), f"g{col}")
            model.add_element(t, vals, gain)
            self.take_vars.append(t)
            self.objective.append(gain)
        model.add(sum(self.take_vars) == self.n_expr)
        _symmetry(model, pr.base, self.take_vars)

    def add_returns(self) -> None:
        """The ousted posts going back to their companies' columns (as far as there is
        room), valued by the exact tables of those columns."""
        pr, model, w = self.pr, self.model, self.pr.w
        for c in pr.oust_companies:
            if not w.share[c]:
                continue
            owned_by_c = [self.x[r] for r in pr.cand if pr.owner_of[r] == c]
            prev = pr.prev_m.get(c, 0)
            mmax = prev + len(owned_by_c)
            total_room = pr.room[c]
            m_expr = prev + sum(owned_by_c)
            if mmax <= total_room:
                ret: Any = m_expr
            else:
                ret = model.new_int_var(0, total_room, f"ret{c}")
                model.add_min_equality(ret, [m_expr, total_room])
            ys = []
            for col, tab in enumerate(pr.return_tables[c]):
                y = model.new_int_var(0, len(tab) - 1, f"y{c}_{col}")
                vals = [v * w.share[c] for v in tab]
                h = model.new_int_var(min(vals), max(vals), f"h{c}_{col}")
                model.add_element(y, vals, h)
                ys.append(y)
                self.objective.append(h)
            model.add(sum(ys) == ret)
            _symmetry(model, pr.s.bases[c], ys)
            self.ret_vars[c] = ys

    def _total(self, values: list[int], base: int) -> Any:
        return base + sum(values[r] * self.x[r] for r in self.pr.cand if values[r])

    def add_rewards(self) -> None:
        """The regions' rewards: pounds, diamonds (beyond the track's end paid in
        pounds), bookkeeping points and track steps, the steps valued through the
        exact table of each reward variant (and the better order where it is asked)."""
        pr, model, w = self.pr, self.model, self.pr.w
        p_expr = self._total(pr.rP, pr.P0)
        d_expr = self._total(pr.rD, pr.D0)
        t_expr = self._total(pr.rT, pr.T0)
        self.objective.append(w.bookkeeping * self._total(pr.rB, pr.B0))
        rew = pr.rewards
        t_var = model.new_int_var(0, rew.tmax, "T")
        model.add(t_var == t_expr)
        if rew.dmax > rew.droom:
            ovf = model.new_int_var(0, rew.dmax - rew.droom, "ovf")
            model.add_max_equality(ovf, [d_expr - rew.droom, 0])
            dclip: Any = d_expr - ovf
            c_expr: Any = p_expr + rew.dend * ovf
        else:
            dclip = d_expr
            c_expr = p_expr
        self.objective.append(w.pound * c_expr)
        self.objective.append(w.diamond * dclip)
        variants = len(rew.g)
        v_var = None
        if variants > 1:
            v_var = model.new_int_var(0, variants - 1, "v")
            model.add_max_equality(v_var, [dclip - rew.lo, 0])
        c_var = None
        if not rew.cash_free:
            c_var = model.new_int_var(0, rew.cmax, "C")
            model.add(c_var == c_expr)
        r_var = model.new_int_var(min(min(g) for g in rew.g), max(max(g) for g in rew.g),
                                  "R")
        asked = self._order_asked(p_expr, t_var)
        for v, g in enumerate(rew.g):
            gv = self._variant_value(v, g, t_var, c_var, asked)
            if v_var is None:
                model.add(r_var == gv)
            else:
                model.add(r_var == gv).only_enforce_if(_is_value(model, v_var, v))
        self.objective.append(r_var)

    def _order_asked(self, p_expr: Any, t_var: cp_model.IntVar) -> Any:
        """The engine asks for the order of the rewards exactly when P >= order_p and
        T >= order_t; then the better order counts. Both are fixed by the set (fully
        reified), so the k best never offer one set twice under its two orders."""
        rew, model = self.pr.rewards, self.model
        if rew.order_p is None or rew.order_t is None:
            return None
        enough_pounds = model.new_bool_var("enough_pounds")
        model.add(p_expr >= rew.order_p).only_enforce_if(enough_pounds)
        model.add(p_expr <= rew.order_p - 1).only_enforce_if(enough_pounds.Not())
        enough_steps = model.new_bool_var("enough_steps")
        model.add(t_var >= rew.order_t).only_enforce_if(enough_steps)
        model.add(t_var <= rew.order_t - 1).only_enforce_if(enough_steps.Not())
        asked = model.new_bool_var("order_asked")
        model.add_bool_and([enough_pounds, enough_steps]).only_enforce_if(asked)
        model.add_bool_or([enough_pounds.Not(), enough_steps.Not()]).only_enforce_if(
            asked.Not())
        return asked

    def _variant_value(self, v: int, g: list[int], t_var: cp_model.IntVar,
                       c_var: cp_model.IntVar | None, asked: Any) -> Any:
        """The value of the track steps under reward variant ``v`` (steps bought with
        the cash in hand where they cost; the better order where it is asked)."""
        rew, model = self.pr.rewards, self.model
        if c_var is None:
            steps: Any = t_var
        else:
            b_var = model.new_int_var(0, rew.tmax, f"B{v}")
            model.add_element(c_var, rew.B[v], b_var)
            steps = model.new_int_var(0, rew.tmax, f"s{v}")
            model.add_min_equality(steps, [t_var, b_var])
        gv = model.new_int_var(min(g), max(g), f"g{v}")
        model.add_element(steps, g, gv)
        if asked is None:
            return gv
        # reward-order track: the walk with the cash in hand only.
        cash_steps = model.new_int_var(0, rew.tmax, f"st{v}")
        model.add_min_equality(cash_steps, [t_var, rew.B[v][0]])
        g_track = model.new_int_var(min(g), max(g), f"gt{v}")
        model.add_element(cash_steps, g, g_track)
        better = model.new_int_var(min(g), max(g), f"gb{v}")
        model.add_max_equality(better, [gv, g_track])
        counted = model.new_int_var(min(g), max(g), f"gc{v}")
        model.add(counted == better).only_enforce_if(asked)
        model.add(counted == gv).only_enforce_if(asked.Not())
        return counted

    def k_best(self, k: int) -> list[_Result]:
        """The ``k`` best distinct sets, best first: after each solution, the same set
        is allowed again only with a strictly lower value."""
        model, x, cand = self.model, self.x, self.pr.cand
        obj = sum(self.objective)
        model.maximize(obj)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        results: list[_Result] = []
        for _ in range(k):
            status = solver.solve(model)
            if status != cp_model.OPTIMAL:
                break
            chosen = [r for r in cand if solver.boolean_value(x[r])]
            value = int(round(solver.objective_value))
            results.append(self._result(solver, chosen, value))
            same = model.new_bool_var(f"same{len(results)}")
            model.add_bool_or([same] + [x[r].Not() if r in chosen else x[r] for r in cand])
            model.add(obj <= value - 1).only_enforce_if(same)
        results.sort(key=lambda e: (-e[0], e[1]))
        return results

    def _result(self, solver: cp_model.CpSolver, chosen: list[int], value: int) -> _Result:
        """A solution as the solvers' result: the set, and which columns the posts
        leave and return to (read back through the value tables)."""
        pr, w = self.pr, self.pr.w
        _, _, _, _, ousted = pr.set_totals(chosen)
        gained = (sum(pr.take_tables[col][solver.value(t)]
                      for col, t in enumerate(self.take_vars)) * w.share[pr.company])
        takes = next(t for v, t in pr.G[len(chosen)] if v == gained)
        rets = []
        for c in pr.oust_companies:
            if c in self.ret_vars:
                hv = sum(pr.return_tables[c][col][solver.value(y)]
                         for col, y in enumerate(self.ret_vars[c])) * w.share[c]
            else:
                hv = 0
            rets.append(next(y for v, y in pr.L[c][ousted.get(c, 0)] if v == hv))
        combo: Combo = (takes, tuple(rets))
        mask = sum(1 << r for r in chosen)
        return (value, (tuple(chosen), combo), mask, combo)


def _is_value(model: cp_model.CpModel, var: cp_model.IntVar, value: int) -> Any:
    """A literal true exactly when ``var == value``."""
    lit = model.new_bool_var(f"{var.name}=={value}")
    model.add(var == value).only_enforce_if(lit)
    model.add(var != value).only_enforce_if(lit.Not())
    return lit


def _hops(pr: _Problem) -> dict[int, int]:
    """Fewest regions on a path from the launching points to each candidate (its
    smallest possible depth in the arborescence)."""
    hops = {}
    layer = (pr.root1 | pr.root2) & pr.cand_mask
    seen = layer
    depth = 1
    while layer:
        nxt = 0
        for r in _bits(layer):
            hops[r] = depth
            nxt |= pr.nb1[r] | pr.nb2[r]
        layer = nxt & pr.cand_mask & ~seen
        seen |= layer
        depth += 1
    return hops


def _symmetry(model: cp_model.CpModel, codes: Sequence[int],
              counts: list[cp_model.IntVar]) -> None:
    """Columns in the same condition are interchangeable: fill earlier ones first."""
    for a in range(len(codes)):
        for b in range(a + 1, len(codes)):
            if codes[a] == codes[b]:
                model.add(counts[a] >= counts[b])
                break
