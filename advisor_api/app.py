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
* ``POST /v1/games/{id}/review``, ``GET .../review[/{job}[/events]]``, ``DELETE
  .../review/{job}``: a game's review as a job of the search pool, stored with it;
* ``POST /v1/catalogues/check``, ``POST /v1/catalogues``, ``GET /v1/catalogues``,
  ``GET /v1/catalogues/{name}``, ``DELETE /v1/catalogues/{name}``: component catalogues
  checked, saved under a name, exported, and chosen when creating a game.

Searches (analyses and AI moves) run in a pool of processes, never on the event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

import engine
from advisor_api import access, docs_pages, guards, http_errors, web
from advisor_api.body_limit import BodyLimit
from advisor_api.limits import ClientContext
from advisor_api.routes import analysis, catalogues, events, games, health, levels, review
from advisor_api.service import Service, end_streams_on_stop
from advisor_api.settings import Settings
from advisor_api.version import VERSION
from search.value_model import default_model

__all__ = ["DESCRIPTION", "Service", "check_installation", "create_app"]

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
        restore = end_streams_on_stop(svc)
        try:
            yield
        finally:
            restore()
            await svc.stop()

    app = FastAPI(title="Mombasa advisor", version=VERSION, description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.service = svc  # what the routes share (advisor_api.service.ServiceDep)
    app.add_middleware(web.Compression)  # gzip from 1 KB, never an event stream
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    app.add_middleware(ClientContext)  # who is asking (per-client limits)
    if settings.trusted_proxies:  # ...behind them, the address they forward (the last
        # one not theirs in X-Forwarded-For)
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=list(settings.trusted_proxies))
    app.add_middleware(access.JsonOnly)  # 415: state changes take JSON bodies only
    # Outermost: Host (400), CORS (MOMBASA_CORS_ORIGINS), cross-site state changes (403).
    guards.install(app, settings)
    http_errors.install(app)

    web.install(app)  # the web page at /, its files at /static, GET /v1/catalogue
    docs_pages.install(app)  # /docs and /redoc with local assets (no CDN)
    for area in (health, analysis, games, events, review, catalogues, levels):
        access.document_json_only(area.router)  # 415 on every POST
        app.include_router(area.router)
    return app
