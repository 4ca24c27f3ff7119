"""The bookkeeping solvers' answers: :class:`BookPlan` (how to spend the points, with
the exact steps), :class:`InkPlan` (how far to move the ink jar), and how a solved
choice of books and placements becomes a :class:`BookPlan`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import Catalogue, Reward, Step
from search.solvers.bookkeeping.problem import _BookProblem
from search.solvers.common import SCALE

# --------------------------------------------------------------------------------------
# Plans
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BookPlan:
    """One way to spend the bookkeeping points, complete.

    ``steps``: the ``take`` steps (display spaces in increasing order), ``pounds`` when
    points remain, then one ``place`` step per book to place (books taken earlier this
    turn first); ``books`` / ``spaces``: books taken now and their display spaces;
    ``placements``: (book, bookkeeping space) in placing order; ``pounds``: points taken
    as pounds; ``coins``: coins lying under the books taken; ``value``: pounds, coins
    and the change of the track value; ``exact``: the steps apply to the given state
    (False for a hypothetical number of points or an action decision).
    """

    steps: tuple[Step, ...]
    books: tuple[int, ...]
    spaces: tuple[int, ...]
    placements: tuple[tuple[int, int], ...]
    pounds: int
    coins: int
    points: int
    value: float
    exact: bool

    def text(self, cat: Catalogue) -> str:
        return "; ".join(st.text(cat) for st in self.steps)

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        return {
            "steps": [st.text(cat) for st in self.steps],
            "books": [cat.books[b].name for b in self.books],
            "spaces": [cat.book_space_name(j) for j in self.spaces],
            "placements": [{"book": cat.books[b].name, "space": k}
                           for b, k in self.placements],
            "pounds": self.pounds, "coins": self.coins, "points": self.points,
            "value": self.value, "exact": self.exact,
        }


@dataclass(frozen=True, slots=True)
class InkPlan:
    """How far to move the ink jar: ``ink`` steps then ``halt`` (left out when the
    engine halts by itself), the space it stops on, the reward collected there and the
    value (score steps + the reward now + the track value from the new position)."""

    steps: tuple[Step, ...]
    target: int
    reward: Reward | None
    value: float

    def text(self, cat: Catalogue) -> str:
        return "; ".join(st.text(cat) for st in self.steps)

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        r = self.reward
        return {
            "steps": [st.text(cat) for st in self.steps], "target": self.target,
            "reward": None if r is None else {
                "pounds": r.pounds, "diamonds": r.diamonds, "bookkeeping": r.bookkeeping,
                "track": r.track_steps,
                "company": cat.companies[r.track_company].id if r.track_company >= 0
                else None, "remove_posts": r.remove_posts},
            "value": self.value,
        }


def _book_plan(pr: _BookProblem, value: int, taken: tuple[int, ...],
               placements: tuple[tuple[int, int], ...]) -> BookPlan:
    by_space = {j: (b, c, coins) for j, b, c, coins in pr.display}
    spent = sum(by_space[j][1] for j in taken)
    coins = sum(by_space[j][2] for j in taken)
    steps = [Step("take", j) for j in taken]
    if pr.points - spent > 0:
        steps.append(Step("pounds"))
    steps += [Step("place", b, kk) for b, kk in placements]
    return BookPlan(steps=tuple(steps), books=tuple(by_space[j][0] for j in taken),
                    spaces=taken, placements=placements, pounds=pr.points - spent,
                    coins=coins, points=pr.points, value=value / SCALE, exact=pr.exact)
