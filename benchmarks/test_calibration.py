"""The calibration workload on its own (for reference in ``make bench`` output)."""

from __future__ import annotations

from benchmarks.conftest import calibration_workload


def test_calibration(benchmark):  # type: ignore[no-untyped-def]
    benchmark.pedantic(calibration_workload, rounds=15, iterations=1, warmup_rounds=2)
