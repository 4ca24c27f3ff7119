"""The search process: runs the searches the pool hands it, one slice at a time.

Searches on one process share it in time slices. The pool sends ``("start", job, task,
slice)``: the process starts the task in a thread of its own (a :class:`Session`) and
lets it run for ``slice`` seconds; at its next checkpoint after that (between two
iterations, :mod:`search.pacing`) the search pauses and the process answers
``("paused", job, None, rss)``. ``("resume", job, slice)`` lets it run another slice;
``("stop", job)`` asks it to stop (a running search stops at its next checkpoint and
answers what it found; a paused one when the pool next resumes it). At most one session
runs at a time: the pool starts or resumes one only while none runs on the process. A
session's clock stands still while it is paused, so a "10 s" search gets 10 s of
thinking however its slices fall.

Answers: ``("done", job, result, rss)`` or ``("error", job, message, rss)``, after any
number of ``("progress", job, stats, None)`` for a streamed analysis; ``rss`` is the
process's resident memory in bytes (the pool recycles a process above
``MOMBASA_WORKER_MAX_RSS_MB``). ``"ping"`` answers ``("pong", 0, pid, rss)``.

The handling of these messages is :class:`Host`'s, the same in a process of this
machine (:func:`worker_main`, over the pipe) and in a Ray actor
(:mod:`advisor_api.ray_backend`, as actor calls).

Kinds: ``analyse`` (ISMCTS of an observation; returns its root statistics, a
:class:`search.parallel.RootStats`, and the exact solvers' plans for the decision),
``bot`` (a bot's whole move; returns an :class:`engine.Move`), ``review`` (a game
record's review, :func:`search.review.review_record`; its progress as ``{"done",
"total"}`` messages, its answer the review's JSON; :mod:`advisor_api.review_jobs`).

Extra kinds (tests only): :func:`worker_main` takes ``extra_tasks``, the dotted name of a
module whose ``TASKS`` dict (kind -> function, as :data:`TASKS`) the process imports at
start and adds to its own table. Only code that builds the pool passes it
(``WorkerPool(..., extra_tasks=...)``, ``create_app(..., worker_tasks=...)``); no
setting, environment variable or request names it. The tests' kinds (sleep, raise,
crash, grow) live in ``tests/worker_tasks.py``.
"""

from __future__ import annotations

import importlib
import math
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

from advisor_api.solvers import solve_decision
from engine import GameRecord, Move, observation_from_json
from search.bot_specs import make_bot, search_config
from search.mcts import MCTS, SearchConfig, SearchResult, principal_variation
from search.pacing import Pacer
from search.parallel import RootStats
from search.review import review_record

Task = dict[str, Any]


def root_stats(result: SearchResult) -> RootStats:
    """The root statistics of a search (what :func:`search.parallel.merge` adds up)."""
    children = {
        step: (child.n, list(child.w), list(child.m), principal_variation(child))
        for step, child in result.root.children.items() if child.n
    }
    return RootStats(result.iterations, result.elapsed, children)


# Iterations between interim reports of an analysis: how often a progress report is
# looked at. It does not change what the search finds.
REPORT_EVERY = 32


def advisor_config(iterations: int | None, seconds: float | None,
                   seed: int = 0) -> SearchConfig:
    """The search configuration of an analysis (``/v1/analyse``, a game's analysis,
    ``mombasa analyse``): this budget and seed, every knob the installation's
    (``MOMBASA_SEARCH``, else :class:`SearchConfig`'s default), the settings the AI
    seats play with too (its ``tree="round"`` gives the advisor's lines the other
    players' replies in their PV)."""
    return search_config(iterations=iterations, time=seconds, seed=seed)


Send = Callable[[tuple[Any, ...]], None]


class Session(Pacer):
    """One search on this process: paced in slices by the pool (see the module's doc).

    Outside a process (``Session()``, tests and direct calls) it is never paused and
    only stops when :meth:`stop` is called."""

    def __init__(self, job: int = 0, send: Send | None = None,
                 slice_seconds: float = math.inf) -> None:
        self.job = job
        self._send = send
        self._go = threading.Event()
        self._go.set()
        self._slice_end = time.perf_counter() + slice_seconds
        self._paused = 0.0  # seconds spent paused (the clock does not count them)
        self.stopped = False

    def clock(self) -> float:
        return time.perf_counter() - self._paused

    def checkpoint(self) -> bool:
        if not self.stopped and time.perf_counter() >= self._slice_end:
            self._pause()
        return not self.stopped

    def _pause(self) -> None:
        began = time.perf_counter()
        self._go.clear()  # before saying so: the pool's resume comes after
        self.send(("paused", self.job, None, rss_bytes()))
        self._go.wait()
        self._paused += time.perf_counter() - began

    def resume(self, slice_seconds: float) -> None:
        """Let the session run ``slice_seconds`` more (the process's main thread)."""
        self._slice_end = time.perf_counter() + slice_seconds
        self._go.set()

    def stop(self) -> None:
        """Ask the search to stop at its next checkpoint (a paused one stops when
        resumed)."""
        self.stopped = True

    def send(self, message: tuple[Any, ...]) -> None:
        if self._send is not None:
            self._send(message)

    def progress(self, payload: Any) -> None:
        """An interim report of the search, for a streamed analysis."""
        self.send(("progress", self.job, payload, None))


def run_analysis(task: Task, session: Session | None = None) -> dict[str, Any]:
    """Search the task's observation, paced by ``session`` (progress every
    ``task["progress_every"]`` seconds of thinking, if given).

    Returns ``{"stats": RootStats, "solved": solver plans}`` (the solvers only for the
    first job, ``task["solve"]``, and not after a stop: nobody waits for them)."""
    session = session or Session()
    obs = observation_from_json(task["observation"])
    cfg = replace(advisor_config(task.get("iterations"), task.get("time"),
                                 int(task.get("seed", 0))),
                  report_every=REPORT_EVERY)
    every = task.get("progress_every")
    last = session.clock()

    def callback(interim: SearchResult) -> bool | None:
        nonlocal last
        now = session.clock()
        if every is not None and now - last >= every:
            session.progress(root_stats(interim))
            last = now
        return None

    stats = root_stats(MCTS(cfg, session).search(obs, callback))
    solved = solve_decision(obs.state) if task.get("solve") and not session.stopped else {}
    return {"stats": stats, "solved": solved}


def run_bot(task: Task, session: Session | None = None) -> Move:
    """The whole move of the bot ``task["spec"]`` for the task's observation (an
    ``mcts`` bot's searches paced by ``session``)."""
    obs = observation_from_json(task["observation"])
    bot = make_bot(task["spec"], seed=int(task.get("seed", 0)), pacer=session or Session())
    return bot.choose(obs)


def run_review(task: Task, session: Session | None = None) -> dict[str, Any]:
    """The review of ``task["record"]`` (a ``mombasa-game/1`` record's JSON) for
    ``task["seats"]`` (0-based), at ``task["iterations"]`` or ``task["seconds"]`` a
    decision, ``task["all_seeing"]``, paced by ``session``: a progress message
    ``{"done", "total"}`` (decisions) as it goes; the review's JSON. A stop raises
    :class:`search.review.ReviewStopped` (the pool has dropped the job by then)."""
    session = session or Session()
    record = GameRecord.from_json(task["record"])

    def progress(done: int, total: int) -> None:
        session.progress({"done": done, "total": total})

    review = review_record(record, task["seats"], iterations=task.get("iterations"),
                           seconds=task.get("seconds"),
                           all_seeing=bool(task.get("all_seeing")), pacer=session,
                           progress=progress, seed=int(task.get("seed", 0)))
    result: dict[str, Any] = review.to_json()
    return result


TaskFn = Callable[[Task, Session], Any]

TASKS: dict[str, TaskFn] = {"analyse": run_analysis, "bot": run_bot, "review": run_review}


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


def _run_session(session: Session, fn: TaskFn, task: Task,
                 sessions: dict[int, Session]) -> None:
    """A session's thread: run the task, answer its result (or its error)."""
    try:
        reply: tuple[str, Any] = ("done", fn(task, session))
    except Exception as exc:  # the task failed; the process goes on
        reply = ("error", f"{type(exc).__name__}: {exc}")
    sessions.pop(session.job, None)
    session.send((reply[0], session.job, reply[1], rss_bytes()))


class Host:
    """The searches of one process and the pool's messages to them: what a search process
    does with each message, whether the messages come over a pipe (:func:`worker_main`)
    or as a Ray actor's calls (:mod:`advisor_api.ray_backend`). Answers go to ``send``
    (called from the sessions' threads as well)."""

    def __init__(self, send: Send, extra_tasks: str | None = None) -> None:
        self.tasks = task_table(extra_tasks)
        self.sessions: dict[int, Session] = {}
        self.send = send

    def handle(self, message: Any) -> None:
        """One message of the pool: ``"ping"``, ``("start", job, task, slice)``,
        ``("resume", job, slice)`` or ``("stop", job)``."""
        if message == "ping":
            self.send(("pong", 0, os.getpid(), rss_bytes()))
            return
        kind, job, *rest = message
        if kind == "start":
            task, slice_seconds = rest
            fn = self.tasks.get(str(task.get("kind")))
            if fn is None:
                self.send(("error", job, f"KeyError: {task.get('kind')!r}", rss_bytes()))
                return
            new = self.sessions[job] = Session(job, self.send, slice_seconds)
            threading.Thread(target=_run_session, args=(new, fn, task, self.sessions),
                             name=f"search-{job}", daemon=True).start()
        elif (known := self.sessions.get(job)) is not None:
            if kind == "resume":
                known.resume(rest[0])
            elif kind == "stop":
                known.stop()


def worker_main(conn: Connection, extra_tasks: str | None = None) -> None:
    """Serve the pool's messages from ``conn`` until it closes (``extra_tasks``: see
    :func:`task_table`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the service's to handle
    lock = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:
        with lock:  # sessions and this thread answer on one pipe
            try:
                conn.send(message)
            except (OSError, ValueError):
                os._exit(0)  # the service is gone

    host = Host(send, extra_tasks)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            os._exit(0)  # the service is gone: so are the searches
        host.handle(message)
