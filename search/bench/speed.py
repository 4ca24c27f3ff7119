"""The regression gate's workloads, the calibration loop it normalises by, and a runner
that times them as pytest-benchmark's ``benchmark.pedantic`` does.

A :class:`Bench` says what is timed (``timed``: ``warmup_rounds`` untimed rounds, then
``rounds`` rounds of ``iterations`` calls, ``setup`` before each round outside the
timing), which figures those timings give (``figures``, from the seconds per call of
each round) and which workload the gate sets against the calibration loop (``gate``,
see :func:`relative_cost`). The suites of ``benchmarks/`` hand a Bench to
``benchmark.pedantic``; ``mombasa bench`` hands it to :func:`measure`: one workload on
the same positions, whichever runs it.

Why relative costs: this machine's speed drifts by tens of percent within a minute, so
a baseline of absolute times would fail a slow minute, not slow code. A fixed
pure-Python loop interleaved with the workload, round by round, drifts with it.

>>> b = clone()
>>> m = measure(b, rounds=2)
>>> m.name, len(m.times), m.figure > 0, m.relative_cost is not None
('test_clone', 2, True, True)
>>> steps(b, rounds=2)  # the ticks of a progress bar: 2 timed, 2 calibrated rounds
4
"""

from __future__ import annotations

import itertools
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import engine
from engine import tables
from search.bench.positions import mid_game, random_game
from search.mcts import MCTS, SearchConfig
from search.solvers import best_bookkeeping, best_expansions
from search.solvers import bookkeeping as bk_mod
from search.solvers import expansion as exp_mod

Args = tuple[tuple[Any, ...], dict[str, Any]]
MCTS_ITERATIONS = 300
CPSAT_SAMPLE = 12  # CP-SAT solves timed per solver benchmark (it is slow; reported only)


def calibration_workload() -> int:
    """A fixed pure-Python workload (dicts, tuples, ints: what our engine does)."""
    total = 0
    table: dict[int, int] = {}
    for i in range(20_000):
        t = (i, i * 3, i & 7)
        table[i & 1023] = t[1] ^ t[2]
        total += table.get((i * 7) & 1023, 0) + len(t)
    return total


def relative_cost(work: Callable[[], object], rounds: int = 9,
                  tick: Callable[[], None] | None = None) -> float:
    """Median over interleaved rounds of time(work) / time(calibration workload);
    ``tick`` is called after each round (a progress bar)."""
    ratios = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        calibration_workload()
        t1 = time.perf_counter()
        work()
        t2 = time.perf_counter()
        ratios.append((t2 - t1) / (t1 - t0))
        if tick is not None:
            tick()
    return statistics.median(ratios)


@dataclass
class Bench:
    """One benchmark: what is timed, how, and what it reports."""

    name: str  # the suite's test name, which the gate tracks
    key: str  # the short name of ``mombasa bench --only``
    title: str
    timed: Callable[..., object]
    rounds: int
    figures: Callable[[list[float]], dict[str, float]]  # from seconds per call, per round
    headline: str  # the figure a table shows, a key of ``figures``
    unit: str
    gate: Callable[[], object] | None = None  # set against the calibration loop
    gate_rounds: int = 0
    iterations: int = 1
    warmup_rounds: int = 0
    setup: Callable[[], Args] | None = None  # before each round, untimed
    reference: Callable[[], dict[str, float]] | None = None  # figures measured beside


def _median_figure(key: str, scale: float) -> Callable[[list[float]], dict[str, float]]:
    return lambda data: {key: statistics.median(data) * scale}


def calibration() -> Bench:
    """The calibration loop on its own: the unit of every relative cost."""
    return Bench("test_calibration", "calibration", "calibration loop (the unit of relative costs)",
                 calibration_workload, rounds=15, warmup_rounds=2,
                 figures=_median_figure("calibration_ms", 1e3), headline="calibration_ms",
                 unit="ms")


def clone() -> Bench:
    """``State.clone()`` of a 4-player mid-game state."""
    s = mid_game()

    def ten_thousand_clones() -> None:
        for _ in range(10_000):
            s.clone()

    return Bench("test_clone", "clone", "State.clone(), 4-player mid-game", s.clone,
                 rounds=200, iterations=2000, figures=_median_figure("clone_us", 1e6),
                 headline="clone_us", unit="us/clone",
                 gate=ten_thousand_clones, gate_rounds=9)


def random_games() -> Bench:
    """Uniformly random legal 4-player games, chance from the state's RNG, 10 a round;
    steps/s counts every game played (warm-up included), as the suite always has."""
    seeds = itertools.count()
    totals = {"steps": 0, "games": 0, "seconds": 0.0}

    def ten_games() -> None:
        t0 = time.perf_counter()
        for _ in range(10):
            totals["steps"] += random_game(4, next(seeds))
            totals["games"] += 1
        totals["seconds"] += time.perf_counter() - t0

    def figures(data: list[float]) -> dict[str, float]:
        return {"steps_per_second": totals["steps"] / totals["seconds"],
                "games_per_second": totals["games"] / totals["seconds"],
                "steps_per_game": totals["steps"] / totals["games"]}

    return Bench("test_random_game_throughput", "playouts",
                 "random 4-player games, 10 a round", ten_games, rounds=5, warmup_rounds=1,
                 figures=figures, headline="steps_per_second", unit="steps/s",
                 gate=lambda: random_game(4, 7), gate_rounds=15)


def mcts_observation(players: int = 2, seed: int = 5) -> engine.Observation:
    """The searcher's view of the mid-game position the search benchmarks use."""
    s = mid_game(players, seed, 3)
    return engine.observe(s, s.decision.player)


def mcts_iterations() -> Bench:
    """A 300-iteration search (the search's defaults) of a 2-player mid-game position."""
    obs = mcts_observation()
    search = MCTS(SearchConfig(iterations=MCTS_ITERATIONS, seed=1))
    return Bench("test_mcts_fixed_iterations", "mcts",
                 f"MCTS, {MCTS_ITERATIONS} iterations, 2-player mid-game",
                 lambda: search.search(obs), rounds=5,
                 figures=lambda data: {
                     "iterations_per_second": MCTS_ITERATIONS / statistics.median(data)},
                 headline="iterations_per_second", unit="it/s",
                 gate=lambda: search.search(obs), gate_rounds=7)


@cache
def expansion_inputs() -> tuple[tuple[engine.State, int], ...]:
    """(mid-game action decision in rounds 3-5, company) where the player has face-up
    expansion cards and the company has posts in its base: 40 pairs, 2-4 players."""
    out: list[tuple[engine.State, int]] = []
    seed = 1
    while len(out) < 40:
        s = mid_game(players=2 + seed % 3, seed=seed, round_=3 + seed % 3)
        seed += 1
        p = s.players[s.decision.player]
        if not p.face_up() & tables(s.cat).expansion_mask:
            continue
        out.extend((s, c) for c in range(4) if any(s.posts(c)))
    return tuple(out[:40])


@cache
def bookkeeping_inputs() -> tuple[engine.State, ...]:
    """Bookkeeping-points decisions from random games, with 1, 2, 3 and 4 points."""
    out: list[engine.State] = []
    seed = 0
    while len(out) < 40:
        s = engine.new_game(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        seed += 1
        while not s.is_over():
            if s.decision.kind == "bookkeeping-points" and s.round >= 2:
                s2 = s.clone()
                s2.pool = 1 + len(out) % 4
                out.append(s2)
                break
            s = s.apply_unchecked(s.random_step(rng))
    return tuple(out)


def p95(data: list[float]) -> float:
    """The 95th percentile, as the solver targets state it (nearest rank below)."""
    data = sorted(data)
    return data[min(len(data) - 1, int(0.95 * len(data)))]


def solve_figures(prefix: str, data: list[float]) -> dict[str, float]:
    """Median, p95 and max (ms) and the count of solve times in seconds."""
    return {f"{prefix}_median_ms": round(statistics.median(data) * 1e3, 3),
            f"{prefix}_p95_ms": round(p95(data) * 1e3, 3),
            f"{prefix}_max_ms": round(max(data) * 1e3, 3),
            f"{prefix}_n": len(data)}


def _cycle(inputs: tuple[Any, ...], clear: Callable[[], None]
           ) -> tuple[Callable[[], Args], list[Any]]:
    """A round setup that clears the solver's cache (every timed solve is a miss) and
    passes the inputs in turn; also the list of the inputs it passed."""
    used: list[Any] = []

    def setup() -> Args:
        clear()
        used.append(inputs[len(used) % len(inputs)])
        return (used[-1],), {}

    return setup, used


def _cpsat_reference(solve: Callable[[Any], object], inputs: tuple[Any, ...],
                     clear: Callable[[], None]) -> Callable[[], dict[str, float]]:
    """The CP-SAT method on the first inputs, cache cleared before each (reported only)."""
    def reference() -> dict[str, float]:
        times = []
        for x in inputs[:CPSAT_SAMPLE]:
            clear()
            t0 = time.perf_counter()
            solve(x)
            times.append(time.perf_counter() - t0)
        return solve_figures("cpsat", times)

    return reference


def expansion(points: int = 8) -> Bench:
    """The expansion solver (``dp``, the search's method) on 40 mid-game inputs, three
    times each; CP-SAT beside it on 12."""
    inputs = expansion_inputs()
    setup, _ = _cycle(inputs, exp_mod.clear_cache)

    def all_inputs() -> None:
        for s, company in inputs:
            exp_mod.clear_cache()
            best_expansions(s, company, points=points)

    return Bench(f"test_expansion_{points}_points", "expansion" if points == 8 else
                 f"expansion-{points}", f"expansion solver, {points} points, 40 positions",
                 lambda x: best_expansions(x[0], x[1], points=points),
                 rounds=len(inputs) * 3, warmup_rounds=2, setup=setup,
                 figures=lambda data: solve_figures("dp", data), headline="dp_median_ms",
                 unit="ms median",
                 reference=_cpsat_reference(
                     lambda x: best_expansions(x[0], x[1], points=points, method="cpsat"),
                     inputs, exp_mod.clear_cache),
                 gate=all_inputs, gate_rounds=7)


def bookkeeping() -> Bench:
    """The bookkeeping solver (``dp``) on 40 decisions with 1-4 points, three times each;
    CP-SAT beside it on 12."""
    inputs = bookkeeping_inputs()
    setup, used = _cycle(inputs, bk_mod.clear_cache)

    def figures(data: list[float]) -> dict[str, float]:
        out = solve_figures("dp", data)
        timed = used[-len(data):]
        for pool in (1, 2, 3, 4):
            sub = [t for t, x in zip(data, timed, strict=True) if x.pool == pool]
            if sub:  # a short run may not reach every pool size
                out[f"dp_median_ms_{pool}_points"] = round(statistics.median(sub) * 1e3, 3)
        return out

    def all_books() -> None:
        for x in inputs:
            bk_mod.clear_cache()
            best_bookkeeping(x)

    return Bench("test_bookkeeping_up_to_4_points", "bookkeeping",
                 "bookkeeping solver, 1-4 points, 40 decisions", best_bookkeeping,
                 rounds=len(inputs) * 3, warmup_rounds=2, setup=setup, figures=figures,
                 headline="dp_median_ms", unit="ms median",
                 reference=_cpsat_reference(lambda x: best_bookkeeping(x, method="cpsat"),
                                            inputs, bk_mod.clear_cache),
                 gate=all_books, gate_rounds=7)


# What ``make bench-check`` tracks (and the calibration loop it normalises by), by the
# short names of ``mombasa bench --only``, in the order they run.
SUITE: dict[str, Callable[[], Bench]] = {
    "calibration": calibration,
    "clone": clone,
    "playouts": random_games,
    "mcts": mcts_iterations,
    "expansion": expansion,
    "bookkeeping": bookkeeping,
}


@dataclass
class Measurement:
    """A benchmark's timings (seconds per call, one per timed round) and figures."""

    name: str
    key: str
    title: str
    headline: str
    unit: str
    iterations: int
    times: list[float]
    figures: dict[str, float]
    relative_cost: float | None

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def figure(self) -> float:
        return self.figures[self.headline]

    def to_json(self) -> dict[str, Any]:
        """pytest-benchmark's shape where it has one (``stats``, ``extra_info`` with
        ``relative_cost``), so ``benchmarks/check.py`` reads this file too."""
        extra = dict(self.figures)
        if self.relative_cost is not None:
            extra["relative_cost"] = self.relative_cost
        return {"name": self.name, "key": self.key, "title": self.title,
                "stats": {"rounds": len(self.times), "iterations": self.iterations,
                          "mean": self.mean, "median": self.median,
                          "min": min(self.times), "max": max(self.times),
                          "stddev": statistics.stdev(self.times) if len(self.times) > 1
                          else 0.0},
                "extra_info": extra}


def steps(b: Bench, rounds: int | None = None, reference: bool = True) -> int:
    """How many times :func:`measure` calls its ``tick`` for ``b``."""
    timed = b.rounds if rounds is None else rounds
    gate = 0 if b.gate is None else b.gate_rounds if rounds is None else rounds
    return b.warmup_rounds + timed + gate + int(reference and b.reference is not None)


def measure(b: Bench, rounds: int | None = None, reference: bool = True,
            tick: Callable[[], None] = lambda: None) -> Measurement:
    """Time ``b`` as ``benchmark.pedantic`` does, then its figures, the figures measured
    beside (``reference``) and its relative cost. ``rounds`` replaces the suite's
    counts of timed and of calibrated rounds (a short run); ``tick`` follows each
    round."""
    count = b.rounds if rounds is None else rounds
    times = []
    for k in range(b.warmup_rounds + count):
        args, kwargs = b.setup() if b.setup is not None else ((), {})
        t0 = time.perf_counter()
        for _ in range(b.iterations):
            b.timed(*args, **kwargs)
        elapsed = time.perf_counter() - t0
        if k >= b.warmup_rounds:
            times.append(elapsed / b.iterations)
        tick()
    figures = b.figures(times)
    if reference and b.reference is not None:
        figures.update(b.reference())
        tick()
    cost = None
    if b.gate is not None:
        cost = relative_cost(b.gate, b.gate_rounds if rounds is None else rounds, tick)
    return Measurement(b.name, b.key, b.title, b.headline, b.unit, b.iterations, times,
                       figures, cost)


def machine_load() -> tuple[tuple[float, float, float], int]:
    """The load averages (1, 5 and 15 minutes; zeros where the system has none) and the
    number of CPUs: a loaded machine measures slower and noisier."""
    try:
        load = os.getloadavg()
    except OSError:  # not every system has load averages
        load = (0.0, 0.0, 0.0)
    return load, os.cpu_count() or 1


def load_text(load: tuple[float, float, float], cpus: int) -> str:
    """What to print beside a verdict.

    >>> load_text((0.52, 0.31, 0.2), 2)
    'load average 0.52 0.31 0.20 on 2 CPUs'
    """
    return f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {cpus} CPUs"


def load_warning(load: tuple[float, float, float], cpus: int) -> str | None:
    """A warning line when more is running than there are CPUs (1-minute average).

    >>> load_warning((0.5, 0.3, 0.2), 2) is None
    True
    >>> print(load_warning((5.0, 4.1, 2.0), 2))
    warning: the machine is loaded (5.00 > 2 CPUs): timings are slower and noisier than \
on an idle machine
    """
    if load[0] <= cpus:
        return None
    return (f"warning: the machine is loaded ({load[0]:.2f} > {cpus} CPUs): timings are "
            "slower and noisier than on an idle machine")
