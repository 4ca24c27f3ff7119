"""``GET /v1/health``: liveness, the search pool, the per-client limits, the database."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from advisor_api.service import ServiceDep
from advisor_api.version import VERSION

router = APIRouter(tags=["service"])


@router.get("/v1/health")
async def health(svc: ServiceDep) -> dict[str, Any]:
    """Liveness and the state of the search pool: processes (each with its tasks and
    memory), idle ones, searches queued (at most ``max_queue``) and AI moves waiting
    for a place in the queue (``deferred``), counters, the per-client limits, and
    the database (``database``: ok, busy or error, as last known: never waits for it
    more than 0.2 s)."""
    pool = svc.pool
    return {"status": "ok", "version": VERSION, "workers": pool.size, "idle": pool.idle,
            "queued": pool.waiting, "max_queue": pool.max_queue,
            "deferred": pool.deferred, "processes": pool.workers(),
            "stats": dict(pool.stats), "clients": svc.limits.snapshot(),
            **(await svc.store.health())}
