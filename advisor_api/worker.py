"""The search process: receives tasks over a pipe, runs them, sends the answers back.

A task is a dict with a ``kind``; the process answers ``("done", result, rss)`` or
``("error", message, rss)``, after any number of ``("progress", stats)`` messages for a
streamed analysis; ``rss`` is the process's resident memory in bytes after the task (the
pool recycles a process above ``MOMBASA_WORKER_MAX_RSS_MB``). The string ``"stop"`` sent
during a task ends its search early (the answer then holds what was found so far); sent
between tasks it is ignored.

Kinds: ``analyse`` (ISMCTS of an observation; returns its root statistics, a
:class:`search.parallel.RootStats`, and the exact solvers' plans for the decision),
``bot`` (a bot's whole move; returns an :class:`engine.Move`), ``ping`` (answers the
process id).

Extra kinds (tests only): :func:`worker_main` takes ``extra_tasks``, the dotted name of a
module whose ``TASKS`` dict (kind -> function, as :data:`TASKS`) the process imports at
start and adds to its own table. Only code that builds the pool passes it
(``WorkerPool(..., extra_tasks=...)``, ``create_app(..., worker_tasks=...)``); no
setting, environment variable or request names it. The tests' kinds (sleep, raise,
crash, grow) live in ``tests/worker_tasks.py``.
"""

from __future__ import annotations

import importlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

from advisor_api.solvers import solve_decision
from engine import Move, observation_from_json
from search.bot_specs import make_bot, search_config
from search.mcts import MCTS, SearchConfig, SearchResult, principal_variation
from search.parallel import RootStats

Task = dict[str, Any]


def root_stats(result: SearchResult) -> RootStats:
    """The root statistics of a search (what :func:`search.parallel.merge` adds up)."""
    children = {
        step: (child.n, list(child.w), list(child.m), principal_variation(child))
        for step, child in result.root.children.items() if child.n
    }
    return RootStats(result.iterations, result.elapsed, children)


# Iterations between interim reports of an analysis: how often a "stop" or a progress
# report is looked at. It does not change what the search finds.
REPORT_EVERY = 32


def advisor_config(iterations: int | None, seconds: float | None,
                   seed: int = 0) -> SearchConfig:
    """The search configuration of an analysis (``/v1/analyse``, a game's analysis,
    ``mombasa analyse``): this budget and seed, every knob the installation's
    (``MOMBASA_SEARCH``, else :class:`SearchConfig`'s default), the settings the AI
    seats play with too (its ``tree="round"`` gives the advisor's lines the other
    players' replies in their PV)."""
    return search_config(iterations=iterations, time=seconds, seed=seed)


def stop_requested(conn: Connection) -> bool:
    """Whether the service sent \"stop\" (or went away) during the task."""
    try:
        return bool(conn.poll()) and conn.recv() == "stop"
    except (EOFError, OSError):  # the service is gone: stop too
        return True


def run_analysis(task: Task, conn: Connection | None = None) -> dict[str, Any]:
    """Search the task's observation; with ``conn``, report progress and obey "stop".

    Returns ``{"stats": RootStats, "solved": solver plans}`` (the solvers only for the
    first job, ``task["solve"]``)."""
    obs = observation_from_json(task["observation"])
    cfg = replace(advisor_config(task.get("iterations"), task.get("time"),
                                 int(task.get("seed", 0))),
                  report_every=REPORT_EVERY)
    every = task.get("progress_every")
    last = time.perf_counter()

    def callback(interim: SearchResult) -> bool | None:
        nonlocal last
        if conn is None:
            return None
        if stop_requested(conn):
            return False
        now = time.perf_counter()
        if every is not None and now - last >= every:
            conn.send(("progress", root_stats(interim)))
            last = now
        return None

    stats = root_stats(MCTS(cfg).search(obs, callback))
    solved = solve_decision(obs.state) if task.get("solve") else {}
    return {"stats": stats, "solved": solved}


def run_bot(task: Task, conn: Connection | None = None) -> Move:
    """The whole move of the bot ``task["spec"]`` for the task's observation."""
    obs = observation_from_json(task["observation"])
    bot = make_bot(task["spec"], seed=int(task.get("seed", 0)))
    return bot.choose(obs)


def _ping(task: Task, conn: Connection | None = None) -> int:
    return os.getpid()


TaskFn = Callable[[Task, Connection | None], Any]

TASKS: dict[str, TaskFn] = {
    "analyse": run_analysis, "bot": run_bot, "ping": _ping,
}


def rss_bytes() -> int:
    """Resident memory of this process now (``/proc/self/statm``; elsewhere the peak,
    from ``getrusage``)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak if sys.platform == "darwin" else peak * 1024)


def task_table(extra_tasks: str | None = None) -> dict[str, TaskFn]:
    """The kinds this process runs: :data:`TASKS`, plus the ``TASKS`` of the module
    ``extra_tasks`` (a dotted name, imported now; tests only, see the module's doc)."""
    table = dict(TASKS)
    if extra_tasks is not None:
        table.update(importlib.import_module(extra_tasks).TASKS)
    return table


def worker_main(conn: Connection, extra_tasks: str | None = None) -> None:
    """Serve tasks from ``conn`` until it closes (``extra_tasks``: see
    :func:`task_table`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the service's to handle
    tasks = task_table(extra_tasks)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if not isinstance(task, dict):  # a late "stop"
            continue
        try:
            fn = tasks[str(task.get("kind"))]
            reply: tuple[str, Any] = ("done", fn(task, conn))
        except Exception as exc:  # the task failed; the process goes on
            reply = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send((*reply, rss_bytes()))
        except (OSError, ValueError):
            return
