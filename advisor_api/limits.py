"""Per-client limits: who is asking, and how much of the machine one client may take.

The client of a request is its remote address (:func:`client_of`): the direct peer of
the TCP connection (``scope["client"]``), an IPv6 one by its /64 network. Behind a
reverse proxy, name it in ``MOMBASA_TRUSTED_PROXIES`` (addresses or networks): a request
from it is then the client its ``X-Forwarded-For`` names (the last address there that is
not a trusted proxy's); no other peer's ``X-Forwarded-For`` is believed. The same client
is the unit of the search pool's fair share (:mod:`advisor_api.pool`).

Four limits, each answering 429 ``client-limit`` with ``Retry-After`` (0 turns one off):

* analyses at once per client (``/v1/analyse``, ``/v1/analyse/stream``, a game's
  ``/analysis``), ``MOMBASA_CLIENT_ANALYSES``;
* games created per client in any 60 seconds, ``MOMBASA_CLIENT_GAMES_PER_MINUTE``;
* game-event streams open at once per client (``GET /v1/games/{id}/events``),
  ``MOMBASA_CLIENT_STREAMS``;
* AI games running per client (play mode, at least one AI seat, its AI seats moving
  now), ``MOMBASA_CLIENT_AI_GAMES``: a new AI game is refused while the client has that
  many.

:class:`ClientContext` (ASGI middleware) records the client and the request in context
variables, so the code below the routes (the search pool, the AI seats' background tasks,
which inherit the context of the request that started them) knows whose work it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import math
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from starlette.requests import Request

from advisor_api.errors import ApiError, Busy

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
T = TypeVar("T")

#: The client of the work being done (a request's remote address; "service" otherwise).
CLIENT: ContextVar[str] = ContextVar("mombasa_client", default="service")
#: The request being answered (its scope and ``receive``, emptied when it has been
#: answered: background tasks started by a request keep the context), to notice a
#: client leaving.
REQUEST: ContextVar[Sequence[Any]] = ContextVar("mombasa_request", default=())

WINDOW = 60.0  # seconds of the games-per-minute window
STREAM_RETRY = 15  # Retry-After (s) of a refused game-event stream
AI_GAME_RETRY = 10  # Retry-After (s) of a refused AI game: when one may have ended
DISCONNECT_POLL = 0.2  # seconds between looks at a plain request's connection


class ClientLimited(Busy):
    """429: this client is over one of its limits (``Retry-After``: when it is not)."""

    code = "client-limit"


class ClientGone(ApiError):
    """499: the client closed the connection before the answer (nobody reads this)."""

    status = 499
    code = "client-gone"


def client_of(scope: Scope) -> str:
    """The client of a request: its remote address (the direct peer, or behind a trusted
    proxy the address it forwards); an IPv6 address counts by its /64 network, the block
    one host or home network is given, so that one machine cannot be many clients.

    >>> client_of({"client": ("2001:db8:1:2:aaaa::1", 5000)})
    '2001:db8:1:2::/64'
    >>> client_of({"client": ("203.0.113.7", 5000)})
    '203.0.113.7'
    """
    peer = scope.get("client")
    if not peer:
        return "unknown"
    host = str(peer[0])
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # ::ffff:a.b.c.d is the IPv4 client a.b.c.d
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class ClientContext:
    """ASGI middleware: sets :data:`CLIENT` and :data:`REQUEST` for each HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        current = [scope, receive]
        client = CLIENT.set(client_of(scope))
        request = REQUEST.set(current)
        try:
            await self.app(scope, receive, send)
        finally:
            current.clear()
            REQUEST.reset(request)
            CLIENT.reset(client)


async def unless_disconnected(work: asyncio.Future[T], poll: float = DISCONNECT_POLL) -> T:
    """The result of ``work``, or, if the client of the current request closes its
    connection first, cancel ``work`` (which stops its search) and raise
    :class:`ClientGone`. Outside a request, simply await ``work``."""
    current = REQUEST.get()
    try:
        if not current:
            return await work
        request = Request(current[0], current[1])
        while True:
            done, _ = await asyncio.wait({work}, timeout=poll)
            if done:
                return work.result()
            if await request.is_disconnected():
                work.cancel()
                with contextlib.suppress(BaseException):
                    await work
                raise ClientGone("the client closed the connection; its search was stopped")
    finally:
        if not work.done():
            work.cancel()


class Lease:
    """One analysis of a client in flight; :meth:`release` (or leaving ``with``) ends it."""

    def __init__(self, owner: ClientLimits, client: str, ends: float) -> None:
        self.owner = owner
        self.client = client
        self.ends = ends
        self.released = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.owner._end(self)

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class ClientLimits:
    """The bookkeeping of the per-client limits (0: no limit).

    ``running(game)``: whether a game's AI seats are moving now; ``finished(game)``:
    whether it is over (no longer tracked)."""

    def __init__(self, max_analyses: int, games_per_minute: int, max_ai_games: int, *,
                 running: Callable[[Any], bool], finished: Callable[[Any], bool],
                 clock: Callable[[], float] = time.monotonic, window: float = WINDOW,
                 max_streams: int = 0) -> None:
        self.max_analyses = max_analyses
        self.games_per_minute = games_per_minute
        self.max_ai_games = max_ai_games
        self.max_streams = max_streams
        self.window = window
        self._running = running
        self._finished = finished
        self.clock = clock
        self._analyses: dict[str, list[Lease]] = {}
        self._created: dict[str, deque[float]] = {}
        self._ai_games: dict[str, list[weakref.ref[Any]]] = {}
        self._streams: dict[str, int] = {}
        self.refused = {"analyses": 0, "games_per_minute": 0, "ai_games": 0, "streams": 0}

    # -- analyses ------------------------------------------------------------------------
    def analysis(self, client: str, expected: float) -> Lease:
        """Start an analysis of ``client`` expected to take ``expected`` seconds, or 429."""
        now = self.clock()
        mine = self._analyses.setdefault(client, [])
        if self.max_analyses and len(mine) >= self.max_analyses:
            self.refused["analyses"] += 1
            wait = min(lease.ends for lease in mine) - now
            raise ClientLimited(f"this client ({client}) already has {len(mine)} analyses "
                                f"running, the most at once (MOMBASA_CLIENT_ANALYSES); retry "
                                "when one has finished", _seconds(wait))
        lease = Lease(self, client, now + expected)
        mine.append(lease)
        return lease

    def _end(self, lease: Lease) -> None:
        mine = self._analyses.get(lease.client)
        if mine is None:
            return
        with contextlib.suppress(ValueError):
            mine.remove(lease)
        if not mine:
            del self._analyses[lease.client]

    # -- event streams -------------------------------------------------------------------
    def stream(self, client: str) -> Callable[[], None]:
        """Open a game-event stream of ``client`` (429 over ``max_streams`` at once); the
        function that closes it (call it once, when the stream ends)."""
        open_now = self._streams.get(client, 0)
        if self.max_streams and open_now >= self.max_streams:
            self.refused["streams"] += 1
            raise ClientLimited(f"this client ({client}) already has {open_now} game-event "
                                "streams open, the most at once (MOMBASA_CLIENT_STREAMS); "
                                "close a tab or retry later", STREAM_RETRY)
        self._streams[client] = open_now + 1
        closed = False

        def close() -> None:
            nonlocal closed
            if closed:
                return
            closed = True
            left = self._streams.get(client, 1) - 1
            if left > 0:
                self._streams[client] = left
            else:
                self._streams.pop(client, None)

        return close

    # -- games ---------------------------------------------------------------------------
    def check_game(self, client: str, ai: bool) -> None:
        """429 if ``client`` may not create a game now (``ai``: an AI game) ."""
        now = self.clock()
        created = self._recent(client, now)
        if self.games_per_minute and len(created) >= self.games_per_minute:
            self.refused["games_per_minute"] += 1
            raise ClientLimited(f"this client ({client}) created {len(created)} games in the "
                                f"last {self.window:g} s, the most allowed "
                                "(MOMBASA_CLIENT_GAMES_PER_MINUTE)",
                                _seconds(created[0] + self.window - now))
        if ai and self.max_ai_games:
            running = sum(1 for g in self._live_ai_games(client) if self._running(g))
            if running >= self.max_ai_games:
                self.refused["ai_games"] += 1
                raise ClientLimited(f"this client ({client}) has {running} games with AI "
                                    "seats playing, the most at once "
                                    "(MOMBASA_CLIENT_AI_GAMES); retry when one has ended "
                                    "or waits for a human", AI_GAME_RETRY)

    def game_created(self, client: str, game: Any, ai: bool) -> None:
        """Count a new game of ``client`` (``ai``: it has AI seats that play)."""
        now = self.clock()
        self._recent(client, now)
        self._created.setdefault(client, deque()).append(now)
        if ai:
            self._ai_games.setdefault(client, []).append(weakref.ref(game))
        if len(self._created) + len(self._ai_games) > 4096:
            self.sweep()

    def _recent(self, client: str, now: float) -> deque[float]:
        created = self._created.get(client)
        if created is None:
            return deque()
        while created and created[0] <= now - self.window:
            created.popleft()
        if not created:
            del self._created[client]
        return created

    def _live_ai_games(self, client: str) -> list[Any]:
        refs = self._ai_games.get(client, [])
        games = [g for g in (r() for r in refs) if g is not None and not self._finished(g)]
        if games:
            self._ai_games[client] = [weakref.ref(g) for g in games]
        else:
            self._ai_games.pop(client, None)
        return games

    def sweep(self) -> None:
        """Forget clients with nothing recent or running."""
        now = self.clock()
        for client in list(self._created):
            self._recent(client, now)
        for client in list(self._ai_games):
            self._live_ai_games(client)

    # -- reporting -----------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        self.sweep()
        return {"analyses": sum(len(v) for v in self._analyses.values()),
                "streams": sum(self._streams.values()),
                "clients": len(set(self._analyses) | set(self._created)
                               | set(self._ai_games)),
                "refused": dict(self.refused)}


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))
