"""Random complete games for the property, observation, serialization and notation tests.

Two policies: uniform random legal steps (chance from the state's RNG), and a *biased*
one that prefers doing something (not end/ready/halt/stop/nobuy/pounds/noflip) 90% of
the time, so games go deeper into expansions, books and ink-jar moves.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

import engine
from engine import Step
from engine.state import OVER, State
from search.policy import PASSIVE

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    print_blob=True, phases=[Phase.explicit, Phase.reuse, Phase.generate])
MAX_STEPS = 5_000  # a game is ~250 steps; more means the game does not end

__all__ = ["MAX_STEPS", "PASSIVE", "PROPERTY", "SEEDS", "game_states", "policy", "state_at"]


def policy(s: State, rng: random.Random, biased: bool) -> Step:
    """Uniform random steps, or (biased) non-passive steps 90% of the time."""
    if not biased:
        return s.random_step(rng)
    if s.decision.kind == "chance":
        return s.sample_chance()
    legal = s.legal_steps()
    active = [x for x in legal if x.kind not in PASSIVE]
    if active and rng.random() < 0.9:
        return active[int(rng.random() * len(active))]
    return legal[int(rng.random() * len(legal))]


def game_states(players: int, seed: int, variable: bool, biased: bool = False
                ) -> Iterator[State]:
    """Every state of one random game, the first and the final one included."""
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rng = random.Random(seed)
    yield s
    for _ in range(MAX_STEPS):
        if s.phase == OVER:
            return
        s = s.apply_unchecked(policy(s, rng, biased))
        yield s
    raise AssertionError(f"{players}p seed={seed}: the game does not end")


def state_at(players: int, seed: int, variable: bool, stop: int, biased: bool = False
             ) -> State:
    """The state after ``stop`` steps of a random game (or its final state)."""
    last = None
    for k, s in enumerate(game_states(players, seed, variable, biased)):
        last = s
        if k == stop:
            break
    assert last is not None
    return last
