"""The application's exception handlers: every failure answers the one error body of
:func:`advisor_api.errors.error_response` (an :class:`~advisor_api.errors.ApiError`, a
request that does not validate, an HTTP error of the framework, an internal error)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from advisor_api.errors import ApiError, InvalidInput, error_response

log = logging.getLogger("advisor_api")

_HTTP_CODES = {400: "bad-request", 404: "not-found", 405: "method-not-allowed",
               413: "too-large", 415: "unsupported-media-type"}


def _loc(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("body", "seats", 0, "kind")`` -> ``"seats[0].kind"``.

    >>> _loc(("body", "seats", 0, "kind")), _loc(("query",))
    ('seats[0].kind', 'query')
    """
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


def validation_error(exc: RequestValidationError) -> InvalidInput:
    """A request that does not validate, as one 422 naming its first fault (``errors``:
    every fault)."""
    errs = []
    for e in exc.errors():
        loc = tuple(e.get("loc", ()))
        if e.get("type") == "json_invalid":
            loc = ("body",)
        errs.append({"field": _loc(loc), "message": str(e.get("msg", "")),
                     "type": str(e.get("type", ""))})
    first = errs[0] if errs else {"field": "body", "message": "invalid request"}
    more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
    return InvalidInput(f"{first['field']}: {first['message']}{more}",
                        field=first["field"], errors=errs)


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return exc.response()


async def _validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return validation_error(exc).response()


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:  # a body FastAPI could not decode (not UTF-8 JSON)
        return InvalidInput(f"body: {exc.detail} (expected UTF-8 JSON)",
                            field="body").response()
    return error_response(exc.status_code, _HTTP_CODES.get(exc.status_code, "http-error"),
                          str(exc.detail), headers=getattr(exc, "headers", None))


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    log.exception("internal error on %s %s", request.method, request.url.path)
    return error_response(500, "internal",
                          f"internal error: {type(exc).__name__}: {exc}")


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` with the one error body."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _internal)
