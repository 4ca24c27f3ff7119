"""Server-Sent Events: the event text, and the streamed answer that gives back what
admitted it (a search ticket, a client's lease, a count of open streams) when it ends."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

from fastapi.responses import StreamingResponse

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: The headers of every event stream (no cache, no buffering by a proxy).
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def event(name: str, body: dict[str, Any]) -> str:
    """One event: ``event: <name>`` and its body as compact JSON.

    >>> event("done", {"a": 1})
    'event: done\\ndata: {"a":1}\\n\\n'
    """
    return f"event: {name}\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"


class AdmittedStream(StreamingResponse):
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


def event_stream(content: AsyncIterator[str],
                 on_close: list[Callable[[], None]]) -> AdmittedStream:
    """``content`` as ``text/event-stream``; ``on_close`` run when it ends."""
    return AdmittedStream(content, on_close, media_type="text/event-stream",
                          headers=dict(HEADERS))
