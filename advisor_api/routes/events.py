"""``GET /v1/games/{id}/events``: a game's changes as Server-Sent Events, for pages to
stay current (nothing private: a page re-reads its own view)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from advisor_api import access, sse
from advisor_api.game_model import Game
from advisor_api.limits import CLIENT
from advisor_api.schemas import OptionalSeatQuery, errors
from advisor_api.service import Service, ServiceDep

router = APIRouter(tags=["games"])


@router.get("/v1/games/{game_id}/events", response_class=StreamingResponse,
            responses={200: {"description": "Server-Sent Events: `change` (now and at "
                                            "every change), `deleted` (the end)",
                             "content": {"text/event-stream": {}}},
                       **errors(401, 403, 404, 422, 429)})
async def game_events(game_id: str, token: access.SeatToken, svc: ServiceDep,
                      seat: OptionalSeatQuery = None) -> StreamingResponse:
    """The game's changes as Server-Sent Events, for pages to stay current: an event
    ``change`` at once and after every change (``version``, ``steps``, ``round``,
    ``phase``, the decision's ``kind`` and ``seats``, ``over``, ``ai_thinking``,
    and the stream's ``seat`` with ``your_turn``: nothing private; re-read the view),
    a comment line as heartbeat every ~15 s, and ``deleted`` when the game is
    deleted (the stream ends). The same tokens as the view (a seat's token: its
    seat; none: the spectator's); at most ``MOMBASA_CLIENT_STREAMS`` streams open
    per client (429). Counts against no search admission."""
    game = await svc.games.get(game_id)
    access.check_seat(game, seat)
    seat = access.viewer(game, token, seat)
    return events_response(svc, game, seat)


def events_response(svc: Service, game: Game, seat: int | None) -> StreamingResponse:
    """A game's event stream, counted against the client's streams now (429)."""
    close = svc.limits.stream(CLIENT.get())
    game.watchers += 1

    def release() -> None:
        game.watchers -= 1
        close()

    return sse.event_stream(_changes(svc, game, seat), [release])


async def _changes(svc: Service, game: Game, seat: int | None) -> AsyncIterator[str]:
    """``change`` now and after every change of the game (what every view shows,
    nothing private), a comment line every ``events_heartbeat`` seconds, and
    ``deleted`` (the end of the stream) when the game goes."""
    beat = svc.settings.events_heartbeat
    while True:
        wake = game.changed()  # before reading the game: no change is missed
        if svc.stopping:
            return
        if game.deleted:
            yield sse.event("deleted", {"id": game.id, "deleted": True})
            return
        body = svc.games.event(game)
        body["seat"] = seat
        body["your_turn"] = (seat is not None and not body["over"]
                             and seat in body["decision"]["seats"])
        yield sse.event("change", body)
        while True:
            try:
                await asyncio.wait_for(wake.wait(), beat)
                break
            except TimeoutError:
                yield ": heartbeat\n\n"
