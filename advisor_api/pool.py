"""A pool of search processes shared fairly by search-seconds: admission, time slices,
deadlines, crash recovery and recycling.

Searches never run on the event loop: each task goes to a worker process
(:mod:`advisor_api.worker`) over a pipe, and the loop reads the answers without blocking
(``add_reader`` on the pipe).

Where slices run. The places a search runs in come from a :class:`Backend`:
:class:`LocalBackend` (``size`` processes of this machine, the default) or
:class:`advisor_api.ray_backend.RayBackend` (``mombasa serve --ray``: one Ray actor per
CPU of the cluster, each running the same :class:`advisor_api.worker.Host` as a
process). Everything below (fair share, slices, admission, deadlines, crash recovery,
recycling) is this module's for both; the pool's ``size`` is the backend's capacity,
read again every ``refresh_every`` seconds on Ray (nodes join and leave: places are
added, or drained and not replaced).

Time slices. A process holds several searches (sessions) and runs one at a time for a
slice of ``slice_seconds`` (0.25 s); at the slice's end the search pauses between two
iterations and the process is handed to the next search. A search's time budget counts
only the slices it ran, so it gets all the thinking it asked for, however the slices
fall. A search stays on the process it started on (its tree lives there).

Fair share. Each slice goes to the search of the client with the least *virtual time*:
the search-seconds a client's searches have run (analyses, streams and its games' AI
moves together) since it last had nothing in flight; a client with nothing in flight
comes back level with the least served of the others (no credit for idle time); ties go
to the client with fewer searches; a client's own searches take turns (the one that
has run least first). With ``C`` clients wanting
search at once on ``P`` processes each gets ``P / C`` processes' worth of time (all of
them if alone); a newcomer's first slice starts within one slice (plus the few
milliseconds of a search's pause) wherever a process may take a new session.

Admission. :meth:`WorkerPool.admit` is decided at once. A request of a client with
nothing in flight is always admitted; one of a client with something in flight is
refused (:class:`~advisor_api.errors.Busy`, 429 with Retry-After) while ``size +
max_queue`` requests are in flight. Background work (AI moves) is never refused; it
takes its client's share like any other search. A process opens at most
``max_sessions`` searches at once (their trees stay in its memory); a search beyond
that waits, holding nothing, for a place.

Deadlines. A slice that has not ended by ``max(slice, the search's remaining limit) +
grace`` (a search stuck where it cannot pause) kills its process
(:class:`~advisor_api.errors.SearchTimeout`, 504, for that search; the others on the
process fail with :class:`~advisor_api.errors.WorkerDied`); a search that has run
``limit + grace`` seconds is stopped with a 504. A process that dies fails its searches
(500) and a fresh one takes its place. A process that has run ``max_tasks`` searches, or
whose memory is above ``max_rss_mb``, takes no new search and is replaced once its
searches have ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import multiprocessing
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any

from advisor_api.errors import Busy, SearchFailed, SearchTimeout, WorkerDied
from advisor_api.worker import Task, worker_main

Progress = Callable[[int, Any], None]
log = logging.getLogger("advisor_api.pool")

#: The client of work that does not say whose it is.
SERVICE = "service"
#: Seconds of a time slice.
SLICE = 0.25
#: Searches open at once on one process (each keeps its tree in the process's memory).
MAX_SESSIONS = 16
#: Seconds a new process may take to answer its first ping.
START_TIMEOUT = 60.0


def _context() -> BaseContext:
    """forkserver (fork from a clean single-threaded server, modules preloaded), else
    spawn: never a plain fork of the threaded service."""
    try:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["advisor_api.worker"])
        return ctx
    except ValueError:  # pragma: no cover - platforms without forkserver
        return multiprocessing.get_context("spawn")


class Worker:
    """One place where searches run a slice at a time (a process of this machine, or a
    Ray actor: :class:`Backend`), and the pool's bookkeeping of the searches it holds.

    A subclass sends the pool's messages (:meth:`send`) and hands the answers, once
    :meth:`listen` was called, to ``deliver(self, message)``, or ``died(self)`` when the
    place is gone."""

    def __init__(self, ident: int) -> None:
        self.ident = ident
        self.tasks = 0
        self.rss = 0  # bytes, as the process last reported it
        self.sessions: dict[int, Job] = {}  # searches started here and not ended
        self.current: Job | None = None  # the search running a slice now
        self.watchdog: asyncio.TimerHandle | None = None  # ends an overdue slice
        self.pong: asyncio.Future[Any] | None = None  # the answer to a ping
        self.ready = False  # answered its first ping; takes searches
        self.draining = False  # worn: takes no new search, replaced once empty

    def listen(self, deliver: Callable[[Worker, Any], None],
               died: Callable[[Worker], None]) -> None:
        raise NotImplementedError

    def unlisten(self) -> None:
        """Stop handing answers to the pool."""

    def send(self, message: Any) -> bool:
        """Send a message (False: the place is gone)."""
        raise NotImplementedError

    def kill(self) -> None:
        """End it at once (it may be in the middle of a search; blocking)."""
        raise NotImplementedError

    def info(self) -> dict[str, Any]:
        return {"id": self.ident, "tasks": self.tasks, "sessions": len(self.sessions),
                "rss_mb": round(self.rss / 2**20, 1)}


class LocalWorker(Worker):
    """A search process of this machine and the parent's end of its pipe."""

    def __init__(self, ctx: BaseContext, ident: int, extra_tasks: str | None = None) -> None:
        super().__init__(ident)
        parent, child = ctx.Pipe(duplex=True)
        self.conn: Connection = parent
        self.proc: BaseProcess = ctx.Process(  # type: ignore[attr-defined]
            target=worker_main, args=(child, extra_tasks), name=f"mombasa-search-{ident}",
            daemon=True)
        self.proc.start()
        child.close()

    def listen(self, deliver: Callable[[Worker, Any], None],
               died: Callable[[Worker], None]) -> None:
        def readable() -> None:
            try:
                while self.conn.poll():
                    deliver(self, self.conn.recv())
            except (EOFError, OSError):
                died(self)

        asyncio.get_running_loop().add_reader(self.conn.fileno(), readable)

    def unlisten(self) -> None:
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self.conn.fileno())

    def send(self, message: Any) -> bool:
        try:
            self.conn.send(message)
            return True
        except (OSError, ValueError):
            return False

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.join(2)
        with contextlib.suppress(Exception):
            self.conn.close()

    def info(self) -> dict[str, Any]:
        return {"id": self.ident, "pid": self.proc.pid, **super().info()}


class Backend:
    """Where the pool's searches run: :class:`LocalBackend` (processes of this machine,
    the default) or :class:`advisor_api.ray_backend.RayBackend` (Ray actors, one per CPU
    of the cluster). The scheduler (fair share, slices, admission, deadlines) is the
    pool's whatever the backend; the backend says how many searches may run at once
    (:meth:`capacity`, one per process or CPU) and makes the places they run in."""

    kind = "processes"
    #: Seconds between two reads of the capacity (0: it never changes).
    refresh_every = 0.0

    def connect(self) -> int:
        """Get ready (blocking, at the pool's start); the capacity."""
        return self.capacity()

    def capacity(self) -> int:
        """Searches that may run at once now (blocking)."""
        raise NotImplementedError

    def new_worker(self, ident: int) -> Worker:
        """A new place for searches (blocking: run it in a thread)."""
        raise NotImplementedError

    def info(self) -> dict[str, Any]:
        """What the health endpoint shows (never waits for anything)."""
        return {"kind": self.kind}


class LocalBackend(Backend):
    """``size`` search processes of this machine."""

    def __init__(self, size: int, extra_tasks: str | None = None) -> None:
        self.size = size
        self.extra_tasks = extra_tasks
        self._ctx = _context()

    def capacity(self) -> int:
        return self.size

    def new_worker(self, ident: int) -> Worker:
        return LocalWorker(self._ctx, ident, self.extra_tasks)


class Job:
    """One task of a ticket: a search run in slices on one process."""

    def __init__(self, ident: int, ticket: Ticket, index: int, task: Task,
                 on_progress: Progress | None) -> None:
        self.ident = ident
        self.ticket = ticket
        self.index = index
        self.task = task
        self.on_progress = on_progress
        self.state = "waiting"  # waiting (not started), running, paused, done
        self.worker: Worker | None = None
        self.used = 0.0  # seconds of slices run
        self.began = 0.0  # when the running slice began (monotonic)
        self.stop = False  # its answer is no longer wanted: unwind, then drop
        self.result: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    @property
    def client(self) -> str:
        return self.ticket.client

    def order(self) -> tuple[int, int]:
        return self.ticket.seq, self.index


class Ticket:
    """Admitted work of a client: ``jobs`` searches of about ``limit`` seconds each,
    from :meth:`WorkerPool.admit` until :meth:`close`."""

    def __init__(self, pool: WorkerPool, seq: int, jobs: int, limit: float, client: str,
                 background: bool) -> None:
        self.pool = pool
        self.seq = seq
        self.jobs = jobs
        self.limit = limit
        self.client = client
        self.background = background
        self.state = "admitted"  # admitted, running, closed
        self.job_list: list[Job] = []

    def remaining(self) -> float:
        """Seconds of search still to come (the estimate behind Retry-After)."""
        if not self.job_list:
            return self.jobs * self.limit
        return sum(max(0.0, self.limit - j.used) for j in self.job_list if j.state != "done")

    def close(self) -> None:
        """Give the ticket up: its searches still going are stopped."""
        self.pool._close_ticket(self)


class WorkerPool:
    """Search processes (or Ray actors) shared by every request of the service.

    ``size``: the processes of the default :class:`LocalBackend`; ``backend``: where the
    searches run (the service's :func:`~advisor_api.service.search_backend`: Ray actors
    when its settings name a cluster). The pool's :attr:`size` is the backend's capacity
    (read at :meth:`start`, and again every ``backend.refresh_every`` seconds when it may
    change).

    ``extra_tasks`` (tests only): the dotted name of a module of more task kinds that
    every process imports at start (:func:`advisor_api.worker.task_table`)."""

    def __init__(self, size: int, max_queue: int, grace: float, *, max_tasks: int = 0,
                 max_rss_mb: float = 0, extra_tasks: str | None = None,
                 slice_seconds: float = SLICE, max_sessions: int = MAX_SESSIONS,
                 backend: Backend | None = None) -> None:
        self.backend = backend or LocalBackend(size, extra_tasks)
        self.size = size  # searches running at once: the backend's capacity from start()
        self.max_queue = max_queue
        self.grace = grace
        self.max_tasks = max_tasks  # 0: never recycle for the count of tasks
        self.max_rss_mb = max_rss_mb  # 0: never recycle for memory
        self.slice = slice_seconds
        self.max_sessions = max_sessions
        self.extra_tasks = extra_tasks
        self._all: set[Worker] = set()
        self._coming = 0  # places being made, not in _all yet
        self._waiting: list[Job] = []  # jobs not started, in order of arrival
        self._tickets: set[Ticket] = set()  # admitted and not closed
        self._vtime: dict[str, float] = {}  # client -> virtual time (see the module doc)
        self._live: dict[str, int] = {}  # client -> its jobs not done
        self._seq = itertools.count()
        self._job_ids = itertools.count(1)
        self._next_id = 0
        self._background: set[asyncio.Task[None]] = set()
        self.started = False
        self.closed = False
        self.stats = {"tasks": 0, "slices": 0, "timeouts": 0, "crashes": 0, "errors": 0,
                      "refused": 0, "cancelled": 0, "recycled": 0}

    # -- life cycle ----------------------------------------------------------------------
    def _new_worker(self) -> Worker:
        """Start a process or actor (blocking: run it in a thread)."""
        return self.backend.new_worker(self._ident())

    def _ident(self) -> int:
        self._next_id += 1
        return self._next_id

    async def start(self) -> None:
        """Get the backend ready (a Ray cluster joined and its CPUs read: blocking), start
        a process or actor for each search that may run at once and wait until each
        answers (modules imported)."""
        self.size = max(1, self.backend.connect())
        idents = [self._ident() for _ in range(self.size)]
        workers = await asyncio.to_thread(
            lambda: [self.backend.new_worker(i) for i in idents])
        self.started = True
        answered = await asyncio.gather(*(self._bring_up(w) for w in workers))
        for w, ok in zip(workers, answered, strict=True):
            if not ok:
                self._later(self._replace(w))
        if self.backend.refresh_every > 0:
            self._later(self._follow_capacity())
        self._dispatch()

    async def _bring_up(self, w: Worker) -> bool:
        """Listen to a new process and wait for its first answer (False: none came)."""
        loop = asyncio.get_running_loop()
        self._all.add(w)
        w.listen(self._on_message, self._died)
        w.pong = loop.create_future()
        if w.send("ping"):
            with contextlib.suppress(TimeoutError, WorkerDied):
                await asyncio.wait_for(w.pong, START_TIMEOUT)
                w.ready = w in self._all
                return w.ready
        self._forget(w)
        await asyncio.to_thread(w.kill)
        return False

    async def _follow_capacity(self) -> None:
        """Read the backend's capacity every ``refresh_every`` seconds (a Ray cluster's
        CPUs, as nodes join and leave) and fit the places to it (:meth:`_fit`)."""
        while not self.closed:
            await asyncio.sleep(self.backend.refresh_every)
            try:
                size = max(1, await asyncio.to_thread(self.backend.capacity))
            except Exception as exc:  # the cluster did not answer: keep the last figure
                log.warning("cannot read the search capacity: %s", exc)
                continue
            if size != self.size:
                log.info("search capacity %d -> %d", self.size, size)
                self.size = size
            self._fit()
            self._dispatch()

    def _fit(self) -> None:
        """As many places as the capacity: start the missing ones, drain the surplus
        (the least busy first; each goes once its searches have ended)."""
        places = len(self._all) + self._coming
        for _ in range(self.size - places):
            self._coming += 1
            self._later(self._grow())
        excess = places - self.size - sum(1 for w in self._all if w.draining)
        spare = sorted((w for w in self._all if not w.draining),
                       key=lambda w: (len(w.sessions), -w.ident))
        for w in spare[:max(0, excess)]:
            w.draining = True
            self._retire_if_worn(w)

    async def close(self) -> None:
        """Kill every process (running searches included)."""
        self.closed = True
        for t in list(self._background):
            t.cancel()
        workers = list(self._all)
        for w in workers:
            self._forget(w)
            self._fail_all(w, WorkerDied("the service is shutting down"))
        for job in self._waiting:
            self._end(job, WorkerDied("the service is shutting down"))
        self._waiting.clear()

        def kill_all() -> None:
            for w in workers:
                w.kill()

        await asyncio.to_thread(kill_all)
        self.started = False

    # -- reporting -----------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        """Searches admitted and not started yet."""
        return len(self._waiting)

    @property
    def paused(self) -> int:
        """Searches started and paused between two slices."""
        return sum(1 for w in self._all for j in w.sessions.values() if j.state == "paused")

    @property
    def idle(self) -> int:
        """Processes running no slice now."""
        return sum(1 for w in self._all if w.ready and w.current is None)

    @property
    def in_flight(self) -> int:
        """Tickets admitted and not closed (requests and AI moves)."""
        return len(self._tickets)

    def workers(self) -> list[dict[str, Any]]:
        """Each process: id, pid, tasks run, searches open, memory (MB) last reported."""
        return [w.info() for w in sorted(self._all, key=lambda w: w.ident)]

    def retry_after(self) -> int:
        """Seconds until a place is likely free: the search in flight spread over the
        pool."""
        return max(1, math.ceil(sum(t.remaining() for t in self._tickets) / self.size))

    # -- admission -----------------------------------------------------------------------
    def admit(self, jobs: int, limit: float, *, client: str | None = None,
              background: bool = False) -> Ticket:
        """A ticket for ``jobs`` searches of about ``limit`` seconds, or :class:`Busy`.

        Decided now: a request of a client with nothing in flight is always admitted;
        other requests are refused while ``size + max_queue`` requests are in flight;
        ``background`` work (AI moves) is never refused. Run the work with ``run(...,
        ticket=)``; :meth:`Ticket.close` gives up a ticket."""
        if jobs < 1:
            raise ValueError(f"{jobs} tasks")
        if jobs > self.size:  # a Ray cluster that has lost nodes since the plan's check
            self.stats["refused"] += 1
            raise Busy(f"{jobs} searches at once asked; the service runs {self.size} at "
                       "once now; retry later or with fewer jobs", self.retry_after())
        who = client or SERVICE
        if not background and any(t.client == who for t in self._tickets):
            requests = sum(1 for t in self._tickets if not t.background)
            if requests >= self.size + self.max_queue:
                self.stats["refused"] += 1
                raise Busy(f"{requests} searches are in flight on {self.size} search "
                           "processes, the most this service takes while this client has "
                           "one of its own running; retry later", self.retry_after())
        t = Ticket(self, next(self._seq), jobs, limit, who, background)
        self._tickets.add(t)
        return t

    def _close_ticket(self, t: Ticket) -> None:
        if t.state == "closed":
            return
        t.state = "closed"
        self._tickets.discard(t)
        for job in t.job_list:
            self._abandon(job)
        self._dispatch()

    # -- running -------------------------------------------------------------------------
    async def run(self, tasks: list[Task], limit: float, *, admit: bool = True,
                  ticket: Ticket | None = None, client: str | None = None,
                  on_progress: Progress | None = None) -> list[Any]:
        """Run ``tasks`` (each a search on one process, in slices) and return their
        results in order.

        ``limit`` is the seconds of search each task is expected to take (past ``limit +
        grace`` it is stopped). ``ticket``: admitted before (:meth:`admit`), else
        admitted now: ``admit=True`` may refuse with :class:`Busy`; ``admit=False`` (the
        service's own work, such as AI moves) is never refused. ``client`` (default: the
        service) is whose work it is. ``on_progress(index, payload)`` receives progress
        messages. Cancelling the call stops the searches."""
        if not tasks:
            if ticket is not None:
                ticket.close()
            return []
        if ticket is None:
            ticket = self.admit(len(tasks), limit, client=client, background=not admit)
        elif ticket.jobs != len(tasks) or ticket.state != "admitted":
            ticket.close()
            raise ValueError(f"a ticket for {ticket.jobs} tasks ({ticket.state}), "
                             f"given {len(tasks)}")
        try:
            ticket.state = "running"
            ticket.job_list = [Job(next(self._job_ids), ticket, i, task, on_progress)
                               for i, task in enumerate(tasks)]
            for job in ticket.job_list:
                self._arrive(job.client)
                self._waiting.append(job)
            self._dispatch()
            return list(await asyncio.gather(*(j.result for j in ticket.job_list)))
        finally:
            ticket.close()

    # -- scheduling ------------------------------------------------------------------------
    def _arrive(self, client: str) -> None:
        """A job of ``client`` is in flight: a client coming back from nothing starts
        level with the least served client in flight."""
        if self._live.get(client, 0) == 0:
            self._vtime[client] = min((self._vtime[c] for c in self._live), default=0.0)
        self._live[client] = self._live.get(client, 0) + 1

    def _leave(self, client: str) -> None:
        left = self._live.get(client, 1) - 1
        if left > 0:
            self._live[client] = left
        else:
            self._live.pop(client, None)
            self._vtime.pop(client, None)

    def _rank(self, job: Job) -> tuple[int, float, int, float, int, int]:
        """Which job a free process runs next: stopped ones first (to unwind them), then
        the least served client, the client with fewer jobs; within a client the job
        that has run least (its analysis goes on beside its AI game's long move), then
        the oldest."""
        return (0 if job.stop else 1, self._vtime.get(job.client, 0.0),
                self._live.get(job.client, 0), job.used, *job.order())

    def _next_for(self, w: Worker) -> Job | None:
        mine = [j for j in w.sessions.values() if j.state == "paused"]
        if not w.draining and len(w.sessions) < self.max_sessions:
            mine += self._waiting
        return min(mine, key=self._rank, default=None)

    def _dispatch(self) -> None:
        """Give every free process the next slice it should run."""
        if self.closed:
            return
        for w in sorted(self._all, key=lambda w: w.ident):
            if w.ready and w.current is None and w in self._all:
                job = self._next_for(w)
                if job is not None:
                    self._give_slice(w, job)

    def _give_slice(self, w: Worker, job: Job) -> None:
        if job.state == "waiting":
            self._waiting.remove(job)
            job.worker = w
            w.sessions[job.ident] = job
            w.tasks += 1
            self.stats["tasks"] += 1
            message: tuple[Any, ...] = ("start", job.ident, job.task, self.slice)
        else:
            message = ("resume", job.ident, self.slice)
        job.state = "running"
        job.began = time.monotonic()
        w.current = job
        self.stats["slices"] += 1
        if not w.send(message):
            self._died(w)
            return
        budget = max(self.slice, job.ticket.limit - job.used) + self.grace
        w.watchdog = asyncio.get_running_loop().call_later(budget, self._overdue, w, job)

    # -- answers -------------------------------------------------------------------------
    def _on_message(self, w: Worker, message: tuple[Any, ...]) -> None:
        kind, ident, payload, rss = message
        if rss is not None:
            w.rss = int(rss)
        if kind == "pong":
            if w.pong is not None and not w.pong.done():
                w.pong.set_result(payload)
            return
        job = w.sessions.get(ident)
        if job is None:
            return
        if kind == "progress":
            if job.on_progress is not None and not job.stop:
                job.on_progress(job.index, payload)
            return
        self._slice_ended(w, job)
        if kind == "paused":
            job.state = "paused"
            if job.used > job.ticket.limit + self.grace and not job.stop:
                self.stats["timeouts"] += 1
                self._end(job, SearchTimeout(f"the search ran {job.used:.1f} s, past its "
                                             "limit, and was stopped"))
                self._abandon(job)
        else:
            del w.sessions[ident]
            if kind == "done":
                self._end(job, None, payload)
            else:
                self.stats["errors"] += 1
                self._end(job, SearchFailed(f"the search failed: {payload}"))
            self._leave(job.client)
            job.state = "done"
            self._retire_if_worn(w)
        self._dispatch()

    def _slice_ended(self, w: Worker, job: Job) -> None:
        """Charge the slice that just ended to its job and client."""
        if w.watchdog is not None:
            w.watchdog.cancel()
            w.watchdog = None
        ran = time.monotonic() - job.began
        job.used += ran
        if job.client in self._vtime:
            self._vtime[job.client] += ran
        w.current = None

    def _end(self, job: Job, error: BaseException | None, result: Any = None) -> None:
        """Give the job's caller its answer (once)."""
        if job.result.done():
            return
        if error is not None:
            job.result.set_exception(error)
            job.result.exception()  # retrieved: a caller that left does not need it
        else:
            job.result.set_result(result)

    def _abandon(self, job: Job) -> None:
        """Nobody wants this job's answer any more: stop it (an unstarted one at once)."""
        if job.state == "done" or job.stop:
            return
        job.stop = True
        self.stats["cancelled"] += 1
        if job.state == "waiting":
            self._waiting.remove(job)
            job.state = "done"
            self._leave(job.client)
            job.result.cancel()
        elif job.worker is not None and not job.worker.send(("stop", job.ident)):
            self._died(job.worker)

    # -- failures and recycling ----------------------------------------------------------
    def _overdue(self, w: Worker, job: Job) -> None:
        """A slice did not end in time: kill its process."""
        w.watchdog = None
        if w not in self._all or w.current is not job:
            return
        self.stats["timeouts"] += 1
        self._end(job, SearchTimeout(f"the search did not pause or answer within "
                                     f"{time.monotonic() - job.began:.1f} s and was "
                                     "stopped"))
        self._died(w, renew_reason="timeout")

    def _died(self, w: Worker, renew_reason: str = "crash") -> None:
        """The process is gone (or killed): fail its searches, put a fresh one in."""
        if w not in self._all:
            return
        if renew_reason == "crash":
            self.stats["crashes"] += 1
        coming_up = not w.ready  # then _bring_up's caller replaces it
        self._forget(w)
        self._fail_all(w, WorkerDied("the search process died (it is replaced; the "
                                     "service goes on)"))
        if not coming_up:
            self._later(self._replace(w))
        self._dispatch()

    def _forget(self, w: Worker) -> None:
        self._all.discard(w)
        w.ready = False
        if w.watchdog is not None:
            w.watchdog.cancel()
            w.watchdog = None
        w.unlisten()
        if w.pong is not None and not w.pong.done():  # no longer waited for
            w.pong.set_exception(WorkerDied("the new search process was dropped"))

    def _fail_all(self, w: Worker, error: SearchFailed) -> None:
        for job in list(w.sessions.values()):
            self._end(job, error)
            job.state = "done"
            self._leave(job.client)
        w.sessions.clear()
        w.current = None

    def _retire_if_worn(self, w: Worker) -> None:
        worn = bool((self.max_tasks and w.tasks >= self.max_tasks)
                    or (self.max_rss_mb and w.rss > self.max_rss_mb * 2**20))
        if worn and not w.draining:
            w.draining = True
        if w.draining and not w.sessions and w in self._all:
            self.stats["recycled"] += 1
            log.info("recycling search process %s after %d tasks (%.0f MB)", w.ident,
                     w.tasks, w.rss / 2**20)
            self._forget(w)
            self._later(self._replace(w))

    def _later(self, coro: Any) -> None:
        t = asyncio.ensure_future(coro)
        self._background.add(t)
        t.add_done_callback(self._background.discard)

    async def _replace(self, old: Worker) -> None:
        """Kill ``old`` and bring up a fresh place instead (unless the capacity has
        fallen: a Ray node gone)."""
        await asyncio.to_thread(old.kill)
        if not self.closed and len(self._all) + self._coming < self.size:
            self._coming += 1
            await self._grow()

    async def _grow(self) -> None:
        """Bring up a new place (counted in ``_coming`` by the caller), three tries."""
        for attempt in range(3):
            new = None
            try:
                if not self.closed:
                    new = await asyncio.to_thread(self._new_worker)
            finally:
                self._coming -= 1
            if new is None:
                return
            if await self._bring_up(new):
                self._dispatch()
                return
            log.error("a new search process did not answer (attempt %d)", attempt + 1)
            if self.closed or len(self._all) + self._coming >= self.size:
                return
            self._coming += 1
