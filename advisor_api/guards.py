"""Who may talk to the service from a browser: the ``Host`` a request names and the web
origin a state-changing request comes from.

The service has no user accounts, so a web page of another site must not be able to use
it through a visitor's browser:

* :class:`HostCheck`: a request whose ``Host`` header is not one of
  ``Settings.allowed_hosts`` (default: this machine's names) gets 400 ``bad-host``. This
  stops DNS rebinding (a page of ``evil.example`` whose name is made to point at
  127.0.0.1 sends ``Host: evil.example``).
* CORS (Starlette's ``CORSMiddleware``) only for ``Settings.cors_origins``; none by
  default, so no answer carries ``Access-Control-Allow-Origin``.
* :class:`OriginCheck`: a POST, PUT, PATCH or DELETE whose ``Origin`` header is present
  and is neither the service's own origin (same host and port as the ``Host`` header) nor
  one of ``cors_origins`` gets 403 ``cross-origin`` before anything runs. Browsers send
  ``Origin`` with every cross-site POST, so this blocks cross-site form posts whatever
  their content type (CORS alone does not: a form post is a "simple" request).

>>> split_host("[::1]:8000"), split_host("Example.org"), split_host("127.0.0.1:80")
(('::1', 8000), ('example.org', None), ('127.0.0.1', 80))
>>> host_allowed("api.example.org", ("*.example.org",)), host_allowed("evil.org", LOCAL)
(True, False)
>>> is_loopback("localhost"), is_loopback("127.0.0.2"), is_loopback("0.0.0.0")
(True, True, False)
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from advisor_api.errors import error_response
from advisor_api.settings import LOCAL_HOSTS, Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOCAL = LOCAL_HOSTS
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def split_host(value: str) -> tuple[str, int | None]:
    """A ``Host`` header's name (lower case, IPv6 without brackets) and port (None when it
    gives none, or one that does not parse: such a name matches nothing)."""
    value = value.strip().lower()
    if value.startswith("["):  # [v6]:port
        end = value.find("]")
        host, rest = value[1:end], value[end + 1:]
        port_text = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        host, port_text = value.split(":")
    else:
        host, port_text = value, ""
    if port_text:
        if not port_text.isdigit():
            return "", None
        return host, int(port_text)
    return host, None


def host_allowed(host: str, allowed: tuple[str, ...]) -> bool:
    """Whether ``host`` (as :func:`split_host` gives it) is one of ``allowed``: a name, an
    address, ``*.domain`` (the domain's subdomains) or ``*`` (any)."""
    if not host:
        return False
    for pattern in allowed:
        if pattern == "*" or pattern == host:
            return True
        if pattern.startswith("*.") and host.endswith(pattern[1:]):
            return True
    return False


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1): reachable from this
    machine only."""
    host = host.strip().lower().removeprefix("[").removesuffix("]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _shown(value: str) -> str:
    return value if len(value) <= 100 else value[:100] + "..."


# Headers that decide who is asking and what the body is: a request naming one twice is
# ambiguous (a proxy, the guards and the parser may each read a different copy), so it is
# refused before anything reads them.
SINGLE_HEADERS = (b"host", b"origin", b"content-type", b"authorization")


class SingleHeaders:
    """400 ``repeated-header`` for a request giving ``Host``, ``Origin``,
    ``Content-Type`` or ``Authorization`` more than once (the field names the header)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            names = [key for key, _ in scope.get("headers") or [] if key in SINGLE_HEADERS]
            repeated = next((n for n in SINGLE_HEADERS if names.count(n) > 1), None)
            if repeated is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                name = repeated.decode("latin-1")
                await error_response(400, "repeated-header", (
                    f"the {name.title()} header is given {names.count(repeated)} times; "
                    "a request gives it at most once"), f"headers.{name}")(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)


class HostCheck:
    """400 ``bad-host`` for a request whose ``Host`` header names none of ``allowed``."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]) -> None:
        self.app = app
        self.allowed = tuple(allowed)
        self.any = "*" in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.any or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = _header(scope, b"host") or ""
        host, _ = split_host(raw)
        if host_allowed(host, self.allowed):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await error_response(400, "bad-host", (
            f"Host {_shown(raw)!r} is not a name this service answers to (refused against "
            "DNS rebinding); allow it with MOMBASA_ALLOWED_HOSTS or mombasa serve "
            "--allow-host"))(scope, receive, send)


def origin_key(origin: str) -> tuple[str, int | None] | None:
    """An ``Origin`` header's host and port (the scheme's default when it gives none);
    None for ``null`` or anything that is not an http(s) origin."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return parts.hostname, port if port is not None else DEFAULT_PORTS[parts.scheme]


def same_origin(origin: str, host_header: str) -> bool:
    """Whether a page of ``origin`` is the service itself, reached as ``host_header``: the
    same host and port (scheme aside: behind a TLS proxy the service sees http while the
    page is https; no other site can serve the same host and port)."""
    key = origin_key(origin)
    if key is None:
        return False
    host, port = split_host(host_header)
    if not host or host != key[0]:
        return False
    if port is None:  # the Host names no port: the origin's scheme's default
        scheme = origin.strip().lower().split(":", 1)[0]
        return key[1] == DEFAULT_PORTS[scheme]
    return port == key[1]


class OriginCheck:
    """403 ``cross-origin`` for a state-changing request (POST, PUT, PATCH, DELETE) from
    a web page of another origin than the service's own and those of ``allowed``."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]) -> None:
        self.app = app
        self.allowed = frozenset(allowed)
        self.any = "*" in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method", "GET") in SAFE_METHODS \
                or self.any:
            await self.app(scope, receive, send)
            return
        origin = _header(scope, b"origin")
        if origin is None or origin.strip().lower() in self.allowed \
                or same_origin(origin, _header(scope, b"host") or ""):
            await self.app(scope, receive, send)
            return
        await error_response(403, "cross-origin", (
            f"Origin {_shown(origin)!r} may not change anything here: a page of another "
            "site than this service (allow its origin with MOMBASA_CORS_ORIGINS); nothing "
            "was changed"))(scope, receive, send)


def install(app: FastAPI, settings: Settings) -> None:
    """Add the checks, outermost first: single headers, Host, then CORS (only with
    ``cors_origins``), then the origin of state-changing requests. Call after every
    other ``add_middleware``."""
    app.add_middleware(OriginCheck, allowed=settings.cors_origins)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins),
                           allow_methods=["GET", "POST", "DELETE"], allow_headers=["*"],
                           expose_headers=["Retry-After"], max_age=600)
    app.add_middleware(HostCheck, allowed=settings.allowed_hosts)
    app.add_middleware(SingleHeaders)  # outermost: before anything reads those headers
