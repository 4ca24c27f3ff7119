"""Same behaviour: random games replay to the digests recorded before a refactor."""

from __future__ import annotations

import json

import pytest

from tests.game_digests import DIGESTS, GAMES_PER_COUNT, PLAYER_COUNTS, game_digest

RECORDED: dict[str, list[str]] = json.loads(DIGESTS.read_text())


def test_every_player_count_has_its_games_recorded() -> None:
    assert sorted(RECORDED) == sorted(str(n) for n in PLAYER_COUNTS)
    assert all(len(RECORDED[str(n)]) == GAMES_PER_COUNT for n in PLAYER_COUNTS)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_replay_to_their_recorded_digests(players: int) -> None:
    """Every step (in notation) and the final score of 50 seeded games, unchanged."""
    changed = [seed for seed in range(GAMES_PER_COUNT)
               if game_digest(players, seed) != RECORDED[str(players)][seed]]
    assert changed == [], f"{players}p games whose steps or score changed: seeds {changed}"
