"""Static evaluation: an estimate of every player's final money from any state.

The estimate adds to the exact score so far (cash, shares x share value, diamonds and
bookkeeping passed) what is likely still to come in the rounds left: share values grow
as companies expand, and cards, books and tracks not yet used carry future value. The
weights are plain numbers in :class:`Weights`, tuned by self-play in the arena.

>>> import engine
>>> s = engine.new_game(players=2, seed=0)
>>> money = estimate_money(s)
>>> len(money)
2
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine import State
from engine.rules import share_count, tables

ROUNDS = 7


@dataclass(frozen=True, slots=True)
class Weights:
    """Knobs of the evaluator (pounds per unit of each resource still to be used)."""

    share_growth_per_round: float = 1.1  # expected rise of a share value per round left
    share_per_track_step: float = 0.25  # share-value-weighted value of a track step
    unit_value: float = 0.55  # per goods unit / helmet / bookkeeping point owned
    book_ahead: float = 0.8  # per book placed ahead of the ink jar
    diamond_step: float = 1.2  # per diamond step already taken beyond the value passed
    win_scale: float = 6.0  # pounds of lead that make a win ~73% likely (logistic)


DEFAULT_WEIGHTS = Weights()


def rounds_left(s: State) -> float:
    """Rounds still to play, counting the current one by the phase reached."""
    if s.is_over():
        return 0.0
    left = ROUNDS - max(s.round, 1)
    if s.phase <= 1:  # setup or planning: the whole round is ahead
        return left + 1.0
    return left + 0.5


def estimate_money(s: State, w: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Estimated final money of each player (exact when the game is over)."""
    cat = s.cat
    t = tables(cat)
    left = rounds_left(s)
    future = left / ROUNDS
    values = s.values
    projected = [v + w.share_growth_per_round * left for v in values]
    out = []
    for i, p in enumerate(s.players):
        money = float(p.cash)
        money += cat.diamond_values[p.diamond] + cat.bookkeeping_values[p.ink]
        for c in range(len(cat.companies)):
            money += share_count(s, i, c) * (projected[c] if left else values[c])
        if left:
            owned = p.hand | p.tiles
            for deck in p.resting:
                for card in deck:
                    owned |= 1 << card
            for card in p.slots:
                if card >= 0 and not (p.used >> card) & 1:
                    owned |= 1 << card
            units = 0
            m = owned
            while m:
                low = m & -m
                c = low.bit_length() - 1
                m ^= low
                if t.card_measure[c] >= 0:
                    units += t.card_value[c]
            money += w.unit_value * units * min(1.0, future * 2.5)
            ahead = sum(1 for k in range(p.ink + 1, len(p.books)) if p.books[k])
            money += w.book_ahead * ahead * min(1.0, future * 2.0)
        out.append(money)
    return out


def win_utilities(money: list[float], scale: float) -> list[float]:
    """Per player, a win-probability-like utility from estimated money (sums to 1)."""
    best = max(money)
    exps = [math.exp((m - best) / scale) for m in money]
    total = sum(exps)
    return [e / total for e in exps]


def terminal_utilities(s: State) -> list[float]:
    """1/k for each of the k winners of a finished game, 0 for the others."""
    from engine import score

    totals = [sc.total for sc in score(s)]
    best = max(totals)
    winners = [i for i, x in enumerate(totals) if x == best]
    return [1.0 / len(winners) if i in winners else 0.0 for i in range(len(totals))]


def evaluate(s: State, w: Weights = DEFAULT_WEIGHTS) -> tuple[list[float], list[float]]:
    """(utilities, estimated money) per player; exact at the end of the game."""
    money = estimate_money(s, w)
    if s.is_over():
        return terminal_utilities(s), money
    scale = w.win_scale * (1.0 + rounds_left(s))
    return win_utilities(money, scale), money
