"""The calibration workload on its own (for reference in ``make bench`` output)."""

from __future__ import annotations

from benchmarks.conftest import run_bench
from search.bench import speed


def test_calibration(benchmark):  # type: ignore[no-untyped-def]
    run_bench(benchmark, speed.calibration())
