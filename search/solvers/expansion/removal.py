"""The "remove a trading post" reward met during an expansion: which post it takes
(:func:`choose_removal`, the column uncovering the most share value) and the step for a
pending ``remove-post`` decision (:func:`removal_step`)."""

from __future__ import annotations

from collections.abc import Sequence

from engine import Catalogue, State, Step, tables
from search.solvers.common import SolverError, Valuation, after_take, default_valuation, posts_in


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
