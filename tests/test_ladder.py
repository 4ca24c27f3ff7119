"""The rating ladder (``benchmarks/ladder.py``, issue 53): the Bradley-Terry fit
recovers known ratings from simulated games and its 95% intervals cover them; ties
count half; a bot that never won still gets a finite rating; arena journals are read
as games (two players, this catalogue and model only); the command plays a tiny
schedule, resumes it, refuses journals of changed levels, and writes the packaged
ratings."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks import ladder
from benchmarks.ladder import ELO, Game, Ladder, read_games, table
from search.arena import run_arena
from search.levels import LADDER_PATH

TRUE = {"a": 0.0, "b": 150.0, "c": 300.0, "d": 420.0, "e": 650.0}
PAIRS = [("a", "b", 200), ("b", "c", 200), ("c", "d", 200), ("d", "e", 200),
         ("a", "c", 60), ("c", "e", 60)]


def _simulated(seed: int, ties: float = 0.05) -> list[Game]:
    """Games drawn from the Bradley-Terry model of :data:`TRUE`: a tie (half a win)
    with chance ``ties``, and the wins so that the expected score is the model's."""
    rng = random.Random(seed)
    games = []
    for a, b, n in PAIRS:
        p = 1.0 / (1.0 + 10 ** ((TRUE[b] - TRUE[a]) / 400))
        for _ in range(n):
            u = rng.random()
            score = 0.5 if u < ties else 1.0 if u < ties + (p - ties / 2) else 0.0
            games.append(Game(a, b, score))
    return games


def test_the_fit_recovers_known_ratings_and_its_intervals_cover_them() -> None:
    covered = total = 0
    for seed in range(8):
        fit = Ladder(_simulated(seed), anchor="a", anchor_rating=0.0, prior=0.0)
        for p in "bcde":
            lo, hi = fit.rating_interval(p)
            assert lo < fit.rating(p) < hi
            assert abs(fit.rating(p) - TRUE[p]) < 1.5 * (hi - lo)
            covered += lo <= TRUE[p] <= hi
            total += 1
    assert covered >= 0.85 * total  # 95% intervals: about 30 of 32
    # One fit in detail: close to the truth, the intervals widening away from the anchor.
    fit = Ladder(_simulated(0), anchor="a", anchor_rating=0.0, prior=0.0)
    widths = [fit.rating_interval(p)[1] - fit.rating_interval(p)[0] for p in "be"]
    assert widths[0] < widths[1]
    glo, ghi = fit.gap_interval("d", "e")
    assert glo < fit.rating("e") - fit.rating("d") < ghi
    assert ghi - glo < widths[1]  # a gap between neighbours is known better than either


def test_the_scale_is_elo_and_the_anchor_holds() -> None:
    games = [Game("x", "y", 1.0)] * 30 + [Game("x", "y", 0.0)] * 10
    fit = Ladder(games, anchor="y", anchor_rating=1000.0, prior=0.0)
    assert fit.rating("y") == 1000.0
    assert fit.rating("x") == pytest.approx(1000.0 + ELO * 1.0986122886681098, abs=0.01)
    assert fit.rating_interval("y") == (1000.0, 1000.0)


def test_ties_are_half_wins_and_a_bot_that_never_won_is_finite() -> None:
    fit = Ladder([Game("x", "y", 0.5)] * 10 + [Game("x", "y", 1.0), Game("x", "y", 0.0)],
                 anchor="y", anchor_rating=0.0, prior=0.0)
    assert fit.rating("x") == pytest.approx(0.0, abs=1e-6)
    never = Ladder([Game("x", "y", 1.0)] * 40, anchor="x", anchor_rating=0.0)
    lo, hi = never.rating_interval("y")
    assert -2000 < lo < never.rating("y") < hi < -300  # one virtual draw: finite
    with pytest.raises(ValueError, match="no games link"):
        Ladder([Game("x", "y", 1.0), Game("u", "v", 1.0)], anchor="x", anchor_rating=0.0)
    with pytest.raises(ValueError, match="anchor 'z'"):
        Ladder([Game("x", "y", 1.0)], anchor="z", anchor_rating=0.0)


def test_journals_are_read_as_two_player_games(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    report = run_arena(["random", "policy"], games=4, seed=0, journal=path)
    games = read_games([path], log=lambda text: None)
    assert len(games) == 4 and {(g.a, g.b) for g in games} == {("random", "policy")}
    assert sum(g.score for g in games) == report.bots["random"].wins
    # Three players and self-play give nothing; another catalogue's series is skipped.
    run_arena(["random", "policy", "random"], games=3, seed=0, journal=tmp_path / "b.jsonl")
    run_arena(["random", "random"], games=2, seed=0, journal=tmp_path / "c.jsonl")
    other = tmp_path / "d.jsonl"
    lines = path.read_text().splitlines()
    header = json.loads(lines[0]) | {"catalogue": "0000000000000000"}
    other.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    said: list[str] = []
    assert len(read_games(sorted(tmp_path.glob("*.jsonl")), log=said.append)) == 4
    assert len(said) == 1 and "d.jsonl" in said[0] and "0000000000000000" in said[0]


def test_a_series_of_a_bot_playing_another_value_model_is_skipped(tmp_path: Path) -> None:
    """A bot given ``model=FILE`` does not play the model the journal's header names:
    its games say nothing about the packaged levels."""
    path = tmp_path / "a.jsonl"
    run_arena(["random", "policy"], games=2, seed=0, journal=path)
    lines = path.read_text().splitlines()
    candidate = "mcts:iterations=10,model=candidate.json"
    header = json.loads(lines[0]) | {"players": [candidate, "policy"]}
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    said: list[str] = []
    assert read_games([path], log=said.append) == []
    assert len(said) == 1 and candidate in said[0] and "another value model" in said[0]
    header["players"] = ["mcts:oops", "policy"]  # not a spec: skipped, named, no crash
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert read_games([path], log=said.append) == []
    assert "not bot specs" in said[-1] and "mcts:oops" in said[-1]


def test_the_strength_journals_are_ingested() -> None:
    games = read_games(ladder.journal_paths([], [ladder.STRENGTH_JOURNALS]),
                       log=lambda text: None)
    pairs = {(g.a, g.b) for g in games}
    assert ("mcts:time=0.25", "greedy:eval=learned") in pairs
    assert ("mcts:time=1.0", "mcts:time=0.25") in pairs
    assert len(games) == 7 * 200  # the 3p, 4p and self-play journals left out
    fit = Ladder(games)
    assert fit.rating("mcts:time=0.25") > fit.rating("greedy:eval=learned") > fit.rating(
        "random")


def test_the_command_plays_resumes_and_writes_the_ratings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    schedule = tmp_path / "schedule.json"
    schedule.write_text(json.dumps([["level:1", "random", 2], ["level:1", "level:2", 2]]))
    out = tmp_path / "ladder"
    argv = ["run", "--out", str(out), "--schedule", str(schedule), "--no-ingest",
            "--anchor", "random=0", "--json", str(tmp_path / "l.json"),
            "--write", str(tmp_path / "packaged.json")]
    ladder.main(argv)
    table = capsys.readouterr().out
    assert "| `level:1` |" in table and "level:1 to level:2" in table
    files = sorted(p.name for p in out.iterdir())
    assert files == ["level_1__level_2.jsonl", "level_1__random.jsonl", "levels.json"]
    data = json.loads((tmp_path / "l.json").read_text())
    assert data["anchor"] == {"player": "random", "rating": 0.0}
    assert data["ratings"]["level:1"]["games"] == 4
    packaged = json.loads((tmp_path / "packaged.json").read_text())
    assert packaged["command"].startswith("python -m benchmarks.ladder run")
    assert set(packaged["ratings"]) == {"random", "level:1", "level:2"}
    # Again: nothing new is played (each journal keeps its header and 2 games).
    before = {p.name: p.read_text() for p in out.glob("*.jsonl")}
    ladder.main(argv)
    assert {p.name: p.read_text() for p in out.glob("*.jsonl")} == before
    # A level played with another definition is refused, naming it.
    two = ladder.LEVELS[1]
    assert two.casual is not None
    changed = replace(two, casual=replace(two.casual, slip=0.5))
    monkeypatch.setattr(ladder, "LEVELS", (ladder.LEVELS[0], changed, *ladder.LEVELS[2:]))
    with pytest.raises(ValueError, match="level:2 played with another definition"):
        ladder.main(argv)


def test_the_docs_show_the_packaged_ladder() -> None:
    """docs/levels.md's table is the packaged ladder's, not an older fit."""
    data = json.loads(LADDER_PATH.read_text())
    docs = (Path(__file__).resolve().parent.parent / "docs" / "levels.md").read_text()
    assert table(data) in docs
