"""Tournaments, self-play data and root-parallel search on a Ray cluster (optional extra
``distributed``).

Ray does the distribution; this module only maps our parallel workloads onto it: arena
games and recorded self-play games become Ray tasks, and root-parallel search workers
become Ray actors that keep running searches (so a worker process is not started per
search). Results equal the local ones for the same seeds and iteration budgets.

    with RayParallelMCTS(SearchConfig(iterations=200), jobs=4, address="auto") as search:
        result = search.search(observation)
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from engine import Observation
from search.arena import ArenaReport, GameResult, play_job, summarise, write_record
from search.bot_specs import SETTINGS_ENV
from search.dataset import Dataset
from search.extras import MissingExtra, require
from search.mcts import SearchConfig, SearchResult
from search.parallel import RootStats, _worker, merge, worker_configs
from search.selfplay import SelfplayTask, play_task, selfplay_tasks


class RayUnavailable(RuntimeError):
    """Ray is not installed, or its cluster cannot be reached or started."""


def _ray() -> Any:
    try:
        return require("ray", "distributed", "--ray")
    except MissingExtra as exc:  # pragma: no cover - depends on the extra
        raise RayUnavailable(str(exc)) from exc


def _probe(address: str, timeout: float = 5.0) -> None:
    """Fail fast when nothing listens at the cluster's address: ``ray.init`` would
    retry for many minutes."""
    if address.startswith("ray://"):
        return
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # pragma: no cover - private API of another Ray version
        return
    target = canonicalize_bootstrap_address(address)  # "auto": env or latest cluster
    if target is None:
        return
    host, _, port = target.rpartition(":")
    with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
        pass


def connect(address: str | None = "auto", num_cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address`` ("auto": the running one), or start a local
    one when none runs and ``address`` is None or "local".

    Raises :class:`RayUnavailable` (saying what went wrong) when Ray is not installed
    or the cluster cannot be reached or started."""
    ray = _ray()
    if ray.is_initialized():
        return
    try:
        if address is None or address == "local":
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
        else:
            _probe(address)
            ray.init(address=address, log_to_driver=False)
    except Exception as exc:
        where = "start a local Ray instance" if address in (None, "local") else \
            f"reach the Ray cluster at {address!r}"
        raise RayUnavailable(f"cannot {where}: {exc}") from exc


def _task_options() -> dict[str, Any]:
    """Ray workers do not inherit this process's environment: hand them the model file
    a ``learned`` evaluator loads (``MOMBASA_VALUE_MODEL``), as an absolute path, and the
    installation's search settings (``MOMBASA_SEARCH``)."""
    env: dict[str, str] = {}
    path = os.environ.get("MOMBASA_VALUE_MODEL")
    if path:
        env["MOMBASA_VALUE_MODEL"] = str(Path(path).resolve())
    settings = os.environ.get(SETTINGS_ENV, "").strip()
    if settings:
        env[SETTINGS_ENV] = settings
    return {"runtime_env": {"env_vars": env}} if env else {}


def run_arena_ray(specs: list[str], games: int, seed: int = 0, variable: bool = False,
                  address: str | None = "auto",
                  on_game: Callable[[GameResult], None] | None = None,
                  records: Path | None = None) -> ArenaReport:
    """:func:`search.arena.run_arena` with every game a Ray task; with ``records`` (a
    folder here) each game's record comes back with its result and is written here."""
    ray = _ray()
    connect(address)
    task = ray.remote(play_job).options(**_task_options())
    t0 = time.perf_counter()
    pending = [task.remote((specs, i, seed, variable, records is not None))
               for i in range(games)]
    results = []
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        rec, record = ray.get(done[0])
        if records is not None and record is not None:
            write_record(records, rec.index, record)
        results.append(rec)
        if on_game is not None:
            on_game(rec)
    return summarise(specs, results, time.perf_counter() - t0)


def generate_ray(spec: str, games: int, players: tuple[int, ...] = (2, 3, 4),
                 seed: int = 0, explore: float = 0.1,
                 address: str | None = "auto") -> Dataset:
    """:func:`search.selfplay.generate` with every recorded game a Ray task; the
    records are joined in task order, so the data equal the local run's."""
    return play_tasks_ray(selfplay_tasks(spec, games, players, seed, explore), address)


def play_tasks_ray(tasks: list[SelfplayTask], address: str | None = "auto") -> Dataset:
    """Play and record ``tasks`` as Ray tasks, joined in task order (the same data as
    playing them one by one locally)."""
    ray = _ray()
    connect(address)
    task = ray.remote(play_task).options(**_task_options())
    return Dataset.concat(ray.get([task.remote(t) for t in tasks]))


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
