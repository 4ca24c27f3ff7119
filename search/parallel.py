"""Root-parallel MCTS over processes on one machine.

Each worker runs an independent search of the same observation with its own seed;
the root statistics (visits, utility and money sums per child) are added up. With a
time budget every worker searches for the whole time, so ``jobs`` workers do about
``jobs`` times the iterations of one on as many cores.

>>> import engine
>>> s = engine.new_game(players=2, seed=1)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> with ParallelMCTS(SearchConfig(iterations=16, seed=3), jobs=2) as search:
...     result = search.search(engine.observe(s, 0))
>>> result.iterations
32
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from types import TracebackType

from engine import Observation, Step
from search.mcts import MCTS, Line, Node, SearchConfig, SearchResult, principal_variation


@dataclass
class RootStats:
    """What a worker sends back: per root child, visits and sums, and its PV."""

    iterations: int
    elapsed: float
    children: dict[Step, tuple[int, list[float], list[float], list[tuple[int, Step]]]]


def _worker(args: tuple[Observation, SearchConfig]) -> RootStats:
    obs, cfg = args
    result = MCTS(cfg).search(obs)
    children = {
        step: (child.n, list(child.w), list(child.m), principal_variation(child))
        for step, child in result.root.children.items() if child.n
    }
    return RootStats(result.iterations, result.elapsed, children)


def worker_configs(config: SearchConfig, jobs: int) -> list[SearchConfig]:
    """The configuration of each of ``jobs`` workers: the same budget, distinct seeds."""
    return [replace(config, seed=config.seed * 1009 + k) for k in range(jobs)]


def merge(player: int, parts: list[RootStats], elapsed: float, players: int) -> SearchResult:
    """Add up the root statistics of several independent searches."""
    root = Node(players)
    root.player = player
    pvs: dict[Step, tuple[int, list[tuple[int, Step]]]] = {}
    for part in parts:
        for step, (n, w, m, pv) in part.children.items():
            child = root.children.get(step)
            if child is None:
                child = root.children[step] = Node(players)
            child.n += n
            root.n += n
            for i in range(players):
                child.w[i] += w[i]
                child.m[i] += m[i]
            if step not in pvs or n > pvs[step][0]:
                pvs[step] = (n, pv)
    total = max(1, root.n)
    lines = [
        Line(step=step, visits=ch.n, share=ch.n / total,
             win=[x / ch.n for x in ch.w], money=[x / ch.n for x in ch.m],
             pv=pvs[step][1])
        for step, ch in root.children.items()
    ]
    lines.sort(key=lambda ln: (-ln.visits, -ln.win[player], ln.step))
    iterations = sum(p.iterations for p in parts)
    return SearchResult(player, lines, iterations, elapsed, iterations, root)


class ParallelMCTS:
    """A pool of worker processes kept for many searches (``jobs=1``: in process)."""

    def __init__(self, config: SearchConfig, jobs: int = 2) -> None:
        if jobs < 1:
            raise ValueError(f"jobs: must be >= 1, got {jobs}")
        self.config = config
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        if jobs > 1:
            self._pool = ProcessPoolExecutor(
                max_workers=jobs, mp_context=multiprocessing.get_context("fork"))

    def search(self, obs: Observation) -> SearchResult:
        t0 = time.perf_counter()
        configs = worker_configs(self.config, self.jobs)
        if self._pool is None:
            parts = [_worker((obs, configs[0]))]
        else:
            parts = list(self._pool.map(_worker, [(obs, c) for c in configs]))
        return merge(obs.viewer, parts, time.perf_counter() - t0, obs.state.n)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> ParallelMCTS:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
