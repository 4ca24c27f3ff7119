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
from engine import apply_unchecked, legal_steps, random_step, sample_chance
from search.policy import PASSIVE


def mid_game(players: int = 4, seed: int = 1, round_: int = 4) -> engine.State:
    """An action decision in round ``round_``, reached by a busy random policy
    (90% of the time it prefers doing something over ending or passing)."""
    s = engine.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    while s.round < round_ or s.decision.kind != "action":
        if s.decision.kind == "chance":
            step = sample_chance(s)
        else:
            legal = legal_steps(s)
            busy = [x for x in legal if x.kind not in PASSIVE]
            step = rng.choice(busy) if busy and rng.random() < 0.9 else rng.choice(legal)
        s = apply_unchecked(s, step)
    return s


def random_game(players: int, seed: int) -> int:
    """Play one uniformly random legal game; returns its number of steps."""
    s = engine.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not s.is_over():
        s = apply_unchecked(s, random_step(s, rng))
        steps += 1
    return steps
