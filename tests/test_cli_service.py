"""The ``mombasa analyse``, ``play`` and ``serve`` commands (typer's CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import engine
from advisor_api.cli import app, parse_seconds
from tests.test_api_helpers import chance_pending, mid_game, position

runner = CliRunner()


def _dump(tmp_path: Path, obj: object, name: str = "pos.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return path


def test_analyse_table(tmp_path: Path) -> None:
    s = mid_game()
    path = _dump(tmp_path, engine.state_to_json(s))
    r = runner.invoke(app, ["analyse", str(path), "--iterations", "200", "--multipv", "2"])
    assert r.exit_code == 0, r.output
    pov = f"P{s.decision.player + 1}"
    assert f"{pov} to decide" in r.output and "200 iterations" in r.output
    assert f"win {pov}" in r.output and "visits" in r.output


def test_analyse_json_matches_the_api_shape(tmp_path: Path) -> None:
    s = position("expansion")
    path = _dump(tmp_path, engine.state_to_json(s))
    r = runner.invoke(app, ["analyse", str(path), "--time", "300ms", "--json",
                            "--multipv", "3", "--seed", "4"])
    assert r.exit_code == 0, r.output
    body = json.loads(r.stdout)
    assert body["decision"]["kind"] == "expansion" and body["seed"] == 4
    assert 1 <= len(body["lines"]) <= 3
    assert body["lines"][0]["eval"]["pov"] == body["pov"]
    assert body["limit"] == {"iterations": None, "time": 0.3}


def test_analyse_an_observation_file(tmp_path: Path) -> None:
    s = mid_game()
    obs = engine.observe(s, s.decision.player)
    path = _dump(tmp_path, engine.observation_to_json(obs))
    r = runner.invoke(app, ["analyse", str(path), "--iterations", "50", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["iterations"] == 50


def test_analyse_errors(tmp_path: Path) -> None:
    r = runner.invoke(app, ["analyse", str(_dump(tmp_path, engine.state_to_json(
        chance_pending())))])
    assert r.exit_code == 2 and "chance event pending" in r.output
    bad = engine.state_to_json(mid_game())
    bad["round"] = -1
    r = runner.invoke(app, ["analyse", str(_dump(tmp_path, bad, "bad.json"))])
    assert r.exit_code == 2 and "state.round" in r.output
    (tmp_path / "junk.json").write_text("{not json")
    r = runner.invoke(app, ["analyse", str(tmp_path / "junk.json")])
    assert r.exit_code == 2 and "STATE_FILE" in r.output and "not JSON" in r.output
    r = runner.invoke(app, ["analyse", str(tmp_path / "junk.json"), "--time", "soon"])
    assert r.exit_code == 2


def test_parse_seconds() -> None:
    assert parse_seconds("2s") == 2.0 and parse_seconds("250ms") == 0.25
    assert parse_seconds("1.5") == 1.5


def test_play_a_whole_game_by_piping_input() -> None:
    r = runner.invoke(app, ["play", "--players", "2", "--ai", "random", "--seed", "3"],
                      input="1\n" * 1500)
    assert r.exit_code == 0, r.output[-2000:]
    assert "You are P1" in r.output and "Round 1 (planning)" in r.output
    assert "Your decision (plan):" in r.output
    assert "Score (final)" in r.output and "Winner(s):" in r.output


def test_play_suggestions_errors_and_quit() -> None:
    r = runner.invoke(app, ["play", "--ai", "mcts:iterations=5", "--seed", "2",
                            "--hint-time", "0.2"],
                      input="?\nfly away\n99\nb\nh\n1\nq\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "Suggestions: P1 to decide (resting-cards)" in out
    assert "not accepted: unknown step kind 'fly'" in out
    assert "choose 1-" in out
    assert "Game abandoned." in out and "provisional" in out


def test_play_hides_the_ai_plan() -> None:
    r = runner.invoke(app, ["play", "--ai", "policy", "--seed", "5", "--seat", "2"],
                      input="1\n" * 30 + "q\n")
    assert r.exit_code == 0, r.output
    assert "P1: planned" in r.output and "hidden until the reveal" in r.output


@pytest.mark.parametrize("args", [["--ai", "alphazero"], ["--ai", "random,random"],
                                  ["--seat", "3"]])
def test_play_bad_options(args: list[str]) -> None:
    r = runner.invoke(app, ["play", *args], input="q\n")
    assert r.exit_code == 2


def test_serve_help() -> None:
    r = runner.invoke(app, ["serve", "--help"])
    assert r.exit_code == 0 and "--db" in r.output and "--port" in r.output


def test_analyse_names_a_bad_installation_setting(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = _dump(tmp_path, engine.state_to_json(mid_game()))
    monkeypatch.setenv("MOMBASA_SEARCH", "c=99")
    r = runner.invoke(app, ["analyse", str(path), "--iterations", "20"])
    assert r.exit_code == 2
    assert "error: MOMBASA_SEARCH: c: expected a finite number in [0, 10], got 99" in r.output
    monkeypatch.setenv("MOMBASA_SEARCH", "drive=0")
    r = runner.invoke(app, ["analyse", str(path), "--iterations", "20", "--json"])
    assert r.exit_code == 0, r.output
