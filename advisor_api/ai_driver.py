"""The AI seats of games in play mode: after every change, a background task per game
moves its AI seats one after another (each move searched in the process pool, never on
the event loop), until a person is to decide, a chance event is pending (the service
deals it), the game is over or its AI seats are stopped (``POST .../stop``). A failed
search plays a random move instead and says so in the game's ``ai.error``. A move that
meets the database locked past its busy budget (503 ``storage-busy`` for a person) is
stored later: tried again after a growing pause for as long as the game stays as it
was, ``ai.error`` saying so meanwhile; the game goes on by itself once the lock is
released.

Several replicas on one PostgreSQL database (``GameStore.shared``): a game's AI seats
are driven by one replica at a time, the holder of the game's AI lease (a row of
``ai_leases`` with an expiry on the database's clock, :meth:`Store.take_lease`). The
replica whose request set an AI seat to move takes it and renews it while it drives
(:class:`advisor_api.replicas.Replicas`, every third of ``MOMBASA_AI_LEASE``); each AI
move is stored only while it still holds the lease (``Store.expecting``). Every other
replica with the game in memory follows: its task waits (the game "thinks" in its views
too) for the move to arrive, for the lease to be given back or to run out, and takes it
then: a replica that dies mid-move is replaced within ``MOMBASA_AI_LEASE`` seconds, and
one that stops hands its games over at once."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from dataclasses import dataclass

import engine
from advisor_api.bot_caps import bot_limit
from advisor_api.errors import ApiError, Conflict, NotFound, StorageBusy
from advisor_api.game_model import Game
from advisor_api.game_moves import play
from advisor_api.game_store import GameStore
from advisor_api.pool import WorkerPool
from advisor_api.settings import Settings
from advisor_api.store import GameChanged
from engine import Step
from search.bots import RandomBot

log = logging.getLogger("advisor_api.games")

#: An AI move refused by a busy database is tried again after a pause (seconds) that
#: starts at RETRY_FIRST and doubles up to RETRY_MAX; each try itself waits for the
#: database at most MOMBASA_DB_BUSY_MS.
RETRY_FIRST = 0.1
RETRY_MAX = 2.0


@dataclass(frozen=True)
class _Turn:
    """An AI seat's turn as it was when its search started."""

    player: int  # 0-based
    spec: str  # the seat's bot
    version: int  # the game's version (another change since: the move is dropped)
    obs: engine.Observation
    seed: int


class AiDriver:
    """Moves the AI seats of the games of ``games`` in the search pool."""

    def __init__(self, games: GameStore, pool: WorkerPool, settings: Settings) -> None:
        self.games = games
        self.pool = pool
        self.settings = settings
        # Several replicas (a shared database): who this one is, the games whose AI
        # lease it holds, and the followers waiting for a lease given back.
        self.shared = games.shared
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.held: set[str] = set()
        self._freed: dict[str, asyncio.Event] = {}
        self.closing = False  # the service stops: leases are handed over
        games.changed_elsewhere = self._changed_elsewhere

    def kick(self, game: Game) -> None:
        """Start the AI seats' background task if an AI seat is to move (play mode)."""
        if game.mode != "play" or game.ai_task is not None:
            return
        if ai_to_move(game) is None:
            return
        game.ai_task = asyncio.ensure_future(self._loop(game))
        game.notify()  # the AI thinks (the views say so)

    async def _loop(self, game: Game) -> None:
        """Move AI seats until none is to move; the game's task while it runs."""
        me = asyncio.current_task()
        try:
            while True:
                async with game.lock:
                    turn = _turn(game)
                if turn is None:
                    return
                if self.shared and not await self._lead(game):
                    continue  # followed another replica a while: look again
                steps = await self._search(game, turn)
                if await self._store_move(game, turn, steps):
                    await self.games.touch(game)
                # else the game changed meanwhile (an undo...): think again if an AI
                # seat is still to move
        except asyncio.CancelledError:
            raise
        except NotFound:  # deleted (by another replica) meanwhile
            pass
        except Exception as exc:  # keep the service up; the game says what went wrong
            log.exception("game %s: AI seat stopped", game.id)
            game.ai_error = f"the AI stopped: {type(exc).__name__}: {exc}"
        finally:
            if game.ai_task is me:
                game.ai_task = None
                game.notify()  # done thinking
            if game.ai_task is None and game.id in self.held:
                await self._release(game)

    # -- several replicas: the AI lease ----------------------------------------------------
    async def _lead(self, game: Game) -> bool:
        """Take (or keep) the game's AI lease: True if this replica drives the move.
        Else follow a while: until the game changes, the lease is given back, or half
        the lease's time passes (it may have run out: tried again then)."""
        store = self.games.store
        freed = self._freed.setdefault(game.id, asyncio.Event())
        changed = game.changed()
        try:
            if await store.off_loop(store.take_lease, game.id, self.holder,
                                    self.settings.ai_lease):
                self.held.add(game.id)
                return True
        except StorageBusy as exc:
            log.warning("game %s: AI lease not taken: %s", game.id, exc.message)
        self.held.discard(game.id)
        waits = [asyncio.ensure_future(changed.wait()), asyncio.ensure_future(freed.wait())]
        try:
            await asyncio.wait(waits, timeout=self.settings.ai_lease / 2,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
            freed.clear()
        return False

    async def _release(self, game: Game) -> None:
        """Give the lease back: deleted when the AI seats are done, expired at once when
        the service stops (another replica takes them over without waiting)."""
        self.held.discard(game.id)
        self._freed.pop(game.id, None)
        store = self.games.store
        try:
            await store.off_loop(store.release_lease, game.id, self.holder, self.closing)
        except Exception as exc:  # it runs out by itself
            log.warning("game %s: AI lease not given back: %s", game.id, exc)

    def lease_freed(self, gid: str) -> None:
        """Another replica gave a game's lease back: its followers here try for it."""
        event = self._freed.get(gid)
        if event is not None:
            event.set()

    def _changed_elsewhere(self, game: Game) -> None:
        """A game caught up with another replica's change: a move this replica was
        searching is for a position that is gone (cancelled); an AI seat may be to move."""
        task = game.ai_task
        if task is not None and game.id in self.held and task is not asyncio.current_task():
            game.ai_task = None
            task.cancel()
        self.kick(game)

    def leases_kept(self, held: set[str]) -> None:
        """The leases this replica still holds (after renewing them): a game whose lease
        another replica took (this one was thought dead) is followed from now on."""
        for gid in self.held - held:
            self.held.discard(gid)
            game = self.games.in_memory.get(gid)
            if game is not None:
                log.warning("game %s: AI lease taken over by another replica", gid)
                self._changed_elsewhere(game)

    async def take_over(self, gid: str) -> None:
        """A game whose lease ran out (its driver died, or handed it over): driven here
        if an AI seat is to move, else the lease is forgotten."""
        try:
            game = await self.games.get(gid)
        except NotFound:
            return
        if ai_to_move(game) is None:
            store = self.games.store
            await store.off_loop(store.release_lease, gid, None)
        elif game.ai_task is None:
            self.kick(game)
        else:
            self.lease_freed(gid)

    async def _search(self, game: Game, turn: _Turn) -> list[Step]:
        """The bot's move, searched in the pool (a random move if the search fails)."""
        task = {"kind": "bot", "spec": turn.spec, "seed": turn.seed,
                "observation": engine.observation_to_json(turn.obs)}
        try:
            # The game's client's work in the pool's fair share (its analyses' too).
            [move] = await self.pool.run([task], bot_limit(turn.spec, self.settings),
                                         admit=False, client=game.client)
            return list(move.steps)
        except ApiError as exc:
            log.warning("game %s: AI %s failed: %s", game.id, turn.spec, exc.message)
            game.ai_error = f"{turn.spec}: {exc.message}; a random move was played"
            return list(RandomBot(turn.seed).choose(turn.obs).steps)

    async def _store_move(self, game: Game, turn: _Turn, steps: list[Step]) -> bool:
        """Play the searched move and store it; False (the move dropped) if the game
        changed since its search started: an undo, a person's step at a simultaneous
        decision, a stop or a deletion moved its version on.

        The database locked past its busy budget (StorageBusy) is waited out: the move
        is tried again after a pause (RETRY_FIRST doubling to RETRY_MAX), the game's
        lock released meanwhile (views, undo, stop and delete go on), for as long as the
        game stays as it was; ``ai.error`` says so until the move is stored. A failed
        commit leaves the game as it was before the move (its records taken back out of
        memory, nothing written), so each try plays the move afresh from the same
        position: it is never applied twice."""
        version, pause, tries = turn.version, RETRY_FIRST, 0
        before, waiting, outcome = game.ai_error, None, "dropped"
        try:
            while True:
                async with game.lock:
                    if game.deleted or game.stopped or game.version != version:
                        return False
                    try:
                        await self._play(game, turn, steps)
                        outcome = "stored"
                        return True
                    except GameChanged:  # another replica moved it on: think again
                        return False
                    except StorageBusy as exc:
                        tries += 1
                        version = game.version  # history as before; the version moved on
                        waiting = (f"seat {turn.player + 1}'s move waits for the database "
                                   f"(try {tries}, again in {pause:g} s): {exc.message}")
                        game.ai_error = waiting
                        game.notify()
                        if tries == 1 or tries % 10 == 0:
                            log.warning("game %s: %s", game.id, waiting)
                await asyncio.sleep(pause)
                pause = min(pause * 2, RETRY_MAX)
        finally:
            if waiting is not None:
                log.info("game %s: seat %d's move %s after %d busy tries", game.id,
                         turn.player + 1, outcome, tries)
                if game.ai_error == waiting:  # (else an undo cleared it, or a new note)
                    game.ai_error = before

    async def _play(self, game: Game, turn: _Turn, steps: list[Step]) -> None:
        """Apply and store the move (a random one instead if it is illegal); the
        caller holds the game's lock."""
        mark = len(game.history)
        try:
            rows = play(game, turn.player + 1, steps, "ai", True)
        except Conflict as exc:
            game.ai_error = f"{turn.spec} proposed an illegal move: {exc.message}"
            log.error("game %s: %s", game.id, game.ai_error)
            steps = list(RandomBot(turn.seed).choose(turn.obs).steps)
            rows = play(game, turn.player + 1, steps, "ai", True)
        await self.games.commit(game, rows, mark, self.holder if self.shared else None)


def ai_to_move(game: Game) -> int | None:
    """The AI seat to move next: the decider, or at a simultaneous decision any AI
    seat still deciding (AI seats plan without waiting for the humans)."""
    s = game.state
    if s.is_over() or game.deleted or game.stopped:
        return None
    return next((p for p in s.decision.deciders if game.is_ai(p)), None)


def _turn(game: Game) -> _Turn | None:
    """The next AI seat's turn (None: no AI seat is to move); under the game's lock."""
    player = ai_to_move(game)
    if player is None:
        return None
    return _Turn(player, game.seats[player]["bot"], game.version,
                 engine.observe(game.state, player),
                 (game.seed * 7919 + len(game.history)) & ((1 << 62) - 1))
