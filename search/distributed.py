"""Tournaments and root-parallel search on a Ray cluster (optional extra ``distributed``).

Ray does the distribution; this module only maps our two parallel workloads onto it:
arena games become Ray tasks, and root-parallel search workers become Ray actors that
keep running searches (so a worker process is not started per search). Results equal
the local ones for the same seeds and iteration budgets.

    with RayParallelMCTS(SearchConfig(iterations=200), jobs=4, address="auto") as search:
        result = search.search(observation)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from engine import Observation
from search.arena import ArenaReport, GameRecord, play_game, summarise
from search.mcts import SearchConfig, SearchResult
from search.parallel import RootStats, _worker, merge, worker_configs


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise RuntimeError("Ray is not installed: pip install 'mombasa-advisor[distributed]'"
                           ) from exc
    return ray


def connect(address: str | None = "auto", num_cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address`` ("auto": the running one), or start a local
    one when none runs and ``address`` is None or "local"."""
    ray = _ray()
    if ray.is_initialized():
        return
    if address in (None, "local"):
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)


def run_arena_ray(specs: list[str], games: int, seed: int = 0, variable: bool = False,
                  address: str | None = "auto",
                  on_game: Callable[[GameRecord], None] | None = None) -> ArenaReport:
    """:func:`search.arena.run_arena` with every game a Ray task."""
    ray = _ray()
    connect(address)
    task = ray.remote(play_game)
    t0 = time.perf_counter()
    pending = [task.remote(specs, i, seed, variable) for i in range(games)]
    records = []
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        rec = ray.get(done[0])
        records.append(rec)
        if on_game is not None:
            on_game(rec)
    return summarise(specs, records, time.perf_counter() - t0)


class _SearchActor:
    def search(self, obs: Observation, cfg: SearchConfig) -> RootStats:
        return _worker((obs, cfg))


class RayParallelMCTS:
    """Root-parallel search whose workers are Ray actors (same interface as
    :class:`search.parallel.ParallelMCTS`)."""

    def __init__(self, config: SearchConfig, jobs: int = 2,
                 address: str | None = "auto") -> None:
        if jobs < 1:
            raise ValueError(f"jobs: must be >= 1, got {jobs}")
        ray = _ray()
        connect(address)
        self.config = config
        self.jobs = jobs
        actor = ray.remote(num_cpus=1)(_SearchActor)
        self._actors = [actor.remote() for _ in range(jobs)]

    def search(self, obs: Observation) -> SearchResult:
        ray = _ray()
        t0 = time.perf_counter()
        configs = worker_configs(self.config, self.jobs)
        parts = ray.get([a.search.remote(obs, c) for a, c in zip(self._actors, configs,
                                                                 strict=True)])
        return merge(obs.viewer, parts, time.perf_counter() - t0, obs.state.n)

    def close(self) -> None:
        ray = _ray()
        for a in self._actors:
            ray.kill(a)
        self._actors = []

    def __enter__(self) -> RayParallelMCTS:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
