"""Shared settings of the benchmark suites.

The benchmarks assert the issues' absolute targets (``make bench``). The regression gate
(``make bench-check``) compares costs relative to a calibration workload instead, so it
sets ``MOMBASA_BENCH_GATE=1`` and the absolute targets are not asserted there: a
momentarily slow machine must not fail the gate, only a real slowdown of our code.

This machine's speed drifts by tens of percent within a minute, so the calibration is
interleaved with each tracked workload, round by round (:func:`relative_cost`).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable


def enforce_targets() -> bool:
    """False inside the regression gate, True otherwise."""
    return os.environ.get("MOMBASA_BENCH_GATE") != "1"


def calibration_workload() -> int:
    """A fixed pure-Python workload (dicts, tuples, ints: what our engine does)."""
    total = 0
    table: dict[int, int] = {}
    for i in range(20_000):
        t = (i, i * 3, i & 7)
        table[i & 1023] = t[1] ^ t[2]
        total += table.get((i * 7) & 1023, 0) + len(t)
    return total


def relative_cost(work: Callable[[], object], rounds: int = 9) -> float:
    """Median over interleaved rounds of time(work) / time(calibration workload)."""
    ratios = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        calibration_workload()
        t1 = time.perf_counter()
        work()
        t2 = time.perf_counter()
        ratios.append((t2 - t1) / (t1 - t0))
    return statistics.median(ratios)
