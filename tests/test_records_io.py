"""Game records written and read by the commands that play games (issue 53): ``mombasa
arena --records DIR`` (a file per game, also on a resumed journaled series) and
``mombasa play --record FILE`` / ``--from FILE`` (a record after every move; a game
continued from a record's last position, a bad record refused naming its step)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import engine
from advisor_api.cli import app
from search.arena import play_recorded, record_path, run_arena

SPECS = ["random", "greedy"]
runner = CliRunner()
# The first game's setup is fixed (tests/test_cli_play.py): seat 1 rests, then plans.
REST = "rest cof1/1 exp2/1 ban1/1"
PLAN = "plan one/1 2; plan ban2/1 3; plan exp1/1 4; ready"


def _read(path: Path) -> tuple[engine.GameRecord, list[engine.State]]:
    rec = engine.GameRecord.from_json(json.loads(path.read_text()))
    return rec, rec.replay()


def test_the_arena_writes_one_valid_record_per_game(tmp_path: Path) -> None:
    report = run_arena(SPECS, games=3, seed=4, jobs=2, records=tmp_path / "games")
    files = sorted((tmp_path / "games").iterdir())
    assert [p.name for p in files] == ["game-0000.json", "game-0001.json", "game-0002.json"]
    for game, path in zip(report.games, files, strict=True):
        rec, states = _read(path)
        assert states[-1].is_over()
        assert rec.result == {"totals": game.totals, "winners": [w + 1 for w in game.winners]}
        assert rec.seed == game.seed and rec.viewer is None
        assert [(st.kind, st.bot) for st in rec.seats] == [("bot", b) for b in game.seats]
        sources = {r.source for r in rec.steps}
        assert sources == {"bot", "chance"}
        assert all((r.player < 0) == (r.source == "chance") for r in rec.steps)


def test_a_recorded_game_is_the_game_played() -> None:
    result, data = play_recorded(SPECS, index=1, seed=2)
    plain = engine.GameRecord.from_json(data)
    assert plain.result is not None and plain.result["totals"] == result.totals
    # the record is the same game with or without recording (the bots are seeded)
    from search.arena import play_game

    assert play_game(SPECS, index=1, seed=2).totals == result.totals


def test_a_resumed_series_writes_the_records_of_the_games_it_plays(tmp_path: Path) -> None:
    journal, folder = tmp_path / "series.jsonl", tmp_path / "games"
    run_arena(SPECS, games=2, seed=3, journal=journal)  # no records for these two
    r = runner.invoke(app, ["arena", "--players", ",".join(SPECS), "--games", "4",
                            "--seed", "3", "--journal", str(journal),
                            "--records", str(folder)])
    assert r.exit_code == 0, r.output
    assert "2 game(s) of the journal were played without --records" in " ".join(
        r.output.split())
    assert sorted(p.name for p in folder.iterdir()) == ["game-0002.json", "game-0003.json"]
    games = {json.loads(line)["index"]: json.loads(line)
             for line in journal.read_text().splitlines()[1:]}
    for index in (2, 3):
        rec, _ = _read(record_path(folder, index))
        assert rec.result is not None and rec.result["totals"] == games[index]["totals"]


def test_arena_records_must_be_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "taken"
    file.write_text("x")
    r = runner.invoke(app, ["arena", "--players", "random,random", "--games", "1",
                            "--records", str(file)])
    assert r.exit_code == 2 and "--records" in r.output and "not a folder" in r.output


def _play(lines: list[str], *args: str) -> Any:
    return runner.invoke(app, ["play", "--ai", "random", "--seed", "1", *args],
                         input="\n".join(lines) + "\nq\n")


def test_play_writes_its_record_and_goes_on_from_it(tmp_path: Path) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    r = _play([REST, PLAN], "--record", str(first))
    assert r.exit_code == 0, r.output
    rec, states = _read(first)  # the game stopped: its record so far
    assert rec.result is None and not states[-1].is_over()
    assert [(st.kind, st.bot) for st in rec.seats] == [("human", None), ("bot", "random")]
    mine = [r.step.text(states[0].cat) for r in rec.steps
            if r.source == "human" and r.step is not None]
    assert mine == [REST, *PLAN.split("; ")]
    assert {r.source for r in rec.steps} == {"human", "bot", "chance"}
    r = _play(["1"], "--from", str(first), "--record", str(second))
    assert r.exit_code == 0, r.output
    assert f"{len(rec.steps)} steps replayed" in " ".join(r.output.split())
    again, _ = _read(second)
    assert again.steps[:len(rec.steps)] == rec.steps
    assert len(again.steps) > len(rec.steps) and again.steps[-1].source == "human"


def test_play_refuses_a_bad_record_naming_the_step(tmp_path: Path) -> None:
    good, bad, out = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "out.json"
    assert _play([REST], "--record", str(good)).exit_code == 0
    data = json.loads(good.read_text())
    k = next(i for i, st in enumerate(data["steps"]) if st["source"] == "human")
    data["steps"][k]["step"] = "rest cof1/1 cof1/1 ban1/1"
    bad.write_text(json.dumps(data))
    r = _play(["1"], "--from", str(bad), "--record", str(out))
    assert r.exit_code == 2
    assert f"--from {bad}: steps[{k}]:" in " ".join(r.output.split())
    assert "Your decision" not in r.output and not out.exists()  # nothing played
    r = _play([], "--from", str(good), "--players", "3")
    assert r.exit_code == 2 and "2-player game" in r.output


def test_a_finished_play_record_has_its_result(tmp_path: Path) -> None:
    result, data = play_recorded(["random", "random"], index=0, seed=9)
    path = tmp_path / "done.json"
    path.write_text(json.dumps(data))
    r = _play([], "--from", str(path), "--record", str(tmp_path / "copy.json"))
    assert r.exit_code == 0, r.output
    assert "Winner(s): " + ", ".join(f"P{w + 1}" for w in result.winners) in r.output
    copy, _ = _read(tmp_path / "copy.json")
    assert copy.result == data["result"] and copy.steps == engine.GameRecord.from_json(
        data).steps
