"""Task kinds for tests of the search pool, run by its worker processes: a search that
sleeps or spins, raises, kills its process or grows its memory.

Not in the service's task table: a test passes this module's dotted name to the pool
(``create_app(..., worker_tasks=WORKER_TASKS)``, ``WorkerPool(..., extra_tasks=...)``),
and each worker process imports it at start (:func:`advisor_api.worker.task_table`).
"""

from __future__ import annotations

import os
import time

from advisor_api.worker import Session, Task, TaskFn

#: The dotted name to pass to the pool.
WORKER_TASKS = __name__


def _sleep(task: Task, session: Session) -> str:
    """Sleep ``seconds`` in one go, never paused (a search stuck where it cannot pause)."""
    time.sleep(float(task.get("seconds", 1.0)))
    return "slept"


def _spin(task: Task, session: Session) -> str:
    """Think ``seconds`` on the session's clock in steps of 10 ms, a checkpoint between
    steps (paused at slice ends, stopped on "stop"), like a search."""
    end = session.clock() + float(task.get("seconds", 1.0))
    while session.clock() < end:
        if not session.checkpoint():
            return "stopped"
        time.sleep(0.01)
    return "done"


_BALLAST: list[bytes] = []


def _grow(task: Task, session: Session) -> int:
    """Keep ``mb`` more megabytes for the life of the process (tests of recycling)."""
    _BALLAST.append(b"\x01" * (int(task.get("mb", 1)) << 20))
    return len(_BALLAST)


def _raise(task: Task, session: Session) -> str:
    raise RuntimeError(task.get("message", "boom"))


def _crash(task: Task, session: Session) -> str:
    os._exit(3)


TASKS: dict[str, TaskFn] = {"_sleep": _sleep, "_spin": _spin, "_raise": _raise, "_crash": _crash,
                            "_grow": _grow}
