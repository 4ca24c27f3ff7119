"""Errors of the service: each carries its HTTP status and a readable message.

Every error answer has the same JSON body (:class:`advisor_api.schemas.ErrorBody`):
``{"error": <code>, "message": <sentence>, "field": <where, or null>, ...}``, built by
:func:`error_body` and answered by :func:`error_response` (routes, exception handlers
and the ASGI middlewares alike).

>>> error_body("conflict", "the game is over", "seat")
{'error': 'conflict', 'message': 'the game is over', 'field': 'seat'}
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse


def error_body(code: str, message: str, field: str | None = None,
               **extra: Any) -> dict[str, Any]:
    """The JSON body of every error answer; ``extra`` keys (``invariants``, ``errors``)
    follow ``field``, those that are None left out."""
    out: dict[str, Any] = {"error": code, "message": message, "field": field}
    out.update((k, v) for k, v in extra.items() if v is not None)
    return out


def error_response(status: int, code: str, message: str, field: str | None = None, *,
                   headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """An error answer (:func:`error_body`); also an ASGI app, for the middlewares that
    answer before the routes (``await error_response(...)(scope, receive, send)``)."""
    return JSONResponse(error_body(code, message, field, **extra), status_code=status,
                        headers=headers)


class ApiError(Exception):
    """An error answer: HTTP ``status``, a short ``code`` and a readable ``message``."""

    status = 400
    code = "bad-request"

    def __init__(self, message: str, *, field: str | None = None,
                 invariants: list[str] | None = None,
                 headers: dict[str, str] | None = None,
                 errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.invariants = invariants
        self.headers = headers
        self.errors = errors

    def body(self) -> dict[str, Any]:
        return error_body(self.code, self.message, self.field, invariants=self.invariants,
                          errors=self.errors)

    def response(self) -> JSONResponse:
        """The error answer: its status, :meth:`body` and headers."""
        return error_response(self.status, self.code, self.message, self.field,
                              headers=self.headers, invariants=self.invariants,
                              errors=self.errors)


class InvalidInput(ApiError):
    """422: malformed JSON, a wrong field, a state or notation that does not parse."""

    status = 422
    code = "invalid"


class BrokenInvariant(ApiError):
    """422: a state that parses but breaks an invariant of the game."""

    status = 422
    code = "invariant"


class NotFound(ApiError):
    """404: an unknown game."""

    status = 404
    code = "not-found"


class Conflict(ApiError):
    """409: the request does not fit the game's position (illegal step, chance pending,
    game over, not this seat's decision...). Nothing was changed."""

    status = 409
    code = "conflict"


class Unauthorized(ApiError):
    """401: a seat's view or action without a seat token (``Authorization: Bearer``)."""

    status = 401
    code = "unauthorized"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message, field=field, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(ApiError):
    """403: a token that is not this game's, or another seat's (play mode)."""

    status = 403
    code = "forbidden"


class UnsupportedMediaType(ApiError):
    """415: a state-changing request whose body is not ``application/json``."""

    status = 415
    code = "unsupported-media-type"


class Busy(ApiError):
    """429: every search process is busy and the queue is full."""

    status = 429
    code = "busy"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after


class SearchFailed(ApiError):
    """500: the search raised an error or its process died (the service stays up)."""

    status = 500
    code = "search-failed"


class WorkerDied(SearchFailed):
    """500: the search process died during the task (it is replaced)."""


class StorageError(ApiError):
    """500: a stored game that cannot be replayed (the engine's rules changed since?)."""

    status = 500
    code = "storage"


class StorageBusy(ApiError):
    """503: the database stayed locked by another connection past ``MOMBASA_DB_BUSY_MS``
    (and a few retries); nothing was changed. Retry-After says when to try again."""

    status = 503
    code = "storage-busy"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after


class SearchTimeout(ApiError):
    """504: the search did not finish within its limit plus the grace period."""

    status = 504
    code = "search-timeout"
