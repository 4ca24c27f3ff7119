"""Analyses run in the search pool: a request read into a plan, admitted (429), run
plainly or streamed as Server-Sent Events, the answers of its processes merged.

Used by ``POST /v1/analyse``, ``POST /v1/analyse/stream`` and a game's ``GET
.../analysis`` (:mod:`advisor_api.routes`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import StreamingResponse

from advisor_api import analysis, sse
from advisor_api.errors import ApiError, InvalidInput
from advisor_api.limits import CLIENT, Lease, unless_disconnected
from advisor_api.pool import Ticket
from advisor_api.schemas import AnalyseRequest
from advisor_api.service import Service
from search.mcts import SearchResult
from search.parallel import RootStats, merge


def plan(req: AnalyseRequest, svc: Service) -> analysis.Plan:
    """Read and check the request (422 / 409), fix the limits and the seed; ``jobs`` at
    most the searches the pool runs at once now (its backend's current capacity)."""
    if (req.state is None) == (req.observation is None):
        field = "state" if req.state is None else "observation"
        raise InvalidInput(f"{field}: give exactly one of 'state' and 'observation'",
                           field=field)
    if req.state is not None:
        obs = analysis.observation_for_decider(analysis.read_state(req.state))
    else:
        obs = analysis.read_observation(req.observation)
    limit = req.limit
    return analysis.make_plan(
        obs, svc.settings, iterations=limit.iterations if limit else None,
        time=limit.time if limit else None, multipv=req.multipv, seed=req.seed,
        jobs=req.jobs, max_jobs=svc.pool.size)


def admit(svc: Service, plan: analysis.Plan) -> tuple[Ticket, Lease]:
    """Admit an analysis now, or 429: the client's limit of analyses at once
    (``client-limit``), then a place in the search pool (``busy``). The caller closes
    the ticket and releases the lease when done."""
    client = CLIENT.get()
    lease = svc.limits.analysis(client, plan.expected)
    try:
        return svc.pool.admit(plan.jobs, plan.expected, client=client), lease
    except BaseException:
        lease.release()
        raise


async def analyse(svc: Service, plan: analysis.Plan) -> dict[str, Any]:
    """A plain analysis: admitted (429), run, and stopped if its client goes away."""
    ticket, lease = admit(svc, plan)
    try:
        run = asyncio.ensure_future(svc.pool.run(plan.tasks(), plan.expected,
                                                 ticket=ticket))
        answers = await unless_disconnected(run)
    finally:
        ticket.close()
        lease.release()
    return _answer(plan, answers)


def stream_response(svc: Service, plan: analysis.Plan) -> StreamingResponse:
    """The streamed analysis, admitted now (429 before any event)."""
    ticket, lease = admit(svc, plan)
    return sse.event_stream(_stream(svc, plan, ticket), [ticket.close, lease.release])


async def _stream(svc: Service, plan: analysis.Plan, ticket: Ticket) -> AsyncIterator[str]:
    """Server-Sent Events: ``lines`` every ``stream_interval``, then ``done``."""
    latest: dict[int, RootStats] = {}
    fresh = False

    def progress(index: int, stats: Any) -> None:
        nonlocal fresh
        latest[index] = stats
        fresh = True

    interval = svc.settings.stream_interval
    task = asyncio.ensure_future(svc.pool.run(
        plan.tasks(progress_every=interval), plan.expected, ticket=ticket,
        on_progress=progress))
    try:
        yield ": search started\n\n"
        while not task.done():
            await asyncio.wait({task}, timeout=interval)
            if fresh and not task.done():
                fresh = False
                parts = list(latest.values())
                body = analysis.build_response(plan, _merge(plan, parts), _elapsed(parts),
                                               final=False)
                yield sse.event("lines", body)
        try:
            answers = task.result()
        except ApiError as exc:
            yield sse.event("error", exc.body())
            return
        yield sse.event("done", _answer(plan, answers))
    finally:
        if not task.done():
            task.cancel()


def _answer(plan: analysis.Plan, answers: list[Any]) -> dict[str, Any]:
    """The final answer from every process's answer."""
    parts = [a["stats"] for a in answers]
    return analysis.build_response(plan, _merge(plan, parts), _elapsed(parts),
                                   solved=answers[0]["solved"])


def _merge(plan: analysis.Plan, parts: list[RootStats]) -> SearchResult:
    return merge(plan.obs.viewer, parts, _elapsed(parts), plan.obs.state.n)


def _elapsed(parts: list[RootStats]) -> float:
    return max((p.elapsed for p in parts), default=0.0)
