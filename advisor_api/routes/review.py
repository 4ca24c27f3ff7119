"""``/v1/games/{id}/review``: a game's review run as a job in the search pool, followed
by polling or Server-Sent Events, cancelled, stored with the game
(:mod:`advisor_api.review_jobs`), and the positions of the game it reviews."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import StreamingResponse

import engine
from advisor_api import access, sse
from advisor_api.errors import Conflict, Forbidden, Unauthorized
from advisor_api.game_model import Game
from advisor_api.game_views import PHASES, score_json
from advisor_api.limits import CLIENT
from advisor_api.review_jobs import (
    ReviewJob,
    caller_identity,
    jobs_of,
    private_seats,
    shown_review,
    visible,
)
from advisor_api.review_schemas import (
    ReviewDeleted,
    ReviewJobOut,
    ReviewList,
    ReviewPosition,
    ReviewRequest,
)
from advisor_api.schemas import errors
from advisor_api.service import Service, ServiceDep

router = APIRouter(tags=["review"])

Job = Annotated[str, Path(max_length=64, description="the job's id (from the POST)")]
#: The highest step index a position may be asked for (a record's most steps).
MAX_INDEX = 20_000


def _out(game: Game, job: ReviewJob, token: str | None,
         with_review: bool = True) -> dict[str, Any]:
    body = job.out(with_review)
    body["review"] = shown_review(game, body["review"], private_seats(game, token))
    return body


@router.post("/v1/games/{game_id}/review", status_code=202, response_model=ReviewJobOut,
             responses=errors(401, 403, 404, 409, 413, 415, 422, 429))
async def start_review(game_id: str, token: access.SeatToken, svc: ServiceDep,
                       req: ReviewRequest | None = None) -> dict[str, Any]:
    """Review the game so far: for every decision of the seats asked, the step played,
    the search's best, the loss in win chance and money, a class, and the curves
    (``mombasa-review/1``). A job in the search pool, admitted now like an analysis
    (429); answers 202 with the job, to follow with ``GET .../review/{job}`` (or its
    ``/events``). Before the end a seat's token reviews its own seat (live mode: any
    seat); once the game is over anyone may review any seat, ``all_seeing`` too."""
    game = await svc.games.get(game_id)
    job = await jobs_of(svc).start(game, req or ReviewRequest.model_validate({}), token)
    return _out(game, job, token)


@router.get("/v1/games/{game_id}/review", response_model=ReviewList,
            responses=errors(401, 403, 404))
async def list_reviews(game_id: str, token: access.SeatToken,
                       svc: ServiceDep) -> dict[str, Any]:
    """The game's reviews the caller may see (stored, running, recently ended), oldest
    first, without their results."""
    game = await svc.games.get(game_id)
    caller_identity(game, token)  # 403 for another game's token
    shown = []
    for job in await jobs_of(svc).of_game(game):
        try:
            visible(job, game, token)
        except (Unauthorized, Forbidden):
            continue
        shown.append(_out(game, job, token, with_review=False))
    return {"id": game.id, "reviews": shown}


@router.get("/v1/games/{game_id}/review/{job_id}", response_model=ReviewJobOut,
            responses=errors(401, 403, 404))
async def get_review(game_id: str, job_id: Job, token: access.SeatToken,
                     svc: ServiceDep) -> dict[str, Any]:
    """A review job: ``status`` (queued, running, done, cancelled, failed), ``progress``
    (decisions done of the total) and, once done, the ``review``."""
    game = await svc.games.get(game_id)
    job = await jobs_of(svc).get(game, job_id)
    visible(job, game, token)
    return _out(game, job, token)


@router.delete("/v1/games/{game_id}/review/{job_id}", response_model=ReviewDeleted,
               responses=errors(401, 403, 404))
async def delete_review(game_id: str, job_id: Job, token: access.SeatToken,
                        svc: ServiceDep) -> dict[str, Any]:
    """Cancel a running review (its search stops within a slice of the pool), or forget
    a finished one. Its creator, or a token of the game (the owner's too)."""
    game = await svc.games.get(game_id)
    jobs = jobs_of(svc)
    job = await jobs.get(game, job_id)
    visible(job, game, token)
    if caller_identity(game, token) != job.creator:
        access.controller(game, token, "cancel or delete another's review")
    if not job.finished:
        await jobs.cancel(job)
        return {"id": game.id, "job": job.id, "status": job.status, "deleted": False}
    deleted = await jobs.forget(game, job)
    return {"id": game.id, "job": job.id, "status": job.status, "deleted": deleted}


@router.get("/v1/games/{game_id}/review/{job_id}/events", response_class=StreamingResponse,
            responses={200: {"description": "Server-Sent Events: `progress` at every "
                                            "change, then `done`, `cancelled` or `failed`",
                             "content": {"text/event-stream": {}}},
                       **errors(401, 403, 404, 429)})
async def review_events(game_id: str, job_id: Job, token: access.SeatToken,
                        svc: ServiceDep) -> StreamingResponse:
    """The job's progress as Server-Sent Events: ``progress`` (the job without its
    review) now and at every change, then its end: ``done`` (the whole job, with the
    review), ``cancelled`` or ``failed``. Counts as one of the client's game-event
    streams (``MOMBASA_CLIENT_STREAMS``)."""
    game = await svc.games.get(game_id)
    job = await jobs_of(svc).get(game, job_id)
    visible(job, game, token)
    close = svc.limits.stream(CLIENT.get())
    return sse.event_stream(_job_events(svc, game, job, token), [close])


async def _job_events(svc: Service, game: Game, job: ReviewJob,
                      token: str | None) -> AsyncIterator[str]:
    beat = svc.settings.events_heartbeat
    while True:
        wake = job.changed
        if job.finished:
            yield sse.event(job.status, _out(game, job, token))
            return
        if svc.stopping:
            return
        yield sse.event("progress", _out(game, job, token, with_review=False))
        try:
            await asyncio.wait_for(wake.wait(), beat)
        except TimeoutError:
            yield ": heartbeat\n\n"


@router.get("/v1/games/{game_id}/review/{job_id}/positions/{index}",
            response_model=ReviewPosition, responses=errors(401, 403, 404, 409, 422))
async def review_position(game_id: str, job_id: Job, token: access.SeatToken,
                          svc: ServiceDep,
                          index: Annotated[int, Path(ge=0, le=MAX_INDEX)]
                          ) -> dict[str, Any]:
    """The position before step ``index`` of the game the job reviews (``index`` =
    its steps: the last one), as the caller may see it: the deciding seat's observation
    when the caller may see that seat's private things (its own seat; live mode: any),
    else the caller's own seat's, else the spectator's; with the score then and the step
    taken there."""
    game = await svc.games.get(game_id)
    job = await jobs_of(svc).get(game, job_id)
    visible(job, game, token)
    if index > job.steps:
        raise Conflict(f"index: the review covers steps 0-{job.steps}, got {index}",
                       field="index")
    if job.steps > len(game.history):
        raise Conflict("the game has been taken back since this review: its positions "
                       "are gone", field="job")
    return position(game, index, token)


def position(game: Game, index: int, token: str | None) -> dict[str, Any]:
    """The position before step ``index``, as the bearer of ``token`` may see it."""
    s = game.states[index]
    d = s.decision
    private = private_seats(game, token)
    mine = None if access.is_owner(game, token) else access.caller(game, token)
    decider = d.player + 1 if d.player >= 0 else None
    seat = decider if decider in private else mine
    obs = (engine.observation_to_json(engine.observe(s, seat - 1)) if seat is not None
           else access.spectator_observation(s))
    step = None
    if index < len(game.history):
        rec = game.history[index]
        hidden = engine.hidden_steps([(r.player, r.step) for r in game.history],
                                     game.states, -1 if seat is None else seat - 1)[index]
        step = None if hidden else rec.step.text(s.cat)
    return {"id": game.id, "index": index, "round": s.round, "phase": PHASES[s.phase],
            "decision": {"kind": d.kind, "seat": decider,
                         "seats": [k + 1 for k in d.deciders]},
            "seat": seat, "observation": obs, "score": score_json(s), "step": step}
