"""A pool of search processes with admission control, deadlines and crash recovery.

Searches never run on the event loop: each task goes to an idle worker process
(:mod:`advisor_api.worker`) over a pipe, and the loop waits for its answer without
blocking (``add_reader`` on the pipe). ``size`` processes run at once; up to
``max_queue`` requests wait in FIFO order and one more is refused with
:class:`~advisor_api.errors.Busy` (429 with Retry-After). A task that has not answered by
its deadline is killed (:class:`~advisor_api.errors.SearchTimeout`, 504); a process that
dies answers :class:`~advisor_api.errors.SearchFailed` (500). Either way a fresh process
takes its place and the service goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
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

    def __init__(self, ctx: BaseContext, ident: int) -> None:
        parent, child = ctx.Pipe(duplex=True)
        self.ident = ident
        self.conn: Connection = parent
        self.proc: BaseProcess = ctx.Process(  # type: ignore[attr-defined]
            target=worker_main, args=(child,), name=f"mombasa-search-{ident}", daemon=True)
        self.proc.start()
        child.close()
        self.tasks = 0

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


class WorkerPool:
    """``size`` search processes shared by every request of the service."""

    def __init__(self, size: int, max_queue: int, grace: float) -> None:
        self.size = size
        self.max_queue = max_queue
        self.grace = grace
        self._ctx = _context()
        self._idle: list[Worker] = []
        self._all: set[Worker] = set()
        self._waiters: deque[object] = deque()
        self._cond: asyncio.Condition | None = None
        self._next_id = 0
        self._load: dict[int, float] = {}  # lease id -> expected seconds (Retry-After)
        self._background: set[asyncio.Task[None]] = set()
        self.started = False
        self.stats = {"tasks": 0, "timeouts": 0, "crashes": 0, "errors": 0, "refused": 0}

    # -- life cycle ----------------------------------------------------------------------
    def _spawn(self) -> Worker:
        self._next_id += 1
        w = Worker(self._ctx, self._next_id)
        self._all.add(w)
        return w

    async def start(self) -> None:
        """Start the processes and wait until each answers (modules imported)."""
        self._cond = asyncio.Condition()
        workers = await asyncio.to_thread(lambda: [self._spawn() for _ in range(self.size)])
        self.started = True
        await asyncio.gather(*(self._exchange(w, {"kind": "ping"}, 60.0, None, 0)
                               for w in workers))
        async with self._cond:
            self._idle.extend(workers)
            self._cond.notify_all()

    async def close(self) -> None:
        """Kill every process (running searches included)."""
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
        return len(self._waiters)

    @property
    def idle(self) -> int:
        return len(self._idle)

    def retry_after(self) -> int:
        """Seconds until a place is likely free: the queued work spread over the pool."""
        return max(1, math.ceil(sum(self._load.values()) / self.size))

    async def _acquire(self, k: int, admit: bool) -> list[Worker]:
        assert self._cond is not None, "WorkerPool.start() first"
        async with self._cond:
            free_now = not self._waiters and len(self._idle) >= k
            if admit and not free_now and len(self._waiters) >= self.max_queue:
                self.stats["refused"] += 1
                raise Busy(f"all {self.size} search processes are busy and "
                           f"{len(self._waiters)} searches are queued; retry later",
                           self.retry_after())
            token = object()
            self._waiters.append(token)
            try:
                await self._cond.wait_for(
                    lambda: self._waiters[0] is token and len(self._idle) >= k)
            finally:
                self._waiters.remove(token)
                self._cond.notify_all()
            return [self._idle.pop() for _ in range(k)]

    async def _release(self, w: Worker) -> None:
        assert self._cond is not None
        if w not in self._all:  # the pool was closed meanwhile
            return
        if not w.alive():
            w = await self._replace(w)
        async with self._cond:
            self._idle.append(w)
            self._cond.notify_all()

    async def _replace(self, w: Worker) -> Worker:
        self._all.discard(w)
        await asyncio.to_thread(w.kill)
        return await asyncio.to_thread(self._spawn)

    # -- running -------------------------------------------------------------------------
    async def run(self, tasks: list[Task], limit: float, *, admit: bool = True,
                  on_progress: Progress | None = None) -> list[Any]:
        """Run ``tasks`` at once on as many processes and return their results in order.

        ``limit`` is the seconds the tasks are expected to take; past ``limit + grace``
        they are killed. ``admit``: refuse with :class:`Busy` when the queue is full
        (False: wait whatever the queue, for the service's own work such as AI moves).
        ``on_progress(index, payload)`` receives progress messages. Cancelling the call
        stops the searches (their processes go back to the pool once they have stopped).
        """
        if not tasks:
            return []
        k = min(len(tasks), self.size)
        if k < len(tasks):
            raise ValueError(f"{len(tasks)} tasks at once, the pool has {self.size}")
        lease = id(object())
        self._load[lease] = limit
        try:
            workers = await self._acquire(k, admit)
        except BaseException:
            self._load.pop(lease, None)
            raise
        runs = [asyncio.ensure_future(self._run_one(w, t, limit + self.grace, on_progress, i))
                for i, (w, t) in enumerate(zip(workers, tasks, strict=True))]
        try:
            return list(await asyncio.gather(*runs))
        except BaseException:
            for r in runs:
                r.cancel()
            raise
        finally:
            self._load.pop(lease, None)

    async def _run_one(self, w: Worker, task: Task, timeout: float,
                       on_progress: Progress | None, index: int) -> Any:
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
                await asyncio.shield(self._release(w))
            elif outcome == "dead":
                self._later(self._replace_and_release(w))
            else:
                self._later(self._drain(w, timeout))

    def _later(self, coro: Any) -> None:
        t = asyncio.ensure_future(coro)
        self._background.add(t)
        t.add_done_callback(self._background.discard)

    async def _replace_and_release(self, w: Worker) -> None:
        if w in self._all:
            await self._release(await self._replace(w))

    async def _drain(self, w: Worker, timeout: float) -> None:
        """After a cancelled task: ask the search to stop, wait for its answer, release."""
        try:
            with contextlib.suppress(OSError, ValueError):
                w.conn.send("stop")
            await self._exchange(w, None, min(timeout, self.grace), None, 0)
            await self._release(w)
        except (SearchTimeout, SearchFailed):
            await self._replace_and_release(w)

    async def _exchange(self, w: Worker, task: Task | None, timeout: float,
                        on_progress: Progress | None, index: int) -> Any:
        """Send ``task`` (None: only wait) and wait for the answer of ``w``."""
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
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
                kind, payload = await asyncio.wait_for(inbox.get(), remaining)
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
