"""The hand-written exact method (``"dp"``, what the search uses): every feasible set of
regions, built level by level from the launching points and vectorised with numpy (a
set that can still grow is kept once, with the most points left), is valued exactly;
the ``k`` best (set, column and return choices) pairs come back best first."""

from __future__ import annotations

from typing import Any

import numpy as np

from search.solvers.expansion.problem import Combo, _bits, _Problem, _Result

# --------------------------------------------------------------------------------------
# Hand-written exact method: every feasible set, level by level, vectorised
# --------------------------------------------------------------------------------------

def _solve_enum(pr: _Problem, k: int) -> list[_Result]:
    """Every feasible set of regions, level by level (sets of 1, 2, ... regions), with
    numpy: a set that can still grow is kept once, with the most points left (its
    cheapest order); every set is evaluated exactly; then the ``k`` best (set, choices)
    pairs, ties broken by the sorted regions and the choices."""
    masks, vals, counts = _every_set(_Arrays(pr))
    return _k_best(pr, masks, vals, counts, k)


class _Arrays:
    """The problem's candidate regions as numpy arrays, indexed by candidate (bit ``i``
    of a mask is ``pr.cand[i]``)."""

    def __init__(self, pr: _Problem) -> None:
        self.pr = pr
        cand = pr.cand
        self.size = len(cand)
        rew = pr.rewards
        self.index = {r: i for i, r in enumerate(cand)}
        comp_shift = {c: 5 * i for i, c in enumerate(pr.oust_companies)}
        self.m0 = 0
        for c, m in pr.prev_m.items():
            self.m0 += m << comp_shift[c]
        i64 = np.int64
        self.bit = np.left_shift(1, np.arange(self.size, dtype=i64))
        self.nb1 = np.array([self.tr(pr.nb1[r]) for r in cand], dtype=i64)
        self.nb2 = np.array([self.tr(pr.nb2[r]) for r in cand], dtype=i64)
        self.occ = np.array([pr.occ[r] for r in cand], dtype=i64)
        self.nd = rew.dmax + 1
        self.nt = rew.tmax + 1
        # One packed "reward index" per region: P * nd * nt + D * nt + T adds up exactly
        # because the totals stay within the table.
        self.r_idx = np.array([(pr.rP[r] * self.nd + pr.rD[r]) * self.nt + pr.rT[r]
                               for r in cand], dtype=i64)
        self.r_book = np.array([pr.rB[r] for r in cand], dtype=i64)
        self.r_oust = np.array([1 << comp_shift[pr.owner_of[r]] if pr.owner_of[r] >= 0
                                else 0 for r in cand], dtype=i64)
        self.vtab = np.array([base + x for base, row in rew.pd for x in row], dtype=i64)
        self.gbest = np.array([lst[0][0] for lst in pr.G], dtype=i64)
        self.lbest = [(comp_shift[c], np.array([lst[0][0] for lst in pr.L[c]], dtype=i64))
                      for c in pr.oust_companies]

    def tr(self, mask: int) -> int:
        """A mask of regions as a mask of candidate indices."""
        out = 0
        for r in _bits(mask & self.pr.cand_mask):
            out |= 1 << self.index[r]
        return out

    def values(self, n: int, ridx: Any, book: Any, oust: Any) -> Any:
        """The exact value of sets of ``n`` regions from their packed totals, with the
        best column and return choices."""
        val = self.vtab[ridx] + self.pr.w.bookkeeping * book + self.gbest[n]
        for shift, best in self.lbest:
            val = val + best[(oust >> shift) & 31]
        return val


def _every_set(a: _Arrays) -> tuple[Any, Any, Any]:
    """Every feasible set (mask over candidate indices, value, size), level by level."""
    pr = a.pr
    i64 = np.int64
    # The growing sets: mask, launching masks, points left, reward index, pool, ousted.
    mask = np.zeros(1, dtype=i64)
    l1 = np.array([a.tr(pr.root1)], dtype=i64)
    l2 = np.array([a.tr(pr.root2)], dtype=i64)
    rem = np.array([pr.points], dtype=i64)
    ridx = np.array([(pr.P0 * a.nd + pr.D0) * a.nt + pr.T0], dtype=i64)
    book = np.array([pr.B0], dtype=i64)
    oust = np.array([a.m0], dtype=i64)
    all_masks = [mask]
    all_vals = [a.values(0, ridx, book, oust)]
    all_counts = [np.zeros(1, dtype=i64)]
    bit = a.bit
    for n in range(1, pr.nmax + 1):
        if not a.size or not len(mask):
            break
        front = (((l1 | l2) & ~mask)[:, None] & bit) != 0
        cost = np.where((l1[:, None] & bit) != 0, 1, 2) + a.occ
        rows, cols = np.nonzero(front & (cost <= rem[:, None]))
        if not len(rows):
            break
        c_mask = mask[rows] | bit[cols]
        c_rem = rem[rows] - cost[rows, cols]
        c_ridx = ridx[rows] + a.r_idx[cols]
        c_book = book[rows] + a.r_book[cols]
        c_oust = oust[rows] + a.r_oust[cols]
        all_masks.append(c_mask)
        all_vals.append(a.values(n, c_ridx, c_book, c_oust))
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
        l1 = l1[rows] | a.nb1[cols]
        l2 = l2[rows] | a.nb2[cols]
    return np.concatenate(all_masks), np.concatenate(all_vals), np.concatenate(all_counts)


def _k_best(pr: _Problem, masks: Any, vals: Any, counts: Any, k: int) -> list[_Result]:
    """The ``k`` best (set, choices) pairs, best first."""
    cand = pr.cand
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
