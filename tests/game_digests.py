"""Digests of recorded random games: the behaviour lock for engine refactors.

Each game is played from a seed with the random policies of :mod:`tests.random_games`
(biased on odd seeds, variable setup on seeds divisible by 3) and hashed over every
step's notation and the final score. ``tests/data/game_digests.json`` holds the digests
recorded before a refactor; ``tests/test_game_digests.py`` replays the games and
compares. Record again only for a deliberate rules or catalogue change:

    python -m tests.game_digests
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import engine
from tests.random_games import MAX_STEPS, policy

DIGESTS = Path(__file__).parent / "data" / "game_digests.json"
GAMES_PER_COUNT = 50
PLAYER_COUNTS = (2, 3, 4)


def game_digest(players: int, seed: int) -> str:
    """SHA-256 over the step notations and the final score of one random game."""
    biased, variable = seed % 2 == 1, seed % 3 == 0
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rng = random.Random(seed)
    h = hashlib.sha256()
    for _ in range(MAX_STEPS):
        if s.decision.kind == "over":
            break
        step = policy(s, rng, biased)
        h.update(step.text(s.cat).encode())
        h.update(b"\n")
        s = s.apply(step)
    else:
        raise AssertionError(f"{players}p seed={seed}: the game does not end")
    h.update(repr(engine.score(s)).encode())
    return h.hexdigest()


def record() -> dict[str, list[str]]:
    """The digests of every recorded game, keyed by player count."""
    return {str(n): [game_digest(n, seed) for seed in range(GAMES_PER_COUNT)]
            for n in PLAYER_COUNTS}


if __name__ == "__main__":
    DIGESTS.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {DIGESTS}")
