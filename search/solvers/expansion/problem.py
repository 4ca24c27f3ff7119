"""The expansion problem read from the state, for both methods: region adjacency as bit
masks, the exact value of the reward totals (a walk along the company's track), the
best share changes for each number of posts leaving a base or returning to one, and
:class:`_Problem`, which gathers them once per solve."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache
from typing import Any

from engine import Catalogue, State
from search.solvers.common import ScaledValuation, Valuation, column_gain_table, posts_in

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
    the same tables through ``element`` constraints.

    Where the engine asks for the order of the rewards (``reward-order``: the track
    steps meet a capital call that the regions' pounds would pay), the player may take
    the track steps first instead: the marker walks with the cash in hand only, so it
    takes ``min(T, B_v[0])`` steps, and everything else is collected after. The diamond
    total is the same in either order, so that value is ``g_v[min(T, B_v[0])]`` in the
    formula above, and the model takes the better order. The engine asks exactly when
    ``P >= order_p`` and ``T >= order_t`` (its test compares the walk with and without
    the pounds, and both walks only grow with more steps or more cash)."""

    __slots__ = ("wP", "wD", "droom", "dend", "lo", "g", "B", "cash_free", "dmax", "pmax",
                 "tmax", "cmax", "pd", "pd_pounds_first", "order_p", "order_t")

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
        self.order_p, self.order_t = self._order_asked(s, player, company)
        # value(P, D, T) = base(P, D) + row(P, D)[T], rows shared by (variant, cash,
        # whether the order can be asked).
        rows: dict[tuple[int, int, bool], list[int]] = {}
        self.pd: list[tuple[int, list[int]]] = []
        self.pd_pounds_first: list[tuple[int, list[int]]] = []
        for pp in range(pmax + 1):
            for dd in range(dmax + 1):
                if dd > droom:
                    c, dclip = pp + dend * (dd - droom), droom
                else:
                    c, dclip = pp, dd
                v = dclip - lo if dclip > lo else 0
                asked = self.order_p is not None and pp >= self.order_p
                key = (v, 0 if self.cash_free else c, False)
                row = rows.get(key)
                if row is None:
                    gv = self.g[v]
                    if self.cash_free:
                        row = gv
                    else:
                        b = self.B[v][c]
                        row = [gv[t if t < b else b] for t in range(tmax + 1)]
                    rows[key] = row
                base = self.wP * c + self.wD * dclip
                if self.order_p is not None:  # only then can the other order count
                    self.pd_pounds_first.append((base, row))
                if asked:
                    chosen = rows.get((v, c, True))
                    if chosen is None:
                        gv, b0, t0 = self.g[v], self.B[v][0], self.order_t
                        assert t0 is not None
                        chosen = [max(x, gv[t if t < b0 else b0]) if t >= t0 else x
                                  for t, x in enumerate(row)]
                        rows[(v, c, True)] = chosen
                    row = chosen
                self.pd.append((base, row))

    def _order_asked(self, s: State, player: int, company: int) -> tuple[int | None, int | None]:
        """The least regions' pounds and track steps with which the engine asks for the
        order of the rewards, or (None, None) when it never does here."""
        if self.cash_free or self.pmax == 0 or self.tmax == 0:
            return None, None
        t0 = next((t for t in range(1, self.tmax + 1)
                   if s.reward_order_asked(player, company, self.pmax, t)), None)
        if t0 is None:
            return None, None
        p0 = next(pp for pp in range(1, self.pmax + 1)
                  if s.reward_order_asked(player, company, pp, self.tmax))
        return p0, t0

    def value(self, pp: int, dd: int, tt: int) -> int:
        base, row = self.pd[pp * (self.dmax + 1) + dd]
        return base + row[tt]

    def track_first(self, pp: int, dd: int, tt: int) -> bool:
        """Whether these totals are worth more with the track steps taken first (the
        engine asks, and that order is strictly better; a tie keeps the pounds first)."""
        if self.order_p is None:
            return False
        base, row = self.pd_pounds_first[pp * (self.dmax + 1) + dd]
        return self.value(pp, dd, tt) > base + row[tt]


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

_Result = tuple[int, tuple[Any, ...], int, Combo]  # value, tie key, set mask, combo


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
        self._launching_points()
        self._candidates()
        self._region_rewards()
        # Posts leaving the base: best share change for each number of posts taken.
        self.take_tables = [column_gain_table(cat, code, take=True) for code in self.base]
        self.G = _distribution_values(self.take_tables, self.nmax, w.share[company])
        self._ousting()

    def _launching_points(self) -> None:
        """The company's regions, and the regions next to them or to its base by a
        land border (``root1``) or over water (``root2``), not yet its own."""
        s, company = self.s, self.company
        nb1, nb2, base_masks = _adjacency(self.cat)
        self.nb1, self.nb2 = nb1, nb2
        owned = 0
        for r, o in enumerate(s.owners):
            if o == company:
                owned |= 1 << r
        root1, root2 = base_masks[company]
        for q in _bits(owned):
            root1 |= nb1[q]
            root2 |= nb2[q]
        self.owned = owned
        self.root1 = root1 & ~owned
        self.root2 = root2 & ~owned & ~root1
        self.occ = [1 if o >= 0 and o != company else 0 for o in s.owners]
        self.base = s.bases[company]
        self.posts = sum(posts_in(code) for code in self.base)

    def _candidates(self) -> None:
        """Regions within reach: cheapest path from the launching points <= points."""
        cat, owned, points = self.cat, self.owned, self.points
        n_regions = len(self.s.owners)
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

    def _region_rewards(self) -> None:
        """The regions' rewards, those of the regions entered before this decision, and
        the model of their value (up to the most a route can collect)."""
        regions = self.cat.regions
        self.rP = [rg.reward.pounds for rg in regions]
        self.rD = [rg.reward.diamonds for rg in regions]
        self.rB = [rg.reward.bookkeeping for rg in regions]
        self.rT = [rg.reward.track_steps for rg in regions]
        self.P0 = sum(self.rP[r] for r in self.prev_entered)
        self.D0 = sum(self.rD[r] for r in self.prev_entered)
        self.B0 = sum(self.rB[r] for r in self.prev_entered)
        self.T0 = sum(self.rT[r] for r in self.prev_entered)
        self.rewards = _RewardModel(self.s, self.player, self.company, self.w,
                                    self.P0 + self._top(self.rP),
                                    self.D0 + self._top(self.rD),
                                    self.T0 + self._top(self.rT))

    def _top(self, values: list[int]) -> int:
        """The largest total of ``values`` a route can collect (each region costs at
        least 1, +1 when occupied)."""
        items = [(1 + self.occ[r], values[r]) for r in self.cand if values[r] > 0]
        return _knapsack(items, self.points, self.nmax)[self.points][self.nmax]

    def _ousting(self) -> None:
        """Ousted posts: per company that can be ousted, the share change per number
        ousted (returned to its columns as far as there is room)."""
        s, company, w = self.s, self.company, self.w
        owner_of = [o if o >= 0 and o != company else -1 for o in s.owners]
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
            tabs = [column_gain_table(self.cat, code, take=False) for code in s.bases[c]]
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
