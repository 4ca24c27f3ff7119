"""ASGI middleware: 413 ``too-large`` for a request body over ``max_body`` bytes
(``MOMBASA_MAX_BODY``), whether its ``Content-Length`` says so or it streams past it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException

from advisor_api.errors import error_response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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
            await error_response(413, "too-large", self._message(), "body")(
                scope, receive, send)
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
