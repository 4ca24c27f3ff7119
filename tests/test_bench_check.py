"""The performance gate's judgement (``benchmarks/check.py``) on planted runs: no
benchmark is timed here. A benchmark over the tolerance is measured once more and fails
only if it fails twice; the verdict carries the machine's load."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks import check

BASE = {"test_clone": 1.0, "test_mcts_fixed_iterations": 10.0}


def planted(path: Path, costs: dict[str, float]) -> Path:
    """A pytest-benchmark JSON file with these relative costs (and node ids)."""
    path.write_text(json.dumps({"benchmarks": [
        {"name": name, "fullname": f"benchmarks/test_speed.py::{name}",
         "extra_info": {"relative_cost": cost}} for name, cost in costs.items()]}))
    return path


def never(names: list[str]) -> dict[str, float]:
    raise AssertionError(f"re-measured {names} although nothing failed")


def test_within_tolerance_passes_without_a_second_measurement() -> None:
    lines = check.judge({"test_clone": 1.2, "test_mcts_fixed_iterations": 9.0}, BASE, 0.25,
                        never)
    assert [line[:4] for line in lines] == ["ok  ", "ok  "]
    assert "+20.0% vs baseline" in lines[0] and "better of" not in lines[0]


def test_fail_then_pass_on_the_second_measurement() -> None:
    asked = []

    def again(names: list[str]) -> dict[str, float]:
        asked.append(names)
        return {"test_clone": 1.1}

    lines = check.judge({"test_clone": 1.5, "test_mcts_fixed_iterations": 10.0}, BASE, 0.25,
                        again)
    assert asked == [["test_clone"]]  # only the failing one
    assert lines[0].startswith("ok    test_clone: +10.0% vs baseline")
    assert "better of 2 runs: +50.0%, +10.0%" in lines[0]


def test_fail_twice_fails() -> None:
    lines = check.judge({"test_clone": 1.5, "test_mcts_fixed_iterations": 10.0}, BASE, 0.25,
                        lambda names: {"test_clone": 1.4})
    assert lines[0].startswith("FAIL  test_clone: +40.0% vs baseline")
    assert "better of 2 runs: +50.0%, +40.0%" in lines[0]


def test_a_failed_second_measurement_keeps_the_first_verdict() -> None:
    lines = check.judge({"test_clone": 1.5}, {"test_clone": 1.0}, 0.25, lambda names: {})
    assert lines == ["FAIL  test_clone: +50.0% vs baseline (1.5 vs 1 x the calibration "
                     "workload)"]


def test_verdict_names_the_load_and_warns_when_it_exceeds_the_cpus() -> None:
    ok = check.verdict(["ok    test_clone: ..."], 0.25, (0.5, 0.4, 0.3), 2)
    assert ok == ["gate: ok, 1 benchmarks within +25% of the baseline; "
                  "load average 0.50 0.40 0.30 on 2 CPUs"]
    loaded = check.verdict(["FAIL  test_clone: ...", "ok    x"], 0.25, (5.0, 4.0, 2.0), 2)
    assert loaded[0].startswith("gate: FAIL, 1 of 2 benchmarks over +25%; load average 5.00")
    assert loaded[1].startswith("warning: the machine is loaded (5.00 > 2 CPUs)")


FAKE_PYTEST = """
import json, sys
out = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--benchmark-json="))
ids = [a for a in sys.argv[1:] if "::" in a]
with open(sys.argv[1]) as fh:
    costs = json.load(fh)
json.dump({"benchmarks": [{"name": i.split("::")[1], "fullname": i,
                           "extra_info": {"relative_cost": costs[i.split("::")[1]]}}
                          for i in ids]}, open(out, "w"))
"""


@pytest.mark.parametrize(("second", "status", "verdict"), [
    (1.1, 0, "ok    test_clone: +10.0%"),
    (1.4, 1, "FAIL  test_clone: +40.0%"),
])
def test_main_runs_the_remeasure_command_on_the_failing_node(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        second: float, status: int, verdict: str) -> None:
    """``--remeasure`` runs the command with the failing benchmark's node id and a second
    JSON file (a stand-in for pytest-benchmark writes the planted second cost)."""
    script = tmp_path / "fake_pytest.py"
    script.write_text(FAKE_PYTEST)
    costs = tmp_path / "second.json"
    costs.write_text(json.dumps({"test_clone": second}))
    run = planted(tmp_path / "gate.json", {"test_clone": 1.5, "test_mcts_fixed_iterations": 9})
    base = planted(tmp_path / "baseline.json", BASE)
    monkeypatch.setattr(check, "machine_load", lambda: ((3.5, 3.0, 2.0), 2))
    code = check.main([str(run), str(base), "--remeasure",
                       f"'{sys.executable}' '{script}' '{costs}'"])
    out = capsys.readouterr().out.splitlines()
    assert code == status
    assert out[0] == "measuring once more: test_clone"
    assert out[1].startswith(verdict)
    assert json.loads((tmp_path / "gate-remeasured.json").read_text())["benchmarks"][0][
        "fullname"] == "benchmarks/test_speed.py::test_clone"
    assert out[-2].endswith("load average 3.50 3.00 2.00 on 2 CPUs")
    assert out[-1].startswith("warning: the machine is loaded")


def test_main_without_remeasure_fails_at_once(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = planted(tmp_path / "gate.json", {"test_clone": 1.5, "test_mcts_fixed_iterations": 9})
    base = planted(tmp_path / "baseline.json", BASE)
    assert check.main([str(run), str(base)]) == 1
    out = capsys.readouterr().out
    assert "measuring once more" not in out and "gate: FAIL, 1 of 2" in out
