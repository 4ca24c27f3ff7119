"""Reproducible positions and playouts: the benchmarks' inputs (``mombasa bench``, the
suites of ``benchmarks/``), also used by tests and examples.

>>> s = mid_game(players=2, seed=5, round_=3)
>>> s.round, s.decision.kind
(3, 'action')
>>> random_game(2, 1) > 100
True
"""

from __future__ import annotations

import random

import engine
from search.policy import PASSIVE


def mid_game(players: int = 4, seed: int = 1, round_: int = 4) -> engine.State:
    """An action decision in round ``round_``, reached by a busy random policy
    (90% of the time it prefers doing something over ending or passing)."""
    s = engine.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    while s.round < round_ or s.decision.kind != "action":
        if s.decision.kind == "chance":
            step = s.sample_chance()
        else:
            legal = s.legal_steps()
            busy = [x for x in legal if x.kind not in PASSIVE]
            step = rng.choice(busy) if busy and rng.random() < 0.9 else rng.choice(legal)
        s = s.apply_unchecked(step)
    return s


def random_game(players: int, seed: int) -> int:
    """Play one uniformly random legal game; returns its number of steps."""
    s = engine.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not s.is_over():
        s = s.apply_unchecked(s.random_step(rng))
        steps += 1
    return steps
