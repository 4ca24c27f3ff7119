"""Shared settings of the benchmark suites.

The benchmarks assert the issues' absolute targets (``make bench``). The regression gate
(``make bench-check``) compares costs relative to a calibration workload instead, so it
sets ``MOMBASA_BENCH_GATE=1`` and the absolute targets are not asserted there: a
momentarily slow machine must not fail the gate, only a real slowdown of our code.

This machine's speed drifts by tens of percent within a minute, so the calibration is
interleaved with each tracked workload, round by round (:func:`relative_cost`). The
workloads themselves are :mod:`search.bench.speed`'s, shared with ``mombasa bench``.
"""

from __future__ import annotations

import os
from typing import Any

# The workloads and the calibration loop ship with the package (``mombasa bench`` runs
# them too); the suites import them from here as they always have.
from search.bench.speed import Bench, calibration_workload, relative_cost

__all__ = ["calibration_workload", "enforce_targets", "relative_cost", "run_bench"]


def enforce_targets() -> bool:
    """False inside the regression gate, True otherwise."""
    return os.environ.get("MOMBASA_BENCH_GATE") != "1"


def run_bench(benchmark: Any, b: Bench, relative: bool = True) -> object:
    """Time ``b`` through pytest-benchmark and record its figures, those measured beside
    it and (``relative``) its relative cost in ``extra_info``; returns the timed call's
    last result."""
    result = benchmark.pedantic(b.timed, setup=b.setup, rounds=b.rounds,
                                iterations=b.iterations, warmup_rounds=b.warmup_rounds)
    benchmark.extra_info.update(b.figures(list(benchmark.stats.stats.data)))
    if b.reference is not None:
        benchmark.extra_info.update(b.reference())
    if relative and b.gate is not None:
        benchmark.extra_info["relative_cost"] = relative_cost(b.gate, b.gate_rounds)
    return result
