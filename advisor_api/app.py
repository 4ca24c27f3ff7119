"""The HTTP service (FastAPI): analysis of positions, games against the AI, live games.

``create_app(db_path=..., settings=...)`` builds the application; ``mombasa serve`` runs
it with uvicorn. Endpoints (all JSON; see ``docs/api.md`` and ``/docs``):

* ``POST /v1/analyse``: ranked suggestions (MultiPV) for a state or an observation;
* ``POST /v1/analyse/stream``: the same as Server-Sent Events, the current lines every
  ~300 ms until the limit or until the client goes;
* ``POST /v1/games``, ``GET /v1/games/{id}?seat=N``, ``POST .../steps``, ``.../moves``,
  ``.../chance`` (live mode), ``.../undo``, ``GET .../analysis``, ``GET .../score``,
  ``GET .../catalogue`` (the game's components, as the page draws them),
  ``GET .../events`` (its changes as Server-Sent Events, for pages to stay current),
  ``DELETE /v1/games/{id}``; a seat's view and actions need its token
  (``Authorization: Bearer``, :mod:`advisor_api.access`);
* ``POST /v1/catalogues/check``, ``POST /v1/catalogues``, ``GET /v1/catalogues``,
  ``GET /v1/catalogues/{name}``, ``DELETE /v1/catalogues/{name}``: component catalogues
  checked, saved under a name, exported, and chosen when creating a game.

Searches (analyses and AI moves) run in a pool of processes, never on the event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

import engine
from advisor_api import access, analysis, catalogues, docs_pages, guards, web
from advisor_api.catalogues import CatalogueLibrary
from advisor_api.cli_catalogue import summary as catalogue_summary
from advisor_api.errors import ApiError, Conflict, InvalidInput
from advisor_api.games import Game, GameService, deciders_text, score_json
from advisor_api.limits import (
    CLIENT,
    ClientContext,
    ClientLimits,
    Lease,
    unless_disconnected,
)
from advisor_api.pool import Ticket, WorkerPool
from advisor_api.schemas import (
    AnalyseRequest,
    AnalyseResponse,
    CatalogueCheck,
    CatalogueCheckRequest,
    CatalogueDeleted,
    CatalogueEntry,
    CatalogueList,
    ChanceRequest,
    CreatedGame,
    CreateGame,
    GameDeleted,
    GameView,
    MoveRequest,
    SaveCatalogue,
    ScoreView,
    StepRequest,
    UndoRequest,
    errors,
)
from advisor_api.settings import Settings
from advisor_api.store import Store
from advisor_api.version import VERSION
from search.mcts import SearchResult
from search.parallel import RootStats, merge
from search.value_model import default_model

log = logging.getLogger("advisor_api")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Service:
    """What the routes share: settings, the search pool, the store and the games."""

    def __init__(self, settings: Settings, worker_tasks: str | None = None) -> None:
        self.settings = settings
        self.pool = WorkerPool(settings.workers, settings.max_queue, settings.grace,
                               max_tasks=settings.worker_max_tasks,
                               max_rss_mb=settings.worker_max_rss_mb,
                               extra_tasks=worker_tasks)
        self.limits = ClientLimits(
            settings.client_analyses, settings.client_games_per_minute,
            settings.client_ai_games, running=lambda g: g.ai_task is not None,
            finished=lambda g: g.state.is_over(), max_streams=settings.client_streams)
        self._store: Store | None = None
        self._games: GameService | None = None
        self._catalogues: CatalogueLibrary | None = None
        self.stopping = False  # the server stops: game-event streams end

    @property
    def store(self) -> Store:
        assert self._store is not None, "the service is not started"
        return self._store

    @property
    def games(self) -> GameService:
        assert self._games is not None, "the service is not started"
        return self._games

    @property
    def catalogues(self) -> CatalogueLibrary:
        assert self._catalogues is not None, "the service is not started"
        return self._catalogues

    async def start(self) -> None:
        self._store = Store(self.settings.db_path, busy_ms=self.settings.db_busy_ms)
        self._catalogues = CatalogueLibrary(self._store, self.settings.catalogue_folder())
        self._games = GameService(self._store, self.pool, self.settings, self._catalogues)
        self._games.start()  # the sweep of idle games (MOMBASA_GAME_TTL_HOURS)
        await self.pool.start()

    async def stop(self) -> None:
        if self._games is not None:
            await self._games.close()
        await self.pool.close()
        if self._catalogues is not None:
            self._catalogues.close()
        if self._store is not None:
            self._store.close()

    # -- analysis ------------------------------------------------------------------------
    def plan(self, req: AnalyseRequest) -> analysis.Plan:
        """Read and check the request (422 / 409), fix the limits and the seed."""
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
            obs, self.settings, iterations=limit.iterations if limit else None,
            time=limit.time if limit else None, multipv=req.multipv, seed=req.seed,
            jobs=req.jobs)

    async def analyse(self, plan: analysis.Plan) -> dict[str, Any]:
        """A plain analysis: admitted (429), run, and stopped if its client goes away."""
        ticket, lease = self.check_admission(plan)
        try:
            run = asyncio.ensure_future(self.pool.run(plan.tasks(), plan.expected,
                                                      ticket=ticket))
            answers = await unless_disconnected(run)
        finally:
            ticket.close()
            lease.release()
        parts = [a["stats"] for a in answers]
        return analysis.build_response(plan, self._merge(plan, parts), _elapsed(parts),
                                       solved=answers[0]["solved"])

    def check_admission(self, plan: analysis.Plan) -> tuple[Ticket, Lease]:
        """Admit an analysis now, or 429: the client's limit of analyses at once
        (``client-limit``), then a place in the search pool (``busy``). The caller
        closes the ticket and releases the lease when done."""
        client = CLIENT.get()
        lease = self.limits.analysis(client, plan.expected)
        try:
            return self.pool.admit(plan.jobs, plan.expected, client=client), lease
        except BaseException:
            lease.release()
            raise

    def check_new_game(self, req: CreateGame) -> bool:
        """429 if this client may not create the game now; whether it is an AI game."""
        ai = req.mode == "play" and any(s.kind == "ai" for s in req.seats)
        self.limits.check_game(CLIENT.get(), ai)
        return ai

    def stream_response(self, plan: analysis.Plan) -> StreamingResponse:
        """The streamed analysis, admitted now (429 before any event)."""
        ticket, lease = self.check_admission(plan)
        return _AdmittedStream(self.stream(plan, ticket), [ticket.close, lease.release],
                               media_type="text/event-stream",
                               headers={"Cache-Control": "no-cache",
                                        "X-Accel-Buffering": "no"})

    async def stream(self, plan: analysis.Plan, ticket: Ticket) -> AsyncIterator[str]:
        """Server-Sent Events: ``lines`` every ``stream_interval``, then ``done``."""
        latest: dict[int, RootStats] = {}
        fresh = False

        def progress(index: int, stats: Any) -> None:
            nonlocal fresh
            latest[index] = stats
            fresh = True

        interval = self.settings.stream_interval
        task = asyncio.ensure_future(self.pool.run(
            plan.tasks(progress_every=interval), plan.expected, ticket=ticket,
            on_progress=progress))
        try:
            yield ": search started\n\n"
            while not task.done():
                await asyncio.wait({task}, timeout=interval)
                if fresh and not task.done():
                    fresh = False
                    parts = list(latest.values())
                    body = analysis.build_response(plan, self._merge(plan, parts),
                                                   _elapsed(parts), final=False)
                    yield _event("lines", body)
            try:
                answers = task.result()
            except ApiError as exc:
                yield _event("error", exc.body())
                return
            parts = [a["stats"] for a in answers]
            yield _event("done", analysis.build_response(
                plan, self._merge(plan, parts), _elapsed(parts), solved=answers[0]["solved"]))
        finally:
            if not task.done():
                task.cancel()

    def events_response(self, game: Game, seat: int | None) -> StreamingResponse:
        """A game's event stream, counted against the client's streams now (429)."""
        close = self.limits.stream(CLIENT.get())
        game.watchers += 1

        def release() -> None:
            game.watchers -= 1
            close()

        return _AdmittedStream(self.game_events(game, seat), [release],
                               media_type="text/event-stream",
                               headers={"Cache-Control": "no-cache",
                                        "X-Accel-Buffering": "no"})

    def end_streams(self) -> None:
        """End every game-event stream now (the server is stopping)."""
        self.stopping = True
        if self._games is not None:
            for game in self._games.watched():
                game.notify()

    async def game_events(self, game: Game, seat: int | None) -> AsyncIterator[str]:
        """``change`` now and after every change of the game (what every view shows,
        nothing private), a comment line every ``events_heartbeat`` seconds, and
        ``deleted`` (the end of the stream) when the game goes."""
        beat = self.settings.events_heartbeat
        while True:
            wake = game.changed()  # before reading the game: no change is missed
            if self.stopping:
                return
            if game.deleted:
                yield _event("deleted", {"id": game.id, "deleted": True})
                return
            body = self.games.event(game)
            body["seat"] = seat
            body["your_turn"] = (seat is not None and not body["over"]
                                 and seat in body["decision"]["seats"])
            yield _event("change", body)
            while True:
                try:
                    await asyncio.wait_for(wake.wait(), beat)
                    break
                except TimeoutError:
                    yield ": heartbeat\n\n"

    @staticmethod
    def _merge(plan: analysis.Plan, parts: list[RootStats]) -> SearchResult:
        return merge(plan.obs.viewer, parts, _elapsed(parts), plan.obs.state.n)


class _AdmittedStream(StreamingResponse):
    """A streamed answer that gives back its admission when it ends, even if the client
    left before its first event."""

    def __init__(self, content: AsyncIterator[str], on_close: list[Callable[[], None]],
                 **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            for close in self._on_close:
                close()


def _end_streams_on_stop(svc: Service) -> Callable[[], None]:
    """Chain the server's SIGINT / SIGTERM handlers (uvicorn's, installed by now) so that
    a stop first ends the game-event streams: they never end by themselves, and the
    server waits for its connections to close before it stops. The function restores
    the handlers. Only in the main thread (elsewhere: nothing to do)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    kept: list[tuple[int, Any]] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        prev = signal.getsignal(sig)
        if not callable(prev):
            continue

        def handler(signum: int, frame: Any, prev: Callable[[int, Any], Any] = prev) -> None:
            loop.call_soon_threadsafe(svc.end_streams)
            prev(signum, frame)

        signal.signal(sig, handler)
        kept.append((sig, prev))

    def restore() -> None:
        for sig, prev in kept:
            signal.signal(sig, prev)

    return restore


def _elapsed(parts: list[RootStats]) -> float:
    return max((p.elapsed for p in parts), default=0.0)


def _event(name: str, body: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"


# -- errors -------------------------------------------------------------------------------

def _loc(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("body", "seats", 0, "kind")`` -> ``"seats[0].kind"``."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or str(loc[0] if loc else "body")


def _validation_body(exc: RequestValidationError) -> dict[str, Any]:
    errs = []
    for e in exc.errors():
        loc = tuple(e.get("loc", ()))
        if e.get("type") == "json_invalid":
            loc = ("body",)
        errs.append({"field": _loc(loc), "message": str(e.get("msg", "")),
                     "type": str(e.get("type", ""))})
    first = errs[0] if errs else {"field": "body", "message": "invalid request"}
    more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
    return {"error": "invalid", "message": f"{first['field']}: {first['message']}{more}",
            "field": first["field"], "errors": errs}


_HTTP_CODES = {400: "bad-request", 404: "not-found", 405: "method-not-allowed",
               413: "too-large", 415: "unsupported-media-type"}


def _install_errors(app: FastAPI) -> None:
    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    async def validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return JSONResponse(_validation_body(exc), status_code=422)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 400:  # a body FastAPI could not decode (not UTF-8 JSON)
            return JSONResponse({"error": "invalid", "message": f"body: {exc.detail} "
                                 "(expected UTF-8 JSON)", "field": "body"}, status_code=422)
        body = {"error": _HTTP_CODES.get(exc.status_code, "http-error"),
                "message": str(exc.detail), "field": None}
        return JSONResponse(body, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": "internal", "message": f"internal error: "
                             f"{type(exc).__name__}: {exc}", "field": None}, status_code=500)

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, internal)


class BodyLimit:
    """413 for a request body over ``max_body`` bytes (declared or streamed)."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await self._refuse(send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_body:
                    raise StarletteHTTPException(413, self._message())
            return msg

        await self.app(scope, limited, send)

    def _message(self) -> str:
        return f"request body larger than {self.max_body} bytes (MOMBASA_MAX_BODY)"

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"error": "too-large", "message": self._message(),
                           "field": "body"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


# -- the application ----------------------------------------------------------------------

OptionalSeatQuery = Annotated[int | None, Query(ge=1, le=4, description=(
    "the seat whose view (1-4; default the game's perspective seat)"))]

DESCRIPTION = """Strategy advisor for the board game Mombasa: ranked suggestions for any
position (MultiPV, win probability and expected money for every player), games against
the AI, and mirroring of live games. Notation: `docs/notation.md`; errors: one JSON body
`{error, message, field}` (see `docs/api.md`)."""


def check_installation() -> None:
    """Load every data file the service reads (the catalogue in play, the learned
    evaluator's model, the web page), so that a missing or damaged one stops the start
    with its name instead of failing each search, or worse, degrading the AI's play.

    Raises ``ValueError`` (a catalogue or model that does not load) or
    ``FileNotFoundError`` (the page)."""
    engine.default_catalogue()
    default_model()
    web.check_files()


def create_app(db_path: str | None = None, settings: Settings | None = None, *,
               worker_tasks: str | None = None) -> FastAPI:
    """The service. ``settings`` default to :meth:`Settings.from_env`; ``db_path``
    overrides the settings' database path. Checks the installation first
    (:func:`check_installation`). ``worker_tasks`` (tests only): a module of more task
    kinds for the search processes (:func:`advisor_api.worker.task_table`)."""
    check_installation()
    settings = settings or Settings.from_env()
    if db_path is not None:
        settings = settings.with_(db_path=str(db_path))
    svc = Service(settings, worker_tasks)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await svc.start()
        restore = _end_streams_on_stop(svc)
        try:
            yield
        finally:
            restore()
            await svc.stop()

    app = FastAPI(title="Mombasa advisor", version=VERSION, description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.service = svc
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    app.add_middleware(ClientContext)  # who is asking (per-client limits)
    app.add_middleware(access.JsonOnly)  # 415: state changes take JSON bodies only
    # Outermost: Host (400), CORS (MOMBASA_CORS_ORIGINS), cross-site state changes (403).
    guards.install(app, settings)
    _install_errors(app)

    game_errors = errors(401, 403, 404, 409, 413, 415, 422, 503)

    web.install(app)  # the web page at /, its files at /static, GET /v1/catalogue
    docs_pages.install(app)  # /docs and /redoc with local assets (no CDN)

    @app.get("/v1/health", tags=["service"])
    async def health() -> dict[str, Any]:
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

    @app.post("/v1/analyse", tags=["analysis"], response_model=AnalyseResponse,
              response_model_exclude_none=True, responses=errors(409, 413, 422, 429, 500, 504))
    async def analyse(req: AnalyseRequest) -> dict[str, Any]:
        """Ranked suggestions for the deciding player of a state (searched on that
        player's observation only) or of an observation."""
        return await svc.analyse(svc.plan(req))

    @app.post("/v1/analyse/stream", tags=["analysis"], response_class=StreamingResponse,
              responses={200: {"description": "Server-Sent Events: `lines` (interim "
                                              "answers), then `done` or `error`",
                               "content": {"text/event-stream": {}}},
                         **errors(409, 413, 422, 429)})
    async def analyse_stream(req: AnalyseRequest) -> StreamingResponse:
        """The analysis as Server-Sent Events: the current lines every ~300 ms until the
        limit (event ``done``) or until the client disconnects (the search stops)."""
        return svc.stream_response(svc.plan(req))

    @app.post("/v1/games", tags=["games"], status_code=201, response_model=CreatedGame,
              responses=errors(413, 415, 422, 429, 503))
    async def create_game(req: CreateGame) -> dict[str, Any]:
        """A new game: 2-4 seats (human or AI with a bot spec), seed, setup and mode
        (``play``: the service deals chance and AI seats move; ``live``: mirror a table).
        Answers the view of the perspective seat ("I am seat N"; default the first human
        seat, seat 1 if none) with ``tokens``, the secret token of every human seat (live
        mode: of every seat), and ``links`` to the page for each; they are never shown
        again. 429 over the client's games per minute or AI games."""
        ai = svc.check_new_game(req)
        game, tokens = await svc.games.create(
            [s.model_dump() for s in req.seats], req.seed, req.variable, req.mode,
            req.perspective, req.catalogue, reproducible=req.reproducible,
            takebacks=req.takebacks)
        svc.limits.game_created(CLIENT.get(), game, ai)
        links = {str(k): f"/#game={game.id}&seat={k}&token={tok}" for k, tok in tokens.items()}
        links["spectator"] = f"/#game={game.id}"
        return {**svc.games.view(game, game.perspective),
                "tokens": {str(k): tok for k, tok in tokens.items()}, "links": links}

    @app.get("/v1/games/{game_id}", tags=["games"], response_model=GameView,
             responses=errors(401, 403, 404, 422))
    async def get_game(game_id: str, token: access.SeatToken,
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

    @app.get("/v1/games/{game_id}/events", tags=["games"], response_class=StreamingResponse,
             responses={200: {"description": "Server-Sent Events: `change` (now and at "
                                             "every change), `deleted` (the end)",
                              "content": {"text/event-stream": {}}},
                        **errors(401, 403, 404, 422, 429)})
    async def game_events(game_id: str, token: access.SeatToken,
                          seat: OptionalSeatQuery = None) -> StreamingResponse:
        """The game's changes as Server-Sent Events, for pages to stay current: an event
        ``change`` at once and after every change (``version``, ``steps``, ``round``,
        ``phase``, the decision's ``kind`` and ``seats``, ``over``, ``ai_thinking``,
        and the stream's ``seat`` with ``your_turn``: nothing private; re-read the view),
        a comment line as heartbeat every ~15 s, and ``deleted`` when the game is
        deleted (the stream ends). The same tokens as the view (a seat's token: its
        seat; none: the spectator's); at most ``MOMBASA_CLIENT_STREAMS`` streams open
        per client (429). Counts against no search admission."""
        game = await svc.games.get(game_id)
        access.check_seat(game, seat)
        seat = access.viewer(game, token, seat)
        return svc.events_response(game, seat)

    @app.post("/v1/games/{game_id}/steps", tags=["games"], response_model=GameView,
              responses=game_errors)
    async def post_step(game_id: str, req: StepRequest,
                        token: access.SeatToken) -> dict[str, Any]:
        """One step of the seat whose decision it is (notation or JSON). In play mode AI
        seats then move in the background; in live mode any player's step is reported."""
        game = await svc.games.get(game_id)
        access.check_seat(game, req.seat)
        access.actor(game, token, req.seat, "post steps for")
        await svc.games.touch(game)
        await svc.games.submit(game, req.seat, req.step, whole_move=False)
        return svc.games.view(game, req.seat)

    @app.post("/v1/games/{game_id}/moves", tags=["games"], response_model=GameView,
              responses=game_errors)
    async def post_move(game_id: str, req: MoveRequest,
                        token: access.SeatToken) -> dict[str, Any]:
        """A whole move (all its steps or none): notation joined by '; ', move JSON, or a
        list of steps."""
        game = await svc.games.get(game_id)
        access.check_seat(game, req.seat)
        access.actor(game, token, req.seat, "post moves for")
        await svc.games.touch(game)
        await svc.games.submit(game, req.seat, req.move, whole_move=True)
        return svc.games.view(game, req.seat)

    @app.post("/v1/games/{game_id}/chance", tags=["games"], response_model=GameView,
              responses=game_errors)
    async def post_chance(game_id: str, req: ChanceRequest,
                          token: access.SeatToken) -> dict[str, Any]:
        """Live mode: report the outcome of the pending chance event seen at the table
        (a card or book revealed, a track or tile dealt); any seat token of the game."""
        game = await svc.games.get(game_id)
        access.check_seat(game, req.seat)
        mine = access.member(game, token, "report a chance outcome")
        seat = access.viewer(game, token, req.seat or mine)
        await svc.games.touch(game)
        await svc.games.report_chance(game, req.step)
        return svc.games.view(game, seat)

    @app.post("/v1/games/{game_id}/undo", tags=["games"], response_model=GameView,
              responses=game_errors)
    async def post_undo(game_id: str, token: access.SeatToken,
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

    @app.get("/v1/games/{game_id}/analysis", tags=["games"], response_model=AnalyseResponse,
             response_model_exclude_none=True,
             responses=errors(401, 403, 404, 409, 422, 429, 500, 504))
    async def game_analysis(
        game_id: str,
        token: access.SeatToken,
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
        s = game.state
        d = s.decision
        obs = analysis.observation_for_decider(s)  # 409 at chance or when over
        if seat is None and game.perspective - 1 in d.deciders:
            seat = game.perspective
        if seat is not None and seat - 1 != d.player:
            if seat - 1 not in d.deciders:
                raise Conflict(f"not seat {seat}'s decision: the decision ({d.kind}) is "
                               f"{deciders_text(d)}", field="seat")
            obs = engine.observe(s, seat - 1)  # its own simultaneous decision
        plan = analysis.make_plan(obs, svc.settings, iterations=iterations, time=time,
                                  multipv=multipv, seed=seed, jobs=jobs, prefix="")
        return await svc.analyse(plan)

    @app.get("/v1/games/{game_id}/score", tags=["games"], response_model=ScoreView,
             responses=errors(404, 422))
    async def game_score(game_id: str) -> dict[str, Any]:
        """The score breakdown (final once the game is over, provisional before)."""
        game = await svc.games.get(game_id)
        s = game.state
        return {"id": game.id, "over": s.is_over(), "final": s.is_over(),
                "score": score_json(s),
                "winners": [w + 1 for w in engine.winners(s)] if s.is_over() else None}

    @app.get("/v1/games/{game_id}/catalogue", tags=["games"], responses=errors(404))
    async def game_catalogue(game_id: str) -> dict[str, Any]:
        """The components the game plays with, as the web page draws them (the shape of
        ``GET /v1/catalogue``), with ``name`` (the stored catalogue named when the game
        was created, or the shipped one) and ``sha256`` (of its content; null: shipped)."""
        game = await svc.games.get(game_id)
        ref = game.params.get("catalogue") or {}
        return {**web.catalogue_json(game.state.cat),
                "name": ref.get("name", catalogues.DEFAULT_NAME),
                "sha256": ref.get("sha256")}

    @app.delete("/v1/games/{game_id}", tags=["games"], response_model=GameDeleted,
                responses=errors(401, 403, 404, 503))
    async def delete_game(game_id: str, token: access.SeatToken) -> dict[str, Any]:
        """Delete a game (any seat token of the game): its AI seats stop, its steps are
        removed; 404 from then on."""
        game = await svc.games.get(game_id)
        access.member(game, token, "delete the game")
        await svc.games.delete(game)
        return {"id": game.id, "deleted": True}

    # -- catalogues ------------------------------------------------------------------------
    @app.post("/v1/catalogues/check", tags=["catalogues"], response_model=CatalogueCheck,
              response_model_exclude_none=False, responses=errors(413, 422))
    async def check_catalogue(req: CatalogueCheckRequest) -> dict[str, Any]:
        """Check a catalogue with the engine's loader (nothing is stored): ``ok``, the
        first fault by JSON path (``error``: ``{path, message}``), a summary of the
        components, and with ``page: true`` the catalogue as the web page draws it."""
        cat, error = catalogues.check(req.catalogue)
        if cat is None:
            return {"ok": False, "error": error, "summary": None, "page": None}
        return {"ok": True, "error": None, "summary": catalogue_summary(cat),
                "page": web.build_catalogue_json(cat) if req.page else None}

    @app.post("/v1/catalogues", tags=["catalogues"], status_code=201,
              response_model=CatalogueEntry,
              responses={200: {"description": "replaced (replace: true)",
                               "model": CatalogueEntry}, **errors(409, 413, 422, 503)})
    async def save_catalogue(req: SaveCatalogue, response: Response) -> dict[str, Any]:
        """Save a catalogue under a name (201; 200 when ``replace`` replaced one): 422
        with the loader's path and message if it does not load (``field``:
        ``catalogue.<path>``), 409 if the name exists (unless ``replace``) or is the
        shipped catalogue's. Nothing is stored on error."""
        entry, created = await svc.store.off_loop(svc.catalogues.save, req.name,
                                                  req.catalogue, req.replace)
        if not created:
            response.status_code = 200
        return entry

    @app.get("/v1/catalogues", tags=["catalogues"], response_model=CatalogueList)
    async def list_catalogues() -> dict[str, Any]:
        """Every catalogue a game can be created with: the shipped one ("default
        (reconstruction)") first, then the stored ones by name, each with a summary."""
        return {"catalogues": svc.catalogues.entries()}

    @app.get("/v1/catalogues/{name}", tags=["catalogues"],
             responses={200: {"description": "the catalogue file (JSON)",
                              "content": {"application/json": {}}}, **errors(404)})
    async def get_catalogue(name: str) -> Response:
        """A catalogue's JSON file, as stored (export; comments kept)."""
        return Response(svc.catalogues.text(name), media_type="application/json")

    @app.delete("/v1/catalogues/{name}", tags=["catalogues"], response_model=CatalogueDeleted,
                responses=errors(404, 409, 503))
    async def delete_catalogue(name: str) -> dict[str, Any]:
        """Forget a stored catalogue (409 for the shipped one). Games created with it keep
        its content and go on replaying with it."""
        return await svc.store.off_loop(svc.catalogues.delete, name)

    access.document_json_only(app)  # 415 on every POST
    return app
