"""The load test of ``docs/api.md`` ("Fair share") runs: ``python -m
benchmarks.load.fair_share`` starts its own ``mombasa serve``, attacks it and reports the
victim's figures. Shrunk here to a 2 s window of the ``long`` scenario (the figures in
the docs come from 60 s runs of every scenario, by hand: it is a benchmark)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.load import fair_share


def test_the_long_scenario_reports_the_victims_figures(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    fair_share.main(["--scenario", "long", "--duration", "2", "--warmup", "1",
                     "--json", str(out)])
    report = json.loads(out.read_text())
    [long] = report["scenarios"]
    assert long["scenario"] == "long" and long["workers"] == 2
    victim = long["groups"]["victim 127.0.0.2"]
    assert victim["answers"] >= 1 and not victim["refused"] and not victim["failed"]
    assert victim["p95"] is not None and victim["p95"] < 2.5  # the time-sliced pool
    assert long["goal"]["met"] is True
