"""``GET /v1/health``: liveness, the search pool, the per-client limits, the database."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from advisor_api.service import ServiceDep
from advisor_api.version import VERSION

router = APIRouter(tags=["service"])


@router.get("/v1/health")
async def health(svc: ServiceDep) -> dict[str, Any]:
    """Liveness and the state of the search pool: where it runs (``backend``: ``kind``
    ``processes``, or ``ray`` with the cluster's ``address``, ``cpus``, ``free_cpus`` and
    ``nodes`` as last read), searches at once (``workers``: the processes, or the
    cluster's CPUs), processes (each with its pid, on Ray its node, its tasks, open
    searches and memory), idle ones, searches not started yet (``queued``) and
    paused between two slices (``paused``), admitted work in flight (``in_flight``:
    analyses, streams and AI moves), counters, the per-client limits, and
    the database (``database``: ok, busy or error, as last known: never waits for it
    more than 0.2 s)."""
    pool = svc.pool
    return {"status": "ok", "version": VERSION, "workers": pool.size, "idle": pool.idle,
            "queued": pool.waiting, "paused": pool.paused, "in_flight": pool.in_flight,
            "max_queue": pool.max_queue, "backend": pool.backend.info(),
            "processes": pool.workers(),
            "stats": dict(pool.stats), "clients": svc.limits.snapshot(),
            **(await svc.store.health())}
