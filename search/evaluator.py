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
from functools import cache

from engine import ROUNDS, Catalogue, State, Tables, tables
from search.features import track_icons
from search.value_model import ValueModel, default_model


@dataclass(frozen=True, slots=True)
class Weights:
    """Knobs of the evaluator (pounds per unit of each resource still to be used)."""

    share_growth_per_round: float = 1.0  # expected rise of a share value per round left
    round_unit: float = 0.9  # per unit of a face-up card still to be used this round
    future_unit: float = 0.7  # per unit a future round is expected to play
    book_run: float = 0.6  # share of the bookkeeping value the run of books ahead offers
    book_ahead: float = 0.5  # per other book placed ahead of the ink jar
    track_progress: float = 0.7  # share of the way to the next share icon that counts
    win_scale: float = 5.0  # pounds of lead per round left that make a win ~73% likely


DEFAULT_WEIGHTS = Weights()


def rounds_left(s: State) -> float:
    """Rounds still to play, counting the current one by the phase reached."""
    if s.is_over():
        return 0.0
    left = ROUNDS - max(s.round, 1)
    if s.phase <= 1:  # setup or planning: the whole round is ahead
        return left + 1.0
    return left + 0.5


@cache
def _effective_shares(cat: Catalogue, progress: float) -> tuple[tuple[float, ...], ...]:
    """Per track and position: shares held plus part of the way to the next icon."""
    return tuple(
        tuple(float(held) if not gain else held + progress * frac * gain
              for held, frac, gain in row)
        for row in track_icons(cat)
    )


def book_run(books: tuple[tuple[int, ...], ...], ink: int) -> int:
    """Number of consecutive books right after the ink jar (how far it could go)."""
    k = ink + 1
    while k < len(books) and books[k]:
        k += 1
    return k - ink - 1


def _units(t: Tables, mask: int) -> tuple[int, int]:
    """(total units / helmets / points, number of playable cards) of a card mask."""
    units = cards = 0
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        if t.card_measure[c] >= 0:
            units += t.card_value[c]
            cards += 1
    return units, cards


def estimate_money(s: State, w: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Estimated final money of each player (exact when the game is over)."""
    cat = s.cat
    if s.is_over():
        from engine import score

        return [float(sc.total) for sc in score(s)]
    t = tables(cat)
    left = rounds_left(s)
    future_rounds = ROUNDS - max(s.round, 1)
    values = s.values
    projected = [v + w.share_growth_per_round * left for v in values]
    eff = _effective_shares(cat, w.track_progress)
    cards = cat.cards
    out = []
    for p in s.players:
        money = float(p.cash)
        money += cat.diamond_values[p.diamond] + cat.bookkeeping_values[p.ink]
        owned = p.hand
        for deck in p.resting:
            for card in deck:
                owned |= 1 << card
        area = 0
        for card in p.slots:
            if card >= 0:
                area |= 1 << card
        owned |= area
        card_shares = [0] * len(cat.companies)
        m = owned
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            if cards[c].share >= 0:
                card_shares[cards[c].share] += 1
        for c in range(len(cat.companies)):
            shares = eff[s.tracks[c]][p.track[c]] + card_shares[c]
            money += shares * projected[c]
        if s.phase in (1, 2) and not p.ended:
            now, _ = _units(t, (area | p.tiles) & ~p.used)
            money += w.round_unit * now
        if future_rounds > 0:
            units, n_cards = _units(t, owned)
            slots = 3 + (p.diamond >= cat.diamond_slot) + (p.ink >= cat.bookkeeping_slot)
            per_round = units * min(1.0, slots / max(1, n_cards))
            money += w.future_unit * per_round * future_rounds
            run = book_run(p.books, p.ink)
            ahead = sum(1 for k in range(p.ink + 1, len(p.books)) if p.books[k])
            bk = cat.bookkeeping_values
            money += w.book_run * (bk[p.ink + run] - bk[p.ink]) + w.book_ahead * (ahead - run)
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


EVALUATORS = ("hand", "learned")

# Pounds added at a search's leaf to the player about to act. The estimate right after a
# move leans toward the mover: the mover chose its move because the evaluator liked it
# (the optimizer's curse). A one-ply bot never notices (all its candidates end at the same
# point of the turn order); a tree whose leaves end after either player's move does.
# Measured in greedy self-play with the learned evaluator, the player about to act ends
# 0.99 pounds better off than estimated relative to the player who just moved (two
# players; 0.65 with three, where the third player ends 0.63 better off too:
# ``python -m benchmarks.tempo_bias --games 30 --players 2``). The search selects harder
# than a one-ply bot, so its curse is larger, and the value is set by play, not by that
# measurement: at 400 iterations a step, 3.0 beat 1.7 in 116 of 200 games and 0.85 lost
# to 1.7 (85.5 of 200), ``docs/search.md`` "Tempo".
TEMPO = 3.0


def money_estimate(s: State, w: Weights = DEFAULT_WEIGHTS, evaluator: str = "hand",
                   model: ValueModel | None = None) -> list[float]:
    """Estimated final money per player by the named evaluator: ``"hand"`` (the formula
    of :func:`estimate_money`) or ``"learned"`` (``model``, default the process's model:
    :mod:`search.value_model`)."""
    if evaluator == "learned":
        return (model or default_model()).predict(s)
    if evaluator != "hand":
        raise ValueError(f"evaluator: one of {', '.join(EVALUATORS)}, got {evaluator!r}")
    return estimate_money(s, w)


def evaluate(s: State, w: Weights = DEFAULT_WEIGHTS, evaluator: str = "hand",
             tempo: float = 0.0, model: ValueModel | None = None
             ) -> tuple[list[float], list[float]]:
    """(utilities, estimated money) per player; exact at the end of the game.

    ``tempo`` pounds are added to the estimate of the player whose action turn is
    pending: see :data:`TEMPO` for why a search wants it.
    """
    money = money_estimate(s, w, evaluator, model)
    if s.is_over():
        return terminal_utilities(s), money
    d = s.decision
    if tempo and d.kind == "action":
        money = list(money)
        money[d.player] += tempo
    scale = w.win_scale * (1.0 + rounds_left(s))
    return win_utilities(money, scale), money
