"""The search processes' task table: the service's kinds only; tests add theirs through
the pool's ``extra_tasks`` hook (``tests/worker_tasks.py``), never through the service."""

from __future__ import annotations

import asyncio

import pytest

from advisor_api import worker
from advisor_api.errors import SearchFailed
from advisor_api.pool import WorkerPool
from tests.worker_tasks import WORKER_TASKS


def test_the_service_table_has_no_test_kinds() -> None:
    assert set(worker.TASKS) == {"analyse", "bot", "review"}
    assert set(worker.task_table()) == {"analyse", "bot", "review"}


def test_extra_tasks_add_kinds_by_module_name() -> None:
    table = worker.task_table(WORKER_TASKS)
    assert {"_sleep", "_raise", "_crash", "_grow"} <= set(table)
    assert table["analyse"] is worker.run_analysis


def _run(extra: str | None, task: dict[str, object]) -> object:
    async def go() -> object:
        pool = WorkerPool(1, 1, 2.0, extra_tasks=extra)
        await pool.start()
        try:
            [out] = await pool.run([task], 1.0)
            return out
        finally:
            await pool.close()

    return asyncio.run(go())


def test_a_pool_runs_test_kinds_only_when_given_them() -> None:
    assert _run(WORKER_TASKS, {"kind": "_sleep", "seconds": 0.01}) == "slept"
    with pytest.raises(SearchFailed, match="KeyError"):
        _run(None, {"kind": "_sleep", "seconds": 0.01})
