"""Solver speed (issue "Solvers"): run with

    .venv/bin/pytest benchmarks/test_solver_speed.py --benchmark-enable -o addopts=''

Targets, asserted on the method the search uses (``dp``, the hand-written exact
method; the CP-SAT reference is measured on the same inputs and reported in
``extra_info``, see docs/solvers.md):

* expansion with 8 points on a mid-game map: median <= 20 ms, p95 <= 100 ms;
* expansion with 4 points: median <= 5 ms;
* bookkeeping with up to 4 points: median <= 10 ms;
* a cache hit: <= 50 us.

Every timed solve is a cache miss (the cache is cleared in the untimed setup). The
workloads and their inputs are :mod:`search.bench.speed`'s (``mombasa bench`` runs them).
"""

from __future__ import annotations

import statistics
import timeit

from benchmarks.conftest import enforce_targets, run_bench
from search.bench import speed
from search.bench.speed import bookkeeping_inputs, expansion_inputs
from search.solvers import best_bookkeeping, best_expansions

EXP8_MEDIAN_S, EXP8_P95_S = 20e-3, 100e-3
EXP4_MEDIAN_S = 5e-3
BOOK_MEDIAN_S = 10e-3
HIT_S = 50e-6


def test_expansion_8_points(benchmark):  # type: ignore[no-untyped-def]
    run_bench(benchmark, speed.expansion(8))
    data = list(benchmark.stats.stats.data)
    median, p95 = statistics.median(data), speed.p95(data)
    assert not enforce_targets() or median <= EXP8_MEDIAN_S, f"median {median * 1e3:.1f} ms"
    assert not enforce_targets() or p95 <= EXP8_P95_S, f"p95 {p95 * 1e3:.1f} ms"


def test_expansion_4_points(benchmark):  # type: ignore[no-untyped-def]
    run_bench(benchmark, speed.expansion(4), relative=False)
    median = benchmark.stats.stats.median
    assert not enforce_targets() or median <= EXP4_MEDIAN_S, f"median {median * 1e3:.2f} ms"


def test_bookkeeping_up_to_4_points(benchmark):  # type: ignore[no-untyped-def]
    run_bench(benchmark, speed.bookkeeping())
    median = benchmark.stats.stats.median
    assert not enforce_targets() or median <= BOOK_MEDIAN_S, f"median {median * 1e3:.2f} ms"


def test_cache_hit(benchmark):  # type: ignore[no-untyped-def]
    s, company = expansion_inputs()[0]
    book_state = bookkeeping_inputs()[3]
    best_expansions(s, company, points=8, k=3)
    best_bookkeeping(book_state, k=3)
    benchmark.pedantic(lambda: best_expansions(s, company, points=8, k=3), rounds=200,
                       iterations=200, warmup_rounds=5)
    median = benchmark.stats.stats.median
    book = min(timeit.repeat(lambda: best_bookkeeping(book_state, k=3), number=2000,
                             repeat=5)) / 2000
    benchmark.extra_info["expansion_hit_us"] = round(median * 1e6, 2)
    benchmark.extra_info["bookkeeping_hit_us"] = round(book * 1e6, 2)
    assert not enforce_targets() or median <= HIT_S, f"expansion cache hit {median * 1e6:.1f} us"
    assert not enforce_targets() or book <= HIT_S, f"bookkeeping cache hit {book * 1e6:.1f} us"
