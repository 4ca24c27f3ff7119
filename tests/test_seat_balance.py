"""``benchmarks/seat_balance.py``: the probe behind docs/search.md's seat-balance table.

Rulebook: the first game uses "tracks A1 B1 C1 D1" and fixed starting tiles; the variable
setup deals the track cards and two starting tiles per player, each keeping one. The
probe's forced setups must give exactly the first-game components through the variable
setup's steps, or its table would compare different games.
"""

from __future__ import annotations

import pytest

import engine
from benchmarks.seat_balance import SETUPS, advance, report, run


def _components(setup: str, seed: int) -> tuple[tuple[int, ...], list[int]]:
    """The tracks and the tiles kept when the probe's game first asks a bot to decide
    after the setup's deals (for a setup that deals tiles at random: the tiles dealt)."""
    s = advance(engine.new_game(players=2, seed=seed, variable=True), setup)
    if s.decision.kind == "starting-tile":  # random tiles: the bots choose
        return s.tracks, [-1, -1]
    assert all(p.tile >= 0 for p in s.players)  # kept, before the resting cards
    return s.tracks, [p.tile for p in s.players]


def test_forced_setups_deal_the_first_game_components() -> None:
    cat = engine.default_catalogue()
    first_tracks, first_tiles = tuple(cat.first_game_tracks), list(cat.first_game_tiles[:2])
    for seed in (3, 11):
        assert _components("variable-first-game", seed) == (first_tracks, first_tiles)
        tracks, tiles = _components("variable-tiles", seed)
        assert tracks == first_tracks and tiles == [-1, -1]  # the tiles are the bots' choice
        tracks, tiles = _components("variable-tracks", seed)
        assert tiles == first_tiles
        # Swapped: the first game's components, seats 1 and 2 holding each other's tile.
        assert _components("swapped-tiles", seed) == (first_tracks, first_tiles[::-1])
    # Unforced, the tracks really are dealt: not the first game's in some game.
    assert any(_components("variable", seed)[0] != first_tracks for seed in (3, 11, 19))
    assert any(_components("variable-tracks", seed)[0] != first_tracks
               for seed in (3, 11, 19))


def test_the_report_counts_every_game_and_refuses_an_unknown_setup() -> None:
    rows = run("random", "variable", games=2, seed=5, jobs=1)
    assert len(rows) == 2 and all(sum(r.won) == pytest.approx(1.0) for r in rows)
    assert all(sum(r.rounds_started) == 7 for r in rows)
    text = report("random", "variable", rows)
    assert "2 games" in text and "win rate by tile kept" in text
    # The route rows: each seat's bookkeeping money and bookkeeper actions, as played.
    assert all(r.bookkeeping[k] >= 0 and r.keepers[k] >= 0 for r in rows for k in range(2))
    seat1, seat2 = (sum(r.keepers[k] for r in rows) / 2 for k in range(2))
    assert f"bookkeeper actions  {seat1:>7.2f}  {seat2:>7.2f}" in text
    with pytest.raises(ValueError, match="setup: one of"):
        run("random", "sideways", games=1, seed=1, jobs=1)
    assert "first-game" in SETUPS
