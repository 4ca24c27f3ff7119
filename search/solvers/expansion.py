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

>>> from benchmarks.positions import mid_game
>>> s = mid_game(players=4, seed=1, round_=4)
>>> plan = best_expansions(s, "CAI", points=4)[0]
>>> plan.steps[0].text(s.cat)
'expand CAI'
>>> plan.value == best_expansions(s, "CAI", points=4, method="cpsat")[0].value
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import numpy as np
from ortools.sat.python import cp_model

from engine import Catalogue, State, Step, tables
from search.solvers.common import SCALE as _SCALE
from search.solvers.common import (
    LRUCache,
    Rewards,
    ScaledValuation,
    SolverError,
    Valuation,
    acting_player,
    after_return,
    after_take,
    column_gain_table,
    company_index,
    default_valuation,
    posts_in,
    room,
    simulate_rewards,
)

Method = Literal["dp", "cpsat"]
DEFAULT_METHOD: Method = "dp"
_NEG = -(1 << 62)


@dataclass(frozen=True, slots=True)
class ExpansionPlan:
    """One expansion, complete: apply ``steps`` one after the other to the state.

    * ``steps``: ``expand <company>`` (when solved at an action decision), the
      ``enter`` steps, ``stop`` when points remain and something is still enterable,
      ``remove-post`` when a track space reached pays one, then the ``return`` steps of
      the ousted posts in the order they were ousted;
    * ``regions`` / ``columns``: entered regions in entry order and the base column
      (0-based) each post comes from; ``returns``: (company, column) per ousted post in
      order, column -1 when the post leaves the game; ``removals``: (company, column);
    * ``rewards``: what the player receives (net, see :class:`Rewards`);
    * ``points`` / ``spent`` / ``forfeited``; ``share_delta``: change of each company's
      share value; ``value``: the plan's value under the valuation (share changes from
      removals are valued at ``Valuation.remove_post`` per removal instead);
    * ``exact``: False when solved at an action decision for a number of points other
      than the helmets of the face-up cards (then the steps are only indicative).
    """

    company: int
    steps: tuple[Step, ...]
    regions: tuple[int, ...]
    columns: tuple[int, ...]
    returns: tuple[tuple[int, int], ...]
    removals: tuple[tuple[int, int], ...]
    rewards: Rewards
    points: int
    spent: int
    forfeited: int
    share_delta: tuple[int, ...]
    value: float
    exact: bool = True

    def text(self, cat: Catalogue) -> str:
        """The steps in notation, e.g. ``enter OGA 1; enter NUB 1``."""
        return "; ".join(st.text(cat) for st in self.steps)

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        ids = [c.id for c in cat.companies]
        return {
            "company": ids[self.company],
            "steps": [st.text(cat) for st in self.steps],
            "regions": [cat.regions[r].id for r in self.regions],
            "columns": [k + 1 for k in self.columns],
            "returns": [{"company": ids[c], "column": k + 1 if k >= 0 else None}
                        for c, k in self.returns],
            "removals": [{"company": ids[c], "column": k + 1} for c, k in self.removals],
            "rewards": {"pounds": self.rewards.pounds, "diamonds": self.rewards.diamonds,
                        "track": self.rewards.track,
                        "bookkeeping": self.rewards.bookkeeping,
                        "remove_posts": self.rewards.remove_posts},
            "points": self.points, "spent": self.spent, "forfeited": self.forfeited,
            "share_delta": dict(zip(ids, self.share_delta, strict=True)),
            "value": self.value, "exact": self.exact,
        }


# --------------------------------------------------------------------------------------
# The problem, extracted from the state
# --------------------------------------------------------------------------------------

@cache
def _adjacency(cat: Catalogue) -> tuple[tuple[int, ...], tuple[int, ...],
                                        tuple[tuple[int, int], ...]]:
    """Per region: mask of single-border and of double-border neighbours; per company:
    (single, double) masks of the regions bordering its base."""
    n = len(cat.regions)
    nb1 = [0] * n
    nb2 = [0] * n
    for r in range(n):
        for q, cost in cat.neighbours[r]:
            if cost == 1:
                nb1[r] |= 1 << q
            else:
                nb2[r] |= 1 << q
    base = []
    for c in range(len(cat.companies)):
        m1 = m2 = 0
        for r, cost in cat.base_neighbours[c]:
            if cost == 1:
                m1 |= 1 << r
            else:
                m2 |= 1 << r
        base.append((m1, m2))
    return tuple(nb1), tuple(nb2), tuple(base)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class _RewardModel:
    """The exact (scaled) value of the reward totals P, D, T (pounds, diamond steps,
    track steps; bookkeeping points are linear and handled outside).

    The engine pays pounds, then diamonds (2 pounds per step beyond the last space),
    then moves the marker one space at a time (a capital call the player cannot pay
    stops it; special spaces pay at once). So with ``ovf`` = region diamond steps past
    the end, ``dclip`` = the others, and ``C`` = P + 2 ovf (extra cash before the
    track)::

        value = wP C + wD dclip + g_v[min(T, B_v[C])]

    where ``g_v[s]`` is the value of the first ``s`` track steps and ``B_v[C]`` how many
    steps the cash allows. They depend on the diamond position only through whether a
    diamond paid by a special space passes the end: the variant ``v`` is 0 for every
    ``dclip <= lo`` and ``dclip - lo`` above. Everything is exact; the CP-SAT model uses
    the same tables through ``element`` constraints."""

    __slots__ = ("wP", "wD", "droom", "dend", "lo", "g", "B", "cash_free", "dmax", "pmax",
                 "tmax", "cmax", "pd")

    def __init__(self, s: State, player: int, company: int, w: ScaledValuation,
                 pmax: int, dmax: int, tmax: int) -> None:
        cat = s.cat
        p = s.players[player]
        track = cat.tracks[s.tracks[company]]
        pos0 = p.track[company]
        path = track.spaces[pos0 + 1: pos0 + 1 + tmax]
        dlast = len(cat.diamond_values) - 1
        self.wP, self.wD = w.pound, w.diamond
        self.pmax, self.dmax, self.tmax = pmax, dmax, tmax
        self.droom = droom = dlast - p.diamond
        self.dend = dend = cat.diamond_end_pounds
        specmax = sum(sp.special.diamonds for sp in path)
        self.lo = lo = max(0, droom - specmax)
        top = min(dmax, droom)
        variants = top - lo + 1 if top > lo else 1
        self.cash_free = p.cash >= sum(sp.capital for sp in path)
        self.cmax = cmax = pmax + dend * max(0, dmax - droom)
        self.g: list[list[int]] = []
        self.B: list[list[int]] = []
        for v in range(variants):
            dpos = p.diamond + lo + v
            self.g.append(_walk(cat, track, p, company, w, 1 << 40, dpos, tmax)[0])
            if self.cash_free:
                self.B.append([])
            else:
                self.B.append([_walk(cat, track, p, company, w, p.cash + c, dpos, tmax)[1]
                               for c in range(cmax + 1)])
        # value(P, D, T) = base(P, D) + row(P, D)[T], rows shared by (variant, cash).
        rows: dict[tuple[int, int], list[int]] = {}
        self.pd: list[tuple[int, list[int]]] = []
        for pp in range(pmax + 1):
            for dd in range(dmax + 1):
                if dd > droom:
                    c, dclip = pp + dend * (dd - droom), droom
                else:
                    c, dclip = pp, dd
                v = dclip - lo if dclip > lo else 0
                key = (v, 0 if self.cash_free else c)
                row = rows.get(key)
                if row is None:
                    gv = self.g[v]
                    if self.cash_free:
                        row = gv
                    else:
                        b = self.B[v][c]
                        row = [gv[t if t < b else b] for t in range(tmax + 1)]
                    rows[key] = row
                self.pd.append((self.wP * c + self.wD * dclip, row))

    def value(self, pp: int, dd: int, tt: int) -> int:
        base, row = self.pd[pp * (self.dmax + 1) + dd]
        return base + row[tt]


def _walk(cat: Catalogue, track: Any, p: Any, company: int, w: ScaledValuation, cash: int,
          dpos: int, tmax: int) -> tuple[list[int], int]:
    """Walk up to ``tmax`` steps on the track from the player's marker with ``cash`` and
    the diamond marker at ``dpos``: the scaled value of the first ``s`` steps for every
    ``s`` (capital paid, special spaces, end pounds, the steps themselves) and how many
    steps were possible before a capital call could not be paid."""
    dlast = len(cat.diamond_values) - 1
    dend = cat.diamond_end_pounds
    pos = p.track[company]
    last = track.last
    wt = w.track[company]
    value = 0
    out = [0]
    possible = tmax
    for step in range(tmax):
        if pos >= last:
            value += w.pound * track.end_pounds
            cash += track.end_pounds
        else:
            space = track.spaces[pos + 1]
            if space.capital > cash and possible == tmax:
                possible = step
            cash -= space.capital
            value -= w.pound * space.capital
            pos += 1
            value += wt
            sp = space.special
            value += w.pound * sp.pounds
            cash += sp.pounds
            for _ in range(sp.diamonds):
                if dpos >= dlast:
                    value += w.pound * dend
                    cash += dend
                else:
                    dpos += 1
                    value += w.diamond
            value += w.bookkeeping * sp.bookkeeping + w.remove_post * sp.remove_posts
        out.append(value)
    return out, possible


Combo = tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]  # takes per column, returns


class _Problem:
    """Everything the two methods need, computed once per solve."""

    def __init__(self, s: State, player: int, company: int, points: int,
                 valuation: Valuation, action: bool) -> None:
        cat = s.cat
        self.s = s
        self.cat = cat
        self.player = player
        self.company = company
        self.points = points
        self.action = action
        self.exact = not action or points == s.measures(player)[3]
        w = self.w = valuation.scaled()
        if action:
            self.prev_entered: tuple[int, ...] = ()
            self.prev_ousted: tuple[int, ...] = ()
        else:
            pending = s.decision
            self.prev_entered = pending.entered or ()
            self.prev_ousted = pending.ousted or ()
        owners = s.owners
        n_regions = len(owners)
        nb1, nb2, base_masks = _adjacency(cat)
        self.nb1, self.nb2 = nb1, nb2
        owned = 0
        for r, o in enumerate(owners):
            if o == company:
                owned |= 1 << r
        root1, root2 = base_masks[company]
        for q in _bits(owned):
            root1 |= nb1[q]
            root2 |= nb2[q]
        self.owned = owned
        self.root1 = root1 & ~owned
        self.root2 = root2 & ~owned & ~root1
        self.occ = [1 if o >= 0 and o != company else 0 for o in owners]
        self.base = s.bases[company]
        self.posts = sum(posts_in(code) for code in self.base)

        # Regions within reach: cheapest path from the launching points <= points.
        dist = [99] * n_regions
        for r in range(n_regions):
            if (owned >> r) & 1:
                continue
            if (self.root1 >> r) & 1:
                dist[r] = 1 + self.occ[r]
            elif (self.root2 >> r) & 1:
                dist[r] = 2 + self.occ[r]
        changed = True
        while changed:
            changed = False
            for r in range(n_regions):
                if dist[r] > points:
                    continue
                for q, cost in cat.neighbours[r]:
                    if (owned >> q) & 1:
                        continue
                    d = dist[r] + cost + self.occ[q]
                    if d < dist[q]:
                        dist[q] = d
                        changed = True
        self.nmax = min(points, self.posts)
        self.cand = [r for r in range(n_regions) if dist[r] <= points] if self.nmax else []
        self.cand_mask = sum(1 << r for r in self.cand)

        regions = cat.regions
        self.rP = [rg.reward.pounds for rg in regions]
        self.rD = [rg.reward.diamonds for rg in regions]
        self.rB = [rg.reward.bookkeeping for rg in regions]
        self.rT = [rg.reward.track_steps for rg in regions]
        self.P0 = sum(self.rP[r] for r in self.prev_entered)
        self.D0 = sum(self.rD[r] for r in self.prev_entered)
        self.B0 = sum(self.rB[r] for r in self.prev_entered)
        self.T0 = sum(self.rT[r] for r in self.prev_entered)

        def top(values: list[int]) -> int:
            """The largest total of ``values`` a route can collect (each region costs
            at least 1, +1 when occupied)."""
            items = [(1 + self.occ[r], values[r]) for r in self.cand if values[r] > 0]
            return _knapsack(items, points, self.nmax)[points][self.nmax]

        self.rewards = _RewardModel(s, player, company, w, self.P0 + top(self.rP),
                                    self.D0 + top(self.rD), self.T0 + top(self.rT))

        # Posts leaving the base: best share change for each number of posts taken.
        self.take_tables = [column_gain_table(cat, code, take=True) for code in self.base]
        self.G = _distribution_values(self.take_tables, self.nmax, w.share[company])

        # Ousted posts: per company that can be ousted, share change per number ousted.
        owner_of = [o if o >= 0 and o != company else -1 for o in owners]
        self.owner_of = owner_of
        oust: dict[int, int] = {}
        for c in self.prev_ousted:
            oust[c] = oust.get(c, 0) + 1
        self.prev_m = dict(oust)
        count: dict[int, int] = {c: 0 for c in oust}
        for r in self.cand:
            c = owner_of[r]
            if c >= 0:
                count[c] = count.get(c, 0) + 1
        self.oust_companies = sorted(count)
        self.return_tables: dict[int, list[list[int]]] = {}
        self.room: dict[int, int] = {}
        self.L: dict[int, list[list[tuple[int, tuple[int, ...]]]]] = {}
        for c in self.oust_companies:
            tabs = [column_gain_table(cat, code, take=False) for code in s.bases[c]]
            self.return_tables[c] = tabs
            total_room = sum(len(t) - 1 for t in tabs)
            self.room[c] = total_room
            mmax = self.prev_m.get(c, 0) + count[c]
            by_ret = _distribution_values(tabs, min(mmax, total_room), w.share[c])
            self.L[c] = [by_ret[min(m, total_room)] for m in range(mmax + 1)]

    # -- values of a set ----------------------------------------------------------------
    def set_totals(self, regions: Sequence[int]) -> tuple[int, int, int, int, dict[int, int]]:
        pp, dd, bb, tt = self.P0, self.D0, self.B0, self.T0
        ousted = dict(self.prev_m)
        for r in regions:
            pp += self.rP[r]
            dd += self.rD[r]
            bb += self.rB[r]
            tt += self.rT[r]
            c = self.owner_of[r]
            if c >= 0:
                ousted[c] = ousted.get(c, 0) + 1
        return pp, dd, bb, tt, ousted

    def best_combo_value(self, n: int, ousted: dict[int, int]) -> int:
        return self.G[n][0][0] + sum(self.L[c][m][0][0] for c, m in ousted.items())

    def combos(self, n: int, ousted: dict[int, int], k: int) -> list[tuple[int, Combo]]:
        """The ``k`` best distinct (value, combination of column and return choices)."""
        acc: list[tuple[int, Combo]] = [(v, (t, ())) for v, t in self.G[n][:k]]
        for c in self.oust_companies:
            options = self.L[c][ousted.get(c, 0)][:k]
            merged: dict[int, Combo] = {}
            for (v1, (t, ys)), (v2, y) in itertools.product(acc, options):
                v = v1 + v2
                if v not in merged:
                    merged[v] = (t, (*ys, y))
            acc = sorted(merged.items(), key=lambda kv: -kv[0])[:k]
        return acc


def _distribution_values(tables_: list[list[int]], nmax: int, weight: int
                         ) -> list[list[tuple[int, tuple[int, ...]]]]:
    """For each total 0..nmax: the distinct (scaled value, per-column counts) choices,
    best first; among equal values the canonical choice has the largest raw coin change,
    then the lexicographically largest counts (earlier columns first)."""
    out: list[dict[int, tuple[int, tuple[int, ...]]]] = [{} for _ in range(nmax + 1)]
    for counts in itertools.product(*(range(len(t)) for t in tables_)):
        n = sum(counts)
        if n > nmax:
            continue
        raw = sum(t[x] for t, x in zip(tables_, counts, strict=True))
        v = weight * raw
        best = out[n].get(v)
        if best is None or (raw, counts) > best:
            out[n][v] = (raw, counts)
    return [sorted(((v, rc[1]) for v, rc in d.items()), key=lambda e: -e[0]) for d in out]


# --------------------------------------------------------------------------------------
# Hand-written exact method: every feasible set, level by level, vectorised
# --------------------------------------------------------------------------------------

_Result = tuple[int, tuple[Any, ...], int, Combo]  # value, tie key, set mask, combo


def _solve_enum(pr: _Problem, k: int) -> list[_Result]:
    """Every feasible set of regions, level by level (sets of 1, 2, ... regions), with
    numpy: a set that can still grow is kept once, with the most points left (its
    cheapest order); every set is evaluated exactly; then the ``k`` best (set, choices)
    pairs, ties broken by the sorted regions and the choices."""
    cand = pr.cand
    size = len(cand)
    rew = pr.rewards
    w = pr.w
    index = {r: i for i, r in enumerate(cand)}

    def tr(mask: int) -> int:
        out = 0
        for r in _bits(mask & pr.cand_mask):
            out |= 1 << index[r]
        return out

    comp_shift = {c: 5 * i for i, c in enumerate(pr.oust_companies)}
    m0 = 0
    for c, m in pr.prev_m.items():
        m0 += m << comp_shift[c]
    i64 = np.int64
    idx = np.arange(size, dtype=i64)
    bit = np.left_shift(1, idx)
    nb1 = np.array([tr(pr.nb1[r]) for r in cand], dtype=i64)
    nb2 = np.array([tr(pr.nb2[r]) for r in cand], dtype=i64)
    occ = np.array([pr.occ[r] for r in cand], dtype=i64)
    nd = rew.dmax + 1
    nt = rew.tmax + 1
    # One packed "reward index" per region: P * nd * nt + D * nt + T adds up exactly
    # because the totals stay within the table.
    r_idx = np.array([(pr.rP[r] * nd + pr.rD[r]) * nt + pr.rT[r] for r in cand], dtype=i64)
    r_book = np.array([pr.rB[r] for r in cand], dtype=i64)
    r_oust = np.array([1 << comp_shift[pr.owner_of[r]] if pr.owner_of[r] >= 0 else 0
                       for r in cand], dtype=i64)
    vtab = np.array([base + x for base, row in rew.pd for x in row], dtype=i64)
    gbest = np.array([lst[0][0] for lst in pr.G], dtype=i64)
    lbest = [(comp_shift[c], np.array([lst[0][0] for lst in pr.L[c]], dtype=i64))
             for c in pr.oust_companies]
    wB = w.bookkeeping

    def values(n: int, ridx: Any, book: Any, oust: Any) -> Any:
        val = vtab[ridx] + wB * book + gbest[n]
        for shift, best in lbest:
            val = val + best[(oust >> shift) & 31]
        return val

    # The growing sets: mask, launching masks, points left, reward index, pool, ousted.
    mask = np.zeros(1, dtype=i64)
    l1 = np.array([tr(pr.root1)], dtype=i64)
    l2 = np.array([tr(pr.root2)], dtype=i64)
    rem = np.array([pr.points], dtype=i64)
    ridx = np.array([(pr.P0 * nd + pr.D0) * nt + pr.T0], dtype=i64)
    book = np.array([pr.B0], dtype=i64)
    oust = np.array([m0], dtype=i64)
    all_masks = [mask]
    all_vals = [values(0, ridx, book, oust)]
    all_counts = [np.zeros(1, dtype=i64)]
    for n in range(1, pr.nmax + 1):
        if not size or not len(mask):
            break
        front = (((l1 | l2) & ~mask)[:, None] & bit) != 0
        cost = np.where((l1[:, None] & bit) != 0, 1, 2) + occ
        rows, cols = np.nonzero(front & (cost <= rem[:, None]))
        if not len(rows):
            break
        c_mask = mask[rows] | bit[cols]
        c_rem = rem[rows] - cost[rows, cols]
        c_ridx = ridx[rows] + r_idx[cols]
        c_book = book[rows] + r_book[cols]
        c_oust = oust[rows] + r_oust[cols]
        all_masks.append(c_mask)
        all_vals.append(values(n, c_ridx, c_book, c_oust))
        all_counts.append(np.full(len(rows), n, dtype=i64))
        if n == pr.nmax:
            break
        # Keep one row per set that can still grow, the one with the most points left.
        grow = np.nonzero(c_rem > 0)[0]
        key = (c_mask[grow] << 4) | (15 - c_rem[grow])
        order = np.argsort(key)
        skey = key[order] >> 4
        first = np.ones(len(order), dtype=bool)
        first[1:] = skey[1:] != skey[:-1]
        keep = grow[order[first]]
        rows = rows[keep]
        cols = cols[keep]
        mask, rem, ridx, book, oust = (c_mask[keep], c_rem[keep], c_ridx[keep],
                                       c_book[keep], c_oust[keep])
        l1 = l1[rows] | nb1[cols]
        l2 = l2[rows] | nb2[cols]
    masks = np.concatenate(all_masks)
    vals = np.concatenate(all_vals)
    counts = np.concatenate(all_counts)
    # The k best pairs come from the sets whose best value is at least the k-th best
    # among distinct sets (a set appears once per last region it can end with).
    want = k
    while True:
        if len(vals) > want:
            kth = np.partition(vals, len(vals) - want)[len(vals) - want]
            chosen = np.nonzero(vals >= kth)[0]
        else:
            chosen = np.arange(len(vals))
        if len(chosen) == len(vals) or len(np.unique(masks[chosen])) >= k:
            break
        want *= 2
    results: list[tuple[int, tuple[Any, ...], int, Combo]] = []
    done: set[int] = set()
    for j in chosen.tolist():
        cmask = int(masks[j])
        if cmask in done:
            continue
        done.add(cmask)
        regions = [cand[i] for i in _bits(cmask)]
        n = int(counts[j])
        _, _, _, _, ousted = pr.set_totals(regions)
        base = int(vals[j]) - pr.best_combo_value(n, ousted)
        region_mask = sum(1 << r for r in regions)
        for v, combo in pr.combos(n, ousted, k):
            results.append((base + v, (tuple(regions), combo), region_mask, combo))
    results.sort(key=lambda e: (-e[0], e[1]))
    return results[:k]


def _knapsack(items: list[tuple[int, int]], points: int, nmax: int) -> list[list[int]]:
    """best[rem][count]: the largest sum of item values with total weight <= rem and at
    most ``count`` items (items used at most once)."""
    best = [[0] * (nmax + 1) for _ in range(points + 1)]
    for weight, value in items:
        for rem in range(points, weight - 1, -1):
            row, src = best[rem], best[rem - weight]
            for cnt in range(nmax, 0, -1):
                cand = src[cnt - 1] + value
                if cand > row[cnt]:
                    row[cnt] = cand
    return best


# --------------------------------------------------------------------------------------
# CP-SAT model (the reference)
# --------------------------------------------------------------------------------------

def _solve_cpsat(pr: _Problem, k: int) -> list[_Result]:
    if not pr.cand:  # nothing can be entered: only the return choices remain
        return _solve_enum(pr, k)
    model = cp_model.CpModel()
    cand = pr.cand
    occ = pr.occ
    w = pr.w
    x = {r: model.new_bool_var(f"x{r}") for r in cand}
    hops = _hops(pr)
    top_depth = max(1, pr.nmax)
    depth = {r: model.new_int_var(min(hops[r], top_depth), top_depth, f"d{r}") for r in cand}
    arc: dict[tuple[int, int], cp_model.IntVar] = {}
    cost_terms = []
    for r in cand:
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
            model.add_bool_or([x[r].Not()] + [x[u] for u, _ in pr.cat.neighbours[r] if u in x])
    for (u, r), lit in arc.items():
        if u < r and (r, u) in arc:
            model.add_bool_or([lit.Not(), arc[(r, u)].Not()])
    if cost_terms:
        model.add(sum(cost_terms) <= pr.points)
    n_expr = sum(x.values()) if x else 0
    if x:
        model.add(n_expr <= pr.nmax)

    objective: list[Any] = []
    take_vars: list[cp_model.IntVar] = []
    if w.share[pr.company] and x:
        for col, tab in enumerate(pr.take_tables):
            t = model.new_int_var(0, len(tab) - 1, f"t{col}")
            vals = [v * w.share[pr.company] for v in tab]
            gain = model.new_int_var(min(vals), max(vals), f"g{col}")
            model.add_element(t, vals, gain)
            take_vars.append(t)
            objective.append(gain)
        model.add(sum(take_vars) == n_expr)
        _symmetry(model, pr.base, take_vars)
    ret_vars: dict[int, list[cp_model.IntVar]] = {}
    for c in pr.oust_companies:
        if not w.share[c]:
            continue
        owned_by_c = [x[r] for r in cand if pr.owner_of[r] == c]
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
            objective.append(h)
        model.add(sum(ys) == ret)
        _symmetry(model, pr.s.bases[c], ys)
        ret_vars[c] = ys

    def total(values: list[int], base: int) -> Any:
        return base + sum(values[r] * x[r] for r in cand if values[r])

    p_expr = total(pr.rP, pr.P0)
    d_expr = total(pr.rD, pr.D0)
    t_expr = total(pr.rT, pr.T0)
    objective.append(w.bookkeeping * total(pr.rB, pr.B0))
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
    objective.append(w.pound * c_expr)
    objective.append(w.diamond * dclip)
    variants = len(rew.g)
    if variants > 1:
        v_var = model.new_int_var(0, variants - 1, "v")
        model.add_max_equality(v_var, [dclip - rew.lo, 0])
    c_var = None
    if not rew.cash_free:
        c_var = model.new_int_var(0, rew.cmax, "C")
        model.add(c_var == c_expr)
    r_var = model.new_int_var(min(min(g) for g in rew.g), max(max(g) for g in rew.g), "R")
    for v, g in enumerate(rew.g):
        if c_var is None:
            steps: Any = t_var
        else:
            b_var = model.new_int_var(0, rew.tmax, f"B{v}")
            model.add_element(c_var, rew.B[v], b_var)
            steps = model.new_int_var(0, rew.tmax, f"s{v}")
            model.add_min_equality(steps, [t_var, b_var])
        if variants == 1:
            model.add_element(steps, g, r_var)
        else:
            gv = model.new_int_var(min(g), max(g), f"g{v}")
            model.add_element(steps, g, gv)
            model.add(r_var == gv).only_enforce_if(_is_value(model, v_var, v))
    objective.append(r_var)
    obj = sum(objective)
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
        pp, dd, bb, tt, ousted = pr.set_totals(chosen)
        n = len(chosen)
        gained = (sum(pr.take_tables[col][solver.value(t)] for col, t in enumerate(take_vars))
                  * w.share[pr.company])
        takes = next(t for v, t in pr.G[n] if v == gained)
        rets = []
        for c in pr.oust_companies:
            if c in ret_vars:
                hv = sum(pr.return_tables[c][col][solver.value(y)]
                         for col, y in enumerate(ret_vars[c])) * w.share[c]
            else:
                hv = 0
            rets.append(next(y for v, y in pr.L[c][ousted.get(c, 0)] if v == hv))
        combo: Combo = (takes, tuple(rets))
        mask = sum(1 << r for r in chosen)
        results.append((value, (tuple(chosen), combo), mask, combo))
        # The same set again only with a strictly lower value.
        same = model.new_bool_var(f"same{len(results)}")
        model.add_bool_or([same] + [x[r].Not() if r in chosen else x[r] for r in cand])
        model.add(obj <= value - 1).only_enforce_if(same)
    results.sort(key=lambda e: (-e[0], e[1]))
    return results


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


# --------------------------------------------------------------------------------------
# From a chosen set to exact steps
# --------------------------------------------------------------------------------------

def choose_removal(cat: Catalogue, bases: Sequence[Sequence[int]], share: Sequence[int],
                   excluded: set[int] | frozenset[int]) -> tuple[int, int] | None:
    """The post a "remove a trading post" reward takes: the column whose removal uncovers
    the most share value under the (scaled) ``share`` weights, never from a company whose
    ousted posts are still waiting to return (unless no other post exists); ties: lowest
    company, then lowest column. None when every base is empty."""
    colval = tables(cat).column_value
    best: tuple[int, int, int] | None = None
    for only_free in (True, False):
        for c, cols in enumerate(bases):
            if only_free and c in excluded:
                continue
            for k, code in enumerate(cols):
                if posts_in(code):
                    gain = share[c] * (colval[after_take(code)] - colval[code])
                    if best is None or gain > best[0]:
                        best = (gain, c, k)
        if best is not None:
            return best[1], best[2]
    return None


def removal_step(s: State, valuation: Valuation | None = None) -> Step:
    """The step :func:`best_expansions` takes at a ``remove-post`` decision reached
    during an expansion (see :func:`choose_removal`)."""
    d = s.decision
    if d.kind != "remove-post":
        raise SolverError("removal_step needs a 'remove-post' decision")
    v = (valuation or default_valuation(s)).scaled()
    pending = set(d.ousted or ())
    choice = choose_removal(s.cat, s.bases, v.share, pending)
    if choice is None:  # pragma: no cover - the engine skips the decision then
        raise SolverError("no trading post to remove")
    return Step("remove-post", choice[0], choice[1])


def _assemble(pr: _Problem, regions_set: Sequence[int], combo: Combo, value: int) -> ExpansionPlan:
    cat = pr.cat
    nb1, nb2, occ = pr.nb1, pr.nb2, pr.occ
    company = pr.company
    # Prim's order from the launching points: each region is entered at its cheapest.
    l1, l2 = pr.root1, pr.root2
    left = sorted(regions_set)
    order: list[int] = []
    spent = 0
    while left:
        best: tuple[int, int] | None = None
        for r in left:
            c = 1 if (l1 >> r) & 1 else 2 if (l2 >> r) & 1 else 0
            if c and (best is None or c < best[0]):
                best = (c, r)
        assert best is not None, "unreachable region in a plan"
        border, r = best
        spent += border + occ[r]
        order.append(r)
        left.remove(r)
        l1 |= nb1[r]
        l2 |= nb2[r]
    assert spent <= pr.points
    takes, rets = combo
    columns: list[int] = []
    base = list(pr.base)
    for col, t in enumerate(takes):
        columns.extend([col] * t)
        for _ in range(t):
            base[col] = after_take(base[col])
    steps: list[Step] = []
    if pr.action:
        steps.append(Step("expand", company))
    steps.extend(Step("enter", r, col) for r, col in zip(order, columns, strict=True))
    remaining = pr.points - spent
    owned = pr.owned | sum(1 << r for r in order)
    if not order and not pr.action:
        steps.append(Step("stop"))  # the decision is pending: stop is always legal
    elif remaining > 0 and any(posts_in(code) for code in base):
        enterable = False
        free = ~owned & ((1 << len(occ)) - 1)
        for r in _bits((l1 | l2) & free):
            if (1 if (l1 >> r) & 1 else 2) + occ[r] <= remaining:
                enterable = True
                break
        if enterable:
            steps.append(Step("stop"))
    pp, dd, bb, tt, ousted_counts = pr.set_totals(order)
    p = pr.s.players[pr.player]
    track = cat.tracks[pr.s.tracks[company]]
    rewards = simulate_rewards(cat, track, p, company, pp, dd, bb, tt)
    bases = [list(cols) for cols in pr.s.bases]
    bases[company] = base
    ousted = list(pr.prev_ousted) + [pr.owner_of[r] for r in order if pr.owner_of[r] >= 0]
    removals: list[tuple[int, int]] = []
    for _ in range(rewards.remove_posts):
        choice = choose_removal(cat, bases, pr.w.share, set(ousted))
        if choice is None:
            break
        c, col = choice
        removals.append(choice)
        bases[c][col] = after_take(bases[c][col])
        steps.append(Step("remove-post", c, col))
    quota = {c: list(y) for c, y in zip(pr.oust_companies, rets, strict=True)}
    returns: list[tuple[int, int]] = []
    for c in ousted:
        q = quota[c]
        col = next((i for i, left_ in enumerate(q) if left_ > 0), -1)
        if col < 0:
            # No quota left: this post finds no room (or the rare removal from an
            # ousted company opened one: then take the first column with room).
            col = next((i for i, code in enumerate(bases[c]) if room(cat, code)), -1)
        else:
            q[col] -= 1
        if col >= 0:
            bases[c][col] = after_return(bases[c][col])
            steps.append(Step("return", col))
        returns.append((c, col))
    colval = tables(cat).column_value
    share_delta = tuple(sum(colval[code] for code in bases[c])
                        - sum(colval[code] for code in pr.s.bases[c]) for c in range(4))
    del ousted_counts
    return ExpansionPlan(
        company=company, steps=tuple(steps), regions=tuple(order), columns=tuple(columns),
        returns=tuple(returns), removals=tuple(removals), rewards=rewards,
        points=pr.points, spent=spent, forfeited=pr.points - spent,
        share_delta=share_delta, value=value / _SCALE, exact=pr.exact,
    )


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
        if not p.face_up() & tables(s.cat).expansion_mask:
            raise SolverError(f"P{player + 1} has no face-up expansion card to expand with")
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
    when ``points`` is that total). ``valuation`` defaults to
    :func:`default_valuation`. ``method`` is ``"dp"`` (fast, the default) or
    ``"cpsat"`` (the reference model); both return plans of the same values. Results are
    cached (see :func:`cache_info`).

    >>> from benchmarks.positions import mid_game
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
