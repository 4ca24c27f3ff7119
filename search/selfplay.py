"""Self-play games recorded for fitting the value model.

Every time a player is to choose a move, the position's features (see
:mod:`search.features`) are recorded; when the game ends, each record gets the player's
final money as its target; where the mover's bot searched (``mcts``), what its first
search of the move expected each player to end with is recorded beside it
(``Dataset.searched``, for search-bootstrapped targets: ``Dataset.blended_targets``). A
share of moves is played by the quick policy instead of the bot (``explore``) so that
the data also covers positions the bot itself would avoid, which the search will visit.

>>> data = play_recorded(["policy", "policy"], seed=3)
>>> data.targets.shape[0] == data.features.shape[0] > 100
True
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from engine import apply_move, new_game, observe, score
from search.bot_specs import make_bot
from search.dataset import Dataset
from search.evaluator import estimate_money
from search.features import FEATURES, bucket, player_features


def play_recorded(specs: list[str], seed: int, explore: float = 0.1,
                  game_id: int = 0) -> Dataset:
    """Play one game between ``specs`` (seat order as given) and record it."""
    n = len(specs)
    bots = [make_bot(spec, seed=seed * 7 + i) for i, spec in enumerate(specs)]
    explorer = make_bot("policy", seed=seed)
    rng = random.Random(seed)
    s = new_game(players=n, seed=seed)
    buckets: list[tuple[int, int, int]] = []
    rows: list[list[float]] = []
    players: list[int] = []
    hand: list[float] = []
    searched: list[float] = []
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        b = bucket(s)
        for i, row in enumerate(player_features(s)):
            buckets.append(b)
            rows.append(row)
            players.append(i)
        hand.extend(estimate_money(s))
        bot = explorer if rng.random() < explore else bots[d.player]
        s = apply_move(s, bot.choose(observe(s, d.player)))
        searched.extend(_expected(bot, n))
    totals = [sc.total for sc in score(s)]
    return Dataset(
        np.array(buckets, dtype=np.int16).reshape(-1, 3),
        np.array(rows, dtype=np.float64).reshape(-1, len(FEATURES)),
        np.array([totals[i] for i in players], dtype=np.float64),
        np.full(len(rows), game_id, dtype=np.int32),
        np.array(hand, dtype=np.float64),
        np.array(searched, dtype=np.float64),
    )


def _expected(bot: object, players: int) -> list[float]:
    """What ``bot``'s first search of the move just made expected each player to end
    with (the root's best line), or NaN for each where it did not search."""
    result = getattr(bot, "first_of_move", None)
    if result is None or not result.lines:
        return [float("nan")] * players
    return [float(x) for x in result.lines[0].money]


SelfplayTask = tuple[list[str], int, float, int]
"""One recorded game: seat specs, seed, explore share, game id."""


def selfplay_tasks(spec: str, games: int, players: tuple[int, ...] = (2, 3, 4),
                   seed: int = 0, explore: float = 0.1) -> list[SelfplayTask]:
    """The games :func:`generate` plays, in the order their records are concatenated
    (shared with the Ray backend, :func:`search.distributed.generate_ray`)."""
    tasks: list[SelfplayTask] = []
    for n in players:
        for _g in range(games):
            game_id = len(tasks)
            tasks.append(([spec] * n, seed * 1_000_003 + game_id, explore, game_id))
    return tasks


def play_task(task: SelfplayTask) -> Dataset:
    """Play and record one game of :func:`selfplay_tasks`."""
    specs, seed, explore, game_id = task
    return play_recorded(specs, seed, explore, game_id)


def generate(spec: str, games: int, players: tuple[int, ...] = (2, 3, 4), seed: int = 0,
             explore: float = 0.1, jobs: int = 1) -> Dataset:
    """``games`` self-play games of ``spec`` for each player count, recorded."""
    return play_tasks(selfplay_tasks(spec, games, players, seed, explore), jobs)


def play_tasks(tasks: list[SelfplayTask], jobs: int = 1) -> Dataset:
    """Play and record ``tasks`` on ``jobs`` local processes, joined in task order (the
    same data whatever ``jobs``)."""
    if jobs <= 1:
        parts = [play_task(t) for t in tasks]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            parts = list(pool.map(play_task, tasks, chunksize=2))
    return Dataset.concat(parts)
