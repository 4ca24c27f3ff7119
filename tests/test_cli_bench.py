"""``mombasa bench``: the gate's workloads at a small size, its table and JSON, the
missing ``peers`` extra, bad options."""

from __future__ import annotations

import doctest
import enum
import json
import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from advisor_api import cli_bench
from advisor_api.cli import app
from benchmarks import check
from search.bench import peers as peer_bench
from search.bench import speed

runner = CliRunner()


def test_quick_prints_every_benchmark_and_writes_json_the_gate_reads(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    r = runner.invoke(app, ["bench", "--quick", "--json", str(out)])
    assert r.exit_code == 0, r.output
    for key in speed.SUITE:
        assert f"│ {key}" in r.stdout
    assert "0 x 2000" not in r.stdout and "│ clone       │ 3 x 2000 │" in r.stdout
    assert "us/clone" in r.stdout and "steps/s" in r.stdout and "it/s" in r.stdout
    assert "load average" in r.stdout
    report = json.loads(out.read_text())
    assert report["quick"] is True and report["rounds"] == 3
    assert report["machine"]["cpus"] >= 1 and len(report["machine"]["load_average"]) == 3
    by_name = {b["name"]: b for b in report["benchmarks"]}
    assert list(by_name) == ["test_calibration", *check.TRACKED]
    assert by_name["test_clone"]["stats"]["rounds"] == 3
    assert by_name["test_clone"]["stats"]["iterations"] == 2000
    assert "cpsat_median_ms" not in by_name["test_expansion_8_points"]["extra_info"]  # quick
    assert by_name["test_random_game_throughput"]["extra_info"]["steps_per_second"] > 0
    # the figures the gate compares, under the names it tracks
    costs = check.normalised(out)
    assert set(costs) == set(check.TRACKED) and all(c > 0 for c in costs.values())
    assert "relative_cost" not in by_name["test_calibration"]["extra_info"]


def test_only_and_rounds(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    r = runner.invoke(app, ["bench", "--rounds", "1", "--only", "clone", "--only",
                            "bookkeeping", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "2 benchmarks, 1 round each" in r.stdout
    assert "│ clone       │ 1 x 2000 │" in r.stdout and "mcts" not in r.stdout
    report = json.loads(out.read_text())
    assert [b["key"] for b in report["benchmarks"]] == ["clone", "bookkeeping"]
    books = report["benchmarks"][1]
    assert books["stats"]["rounds"] == 1
    assert books["extra_info"]["cpsat_n"] == speed.CPSAT_SAMPLE  # not quick: CP-SAT beside


def test_peers_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "catanatron", None)  # as if not installed
    out = tmp_path / "bench.json"
    r = runner.invoke(app, ["bench", "--quick", "--peers", "--json", str(out)])
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines() == [
        "error: the peer comparison needs catanatron, which is not installed: "
        "pip install 'mombasa-advisor[peers]'"]
    assert r.stdout == "" and not out.exists()  # nothing timed before saying so


def fake_catanatron() -> types.ModuleType:
    """A stand-in for catanatron (the 'peers' extra, not in the dev set) with the names
    the comparison uses: it checks the wiring, not catanatron's speed."""
    mod = types.ModuleType("catanatron")

    class Game:
        def __init__(self, players: list[object], seed: int = 0) -> None:
            self.state = types.SimpleNamespace(actions=[])

        def copy(self) -> Game:
            return Game([])

        def play_tick(self) -> None:
            self.state.actions.append(0)

        def play(self) -> None:
            self.state.actions.extend(range(300))

    mod.Color = enum.Enum("Color", "RED BLUE WHITE ORANGE")  # type: ignore[attr-defined]
    mod.RandomPlayer = lambda color: color  # type: ignore[attr-defined]
    mod.Game = Game  # type: ignore[attr-defined]
    return mod


def test_peers_table_and_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "catanatron", fake_catanatron())
    out = tmp_path / "bench.json"
    r = runner.invoke(app, ["bench", "--quick", "--only", "clone", "--peers", "--json",
                            str(out)])
    assert r.exit_code == 0, r.output
    assert "peers: 1 interleaved repeat, 0.1 s per measurement" in r.stdout
    assert "our MCTS it/s / OpenSpiel MCTSBot sims/s" in r.stdout
    peers = json.loads(out.read_text())["peers"]
    assert peers["repeats"] == 1 and peers["seconds"] == 0.1
    assert peers["medians"]["openspiel_mcts_sims_per_s"] > 0
    assert peers["medians"]["our_mcts_it_per_s"] > 0 and peers["medians"]["expansion_8_ms"] > 0
    assert set(peers["ratios"]) == {name for name, _, _ in peer_bench.RATIOS}


@pytest.mark.parametrize(("args", "message"), [
    (["--only", "nope"], "no benchmark 'nope'; choose from calibration, clone"),
    (["--rounds", "0"], "'--rounds': Input should be greater than or equal to 1"),
    (["--json", "no/such/folder/bench.json"], "the folder no/such/folder does not exist"),
])
def test_bad_options(args: list[str], message: str) -> None:
    r = runner.invoke(app, ["bench", "--quick", *args])
    assert r.exit_code == 2
    assert message in " ".join(r.stderr.replace("│", " ").split())
    assert r.stdout == ""


def test_docstring_examples() -> None:
    """The units of the table (``duration``, ``number``)."""
    result = doctest.testmod(cli_bench)
    assert result.attempted > 0 and result.failed == 0
