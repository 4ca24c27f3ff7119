"""An expansion plan: :class:`ExpansionPlan`, what the solver returns, and how a chosen
set of regions with its column and return choices becomes one (the cheapest entry
order, the exact engine steps with removals and returns, the rewards received and the
change of each company's share value)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine import Catalogue, Step, tables
from search.solvers.common import SCALE as _SCALE
from search.solvers.common import (
    Rewards,
    after_return,
    after_take,
    posts_in,
    room,
    simulate_rewards,
)
from search.solvers.expansion.problem import Combo, _bits, _Problem
from search.solvers.expansion.removal import choose_removal


@dataclass(frozen=True, slots=True)
class ExpansionPlan:
    """One expansion, complete: apply ``steps`` one after the other to the state.

    * ``steps``: ``expand <company>`` (when solved at an action decision), the
      ``enter`` steps, ``stop`` when points remain and something is still enterable,
      ``reward-order pounds|track`` where the engine asks for the order of the rewards
      (the better one; pounds on a tie), ``remove-post`` when a track space reached
      pays one, then the ``return`` steps of the ousted posts in the order they were
      ousted;
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
# From a chosen set to exact steps
# --------------------------------------------------------------------------------------

def _assemble(pr: _Problem, regions_set: Sequence[int], combo: Combo, value: int) -> ExpansionPlan:
    """A chosen set of regions and column choices as the exact steps that play it."""
    cat = pr.cat
    company = pr.company
    order, spent, launch = _entry_order(pr, regions_set)
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
    if _stop_is_asked(pr, order, spent, launch, base):
        steps.append(Step("stop"))
    pp, dd, bb, tt, _ = pr.set_totals(order)
    track_first = pr.rewards.track_first(pp, dd, tt)
    if pr.s.reward_order_asked(pr.player, company, pp, tt):
        steps.append(Step("reward-order", 1 if track_first else 0))
    p = pr.s.players[pr.player]
    track = cat.tracks[pr.s.tracks[company]]
    rewards = simulate_rewards(cat, track, p, company, pp, dd, bb, tt, track_first)
    bases = [list(cols) for cols in pr.s.bases]
    bases[company] = base
    ousted = list(pr.prev_ousted) + [pr.owner_of[r] for r in order if pr.owner_of[r] >= 0]
    removals = _removals(pr, rewards.remove_posts, bases, ousted, steps)
    returns = _returns(pr, rets, bases, ousted, steps)
    colval = tables(cat).column_value
    share_delta = tuple(sum(colval[code] for code in bases[c])
                        - sum(colval[code] for code in pr.s.bases[c]) for c in range(4))
    return ExpansionPlan(
        company=company, steps=tuple(steps), regions=tuple(order), columns=tuple(columns),
        returns=tuple(returns), removals=tuple(removals), rewards=rewards,
        points=pr.points, spent=spent, forfeited=pr.points - spent,
        share_delta=share_delta, value=value / _SCALE, exact=pr.exact,
    )


def _entry_order(pr: _Problem, regions_set: Sequence[int]
                 ) -> tuple[list[int], int, tuple[int, int]]:
    """Prim's order from the launching points: each region is entered at its cheapest.
    Returns the order, the points spent and the launching masks after it."""
    nb1, nb2, occ = pr.nb1, pr.nb2, pr.occ
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
    return order, spent, (l1, l2)


def _stop_is_asked(pr: _Problem, order: list[int], spent: int, launch: tuple[int, int],
                   base: list[int]) -> bool:
    """Whether the plan ends with ``stop``: always when nothing is entered at a pending
    expansion decision (stop is then always legal), else when points and posts are left
    and some region could still be entered (the engine then asks)."""
    if not order and not pr.action:
        return True
    remaining = pr.points - spent
    if remaining <= 0 or not any(posts_in(code) for code in base):
        return False
    l1, l2 = launch
    owned = pr.owned | sum(1 << r for r in order)
    free = ~owned & ((1 << len(pr.occ)) - 1)
    return any((1 if (l1 >> r) & 1 else 2) + pr.occ[r] <= remaining
               for r in _bits((l1 | l2) & free))


def _removals(pr: _Problem, count: int, bases: list[list[int]], ousted: list[int],
              steps: list[Step]) -> list[tuple[int, int]]:
    """The posts the rewards remove (the choice costing the player least), applied to
    ``bases`` and added to ``steps``."""
    removals: list[tuple[int, int]] = []
    for _ in range(count):
        choice = choose_removal(pr.cat, bases, pr.w.share, set(ousted))
        if choice is None:
            break
        c, col = choice
        removals.append(choice)
        bases[c][col] = after_take(bases[c][col])
        steps.append(Step("remove-post", c, col))
    return removals


def _returns(pr: _Problem, rets: tuple[tuple[int, ...], ...], bases: list[list[int]],
             ousted: list[int], steps: list[Step]) -> list[tuple[int, int]]:
    """Where each ousted post returns (the chosen column quotas), applied to ``bases``
    and added to ``steps``."""
    quota = {c: list(y) for c, y in zip(pr.oust_companies, rets, strict=True)}
    returns: list[tuple[int, int]] = []
    for c in ousted:
        q = quota[c]
        col = next((i for i, left_ in enumerate(q) if left_ > 0), -1)
        if col < 0:
            # No quota left: this post finds no room (or the rare removal from an
            # ousted company opened one: then take the first column with room).
            col = next((i for i, code in enumerate(bases[c]) if room(pr.cat, code)), -1)
        else:
            q[col] -= 1
        if col >= 0:
            bases[c][col] = after_return(bases[c][col])
            steps.append(Step("return", col))
        returns.append((c, col))
    return returns
