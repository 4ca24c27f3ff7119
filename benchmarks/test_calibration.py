"""A fixed pure-Python workload timed in every benchmark run.

``make bench-check`` divides every tracked benchmark by this one, so a slower or busier
machine does not look like a regression of our code.
"""

from __future__ import annotations


def _workload() -> int:
    total = 0
    table: dict[int, int] = {}
    for i in range(20_000):
        t = (i, i * 3, i & 7)
        table[i & 1023] = t[1] ^ t[2]
        total += table.get((i * 7) & 1023, 0) + len(t)
    return total


def test_calibration(benchmark):  # type: ignore[no-untyped-def]
    benchmark.pedantic(_workload, rounds=15, iterations=1, warmup_rounds=2)
