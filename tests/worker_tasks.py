"""Task kinds for tests of the search pool, run by its worker processes: a search that
sleeps, raises, kills its process or grows its memory.

Not in the service's task table: a test passes this module's dotted name to the pool
(``create_app(..., worker_tasks=WORKER_TASKS)``, ``WorkerPool(..., extra_tasks=...)``),
and each worker process imports it at start (:func:`advisor_api.worker.task_table`).
"""

from __future__ import annotations

import os
import time
from multiprocessing.connection import Connection

from advisor_api.worker import Task, TaskFn, stop_requested

#: The dotted name to pass to the pool.
WORKER_TASKS = __name__


def _sleep(task: Task, conn: Connection | None = None) -> str:
    """Sleep ``seconds`` (in steps of 10 ms, ending early on "stop" when ``stoppable``)."""
    end = time.monotonic() + float(task.get("seconds", 1.0))
    while (left := end - time.monotonic()) > 0:
        if task.get("stoppable") and conn is not None and stop_requested(conn):
            return "stopped"
        time.sleep(min(left, 0.01))
    return "slept"


_BALLAST: list[bytes] = []


def _grow(task: Task, conn: Connection | None = None) -> int:
    """Keep ``mb`` more megabytes for the life of the process (tests of recycling)."""
    _BALLAST.append(b"\x01" * (int(task.get("mb", 1)) << 20))
    return len(_BALLAST)


def _raise(task: Task, conn: Connection | None = None) -> str:
    raise RuntimeError(task.get("message", "boom"))


def _crash(task: Task, conn: Connection | None = None) -> str:
    os._exit(3)


TASKS: dict[str, TaskFn] = {"_sleep": _sleep, "_raise": _raise, "_crash": _crash,
                            "_grow": _grow}
