"""Random games through the public API: ``state.legal_steps()`` + ``state.apply(step)``
(the checked apply a client of the engine uses), 4 players.

Measure the loop's relative cost (time / the calibration workload of
``benchmarks/conftest.py``) on any checkout, e.g. the commit before the engine API work,
to compare like with like on one machine::

    python -m benchmarks.public_loop /path/to/checkout

``benchmarks/test_engine_speed.py::test_public_api_game_loop`` tracks it.
"""

from __future__ import annotations

import random
import sys

from benchmarks.conftest import relative_cost


def public_api_game(players: int, seed: int) -> int:
    """One uniformly random game through the public API; returns its number of steps."""
    import engine  # the engine of whichever checkout is first on sys.path

    s = engine.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not s.is_over():
        legal = s.legal_steps()
        s = s.apply(legal[int(rng.random() * len(legal))])
        steps += 1
    return steps


def loop_cost(rounds: int = 15) -> float:
    """Relative cost of one game (seed 7) against the calibration workload."""
    return relative_cost(lambda: public_api_game(4, 7), rounds)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.path.insert(0, sys.argv[1])
    import engine

    print(f"{engine.__file__}: relative cost {loop_cost(25):.4f}")
