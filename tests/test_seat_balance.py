"""``benchmarks/seat_balance.py``: the probe behind docs/search.md's seat-balance table.

Rulebook: the first game uses "tracks A1 B1 C1 D1" and fixed starting tiles; the variable
setup deals the track cards and two starting tiles per player, each keeping one. The
probe's forced setups must give exactly the first-game components through the variable
setup's steps, or its table would compare different games.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import engine
from benchmarks.seat_balance import SETUPS, advance, journal_seats, report, run


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


def _journal(tmp_path: Path, games: list[dict[str, object]]) -> str:
    path = tmp_path / "j.jsonl"
    header = {"format": "mombasa-arena-journal/1", "players": ["a", "b"], "seed": 1}
    path.write_text("\n".join(json.dumps(row) for row in [header, *games]) + "\n")
    return str(path)


def _game(index: int, winners: list[int], totals: list[int],
          keepers: list[int]) -> dict[str, object]:
    """A whole arena game record (every field the journal reader asks for)."""
    return {"index": index, "seed": index, "seats": ["a", "b"], "entrants": [0, 1],
            "winners": winners, "totals": totals, "companies": [100, 90],
            "diamonds": [10, 10], "bookkeeping": [0, 20], "cash": [5, 5],
            "decisions": [40, 40], "think": [1.0, 1.0], "keepers": keepers,
            "merchants": [0, 0]}


def test_journal_summary_splits_wins_and_categories_by_seat(tmp_path: Path) -> None:
    """Seat 2 wins one game, ties one (half a win), loses one: 1.5 of 3."""
    path = _journal(tmp_path, [_game(0, [1], [100, 120], [0, 2]),
                               _game(1, [0, 1], [110, 110], [0, 1]),
                               _game(2, [0], [130, 100], [0, 0])])
    text = journal_seats(path)
    assert "3 games, seat 2 wins 1.5 (50.0%" in text
    assert re.search(r"^totals\s+113\.3\s+110\.0$", text, re.M)
    assert re.search(r"^bookkeeping\s+0\.0\s+20\.0$", text, re.M)
    assert re.search(r"^keepers\s+0\.0\s+1\.0$", text, re.M)


def test_journal_summary_refuses_what_it_cannot_split(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no games"):
        journal_seats(_journal(tmp_path, []))
    three = _game(0, [0], [1, 2], [0, 0]) | {"seats": ["a", "b", "c"]}
    with pytest.raises(ValueError, match="not a two-player journal"):
        journal_seats(_journal(tmp_path, [three]))
    broken = {"index": 0, "seats": ["a", "b"]}  # not a whole game record
    with pytest.raises(ValueError, match="line 2: not a game record"):
        journal_seats(_journal(tmp_path, [broken, _game(1, [0], [1, 2], [0, 0])]))
