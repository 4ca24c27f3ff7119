"""``/v1/games``: games against the AI and live games mirrored from a table. A seat's
view and actions need its token (``Authorization: Bearer``, :mod:`advisor_api.access`);
the games themselves: :class:`advisor_api.games.GameService`."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

import engine
from advisor_api import access, catalogues, game_views, searches, web
from advisor_api.analysis import make_plan, observation_for_decider
from advisor_api.errors import Conflict
from advisor_api.game_model import Game
from advisor_api.game_moves import Line
from advisor_api.game_views import deciders_text, score_json
from advisor_api.limits import CLIENT
from advisor_api.schemas import (
    AnalyseResponse,
    ChanceRequest,
    CreatedGame,
    CreateGame,
    GameDeleted,
    GameRecordOut,
    GameView,
    MovePlayed,
    MoveRequest,
    OptionalSeatQuery,
    ScoreView,
    StepRequest,
    StopRequest,
    UndoRequest,
    errors,
)
from advisor_api.service import Service, ServiceDep

router = APIRouter(tags=["games"])

GAME_ERRORS = errors(401, 403, 404, 409, 413, 415, 422, 503)


def _check_new_game(svc: Service, req: CreateGame) -> bool:
    """429 if this client may not create the game now; whether it is an AI game (a
    record's seats count when the request gives none)."""
    kinds: list[Any] = [s.kind for s in req.seats or []]
    if req.seats is None and req.record is not None:
        raw = req.record.get("seats")
        kinds = [s.get("kind") for s in raw if isinstance(s, dict)] \
            if isinstance(raw, list) else []
    ai = req.mode == "play" and any(k in ("ai", "bot") for k in kinds)
    svc.limits.check_game(CLIENT.get(), ai)
    return ai


@router.post("/v1/games", status_code=201, response_model=CreatedGame,
             responses=errors(413, 415, 422, 429, 503))
async def create_game(req: CreateGame, svc: ServiceDep) -> dict[str, Any]:
    """A new game: 2-4 seats (human or AI with a bot spec), seed, setup and mode
    (``play``: the service deals chance and AI seats move; ``live``: mirror a table).
    Answers the view of the perspective seat ("I am seat N"; default the first human
    seat, seat 1 if none) with ``tokens``, the secret token of every human seat (live
    mode: of every seat), and ``links`` to the page for each; a game with no human seat
    (play mode) has ``owner_token`` instead, which stops, resumes and deletes it. They
    are never shown again. 429 over the client's games per minute or AI games.

    With ``record`` (a game record, mombasa-game/1) the game begins at the record's
    last position with its history: the record is replayed step by step, and a step
    that cannot be played where it stands (illegal, hidden in a seat's view, under other
    components) is a 422 naming it (``record.steps[17]``) and why; nothing is stored.
    The seats default to the record's; what follows is dealt from the service's secret."""
    ai = _check_new_game(svc, req)
    game, tokens, owner = await svc.games.create(
        None if req.seats is None else [s.model_dump() for s in req.seats], req.seed,
        req.variable if "variable" in req.model_fields_set else None, req.mode,
        req.perspective, req.catalogue, reproducible=req.reproducible,
        takebacks=req.takebacks, record=req.record)
    svc.limits.game_created(CLIENT.get(), game, ai)
    links = {str(k): f"/#game={game.id}&seat={k}&token={tok}" for k, tok in tokens.items()}
    links["spectator"] = f"/#game={game.id}"
    return {**svc.games.view(game, game.perspective),
            "tokens": {str(k): tok for k, tok in tokens.items()}, "links": links,
            "owner_token": owner}


@router.get("/v1/games/{game_id}", response_model=GameView,
            responses=errors(401, 403, 404, 422))
async def get_game(game_id: str, token: access.SeatToken, svc: ServiceDep,
                   seat: OptionalSeatQuery = None,
                   wait: Annotated[float, Query(ge=0, le=60, description=(
                       "seconds to wait for AI seats to finish moving"))] = 0.0
                   ) -> dict[str, Any]:
    """One seat's view: its observation, the decision, its legal steps (notation and
    JSON), the history (others' hidden steps as null) and the score. A seat's view
    needs its token (default: the token's seat); without a token, the spectator's
    view (no seat's private things)."""
    game = await svc.games.get(game_id)
    access.check_seat(game, seat)  # 422 for a seat the game does not have
    seat = access.viewer(game, token, seat)
    if token is not None:
        await svc.games.touch(game)
    await svc.games.wait(game, wait)
    return svc.games.view(game, seat)


@router.get("/v1/games/{game_id}/record", response_model=GameRecordOut,
            responses=errors(401, 403, 404, 422))
async def get_record(game_id: str, token: access.SeatToken, svc: ServiceDep,
                     seat: OptionalSeatQuery = None) -> dict[str, Any]:
    """The game as a record (mombasa-game/1: seats, every step in notation with its
    player and source, the result). A finished game: every step. An unfinished one: as
    the views show its history to the caller (the rules of ``GET /v1/games/{id}``: a
    seat's token, its seat's view; without one the spectator's, ``view`` 0): others'
    plans and starting tiles before their reveal, and tiles dealt to others, read
    ``"step": null``. The seed only of a finished reproducible game."""
    game = await svc.games.get(game_id)
    access.check_seat(game, seat)
    seat = access.viewer(game, token, seat)
    if token is not None:
        await svc.games.touch(game)
    return game_views.record(game, seat)


@router.post("/v1/games/{game_id}/steps", response_model=GameView, responses=GAME_ERRORS)
async def post_step(game_id: str, req: StepRequest, token: access.SeatToken,
                    svc: ServiceDep) -> dict[str, Any]:
    """One step of the seat whose decision it is (notation or JSON). In play mode AI
    seats then move in the background; in live mode any player's step is reported."""
    return await _submit(svc, game_id, req.seat, req.step, token, whole_move=False)


@router.post("/v1/games/{game_id}/moves", response_model=MovePlayed, responses=GAME_ERRORS)
async def post_move(game_id: str, req: MoveRequest, token: access.SeatToken,
                    svc: ServiceDep) -> dict[str, Any]:
    """A whole move (all its steps or none): notation joined by '; ', move JSON, or a
    list of steps. It may not go on past the reveal of the plans (409 naming the step):
    what the others planned is new information. With ``partial`` (a suggested line,
    as the analysis' lines give it): its steps up to the first new information (the
    reveal, a deal) or another seat's decision, the rest not played; ``played`` and
    ``stop`` say how far and why."""
    line = Line(req.move, partial=req.partial)
    view = await _submit(svc, game_id, req.seat, line, token, whole_move=True)
    return {**view, "played": line.played, "stop": line.stop}


async def _submit(svc: Service, game_id: str, seat: int, raw: Any, token: str | None, *,
                  whole_move: bool) -> dict[str, Any]:
    """A seat's step or whole move, checked against its token; its view after."""
    game = await svc.games.get(game_id)
    access.check_seat(game, seat)
    access.actor(game, token, seat, "post moves for" if whole_move else "post steps for")
    await svc.games.touch(game)
    await svc.games.submit(game, seat, raw, whole_move=whole_move)
    return svc.games.view(game, seat)


@router.post("/v1/games/{game_id}/chance", response_model=GameView, responses=GAME_ERRORS)
async def post_chance(game_id: str, req: ChanceRequest, token: access.SeatToken,
                      svc: ServiceDep) -> dict[str, Any]:
    """Live mode: report the outcome of the pending chance event seen at the table
    (a card or book revealed, a track or tile dealt); any seat token of the game."""
    game = await svc.games.get(game_id)
    access.check_seat(game, req.seat)
    mine = access.member(game, token, "report a chance outcome")
    seat = access.viewer(game, token, req.seat or mine)
    await svc.games.touch(game)
    await svc.games.report_chance(game, req.step)
    return svc.games.view(game, seat)


@router.post("/v1/games/{game_id}/undo", response_model=GameView, responses=GAME_ERRORS)
async def post_undo(game_id: str, token: access.SeatToken, svc: ServiceDep,
                    req: UndoRequest | None = None) -> dict[str, Any]:
    """Play mode: back to before the token's seat's last step or move (with the AI
    replies after it), if the game allows takebacks, nobody else has moved since and
    nothing was revealed since (409 otherwise). Live mode: back to before the last
    entry of anyone (a correction; any seat token)."""
    game = await svc.games.get(game_id)
    access.check_seat(game, req.seat if req else None)
    mine = access.member(game, token, "undo")
    seat = access.viewer(game, token, (req.seat if req else None) or mine)
    await svc.games.touch(game)
    await svc.games.undo(game, mine if game.mode == "play" else None)
    return svc.games.view(game, seat)


@router.get("/v1/games/{game_id}/analysis", response_model=AnalyseResponse,
            response_model_exclude_none=True,
            responses=errors(401, 403, 404, 409, 422, 429, 500, 504))
async def game_analysis(
    game_id: str,
    token: access.SeatToken,
    svc: ServiceDep,
    seat: Annotated[int | None, Query(ge=1, le=4, description=(
        "the seat to advise (play mode: the token's seat; live mode: default the "
        "perspective seat when it has a decision pending, else the deciding "
        "player)"))] = None,
    time: Annotated[float | None, Query(gt=0, description="seconds")] = None,
    iterations: Annotated[int | None, Query(ge=1)] = None,
    multipv: Annotated[int, Query(ge=1)] = 3,
    seed: Annotated[int | None, Query(ge=0, le=(1 << 63) - 1)] = None,
    jobs: Annotated[int, Query(ge=1)] = 1,
) -> dict[str, Any]:
    """Suggestions for the current decision, from that seat's observation (the
    seat's token; in live mode any seat token of the game)."""
    game = await svc.games.get(game_id)
    access.check_seat(game, seat)
    mine = access.member(game, token, "ask for suggestions")
    if seat is None and game.mode == "play":
        seat = mine
    if seat is not None:
        access.actor(game, token, seat, "ask the analysis of")
    await svc.games.touch(game)
    plan = make_plan(_advised(game, seat), svc.settings, iterations=iterations, time=time,
                     multipv=multipv, seed=seed, jobs=jobs, prefix="", max_jobs=svc.pool.size)
    return await searches.analyse(svc, plan)


def _advised(game: Game, seat: int | None) -> engine.Observation:
    """The observation to search for a game's analysis: the deciding player's, or
    ``seat``'s own at a simultaneous decision (409 when it is not that seat's decision,
    at chance, or when the game is over); ``seat`` None: the perspective seat's if it
    decides now."""
    s = game.state
    d = s.decision
    obs = observation_for_decider(s)  # 409 at chance or when over
    if seat is None and game.perspective - 1 in d.deciders:
        seat = game.perspective
    if seat is not None and seat - 1 != d.player:
        if seat - 1 not in d.deciders:
            raise Conflict(f"not seat {seat}'s decision: the decision ({d.kind}) is "
                           f"{deciders_text(d)}", field="seat")
        obs = engine.observe(s, seat - 1)  # its own simultaneous decision
    return obs


@router.get("/v1/games/{game_id}/score", response_model=ScoreView,
            responses=errors(404, 422))
async def game_score(game_id: str, svc: ServiceDep) -> dict[str, Any]:
    """The score breakdown (final once the game is over, provisional before)."""
    game = await svc.games.get(game_id)
    s = game.state
    return {"id": game.id, "over": s.is_over(), "final": s.is_over(),
            "score": score_json(s),
            "winners": [w + 1 for w in engine.winners(s)] if s.is_over() else None}


@router.get("/v1/games/{game_id}/catalogue", responses={
    **errors(404), 200: {"description": "the catalogue as the page draws it (JSON); a "
                         "strong ETag from its content, If-None-Match answered 304",
                         "content": {"application/json": {}}}})
async def game_catalogue(game_id: str, svc: ServiceDep, request: Request) -> Response:
    """The components the game plays with, as the web page draws them (the shape of
    ``GET /v1/catalogue``), with ``name`` (the stored catalogue named when the game
    was created, or the shipped one) and ``sha256`` (of its content; null: shipped).
    With an ETag from its content and ``Cache-Control: no-cache``: ``If-None-Match``
    with it is answered 304 (the page reloads a game's catalogue for nothing else)."""
    game = await svc.games.get(game_id)
    ref = game.params.get("catalogue") or {}
    return web.validated(request.headers, _catalogue_body(
        game.state.cat, ref.get("name", catalogues.DEFAULT_NAME), ref.get("sha256")))


@lru_cache(maxsize=32)
def _catalogue_body(cat: engine.Catalogue, name: str, sha256: str | None) -> web.Body:
    return web.json_body({**web.catalogue_json(cat), "name": name, "sha256": sha256})


@router.post("/v1/games/{game_id}/stop", response_model=GameView,
             responses=errors(401, 403, 404, 409, 413, 415, 422, 503))
async def stop_game(game_id: str, token: access.SeatToken, svc: ServiceDep,
                    req: StopRequest | None = None) -> dict[str, Any]:
    """Stop the game's AI seats (play mode; the owner token of a game with no human
    seat, else any seat token of the game): the AI move being searched is cancelled and
    none is stored from then on; stored, so a restart does not resume them either.
    Nothing else changes (people may still take their own decisions). Answers the
    token's view with ``stopped: true``; again on a stopped game: the same answer. 409
    in live mode or when the game is over."""
    game = await svc.games.get(game_id)
    seat = access.controller(game, token, "stop the game")
    await svc.games.stop(game)
    return svc.games.view(game, seat)


@router.post("/v1/games/{game_id}/resume", response_model=GameView,
             responses=errors(401, 403, 404, 409, 413, 415, 422, 503))
async def resume_game(game_id: str, token: access.SeatToken, svc: ServiceDep,
                      req: StopRequest | None = None) -> dict[str, Any]:
    """Let a stopped game's AI seats move again (the tokens of ``stop``): an AI seat to
    move goes on at once. Answers the token's view with ``stopped: false``; on a game
    not stopped: the same answer, nothing changed. 409 in live mode."""
    game = await svc.games.get(game_id)
    seat = access.controller(game, token, "resume the game")
    await svc.games.resume(game)
    return svc.games.view(game, seat)


@router.delete("/v1/games/{game_id}", response_model=GameDeleted,
               responses=errors(401, 403, 404, 503))
async def delete_game(game_id: str, token: access.SeatToken,
                      svc: ServiceDep) -> dict[str, Any]:
    """Delete a game (any seat token of the game; the owner token of a game with no
    human seat): its AI seats stop, its steps are removed; 404 from then on."""
    game = await svc.games.get(game_id)
    access.controller(game, token, "delete the game")
    await svc.games.delete(game)
    return {"id": game.id, "deleted": True}
