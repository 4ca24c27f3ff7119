"""What the routes share: the settings, the search pool, the per-client limits, the
store, the catalogues and the games, started and stopped with the application.

:func:`create_app <advisor_api.app.create_app>` keeps one :class:`Service` in
``app.state.service``; a route asks for it with the dependency :data:`ServiceDep`.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Request

from advisor_api.catalogues import CatalogueLibrary
from advisor_api.games import GameService
from advisor_api.limits import ClientLimits
from advisor_api.pool import Backend, LocalBackend, WorkerPool
from advisor_api.ray_backend import RayBackend
from advisor_api.replicas import Replicas
from advisor_api.settings import Settings
from advisor_api.store import Store


def search_backend(settings: Settings, extra_tasks: str | None = None) -> Backend:
    """Where the service's searches run: actors on the Ray cluster that ``settings.ray``
    names (``MOMBASA_RAY``, ``mombasa serve --ray``), else ``settings.workers`` search
    processes of this machine."""
    if settings.ray:
        return RayBackend(settings.ray, extra_tasks)
    return LocalBackend(settings.workers, extra_tasks)


class Service:
    """What the routes share: settings, the search pool, the store and the games.

    ``worker_tasks`` (tests only): a module of more task kinds for the search processes
    (:func:`advisor_api.worker.task_table`)."""

    def __init__(self, settings: Settings, worker_tasks: str | None = None) -> None:
        self.settings = settings
        self.pool = WorkerPool(settings.workers, settings.max_queue, settings.grace,
                               max_tasks=settings.worker_max_tasks,
                               max_rss_mb=settings.worker_max_rss_mb,
                               extra_tasks=worker_tasks,
                               backend=search_backend(settings, worker_tasks))
        self.limits = ClientLimits(
            settings.client_analyses, settings.client_games_per_minute,
            settings.client_ai_games, running=lambda g: g.ai_task is not None,
            finished=lambda g: g.state.is_over(), max_streams=settings.client_streams)
        self._store: Store | None = None
        self._games: GameService | None = None
        self._catalogues: CatalogueLibrary | None = None
        # Replicas on one PostgreSQL database: hearing the others, the AI leases.
        self._replicas: Replicas | None = None
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
        if self._store.shared:
            self._replicas = Replicas(self._store, self._games.kept, self._games.ai,
                                      self.settings)
            await self._replicas.start()
        await self.pool.start()

    async def stop(self) -> None:
        if self._replicas is not None:
            await self._replicas.stop()  # the AI leases handed over as the tasks end
        if self._games is not None:
            await self._games.close()
        await self.pool.close()
        if self._catalogues is not None:
            self._catalogues.close()
        if self._store is not None:
            self._store.close()

    def end_streams(self) -> None:
        """End every game-event stream now (the server is stopping)."""
        self.stopping = True
        if self._games is not None:
            for game in self._games.watched():
                game.notify()


def get_service(request: Request) -> Service:
    """The application's :class:`Service` (``app.state.service``)."""
    svc: Service = request.app.state.service
    return svc


#: A route's shared service (FastAPI dependency).
ServiceDep = Annotated[Service, Depends(get_service)]


def end_streams_on_stop(svc: Service) -> Callable[[], None]:
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
