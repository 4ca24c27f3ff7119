"""Scoring: the breakdown of every player's money, final or provisional.

Rulebook, "End of the Game": cash + for each company (shares from the track + share
icons on the player's cards) x (uncovered coin icons in its base) + the last diamond
value passed + the last bookkeeping value passed. Ties share the victory.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.state import State, share_count


@dataclass(frozen=True, slots=True, repr=False)
class Score:
    """One player's score breakdown; ``total`` is the sum of the categories. ``player``
    is the seat's index; the repr names it P1-P4."""

    player: int
    cash: int
    shares: tuple[int, ...]  # shares held per company
    share_values: tuple[int, ...]  # value of one share per company
    companies: tuple[int, ...]  # pounds per company (shares x value)
    diamonds: int
    bookkeeping: int

    def __repr__(self) -> str:
        return (f"Score(P{self.player + 1}, cash={self.cash}, shares={self.shares}, "
                f"share_values={self.share_values}, companies={self.companies}, "
                f"diamonds={self.diamonds}, bookkeeping={self.bookkeeping})")

    @property
    def total(self) -> int:
        return self.cash + sum(self.companies) + self.diamonds + self.bookkeeping

    def to_json(self, company_ids: tuple[str, ...]) -> dict[str, object]:
        return {
            "player": self.player + 1,
            "cash": self.cash,
            "companies": {
                cid: {"shares": n, "value": v, "pounds": p}
                for cid, n, v, p in zip(company_ids, self.shares, self.share_values,
                                        self.companies, strict=True)
            },
            "diamonds": self.diamonds,
            "bookkeeping": self.bookkeeping,
            "total": self.total,
        }


def score(s: State) -> list[Score]:
    """The breakdown for every player (provisional before the game is over)."""
    cat = s.cat
    out = []
    for i, p in enumerate(s.players):
        shares = tuple(share_count(s, i, c) for c in range(len(cat.companies)))
        out.append(Score(
            player=i,
            cash=p.cash,
            shares=shares,
            share_values=s.values,
            companies=tuple(n * v for n, v in zip(shares, s.values, strict=True)),
            diamonds=cat.diamond_values[p.diamond],
            bookkeeping=cat.bookkeeping_values[p.ink],
        ))
    return out


def winners(s: State) -> list[int]:
    """Seats with the highest total (several on a tie: a shared victory)."""
    totals = [sc.total for sc in score(s)]
    best = max(totals)
    return [i for i, t in enumerate(totals) if t == best]
