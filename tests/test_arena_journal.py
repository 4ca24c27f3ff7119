"""A long arena series survives a stop: ``run_arena(..., journal=PATH)`` and
``mombasa arena --journal PATH`` keep every finished game and play only the missing ones.

Strength figures need 200-game series (docs/search.md), several hours at a second a
decision on two cores; a stopped machine or session must not throw them away.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import asdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from advisor_api.cli import app
from engine import default_catalogue, load_catalogue
from search.arena import GameResult, Journal, run_arena
from search.value_model import model_fingerprint
from tests.service_process import command

SPECS = ["random", "policy"]
runner = CliRunner()


def _played(records: list[GameResult]) -> list[dict[str, object]]:
    """The records without the thinking times (wall clock, never equal twice)."""
    return [{k: v for k, v in asdict(r).items() if k != "think"} for r in records]


def test_a_resumed_series_equals_the_series_played_at_once(tmp_path: Path) -> None:
    path = tmp_path / "series.jsonl"
    whole = run_arena(SPECS, games=5, seed=7)
    run_arena(SPECS, games=2, seed=7, journal=path)
    seen: list[int] = []
    resumed = run_arena(SPECS, games=5, seed=7, journal=path,
                        on_game=lambda rec: seen.append(rec.index))
    assert _played(resumed.games) == _played(whole.games)
    assert [b.to_json()["wins"] for b in resumed.bots.values()] == \
        [b.to_json()["wins"] for b in whole.bots.values()]
    assert sorted(seen) == [0, 1, 2, 3, 4]  # the kept games are reported too
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["players"] == SPECS and len(lines) == 6


def test_a_journal_of_another_series_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "series.jsonl"
    run_arena(SPECS, games=2, seed=7, journal=path)
    before = path.read_bytes()
    for specs, seed, variable in ((["random", "greedy"], 7, False), (SPECS, 8, False),
                                  (SPECS, 7, True)):
        with pytest.raises(ValueError, match="holds another series"):
            run_arena(specs, games=2, seed=seed, variable=variable, journal=path)
    assert path.read_bytes() == before


def test_a_journal_played_under_another_catalogue_or_model_is_refused(
        tmp_path: Path) -> None:
    """Games played with other catalogue values or another value model are another
    series: resuming must not mix them in (the header names both fingerprints)."""
    path = tmp_path / "series.jsonl"
    run_arena(SPECS, games=2, seed=7, journal=path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["catalogue"] == default_catalogue().fingerprint
    assert header["value_model"] == model_fingerprint()
    for key in ("catalogue", "value_model"):
        changed = dict(header, **{key: "0" * 16})
        path.write_text("\n".join([json.dumps(changed), *lines[1:]]) + "\n")
        before = path.read_bytes()
        with pytest.raises(ValueError, match="holds another series.*0000000000000000"):
            run_arena(SPECS, games=3, seed=7, journal=path)
        assert path.read_bytes() == before


def test_a_line_cut_by_a_stop_is_replayed_but_a_damaged_middle_line_is_an_error(
        tmp_path: Path) -> None:
    path = tmp_path / "series.jsonl"
    run_arena(SPECS, games=3, seed=7, journal=path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40])  # the last game cut
    book = Journal(path, SPECS, 7, False)
    assert sorted(book.load()) == [0, 1]
    report = run_arena(SPECS, games=3, seed=7, journal=path)
    assert len(report.games) == 3 and len(path.read_text().splitlines()) == 4
    damaged = lines[:2] + ['{"index": "x"}'] + lines[2:]
    path.write_text("\n".join(damaged) + "\n")
    with pytest.raises(ValueError, match=r"line 3: not a game record"):
        book.load()


def test_the_cli_resumes_and_refuses_a_foreign_journal(tmp_path: Path) -> None:
    path = tmp_path / "series.jsonl"
    base = ["arena", "--players", "random,policy", "--seed", "3", "--journal", str(path)]
    first = runner.invoke(app, [*base, "--games", "2"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, [*base, "--games", "4", "--json", str(tmp_path / "r.json")])
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "r.json").read_text())["games"] == 4
    before = path.read_bytes()
    other = runner.invoke(app, ["arena", "--players", "random,greedy", "--seed", "3",
                                "--games", "2", "--journal", str(path)])
    assert other.exit_code == 2 and "holds another series" in other.output
    ray = runner.invoke(app, [*base, "--games", "2", "--ray", "local"])
    assert ray.exit_code == 2 and "local runs only" in ray.output
    assert path.read_bytes() == before


def test_the_json_report_names_the_catalogue_and_the_model_it_measured(
        tmp_path: Path) -> None:
    """A report saved with ``--json`` carries the fingerprints of the catalogue and the
    value model in play, so a report of a catalogue variant (``MOMBASA_CATALOGUE``) can
    not be mistaken for one of the shipped game."""
    shipped = tmp_path / "shipped.json"
    done = runner.invoke(app, ["arena", "--players", "random,policy", "--games", "1",
                               "--json", str(shipped)])
    assert done.exit_code == 0, done.output
    report = json.loads(shipped.read_text())
    assert report["catalogue"] == default_catalogue().fingerprint
    assert report["value_model"] == model_fingerprint()

    raw = json.loads(Path(default_catalogue().path).read_text())
    raw["player"]["start_pounds"] += 1
    variant = tmp_path / "variant-catalogue.json"
    variant.write_text(json.dumps(raw))
    out = tmp_path / "variant.json"
    env = dict(os.environ, MOMBASA_CATALOGUE=str(variant))
    run = subprocess.run([*command(), "arena", "--players", "random,policy", "--games",
                          "1", "--json", str(out)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    other = json.loads(out.read_text())
    assert other["catalogue"] == load_catalogue(variant).fingerprint
    assert other["catalogue"] != report["catalogue"]
    assert other["value_model"] == report["value_model"]
