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
    h.update(score_text(engine.score(s)).encode())
    return h.hexdigest()


def score_text(scores: list[engine.Score]) -> str:
    """The final score as the digests were recorded: every field of every player's
    breakdown, in a fixed text that does not follow ``Score``'s repr (which is for
    people, and names players P1-P4 since the digests were recorded)."""
    return "[" + ", ".join(
        f"Score(player={sc.player}, cash={sc.cash!r}, shares={sc.shares!r}, "
        f"share_values={sc.share_values!r}, companies={sc.companies!r}, "
        f"diamonds={sc.diamonds!r}, bookkeeping={sc.bookkeeping!r})" for sc in scores) + "]"


def record() -> dict[str, list[str]]:
    """The digests of every recorded game, keyed by player count."""
    return {str(n): [game_digest(n, seed) for seed in range(GAMES_PER_COUNT)]
            for n in PLAYER_COUNTS}


if __name__ == "__main__":
    DIGESTS.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {DIGESTS}")
