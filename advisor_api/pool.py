"""A pool of search processes with one admission control, deadlines, crash recovery and
recycling.

Searches never run on the event loop: each task goes to an idle worker process
(:mod:`advisor_api.worker`) over a pipe, and the loop waits for its answer without
blocking (``add_reader`` on the pipe).

Admission. Every piece of work (an analysis, a stream, an AI move) takes a
:class:`Ticket` from :meth:`WorkerPool.admit` before it runs: the ticket gets its
processes at once if they are idle and nobody waits, else it joins the queue of at most
``max_queue`` tickets. A request over that is refused at once with
:class:`~advisor_api.errors.Busy` (429 with Retry-After). Background work (AI moves,
``admit=False``) is never refused: it takes at most half of the queue's places
(:attr:`WorkerPool.background_share`) and, while those are taken, waits outside the queue
(``deferred``, holding nothing) for its turn, first come first served. When processes
free up, the queued ticket of the client holding the fewest processes goes first (then
the oldest), so one busy client cannot keep the others waiting.

A task that has not answered by its deadline is killed
(:class:`~advisor_api.errors.SearchTimeout`, 504); a process that dies answers
:class:`~advisor_api.errors.SearchFailed` (500). Either way a fresh process takes its
place and the service goes on. A process that has run ``max_tasks`` tasks, or whose
memory after a task is above ``max_rss_mb``, is replaced by a fresh one between tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import multiprocessing
import time
from collections import deque
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
    """One search process and the parent's end of its pipe."""

    def __init__(self, ctx: BaseContext, ident: int, extra_tasks: str | None = None) -> None:
        parent, child = ctx.Pipe(duplex=True)
        self.ident = ident
        self.conn: Connection = parent
        self.proc: BaseProcess = ctx.Process(  # type: ignore[attr-defined]
            target=worker_main, args=(child, extra_tasks), name=f"mombasa-search-{ident}",
            daemon=True)
        self.proc.start()
        child.close()
        self.tasks = 0
        self.rss = 0  # bytes, as the process last reported it

    def kill(self) -> None:
        """End the process at once (it may be in the middle of a search)."""
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.join(2)
        with contextlib.suppress(Exception):
            self.conn.close()

    def alive(self) -> bool:
        return self.proc.is_alive()

    def info(self) -> dict[str, Any]:
        return {"id": self.ident, "pid": self.proc.pid, "tasks": self.tasks,
                "rss_mb": round(self.rss / 2**20, 1)}


class Ticket:
    """Admitted work: deferred, queued, then holding its processes until released."""

    def __init__(self, pool: WorkerPool, seq: int, jobs: int, limit: float, client: str,
                 background: bool) -> None:
        self.pool = pool
        self.seq = seq
        self.jobs = jobs
        self.limit = limit
        self.client = client
        self.background = background
        self.state = "new"  # deferred, queued, assigned, running, closed
        self.workers: list[Worker] = []
        self.ready = asyncio.Event()

    def close(self) -> None:
        """Give up the ticket: leave the queue, or give back processes never used."""
        self.pool._close_ticket(self)


class WorkerPool:
    """``size`` search processes shared by every request of the service.

    ``extra_tasks`` (tests only): the dotted name of a module of more task kinds that
    every process imports at start (:func:`advisor_api.worker.task_table`)."""

    def __init__(self, size: int, max_queue: int, grace: float, *, max_tasks: int = 0,
                 max_rss_mb: float = 0, extra_tasks: str | None = None) -> None:
        self.size = size
        self.max_queue = max_queue
        self.grace = grace
        self.max_tasks = max_tasks  # 0: never recycle for the count of tasks
        self.max_rss_mb = max_rss_mb  # 0: never recycle for memory
        #: Queue places background work (AI moves) may hold; the rest stay for requests.
        self.background_share = (max_queue + 1) // 2
        self._ctx = _context()
        self.extra_tasks = extra_tasks
        self._idle: list[Worker] = []
        self._all: set[Worker] = set()
        self._queue: list[Ticket] = []
        self._deferred: deque[Ticket] = deque()
        self._holding: dict[str, int] = {}  # client -> processes it holds now
        self._active: set[Ticket] = set()  # queued, assigned or running (Retry-After)
        self._seq = itertools.count()
        self._next_id = 0
        self._background: set[asyncio.Task[None]] = set()
        self.started = False
        self.closed = False
        self.stats = {"tasks": 0, "timeouts": 0, "crashes": 0, "errors": 0, "refused": 0,
                      "cancelled": 0, "recycled": 0}

    # -- life cycle ----------------------------------------------------------------------
    def _new_worker(self) -> Worker:
        """Start a process (blocking: run it in a thread)."""
        return Worker(self._ctx, self._ident(), self.extra_tasks)

    def _ident(self) -> int:
        self._next_id += 1
        return self._next_id

    async def start(self) -> None:
        """Start the processes and wait until each answers (modules imported)."""
        idents = [self._ident() for _ in range(self.size)]
        workers = await asyncio.to_thread(
            lambda: [Worker(self._ctx, i, self.extra_tasks) for i in idents])
        self._all.update(workers)
        self.started = True
        await asyncio.gather(*(self._exchange(w, {"kind": "ping"}, 60.0, None, 0)
                               for w in workers))
        self._idle.extend(workers)
        self._dispatch()

    async def close(self) -> None:
        """Kill every process (running searches included)."""
        self.closed = True
        for t in list(self._background):
            t.cancel()
        workers = list(self._all)
        self._all.clear()
        self._idle.clear()

        def kill_all() -> None:
            for w in workers:
                w.kill()

        await asyncio.to_thread(kill_all)
        self.started = False

    # -- admission -----------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        """Tickets in the queue (at most ``max_queue``)."""
        return len(self._queue)

    @property
    def deferred(self) -> int:
        """Background tickets waiting for a place in the queue."""
        return len(self._deferred)

    @property
    def idle(self) -> int:
        return len(self._idle)

    def workers(self) -> list[dict[str, Any]]:
        """Each process: id, pid, tasks run, memory (MB) after its last task."""
        return [w.info() for w in sorted(self._all, key=lambda w: w.ident)]

    def retry_after(self) -> int:
        """Seconds until a place is likely free: the admitted work spread over the pool."""
        return max(1, math.ceil(sum(t.limit for t in self._active) / self.size))

    def admit(self, jobs: int, limit: float, *, client: str | None = None,
              background: bool = False) -> Ticket:
        """A ticket for ``jobs`` processes for about ``limit`` seconds, or :class:`Busy`.

        Decided now, before any waiting: processes assigned at once if idle and nobody
        waits; else a place in the queue; else (a request) 429, or (``background``) a wait
        outside the queue for a place, never refused. Run the work with
        ``run(..., ticket=)``; :meth:`Ticket.close` gives up a ticket never run."""
        if not 1 <= jobs <= self.size:
            raise ValueError(f"{jobs} tasks at once, the pool has {self.size}")
        t = Ticket(self, next(self._seq), jobs, limit, client or SERVICE, background)
        if self._free_now(t):
            self._enqueue(t)
        elif background:
            if self._deferred or not self._room_for(t):
                t.state = "deferred"
                self._deferred.append(t)
                return t
            self._enqueue(t)
        elif len(self._queue) >= self.max_queue:
            self.stats["refused"] += 1
            raise Busy(f"all {self.size} search processes are busy and "
                       f"{len(self._queue)} searches are queued; retry later",
                       self.retry_after())
        else:
            self._enqueue(t)
        self._dispatch()
        return t

    def _free_now(self, t: Ticket) -> bool:
        return not self._queue and len(self._idle) >= t.jobs

    def _room_for(self, t: Ticket) -> bool:
        """Whether the background ticket ``t`` may join the queue now."""
        if self._free_now(t):
            return True
        queued_bg = sum(1 for q in self._queue if q.background)
        return len(self._queue) < self.max_queue and queued_bg < self.background_share

    def _enqueue(self, t: Ticket) -> None:
        t.state = "queued"
        self._queue.append(t)
        self._active.add(t)

    def _dispatch(self) -> None:
        """Hand idle processes to queued tickets; let deferred ones into the queue."""
        while True:
            while self._deferred and self._room_for(self._deferred[0]):
                self._enqueue(self._deferred.popleft())
            if not self._queue or self.closed:
                return
            # the client holding the fewest processes first, then the oldest ticket
            t = min(self._queue, key=lambda q: (self._holding.get(q.client, 0), q.seq))
            if len(self._idle) < t.jobs:
                return
            self._queue.remove(t)
            t.workers = [self._idle.pop() for _ in range(t.jobs)]
            self._holding[t.client] = self._holding.get(t.client, 0) + t.jobs
            t.state = "assigned"
            t.ready.set()

    def _close_ticket(self, t: Ticket) -> None:
        if t.state == "deferred":
            self._deferred.remove(t)
        elif t.state == "queued":
            self._queue.remove(t)
        elif t.state == "assigned":  # processes never used: straight back
            for w in t.workers:
                self._give_back(t, w)
        if t.state != "closed":
            t.state = "closed"
            self._active.discard(t)
            self._dispatch()

    def _give_back(self, t: Ticket, w: Worker, dead: bool = False) -> None:
        """A process the ticket held is released (idle again, or renewed first)."""
        left = self._holding.get(t.client, 0) - 1
        if left > 0:
            self._holding[t.client] = left
        else:
            self._holding.pop(t.client, None)
        if w not in self._all:  # the pool was closed meanwhile
            return
        if dead or not w.alive():
            self._all.discard(w)
            self._later(self._renew(w, dead=True))
        elif self._worn(w):
            self._later(self._renew(w, dead=False))
        else:
            self._idle.append(w)
        self._dispatch()

    def _worn(self, w: Worker) -> bool:
        return bool((self.max_tasks and w.tasks >= self.max_tasks)
                    or (self.max_rss_mb and w.rss > self.max_rss_mb * 2**20))

    async def _renew(self, old: Worker, dead: bool) -> None:
        """Replace a dead or worn process by a fresh one (then idle)."""
        self._all.discard(old)  # from now on nothing hands it out
        if not dead:
            self.stats["recycled"] += 1
            log.info("recycling search process %s after %d tasks (%.0f MB)", old.ident,
                     old.tasks, old.rss / 2**20)
        await asyncio.to_thread(old.kill)
        for attempt in range(3):
            if self.closed:
                return
            new = await asyncio.to_thread(self._new_worker)
            self._all.add(new)
            try:
                await self._exchange(new, {"kind": "ping"}, 60.0, None, 0)
            except (SearchFailed, SearchTimeout):
                log.error("a new search process did not answer (attempt %d)", attempt + 1)
                self._all.discard(new)
                await asyncio.to_thread(new.kill)
                continue
            if new in self._all:
                self._idle.append(new)
                self._dispatch()
            return

    # -- running -------------------------------------------------------------------------
    async def run(self, tasks: list[Task], limit: float, *, admit: bool = True,
                  ticket: Ticket | None = None, client: str | None = None,
                  on_progress: Progress | None = None) -> list[Any]:
        """Run ``tasks`` at once on as many processes and return their results in order.

        ``limit`` is the seconds the tasks are expected to take; past ``limit + grace``
        they are killed. ``ticket``: admitted before (:meth:`admit`), else admitted now:
        ``admit=True`` refuses with :class:`Busy` when the queue is full; ``admit=False``
        (the service's own work, such as AI moves) waits its turn for a place instead,
        never refused. ``client`` (default: the service) is whose work it is.
        ``on_progress(index, payload)`` receives progress messages. Cancelling the call
        stops the searches (their processes go back to the pool once they have stopped).
        """
        if not tasks:
            if ticket is not None:
                ticket.close()
            return []
        if ticket is None:
            ticket = self.admit(len(tasks), limit, client=client, background=not admit)
        elif ticket.jobs != len(tasks):
            ticket.close()
            raise ValueError(f"a ticket for {ticket.jobs} tasks, given {len(tasks)}")
        runs: list[asyncio.Future[Any]] = []
        started: set[int] = set()  # runs whose body began (each then releases its process)
        try:
            await ticket.ready.wait()
            ticket.state = "running"
            runs = [asyncio.ensure_future(self._run_one(
                        ticket, w, t, limit + self.grace, on_progress, i, started))
                    for i, (w, t) in enumerate(zip(ticket.workers, tasks, strict=True))]
            return list(await asyncio.gather(*runs))
        except BaseException:
            for i, r in enumerate(runs):
                r.cancel()
                if i not in started:  # cancelled before it began: it never will
                    self._give_back(ticket, ticket.workers[i])
            raise
        finally:
            ticket.close()

    async def _run_one(self, ticket: Ticket, w: Worker, task: Task, timeout: float,
                       on_progress: Progress | None, index: int, started: set[int]) -> Any:
        started.add(index)
        self.stats["tasks"] += 1
        w.tasks += 1
        outcome = "cancelled"
        try:
            result = await self._exchange(w, task, timeout, on_progress, index)
            outcome = "done"
            return result
        except SearchTimeout:
            outcome = "dead"
            self.stats["timeouts"] += 1
            raise
        except SearchFailed as exc:
            outcome = "dead" if isinstance(exc, WorkerDied) else "done"
            self.stats["crashes" if outcome == "dead" else "errors"] += 1
            raise
        finally:
            if outcome == "done":
                self._give_back(ticket, w)
            elif outcome == "dead":
                self._give_back(ticket, w, dead=True)
            else:
                self.stats["cancelled"] += 1
                self._later(self._drain(ticket, w, timeout))

    def _later(self, coro: Any) -> None:
        t = asyncio.ensure_future(coro)
        self._background.add(t)
        t.add_done_callback(self._background.discard)

    async def _drain(self, ticket: Ticket, w: Worker, timeout: float) -> None:
        """After a cancelled task: ask the search to stop, wait for its answer, release
        (a process that does not stop within the grace period is killed and replaced)."""
        dead = True
        try:
            with contextlib.suppress(OSError, ValueError):
                w.conn.send("stop")
            await self._exchange(w, None, min(timeout, self.grace), None, 0)
            dead = False
        except (SearchTimeout, WorkerDied):
            pass
        except SearchFailed:  # the search raised while stopping: the process is fine
            dead = False
        finally:
            self._give_back(ticket, w, dead=dead)

    async def _exchange(self, w: Worker, task: Task | None, timeout: float,
                        on_progress: Progress | None, index: int) -> Any:
        """Send ``task`` (None: only wait) and wait for the answer of ``w``."""
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        fd = w.conn.fileno()

        def readable() -> None:
            try:
                while w.conn.poll():
                    inbox.put_nowait(w.conn.recv())
            except (EOFError, OSError):
                loop.remove_reader(fd)
                inbox.put_nowait(("eof", None))

        loop.add_reader(fd, readable)
        deadline = time.monotonic() + timeout
        try:
            if task is not None:
                try:
                    w.conn.send(task)
                except (OSError, ValueError):
                    raise WorkerDied("the search process is gone") from None
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                kind, payload, *more = await asyncio.wait_for(inbox.get(), remaining)
                if more:
                    w.rss = int(more[0])
                if kind == "progress":
                    if on_progress is not None:
                        on_progress(index, payload)
                elif kind == "done":
                    return payload
                elif kind == "error":
                    raise SearchFailed(f"the search failed: {payload}")
                else:
                    raise WorkerDied("the search process died (it is replaced; the "
                                     "service goes on)")
        except TimeoutError:
            raise SearchTimeout(f"the search did not answer within {timeout:.1f} s and was "
                                "stopped") from None
        finally:
            with contextlib.suppress(Exception):
                loop.remove_reader(fd)
