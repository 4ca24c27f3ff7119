"""``mombasa solve expansion|books`` on saved states."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

import engine
from advisor_api.cli_solve import solve_app


def _dump(tmp_path: Path, kind: str, seed: int = 0) -> tuple[Path, engine.State]:
    """The first decision of this kind in a random 3-player game, saved as JSON (what
    ``mombasa random-game --stop-at K --dump-state FILE`` writes)."""
    s = engine.new_game(players=3, seed=seed)
    rng = random.Random(seed)
    while s.decision.kind != kind:
        s = s.apply_unchecked(s.random_step(rng))
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(engine.state_to_json(s)))
    return path, s


def test_expansion_table_and_json(tmp_path: Path) -> None:
    path, s = _dump(tmp_path, "expansion")
    company = s.cat.companies[s.todo[0][2]].id
    runner = CliRunner()
    table = runner.invoke(solve_app, ["expansion", str(path), "--company", company,
                                      "--top", "2"])
    assert table.exit_code == 0, table.output
    assert f"Expansion of {company}" in table.output and "enter" in table.output
    out = runner.invoke(solve_app, ["expansion", str(path), "--company", company, "--json",
                                    "--top", "2", "--method", "cpsat"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["decision"]["kind"] == "expansion"
    assert 1 <= len(data["plans"]) <= 2
    plan = data["plans"][0]
    t = s
    for text in plan["steps"]:
        t = t.apply(engine.Step.parse(text, s.cat))
    assert plan["company"] == company


def test_books_table_and_json(tmp_path: Path) -> None:
    path, s = _dump(tmp_path, "bookkeeping-points")
    runner = CliRunner()
    table = runner.invoke(solve_app, ["books", str(path), "--top", "3"])
    assert table.exit_code == 0, table.output
    assert "Bookkeeping points" in table.output
    out = runner.invoke(solve_app, ["books", str(path), "--json"])
    data = json.loads(out.output)
    assert data["plans"][0]["points"] == s.pool and data["plans"][0]["exact"]
    hypothetical = runner.invoke(solve_app, ["books", str(path), "--points", "3", "--json"])
    assert json.loads(hypothetical.output)["plans"][0]["exact"] is False


def test_errors_exit_with_status_2(tmp_path: Path) -> None:
    path, _ = _dump(tmp_path, "bookkeeping-points")
    runner = CliRunner()
    wrong = runner.invoke(solve_app, ["expansion", str(path), "--company", "MOM"])
    assert wrong.exit_code == 2 and "expansion" in wrong.output
    unknown = runner.invoke(solve_app, ["books", str(path), "--points", "2", "--top", "1",
                                        "--method", "nope"])
    assert unknown.exit_code == 2 and "unknown method" in unknown.output
    missing = runner.invoke(solve_app, ["books", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "no such file" in missing.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert runner.invoke(solve_app, ["books", str(bad)]).exit_code == 2


def test_registered_in_the_main_cli() -> None:
    from advisor_api.cli import app

    result = CliRunner().invoke(app, ["solve", "--help"])
    assert result.exit_code == 0
    assert "expansion" in result.output and "books" in result.output
