"""Evaluator speed: the learned value model against the hand formula, per call.

Run with ``make bench``. The learned evaluator runs at every MCTS leaf, so its cost is
part of every iteration; the two are timed on the same round-4 positions.
"""

from __future__ import annotations

import engine
from benchmarks.positions import mid_game
from search.evaluator import estimate_money
from search.features import player_features
from search.value_model import default_model


def _positions() -> list[engine.State]:
    return [mid_game(players, seed, 4) for players in (2, 3, 4) for seed in (1, 2)]


def test_hand_formula(benchmark):  # type: ignore[no-untyped-def]
    states = _positions()
    benchmark(lambda: [estimate_money(s) for s in states])
    benchmark.extra_info["us_per_position"] = benchmark.stats.stats.median / len(states) * 1e6


def test_learned_model(benchmark):  # type: ignore[no-untyped-def]
    states = _positions()
    model = default_model()
    benchmark(lambda: [model.predict(s) for s in states])
    benchmark.extra_info["us_per_position"] = benchmark.stats.stats.median / len(states) * 1e6


def test_features_alone(benchmark):  # type: ignore[no-untyped-def]
    states = _positions()
    benchmark(lambda: [player_features(s) for s in states])
    benchmark.extra_info["us_per_position"] = benchmark.stats.stats.median / len(states) * 1e6
