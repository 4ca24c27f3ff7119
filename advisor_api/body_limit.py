"""ASGI middleware for request bodies as the service reads them: 413 ``too-large`` for a
body over ``max_body`` bytes (``MOMBASA_MAX_BODY``), whether its ``Content-Length`` says
so or it streams past it; and 422 ``invalid`` for a JSON body that gives one key twice
in an object (``{"seat": 2, "seat": 1}``: a parser keeps the last, a reader may see the
first), naming the key's path."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException

from advisor_api.errors import error_response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its (key, value) pairs in order, duplicates kept."""


def repeated_key(body: bytes) -> str | None:
    """The path of the first key given twice in one object of a JSON text (None: no
    repeat, or not JSON: the parser after this says what is wrong).

    >>> repeated_key(b'{"seat": 2, "seat": 1}'), repeated_key(b'{"a": [{"b": 1, "b": 2}]}')
    ('seat', 'a[0].b')
    >>> repeated_key(b'{"a": {"b": 1}, "b": 2}') is None, repeated_key(b'{nope') is None
    (True, True)
    """
    try:
        tree = json.loads(body, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):
        return None
    return _first_repeat(tree, "")


def _first_repeat(node: Any, path: str) -> str | None:
    if isinstance(node, _Pairs):
        seen: set[str] = set()
        for key, value in node:
            inner = f"{path}.{key}" if path else key
            if key in seen:
                return inner
            seen.add(key)
            found = _first_repeat(value, inner)
            if found is not None:
                return found
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found = _first_repeat(value, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def content_type(scope: Scope) -> tuple[str, str]:
    """A request's ``Content-Type`` as given ("" without one) and its media type
    (lower case, parameters dropped).

    >>> content_type({"headers": [(b"content-type", b"Application/JSON; charset=utf-8")]})
    ('Application/JSON; charset=utf-8', 'application/json')
    """
    raw = dict(scope.get("headers") or []).get(b"content-type", b"").decode("latin-1")
    return raw, raw.split(";", 1)[0].strip().lower()


class BodyLimit:
    """413 for a request body over ``max_body`` bytes (declared or streamed); 422 for a
    JSON body with a key given twice in one object."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await self._too_large()(scope, receive, send)
            return
        if (scope.get("method") in BODY_METHODS
                and content_type(scope)[1] == "application/json"):
            await self._checked_json(scope, receive, send)
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

    async def _checked_json(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the whole JSON body (within the limit), check its keys, then hand it on
        as it came."""
        chunks: list[bytes] = []
        size = 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":  # the client went away: nothing to answer
                return
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await self._too_large()(scope, receive, send)
                return
            chunks.append(chunk)
            if not msg.get("more_body", False):
                break
        body = b"".join(chunks)
        key = repeated_key(body)
        if key is not None:
            await error_response(422, "invalid", (
                f"{key}: the key is given twice in one JSON object (a request gives each "
                "key once)"), key)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _too_large(self) -> Any:
        return error_response(413, "too-large", self._message(), "body")

    def _message(self) -> str:
        return f"request body larger than {self.max_body} bytes (MOMBASA_MAX_BODY)"
