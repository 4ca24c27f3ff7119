"""Errors of the service: each carries its HTTP status and a readable message.

Every error answer has the same JSON body (:class:`advisor_api.schemas.ErrorBody`):
``{"error": <code>, "message": <sentence>, "field": <where, or null>, ...}``.
"""

from __future__ import annotations

from typing import Any


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
        out: dict[str, Any] = {"error": self.code, "message": self.message,
                               "field": self.field}
        if self.invariants is not None:
            out["invariants"] = self.invariants
        if self.errors is not None:
            out["errors"] = self.errors
        return out


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
