"""Who may see and change a game: seat tokens, the spectator's view, takebacks, and
JSON-only state changes.

* **Seat tokens.** Creating a game answers a secret token for every human seat (live
  mode: for every seat, the user reports the whole table), in that answer only; the
  service keeps their SHA-256 only. A seat's private view, its steps and moves, its
  analysis and undo need its token in ``Authorization: Bearer <token>``: 401 without
  one, 403 with a token that is not this game's or (play mode) is another seat's. In
  live mode any of the game's tokens acts for every seat. Without a token a client gets
  the spectator view: what someone at the table who holds no seat sees.
* **Owner token.** A play-mode game with no human seat (AI against AI) has no seat
  token; its creation answers an owner token instead (kept as its SHA-256 too). It
  stops, resumes and deletes the game (:func:`controller`: as any seat token does for
  a game with seats) and reads the spectator's view; it acts for no seat (403).
* **Takebacks.** In play mode a seat takes back only its own last submission (with the
  AI replies after it), never another human's, never across a reveal (a chance outcome
  dealt, or the plans / starting tiles turned face up), and only if the game allows
  takebacks (default: when it has one human seat). In live mode any entry may be
  corrected.
* **JSON only.** A POST, PUT or PATCH under ``/v1/`` must say ``Content-Type:
  application/json`` (415 otherwise), so that no cross-site HTML form (``text/plain``,
  ``application/x-www-form-urlencoded``, ``multipart/form-data``) can change anything.

>>> token_hash("abc")[:16]
'ba7816bf8f01cfea'
>>> len(new_token()) >= 32
True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Security
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

import engine
from advisor_api.body_limit import BODY_METHODS, content_type
from advisor_api.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    Unauthorized,
    UnsupportedMediaType,
)
from advisor_api.schemas import ERRORS

if TYPE_CHECKING:
    from advisor_api.game_model import Game

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HEADER = "Authorization: Bearer <token>"
HOW = (f"send the header '{HEADER}' with the seat's token (given when the game was "
       "created)")
REVEAL = "no takeback across a reveal"


def new_token() -> str:
    """A fresh seat token (192 random bits, URL-safe)."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    """What the service keeps of a token: its SHA-256 (hex)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


_BEARER = HTTPBearer(auto_error=False, scheme_name="seat token", description=(
    "a seat's token (from the answer that created the game): its private view, steps, "
    "analysis, undo; without one, the spectator's view"))


async def _seat_token(credentials: Annotated[HTTPAuthorizationCredentials | None,
                                             Security(_BEARER)]) -> str | None:
    return credentials.credentials if credentials is not None else None


#: A route's seat token (``Authorization: Bearer <token>``), None without one.
SeatToken = Annotated[str | None, Depends(_seat_token)]


def check_seat(game: Game, seat: int | None) -> None:
    """422 for a seat the game does not have."""
    if seat is not None and not 1 <= seat <= game.players:
        raise InvalidInput(f"seat: this game has seats 1-{game.players}, got {seat}",
                           field="seat")


# -- whose token --------------------------------------------------------------------------

def is_owner(game: Game, token: str | None) -> bool:
    """Whether ``token`` is the game's owner token (a game with no human seat)."""
    return (token is not None and game.owner is not None
            and hmac.compare_digest(game.owner, token_hash(token)))


def caller(game: Game, token: str | None) -> int | None:
    """The seat (1-based) whose token ``token`` is; None without a token. 403 for a token
    of no seat of this game (the owner token included: it acts for no seat)."""
    if token is None or game.tokens is None:
        return None
    digest = token_hash(token)
    for seat, kept in game.tokens.items():
        if hmac.compare_digest(kept, digest):
            return seat
    if is_owner(game, token):
        raise Forbidden("this is the game's owner token: it stops, resumes and deletes "
                        "the game and reads the spectator's view, it acts for no seat",
                        field="token")
    raise Forbidden("this token is not one of this game's seat tokens", field="token")


def viewer(game: Game, token: str | None, seat: int | None) -> int | None:
    """The seat whose view to answer (None: the spectator's). Without a token: the
    spectator's view, 401 for a given seat; with one: its own seat's view by default,
    another seat's only in live mode (403 in play mode)."""
    if game.tokens is None:  # a game from before seat tokens: open to everyone
        return seat or game.perspective
    if seat is None and is_owner(game, token):
        return None  # the owner holds no seat: the spectator's view
    mine = caller(game, token)
    if mine is None:
        if seat is None:
            return None
        raise Unauthorized(f"seat {seat}'s view is private: {HOW}; without a token you "
                           "get the spectator's view (leave out seat)", field="seat")
    if seat is None:
        return mine
    if seat != mine and game.mode == "play":
        raise Forbidden(f"this is seat {mine}'s token: seat {seat}'s view needs seat "
                        f"{seat}'s token", field="seat")
    return seat


def actor(game: Game, token: str | None, seat: int, what: str) -> int | None:
    """Check that the bearer of ``token`` may act for ``seat`` (``what``: "post steps
    for", "ask the analysis of"...); the caller's own seat. Play mode: only that seat's
    token (steps for an AI seat are left to the game's 409: it moves by itself); live
    mode: any token of the game."""
    if game.tokens is None:
        return None
    mine = caller(game, token)
    if mine is None:
        raise Unauthorized(f"to {what} seat {seat}: {HOW}", field="seat")
    if game.mode == "play" and seat != mine:
        if game.is_ai(seat - 1) and what.startswith("post"):
            return mine  # the game answers 409: not its decision, or it moves by itself
        raise Forbidden(f"this is seat {mine}'s token: to {what} seat {seat} you need "
                        f"seat {seat}'s token", field="seat")
    return mine


def member(game: Game, token: str | None, what: str) -> int | None:
    """Check that ``token`` is one of the game's seat tokens (``what``: "undo", "delete
    the game"...); its seat (None for a game from before seat tokens)."""
    if game.tokens is None:
        return None
    mine = caller(game, token)
    if mine is None:
        raise Unauthorized(f"to {what}: {HOW}", field="token")
    return mine


def controller(game: Game, token: str | None, what: str) -> int | None:
    """Check that ``token`` may stop, resume or delete the game (``what``: "stop the
    game"...): its owner token (a game with no human seat), or any of its seat tokens;
    the token's seat (None: the owner, or a game from before seat tokens). 401 without a
    token, 403 with another."""
    if game.tokens is None or is_owner(game, token):
        return None
    if token is None and game.owner is not None:
        raise Unauthorized(f"to {what}: send the header '{HEADER}' with the game's owner "
                           "token (given when the game was created)", field="token")
    return member(game, token, what)


# -- what a spectator sees ----------------------------------------------------------------

def spectator_observation(s: engine.State) -> dict[str, Any]:
    """The position as someone at the table who holds no seat sees it: every seat's
    face-down plan and starting tiles hidden until the reveal, the chance generator
    zeroed (hands are public: deducible, as ``engine.observe`` has them). ``viewer``
    is null."""
    # Observing as one seat hides every other seat's private things; observing that
    # observation as another seat hides the first seat's too.
    first = s.decision.player if s.decision.player >= 0 else 0
    other = (first + 1) % s.n
    seen = engine.observe(engine.observe(s, other).state, first)
    out = engine.observation_to_json(seen)
    out["viewer"] = None
    return out


# -- takebacks ----------------------------------------------------------------------------

def takeback_start(game: Game, seat: int | None) -> int:
    """The first history index an undo by ``seat`` takes back (its whole submission and
    everything after it), or 409 saying why not. ``seat`` None: the last submission of
    anyone (live mode's corrections, games from before seat tokens)."""
    hist = game.history
    live = game.mode == "live"
    if not live and not game.takebacks:
        raise Conflict("takebacks are off in this game (it has several human seats; "
                       "\"takebacks\": true at creation allows them)", field="seat")
    user = ("human", "report")
    start = len(hist) - 1
    if live or seat is None:
        while start >= 0 and hist[start].source not in user:
            start -= 1
        if start < 0:
            raise Conflict("nothing to undo: no step was submitted by a user", field="id")
    else:
        while start >= 0 and not (hist[start].source == "human"
                                  and hist[start].player == seat - 1):
            if hist[start].source == "human":
                raise Conflict(f"seat {hist[start].player + 1} has played since your last "
                               "move: undo takes back only your own move", field="seat")
            start -= 1
        if start < 0:
            raise Conflict(f"nothing to undo: seat {seat} has not moved yet", field="id")
    group = hist[start].group
    while start > 0 and hist[start - 1].group == group:
        start -= 1
    if not live:
        for k in range(start, len(hist)):
            if hist[k].source == "chance":
                raise Conflict(f"the cards revealed after your move stay: {REVEAL}",
                               field="id")
            if game.states[k + 1].revealed and not game.states[k].revealed:
                raise Conflict(f"the plans revealed after your move stay: {REVEAL}",
                               field="id")
    return start


def can_undo(game: Game, seat: int | None) -> bool:
    """Whether ``seat`` (None: the spectator) may undo now."""
    if seat is None and game.tokens is not None:
        return False
    try:
        takeback_start(game, None if game.tokens is None else seat)
    except Conflict:
        return False
    return True


# -- JSON only ----------------------------------------------------------------------------

def document_json_only(router: FastAPI | APIRouter) -> None:
    """Add the 415 answer of :class:`JsonOnly` to every POST, PUT and PATCH route under
    ``/v1/`` of the OpenAPI document: the routes of ``router`` itself (call it on each
    router before it is included: an included router's routes are not the app's)."""
    for route in router.routes:
        if (isinstance(route, APIRoute) and route.path.startswith("/v1/")
                and (route.methods or set()) & BODY_METHODS):
            route.responses.setdefault(415, ERRORS[415])


class JsonOnly:
    """ASGI middleware: 415 for a POST, PUT or PATCH under ``/v1/`` whose
    ``Content-Type`` is not ``application/json`` (an HTML form cannot send that type
    across sites without the page's own consent, CORS)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and scope.get("method") in BODY_METHODS
                and str(scope.get("path", "")).startswith("/v1/")):
            headers = dict(scope.get("headers") or [])
            raw, media = content_type(scope)
            # A request without a body (e.g. undo with its optional body left out) carries
            # nothing a form could forge; an HTML form always sends a content type.
            bodiless = (not raw and headers.get(b"content-length", b"0") == b"0"
                        and b"transfer-encoding" not in headers)
            if media != "application/json" and not bodiless:
                shown = repr(raw[:80]) if raw else "none"
                refused = UnsupportedMediaType(
                    f"Content-Type must be application/json (got {shown}): requests "
                    "that change something take JSON bodies only", field="content-type")
                await refused.response()(scope, receive, send)
                return
        await self.app(scope, receive, send)
