"""The arena: bots play complete games against each other, seats rotated.

>>> report = run_arena(["random", "policy"], games=2, seed=0)
>>> sorted(report.bots)
['policy', 'random']
>>> sum(b.wins for b in report.bots.values())
2.0
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from engine import apply_move, new_game, observe, score, winners
from search.bot_specs import make_bot


@dataclass
class GameRecord:
    """One finished game: which spec sat where and how it went."""

    index: int
    seed: int
    seats: list[str]  # bot spec per seat
    entrants: list[int]  # index into the series' spec list, per seat
    totals: list[int]
    cash: list[int]
    companies: list[int]
    diamonds: list[int]
    bookkeeping: list[int]
    winners: list[int]
    decisions: list[int]  # moves chosen per seat
    think: list[float]  # seconds spent choosing per seat
    keepers: list[int]  # bookkeeper actions per seat
    merchants: list[int]  # diamond merchant actions per seat


def play_game(specs: list[str], index: int, seed: int, variable: bool = False) -> GameRecord:
    """Game ``index`` of a series: seats rotated by ``index`` so that every spec plays
    every seat equally over ``len(specs)`` consecutive games."""
    n = len(specs)
    entrants = [(seat + index) % n for seat in range(n)]
    seats = [specs[e] for e in entrants]
    game_seed = seed * 1_000_003 + index
    bots = [make_bot(spec, seed=game_seed * 7 + seat) for seat, spec in enumerate(seats)]
    s = new_game(players=n, seed=game_seed, variable=variable)
    decisions = [0] * n
    think = [0.0] * n
    keepers = [0] * n
    merchants = [0] * n
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        t0 = time.perf_counter()
        move = bots[d.player].choose(observe(s, d.player))
        think[d.player] += time.perf_counter() - t0
        decisions[d.player] += 1
        for step in move.steps:
            keepers[d.player] += step.kind == "keeper"
            merchants[d.player] += step.kind == "merchant"
        s = apply_move(s, move)
    scores = score(s)
    return GameRecord(
        index=index, seed=game_seed, seats=seats, entrants=entrants,
        totals=[sc.total for sc in scores], cash=[sc.cash for sc in scores],
        companies=[sum(sc.companies) for sc in scores],
        diamonds=[sc.diamonds for sc in scores],
        bookkeeping=[sc.bookkeeping for sc in scores],
        winners=winners(s), decisions=decisions, think=think,
        keepers=keepers, merchants=merchants,
    )


@dataclass
class BotStats:
    spec: str
    games: int = 0
    wins: float = 0.0  # shared wins count as fractions
    money: float = 0.0
    cash: float = 0.0
    companies: float = 0.0
    diamonds: float = 0.0
    bookkeeping: float = 0.0
    decisions: int = 0
    think: float = 0.0
    seat_games: dict[int, int] = field(default_factory=dict)
    seat_wins: dict[int, float] = field(default_factory=dict)
    keeper_uses: int = 0  # bookkeeper actions over all games
    keeper_games: int = 0  # games with at least one bookkeeper action
    merchant_uses: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def confidence(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        n = self.games
        if not n:
            return 0.0, 0.0
        z = 1.96
        p = self.win_rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def mean(self, total: float) -> float:
        return total / self.games if self.games else 0.0

    def to_json(self) -> dict[str, object]:
        lo, hi = self.confidence()
        return {
            "bot": self.spec, "games": self.games, "wins": self.wins,
            "win_rate": self.win_rate, "ci95": [lo, hi],
            "mean_money": self.mean(self.money),
            "breakdown": {"cash": self.mean(self.cash), "companies": self.mean(self.companies),
                          "diamonds": self.mean(self.diamonds),
                          "bookkeeping": self.mean(self.bookkeeping)},
            "seats": {str(k + 1): {"games": g, "win_rate": self.seat_wins.get(k, 0.0) / g}
                      for k, g in sorted(self.seat_games.items())},
            "seconds_per_decision": self.think / self.decisions if self.decisions else 0.0,
            "routes": {"keeper_actions_per_game": self.mean(self.keeper_uses),
                       "games_with_keeper_action": self.keeper_games,
                       "merchant_actions_per_game": self.mean(self.merchant_uses)},
        }


@dataclass
class ArenaReport:
    specs: list[str]
    games: list[GameRecord]
    bots: dict[str, BotStats]
    elapsed: float

    def to_json(self) -> dict[str, object]:
        return {"bots": [b.to_json() for b in self.bots.values()],
                "games": len(self.games), "elapsed": self.elapsed}


def labels(specs: list[str]) -> list[str]:
    """Unique names for the entrants: a spec that appears twice gets #1, #2."""
    out = []
    for i, spec in enumerate(specs):
        out.append(f"{spec}#{specs[:i + 1].count(spec)}" if specs.count(spec) > 1 else spec)
    return out


def summarise(specs: list[str], records: list[GameRecord], elapsed: float) -> ArenaReport:
    names = labels(specs)
    bots = {name: BotStats(name) for name in names}
    for rec in sorted(records, key=lambda r: r.index):
        share = 1.0 / len(rec.winners)
        for seat, entrant in enumerate(rec.entrants):
            b = bots[names[entrant]]
            b.games += 1
            won = share if seat in rec.winners else 0.0
            b.wins += won
            b.money += rec.totals[seat]
            b.cash += rec.cash[seat]
            b.companies += rec.companies[seat]
            b.diamonds += rec.diamonds[seat]
            b.bookkeeping += rec.bookkeeping[seat]
            b.decisions += rec.decisions[seat]
            b.think += rec.think[seat]
            b.keeper_uses += rec.keepers[seat]
            b.keeper_games += rec.keepers[seat] > 0
            b.merchant_uses += rec.merchants[seat]
            b.seat_games[seat] = b.seat_games.get(seat, 0) + 1
            b.seat_wins[seat] = b.seat_wins.get(seat, 0.0) + won
    return ArenaReport(specs, sorted(records, key=lambda r: r.index), bots, elapsed)


def _play_job(args: tuple[list[str], int, int, bool]) -> GameRecord:
    specs, index, seed, variable = args
    return play_game(specs, index, seed, variable)


def iter_games(specs: list[str], games: int, seed: int, jobs: int = 1,
               variable: bool = False) -> Iterator[GameRecord]:
    """Play the games (in ``jobs`` processes), yielding records as they finish."""
    jobs_args = [(specs, i, seed, variable) for i in range(games)]
    if jobs <= 1:
        for a in jobs_args:
            yield _play_job(a)
        return
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        yield from pool.map(_play_job, jobs_args)


def run_arena(specs: list[str], games: int, seed: int = 0, jobs: int = 1,
              variable: bool = False,
              on_game: Callable[[GameRecord], None] | None = None) -> ArenaReport:
    """Play ``games`` games between the bot specs (one seat each, 2-4 specs)."""
    if not 2 <= len(specs) <= 4:
        raise ValueError(f"players: 2 to 4 bot specs, got {len(specs)}")
    if games < 1:
        raise ValueError(f"games: must be >= 1, got {games}")
    for spec in specs:
        make_bot(spec)  # fail early on a bad spec
    t0 = time.perf_counter()
    records = []
    for rec in iter_games(specs, games, seed, jobs, variable):
        records.append(rec)
        if on_game is not None:
            on_game(rec)
    return summarise(specs, records, time.perf_counter() - t0)
