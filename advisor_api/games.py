"""Games played through the service: seats, steps, chance, undo, AI seats, storage.

A game has 2-4 seats, each ``human`` or ``ai`` (a bot spec), and a mode:

* ``play``: the service deals every chance event itself (the state's own generator), and
  AI seats move by themselves, in a background task whose searches run in the process
  pool, after a human's step;
* ``live``: mirroring a physical game. The user reports every step of every player and
  every chance outcome seen at the table (``report_chance``); the service never invents
  one (the starting tiles dealt face down to the other seats are recorded as unseen),
  and AI seats only suggest (``analysis``), they never move.

Every accepted step is stored (:mod:`advisor_api.store`) before the answer, with its
source (``human``, ``ai``, ``chance`` dealt by the service, ``report``ed chance,
``unseen`` tiles dealt to others at a live table) and its
group (one submission). A game is reloaded by replaying its steps.

Secrets (:mod:`advisor_api.access`): in play mode the cards are dealt from a seed the
clients never see (``secrets.randbits``; shown in the views once the game is over, for
replay) unless the game was created ``reproducible`` with a seed of the client's; every
human seat (live mode: every seat) has a token that its view, steps, analysis and undo
need; without one a client sees the spectator's view. A play-mode game with no human
seat has an owner token instead, which stops, resumes and deletes it. Games idle for
``MOMBASA_GAME_TTL_HOURS`` are deleted (on access, and by a sweep every few minutes).

:class:`GameService` is what the routes use; the work is done by one module per idea:

* :mod:`advisor_api.game_model`: a game in memory (:class:`~advisor_api.game_model.Game`);
* :mod:`advisor_api.game_store`: creation, loading and replay, storage, activity,
  deletion and expiry, the chance events the service deals;
* :mod:`advisor_api.ai_driver`: the background task that moves the AI seats;
* :mod:`advisor_api.game_moves`: the moves of people and reported chance outcomes;
* :mod:`advisor_api.game_views`: the views, the stream events, the history;
* :mod:`advisor_api.bot_caps`: the bots of AI seats within the service's caps.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from advisor_api import access, game_moves, game_views
from advisor_api.ai_driver import AiDriver
from advisor_api.catalogues import CatalogueLibrary
from advisor_api.errors import Conflict
from advisor_api.game_model import Game
from advisor_api.game_store import GameStore
from advisor_api.pool import WorkerPool
from advisor_api.settings import Settings
from advisor_api.store import Store


class GameService:
    """Every game of the service, backed by the store; AI seats played in the pool.

    A facade: each change is made under the game's lock (``game_moves`` in memory,
    then ``GameStore.commit``), and then the AI seats are set to move."""

    def __init__(self, store: Store, pool: WorkerPool, settings: Settings,
                 catalogues: CatalogueLibrary | None = None) -> None:
        self.settings = settings
        self.kept = GameStore(store, settings, catalogues)
        self.ai = AiDriver(self.kept, pool, settings)

    @property
    def clock(self) -> Any:
        """Epoch seconds now, for activity and expiry (tests move it on)."""
        return self.kept.clock

    @clock.setter
    def clock(self, value: Any) -> None:
        self.kept.clock = value

    # -- life cycle ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the sweep of idle games (unless games never expire)."""
        self.kept.start()

    async def close(self) -> None:
        """Stop every AI seat and the sweep."""
        tasks = [g.ai_task for g in self.kept.in_memory.values() if g.ai_task is not None]
        sweeper = self.kept.stop_sweeping()
        if sweeper is not None:
            tasks.append(sweeper)
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(BaseException):
                await t

    async def create(self, seats: list[dict[str, Any]] | None, seed: int | None,
                     variable: bool | None, mode: str, perspective: int | None = None,
                     catalogue: str | None = None, *, reproducible: bool = False,
                     takebacks: bool | None = None, record: dict[str, Any] | None = None
                     ) -> tuple[Game, dict[int, str], str | None]:
        """A new game (at the last position of ``record``, a game record's JSON, if
        given), the tokens of its seats (seat -> token: every human seat's, in live mode
        every seat's) and its owner token (a play-mode game with no human seat; else
        None), which are never shown again."""
        game, tokens, owner = await self.kept.create(
            seats, seed, variable, mode, perspective, catalogue,
            reproducible=reproducible, takebacks=takebacks, record=record)
        self.ai.kick(game)
        return game, tokens, owner

    async def get(self, gid: str) -> Game:
        """The game (loaded from the database if needed), 404 if unknown."""
        game = await self.kept.get(gid)
        self.ai.kick(game)
        return game

    def watched(self) -> list[Game]:
        """The games in memory with game-event streams open."""
        return self.kept.watched()

    # -- changes -------------------------------------------------------------------------
    async def submit(self, game: Game, seat: int, raw: Any, whole_move: bool) -> None:
        """A human's step or move (live mode: any player's, reported)."""
        async with game.lock:
            mark = len(game.history)
            rows = game_moves.submission(game, seat, raw, whole_move)
            await self.kept.commit(game, rows, mark)
        self.ai.kick(game)

    async def report_chance(self, game: Game, raw: Any) -> None:
        """Live mode: the outcome of the pending chance event, as seen at the table."""
        async with game.lock:
            mark = len(game.history)
            rows = game_moves.chance_report(game, raw)
            await self.kept.commit(game, rows, mark)

    async def undo(self, game: Game, seat: int | None = None) -> None:
        """Back to before ``seat``'s last submission (None: anyone's, live mode) and all
        that followed it; 409 when that is not allowed (``access.takeback_start``)."""
        async with game.lock:
            start = access.takeback_start(game, seat)
            task = await self.kept.take_back(game, start)
        if task is not None:
            task.cancel()  # its move, if it still comes, is for a position that is gone
        self.ai.kick(game)

    async def stop(self, game: Game) -> None:
        """Stop the game's AI seats (stored: a restart does not resume them): the
        running AI move, if any, is cancelled (its search stopped in the pool) and none
        is stored after this returns. 409 in live mode (AI seats never move there) and
        for a game over; stopping a stopped game changes nothing."""
        if game.mode != "play":
            raise Conflict("this game is in live mode: its AI seats only suggest, there "
                           "is nothing to stop", field="id")
        if game.state.is_over() and not game.stopped:
            raise Conflict("the game is over: its AI seats have nothing left to do",
                           field="id")
        task = await self.kept.set_stopped(game, True)
        if task is not None:
            task.cancel()

    async def resume(self, game: Game) -> None:
        """Let a stopped game's AI seats move again (stored); they go on at once if one
        is to move. 409 in live mode; resuming a game not stopped changes nothing."""
        if game.mode != "play":
            raise Conflict("this game is in live mode: its AI seats only suggest, there "
                           "is nothing to resume", field="id")
        await self.kept.set_stopped(game, False)
        self.ai.kick(game)

    async def wait(self, game: Game, seconds: float) -> None:
        """Wait (at most ``seconds``) until the AI seats have moved."""
        task = game.ai_task
        if task is not None and seconds > 0:
            await asyncio.wait({task}, timeout=seconds)

    # -- activity, deletion, expiry ------------------------------------------------------
    async def touch(self, game: Game) -> None:
        """Note activity (a seat's request): the game is not idle."""
        await self.kept.touch(game)

    async def delete(self, game: Game) -> None:
        """Forget a game: its AI task cancelled, its rows removed (404 from now on)."""
        await self.kept.delete(game)

    async def sweep(self) -> list[str]:
        """Delete every game idle for more than ``game_ttl_hours``; their ids."""
        return await self.kept.sweep()

    # -- views ---------------------------------------------------------------------------
    @staticmethod
    def view(game: Game, seat: int | None) -> dict[str, Any]:
        """One seat's view (``seat`` None: the spectator's), :func:`game_views.view`."""
        return game_views.view(game, seat)

    @staticmethod
    def event(game: Game) -> dict[str, Any]:
        """What a game-event stream sends at a change, :func:`game_views.event`."""
        return game_views.event(game)
