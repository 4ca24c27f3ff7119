"""Search speed: MCTS iterations per second, and root parallelism on 2 processes.

Run with ``make bench``. Target (issue "Search"): ``jobs=2`` does at least 1.7x the
iterations per second of one process (on a machine with 2 free cores).
"""

from __future__ import annotations

import os

from benchmarks.conftest import enforce_targets, run_bench
from search.bench import speed
from search.mcts import MCTS, SearchConfig
from search.parallel import ParallelMCTS

PARALLEL_SPEEDUP_TARGET = 1.7


def test_mcts_fixed_iterations(benchmark):  # type: ignore[no-untyped-def]
    """Time of a 300-iteration search (the regression gate tracks this)."""
    result = run_bench(benchmark, speed.mcts_iterations())
    assert result.iterations == speed.MCTS_ITERATIONS  # type: ignore[attr-defined]


def test_root_parallel_speedup(benchmark):  # type: ignore[no-untyped-def]
    """Iterations per second with jobs=2 over jobs=1, both for 1.5 s on the same position."""
    obs = speed.mcts_observation()
    single = MCTS(SearchConfig(time=1.5, seed=1)).search(obs)
    with ParallelMCTS(SearchConfig(time=1.5, seed=1), jobs=2) as pool:
        pool.search(obs)  # start the workers
        double = benchmark.pedantic(lambda: pool.search(obs), rounds=1, iterations=1)
    ratio = (double.iterations / double.elapsed) / single.iterations_per_second
    benchmark.extra_info.update({
        "single_it_per_s": single.iterations_per_second,
        "parallel_it_per_s": double.iterations / double.elapsed,
        "speedup": ratio,
        "cpus": os.cpu_count(),
    })
    assert not enforce_targets() or ratio >= PARALLEL_SPEEDUP_TARGET, f"speed-up {ratio:.2f}x"
