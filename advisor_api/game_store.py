"""Games kept: created, loaded from the database (replayed) and kept in memory, their
changes stored, their activity noted, deleted when asked or when idle too long, and the
chance events the service settles itself (:func:`deal`).

A game in memory knows the version of the database it reflects (:class:`SyncedLock`,
its lock). Every change is written expecting that version (``Store.expecting``), so a
change made meanwhile by another replica of the service (a shared PostgreSQL database)
is never overwritten: the write fails (409 :class:`~advisor_api.store.GameChanged`) and
the game catches up. With a shared database the game also catches up whenever its lock
is taken (each request, each AI move) and when another replica announces a change
(:meth:`GameStore.heard`): nothing kept in memory can go stale. With SQLite (one
process) the lock is a plain one."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any, Literal, TypeVar

import engine
from advisor_api import access
from advisor_api.bot_caps import check_bot, default_bot
from advisor_api.catalogues import CatalogueLibrary, is_default
from advisor_api.errors import InvalidInput, NotFound, StorageError
from advisor_api.game_model import Game, Record
from advisor_api.limits import CLIENT
from advisor_api.settings import Settings
from advisor_api.store import GameChanged, Row, Snapshot, Store
from engine import IllegalStep, NotationError, State, Step

log = logging.getLogger("advisor_api.games")
T = TypeVar("T")

_CACHE = 256  # games kept in memory (others are replayed from the database on demand)
TOUCH_EVERY = 60.0  # seconds: a game's activity is written at most this often
SWEEP_EVERY = 300.0  # seconds between two sweeps of the idle games
_ANY = 1 << 62  # a notice without a version (a deletion, a reconnection): look once


class SyncedLock(asyncio.Lock):
    """A game's lock, and the version of the database (``games.rev``) the game in memory
    reflects. With ``sync`` (a shared database), taking the lock first brings the game
    up to the database's version (``sync`` may raise: 404 for a game deleted
    elsewhere; the lock is then given back)."""

    def __init__(self, rev: int, sync: Callable[[], Awaitable[None]] | None) -> None:
        super().__init__()
        self.rev = rev
        self._sync = sync

    async def acquire(self) -> Literal[True]:
        await super().acquire()
        if self._sync is not None:
            try:
                await self._sync()
            except BaseException:
                self.release()
                raise
        return True


def synced(game: Game) -> SyncedLock:
    """The game's lock (a :class:`SyncedLock`: every game of a GameStore has one)."""
    lock = game.lock
    assert isinstance(lock, SyncedLock)
    return lock


class GameStore:
    """Every game of the service, backed by the store; the most recent in memory."""

    def __init__(self, store: Store, settings: Settings,
                 catalogues: CatalogueLibrary | None = None) -> None:
        self.store = store
        self.settings = settings
        self.catalogues = catalogues
        self.in_memory: OrderedDict[str, Game] = OrderedDict()
        self._load_lock = asyncio.Lock()
        self.clock = time.time  # epoch seconds (tests move it on)
        self._sweeper: asyncio.Task[None] | None = None
        # Several replicas share the database: games catch up with it (module doc).
        self.shared = store.shared
        # Called when a game caught up with another replica's change (the AI driver's).
        self.changed_elsewhere: Callable[[Game], None] = lambda game: None
        self._wanted: dict[str, int] = {}  # game -> the newest version announced
        self._refreshing: set[str] = set()

    # -- life cycle ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the sweep of idle games (every ``SWEEP_EVERY`` s, from now on), unless
        games never expire (``game_ttl_hours`` 0)."""
        if self.settings.game_ttl_hours > 0 and self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep_loop())

    def stop_sweeping(self) -> asyncio.Task[None] | None:
        """The sweep's task, no longer kept (the caller cancels it)."""
        task, self._sweeper = self._sweeper, None
        return task

    async def create(self, seats: list[dict[str, Any]] | None, seed: int | None,
                     variable: bool | None, mode: str, perspective: int | None = None,
                     catalogue: str | None = None, *, reproducible: bool = False,
                     takebacks: bool | None = None, record: dict[str, Any] | None = None
                     ) -> tuple[Game, dict[int, str], str | None]:
        """A new game, stored, the tokens of its seats (seat -> token: every human
        seat's, in live mode every seat's) and its owner token (a play-mode game with no
        human seat, else None), which are never shown again. The game's AI moves count
        as the work of the client creating it (:data:`advisor_api.limits.CLIENT`).

        With ``record`` (a game record's JSON) the game begins at the record's last
        position with its history (:func:`read_record`, :func:`import_steps`: 422
        naming the record's field or step, nothing stored); ``seats`` and ``variable``
        (None: not given) default to the record's."""
        if seed is not None and mode == "play" and not reproducible:
            raise InvalidInput("seed: a seed chosen by a client lets whoever knows it "
                               "predict every card the service deals; send "
                               "\"reproducible\": true with it (every view then shows "
                               "the seed), or leave it out", field="seed")
        cat, ref = self._catalogue_for_new_game(catalogue)
        imported = None if record is None else read_record(
            record, cat or engine.default_catalogue())
        where = "record.seats" if imported is not None and seats is None else "seats"
        seats, variable = _setup(imported, seats, variable)
        clean = self._clean_seats(seats, where)
        _check_perspective(perspective, clean, mode)
        tokens = {i + 1: access.new_token() for i, st in enumerate(clean)
                  if mode == "live" or st["kind"] == "human"}
        # Nobody holds a seat of an AI-only game: its owner token stops and deletes it.
        owner = access.new_token() if not tokens else None
        params = _new_params(clean, seed, variable, mode, reproducible, takebacks, tokens)
        if owner is not None:
            params["owner"] = access.token_hash(owner)
        if perspective is not None:
            params["perspective"] = perspective
        if ref is not None:
            params["catalogue"] = ref  # its content (sha256), whatever the name becomes
        gid = secrets.token_hex(8)
        game = self._game(gid, params, cat, 0)
        game.client = CLIENT.get()
        rows = [] if imported is None else await asyncio.to_thread(
            import_steps, game, imported)
        rows += deal(game)
        # One transaction (a 503 storage-busy leaves no game behind), off the event loop.
        await self.store.off_loop(self.store.create, gid, params, rows)
        game.touched = game.touch_saved = self.clock()
        self._remember(game)
        return game, tokens, owner

    def _clean_seats(self, seats: list[dict[str, Any]], where: str = "seats"
                     ) -> list[dict[str, Any]]:
        """The seats as stored: AI seats with a checked bot spec (the default if none),
        human seats without one (422 naming the seat, ``where[i]``)."""
        clean: list[dict[str, Any]] = []
        for i, seat in enumerate(seats):
            if seat["kind"] == "ai":
                spec = check_bot(seat.get("bot") or default_bot(self.settings),
                                 self.settings, f"{where}[{i}].bot")
                clean.append({"kind": "ai", "bot": spec})
            else:
                if seat.get("bot"):
                    raise InvalidInput(f"{where}[{i}].bot: only AI seats have a bot",
                                       field=f"{where}[{i}].bot")
                clean.append({"kind": "human", "bot": None})
        return clean

    async def get(self, gid: str) -> Game:
        """The game (loaded from the database if needed), 404 if unknown; the chance
        events due dealt (a game stored before they were)."""
        game = self.in_memory.get(gid)
        if game is not None:
            self.in_memory.move_to_end(gid)
            if self.shared:
                async with game.lock:  # caught up with the database
                    pass
            await self._expire_if_idle(game)
            return game
        async with self._load_lock:
            game = self.in_memory.get(gid)
            if game is None:
                # in a thread: the database read and the replay keep the loop free
                game = await self.store.off_loop(self._load, gid)
                self._remember(game)
        await self._expire_if_idle(game)
        async with game.lock:
            mark = len(game.history)
            await self.commit(game, deal(game), mark)
        return game

    def _load(self, gid: str) -> Game:
        if len(gid) > 64:
            raise NotFound(f"no game {gid[:64]!r}...", field="id")
        snap = self.store.snapshot(gid)
        if snap is None:
            raise NotFound(f"no game {gid!r}", field="id")
        params = snap.params
        cat = None
        if params.get("catalogue"):
            if self.catalogues is None:
                raise StorageError(f"game {gid!r} plays with a stored catalogue, and this "
                                   "service keeps none")
            cat = self.catalogues.for_game(params)
        game = self._game(gid, params, cat, snap.rev)
        game.touched = game.touch_saved = snap.touched
        _replay(game, snap.rows)
        return game

    def _game(self, gid: str, params: dict[str, Any], cat: engine.Catalogue | None,
              rev: int) -> Game:
        """A game in memory at version ``rev`` of the database, with its synced lock."""
        game = Game(gid, params, cat)
        game.lock = SyncedLock(rev, (lambda: self._sync(game)) if self.shared else None)
        return game

    # -- several replicas: catching up with the database ---------------------------------
    async def _sync(self, game: Game) -> None:
        """Bring the game up to the database's version (its lock held): unchanged, the
        steps another replica added or took back, its parameters (stopped), or, deleted
        there, deleted here too (404)."""
        if game.deleted:
            return
        rev = await self.store.off_loop(self.store.rev, game.id)
        if rev == synced(game).rev:
            return
        snap = None if rev is None else await self.store.off_loop(self.store.snapshot,
                                                                  game.id)
        if snap is None:
            self._gone(game)
            raise NotFound(f"no game {game.id!r} (deleted)", field="id")
        self._catch_up(game, snap)

    def _catch_up(self, game: Game, snap: Snapshot) -> None:
        """The game as the snapshot has it: the steps both agree on kept, the rest
        replayed (on the event loop: a whole game replays in milliseconds)."""
        cat = game.state.cat
        keep = 0
        for rec, row in zip(game.history, snap.rows, strict=False):
            if (rec.player, rec.step.text(cat), rec.source, rec.group) != row[1:]:
                break
            keep += 1
        del game.history[keep:]
        del game.states[keep + 1:]
        _replay(game, snap.rows[keep:])
        game.params = snap.params
        game.stopped = bool(snap.params.get("stopped", False))
        synced(game).rev = snap.rev
        game.version += 1
        game.notify()
        self.changed_elsewhere(game)

    def _gone(self, game: Game) -> None:
        """Deleted by another replica: deleted here (streams told, AI task cancelled)."""
        game.deleted = True
        game.version += 1
        game.notify()
        task, game.ai_task = game.ai_task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        if self.in_memory.get(game.id) is game:
            del self.in_memory[game.id]

    def heard(self, gid: str, rev: int | None) -> None:
        """Another replica announced version ``rev`` of a game (None: deleted, or
        unknown): a game in memory catches up, in a task of its own."""
        game = self.in_memory.get(gid)
        if game is None or game.deleted or (rev is not None and rev <= synced(game).rev):
            return
        self._wanted[gid] = max(self._wanted.get(gid, -1), _ANY if rev is None else rev)
        if gid not in self._refreshing:
            self._refreshing.add(gid)
            asyncio.ensure_future(self._refresh(game))

    async def _refresh(self, game: Game) -> None:
        try:
            while not game.deleted and self._wanted.get(game.id, -1) > synced(game).rev:
                wanted = self._wanted[game.id]
                async with game.lock:  # caught up on the way in
                    pass
                if wanted == _ANY:
                    break
        except NotFound:
            pass
        except Exception as exc:  # the next request or notice tries again
            log.warning("game %s: not caught up with the database: %s", game.id, exc)
        finally:
            self._refreshing.discard(game.id)
            self._wanted.pop(game.id, None)

    def _catalogue_for_new_game(self, name: str | None
                                ) -> tuple[engine.Catalogue | None, dict[str, str] | None]:
        if self.catalogues is None:
            if not is_default(name):
                raise InvalidInput("catalogue: this service keeps no catalogues",
                                   field="catalogue")
            return None, None
        return self.catalogues.for_new_game(name)

    def watched(self) -> list[Game]:
        """The games in memory with game-event streams open."""
        return [g for g in self.in_memory.values() if g.watchers]

    def _remember(self, game: Game) -> None:
        self.in_memory[game.id] = game
        self.in_memory.move_to_end(game.id)
        while len(self.in_memory) > _CACHE:
            old = next((g for g in self.in_memory.values() if g.ai_task is None
                        and not g.lock.locked() and not g.watchers), None)
            if old is None:
                break
            del self.in_memory[old.id]

    # -- changes -------------------------------------------------------------------------
    async def commit(self, game: Game, rows: list[Row], mark: int,
                     lease: str | None = None) -> None:
        """Store rows (the records from ``mark`` on), then keep them in memory. While the
        write waits for the database (in a thread, off the event loop; the caller holds
        the game's lock) the game shows none of them; if it fails (503 storage-busy...)
        the game is unchanged. A write under way is seen to its end even if the caller
        is cancelled meanwhile, so memory and database agree. 404 if the game was
        deleted while the caller waited for its lock; 409 if another replica changed it
        meanwhile (nothing stored; the game caught up). ``lease``: an AI move, stored
        only while this replica holds the game's AI lease (``Store.expecting``)."""
        if game.deleted:  # a request that waited for the lock while the game went
            raise NotFound(f"no game {game.id!r} (deleted)", field="id")
        if not rows:
            return
        records, states = game.history[mark:], game.states[mark + 1:]
        del game.history[mark:]
        del game.states[mark + 1:]

        async def write() -> None:
            await self._expecting(game, lease, self.store.append, game.id, rows)
            game.history.extend(records)
            game.states.extend(states)
            game.notify()

        await to_the_end(write())

    async def _expecting(self, game: Game, lease: str | None, fn: Callable[..., T],
                         *args: Any) -> T:
        """A write of the game (its lock held) at the version the game in memory has
        (and, with ``lease``, while this replica holds its AI lease): the new version
        kept. If another replica changed it meanwhile, nothing is written, the game
        catches up, and :class:`GameChanged` (409) goes on."""
        lock = synced(game)
        try:
            with self.store.expecting(lock.rev, lease):
                result = await self.store.off_loop(fn, *args)
        except GameChanged:
            await self._sync(game)
            raise
        lock.rev += 1
        return result

    async def take_back(self, game: Game, first: int) -> asyncio.Task[None] | None:
        """Remove the records from ``first`` on (stored, then in memory; the caller holds
        the game's lock); the AI task that was running, no longer the game's (the caller
        cancels it: its move, if it still comes, is for a position that is gone)."""
        async def cut() -> asyncio.Task[None] | None:
            await self._expecting(game, None, self.store.truncate, game.id, first)
            del game.history[first:]
            del game.states[first + 1:]
            game.version += 1
            game.ai_error = None
            task, game.ai_task = game.ai_task, None
            game.notify()
            return task

        return await to_the_end(cut())

    async def set_stopped(self, game: Game, stopped: bool) -> asyncio.Task[None] | None:
        """Stop (or resume) the game's AI seats: stored, then in memory (the caller
        holds nothing; 503 storage-busy changes nothing, 404 for a game deleted
        meanwhile). On a stop, the AI task that was running, no longer the game's (the
        caller cancels it): taken under the game's lock, so no AI move is stored after
        the stop."""
        async with game.lock:
            if game.deleted:
                raise NotFound(f"no game {game.id!r} (deleted)", field="id")

            async def write() -> asyncio.Task[None] | None:
                if game.stopped != stopped:
                    if not await self._expecting(game, None, self.store.set_stopped,
                                                 game.id, stopped):
                        raise NotFound(f"no game {game.id!r} (deleted)", field="id")
                    game.stopped = stopped
                    game.notify()
                if not stopped:
                    return None
                task, game.ai_task = game.ai_task, None
                return task

            return await to_the_end(write())

    # -- activity, deletion, expiry ------------------------------------------------------
    async def touch(self, game: Game) -> None:
        """Note activity (a seat's request, an AI move): the game is not idle. Written
        to the database at most every ``TOUCH_EVERY`` seconds; best effort."""
        now = self.clock()
        game.touched = max(game.touched, now)
        if now - game.touch_saved < TOUCH_EVERY or game.deleted:
            return
        game.touch_saved = now
        try:
            await self.store.off_loop(self.store.touch, game.id, now)
        except Exception as exc:  # the activity is a hint; the request goes on
            log.warning("game %s: activity not stored: %s", game.id, exc)

    async def delete(self, game: Game) -> None:
        """Forget a game: its AI task cancelled, its rows removed (404 from now on)."""
        async with game.lock:
            if not game.deleted:
                _, dropped = await self.store.off_loop(self.store.delete_game, game.id)
                game.deleted = True
                game.version += 1
                game.notify()
                if dropped and self.catalogues is not None:
                    self.catalogues.game_deleted(dropped)
            task, game.ai_task = game.ai_task, None
        if task is not None:
            task.cancel()
        if self.in_memory.get(game.id) is game:
            del self.in_memory[game.id]

    def _idle(self, game: Game, now: float) -> bool:
        ttl = self.settings.game_ttl_hours
        return (ttl > 0 and game.ai_task is None
                and now - game.touched > ttl * 3600)

    async def _idle_everywhere(self, game: Game, now: float) -> bool:
        """Idle here, and (a shared database) in what the other replicas noted."""
        if not self._idle(game, now):
            return False
        if self.shared:
            when = await self.store.off_loop(self.store.last_active, game.id)
            game.touched = max(game.touched, when or 0.0)
        return self._idle(game, now)

    async def _expire_if_idle(self, game: Game) -> None:
        """404 (and the game deleted) if nobody touched it for ``game_ttl_hours``."""
        if game.deleted:
            raise NotFound(f"no game {game.id!r} (deleted)", field="id")
        if await self._idle_everywhere(game, self.clock()):
            await self.delete(game)
            raise NotFound(f"no game {game.id!r}: it expired, idle for more than "
                           f"{self.settings.game_ttl_hours:g} hours "
                           "(MOMBASA_GAME_TTL_HOURS)", field="id")

    async def sweep(self) -> list[str]:
        """Delete every game idle for more than ``game_ttl_hours``; their ids."""
        ttl = self.settings.game_ttl_hours
        if ttl <= 0:
            return []
        now = self.clock()
        gone = []
        for gid in await self.store.off_loop(self.store.idle_games, now - ttl * 3600):
            game = self.in_memory.get(gid)
            if game is None:  # only in the database: idle there, so gone
                async with self._load_lock:  # not being loaded meanwhile
                    if gid in self.in_memory:
                        continue
                    _, dropped = await self.store.off_loop(self.store.delete_game, gid)
                if dropped and self.catalogues is not None:
                    self.catalogues.game_deleted(dropped)
                gone.append(gid)
            elif await self._idle_everywhere(game, now):
                await self.delete(game)
                gone.append(gid)
        if gone:
            log.info("deleted %d idle games", len(gone))
        return gone

    async def _sweep_loop(self) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:  # the next sweep tries again
                log.exception("sweeping idle games failed")
            await asyncio.sleep(SWEEP_EVERY)


def _check_perspective(perspective: int | None, seats: list[dict[str, Any]],
                       mode: str) -> None:
    """422 for a perspective seat the game does not have, or an AI seat in play mode."""
    if perspective is None:
        return
    if not 1 <= perspective <= len(seats):
        raise InvalidInput(f"perspective: this game has seats 1-{len(seats)}, got "
                           f"{perspective}", field="perspective")
    if mode == "play" and seats[perspective - 1]["kind"] == "ai":
        raise InvalidInput(f"perspective: seat {perspective} is an AI seat; in play "
                           "mode you sit at a human seat", field="perspective")


def _new_params(seats: list[dict[str, Any]], seed: int | None, variable: bool, mode: str,
                reproducible: bool, takebacks: bool | None,
                tokens: dict[int, str]) -> dict[str, Any]:
    """A new game's stored parameters. The deals come from its seed: the client's
    (reproducible), else a secret; of the tokens only their hashes are kept."""
    humans = sum(1 for st in seats if st["kind"] == "human")
    return {"players": len(seats), "seed": seed if seed is not None else
            secrets.randbits(63), "variable": variable,
            "mode": mode, "seats": seats, "format": 1,
            "reproducible": bool(reproducible),
            "takebacks": mode == "live" or (humans <= 1 if takebacks is None
                                            else bool(takebacks)),
            "tokens": {str(k): access.token_hash(v) for k, v in tokens.items()}}


def read_record(obj: dict[str, Any], cat: engine.Catalogue) -> engine.GameRecord:
    """A game record to import, read field by field (``engine.GameRecord.from_json``)
    under the new game's components ``cat``; 422 naming the field (``record.seats``,
    ``record.steps[3].step``, ``record.catalogue``...) and why."""
    given = obj.get("catalogue")
    if isinstance(given, str) and given != cat.fingerprint:
        raise InvalidInput(f"record.catalogue: the record was played with the components "
                           f"{given[:40]}, this game's catalogue is {cat.fingerprint} "
                           "(name the stored catalogue it was played with)",
                           field="record.catalogue")
    try:
        return engine.GameRecord.from_json(obj, cat)
    except engine.RecordError as exc:
        raise _record_error(exc) from None


def _record_error(exc: engine.RecordError) -> InvalidInput:
    """A record's fault as a 422 naming its field under ``record``."""
    field = exc.field if exc.field.startswith("record") else f"record.{exc.field}"
    message = str(exc)
    return InvalidInput(message if message.startswith("record") else f"record.{message}",
                        field=field)


def _setup(imported: engine.GameRecord | None, seats: list[dict[str, Any]] | None,
           variable: bool | None) -> tuple[list[dict[str, Any]], bool]:
    """A new game's seats and setup: as given, or as the imported record has them (422
    where the request contradicts the record)."""
    if imported is None:
        if seats is None:
            raise InvalidInput("seats: missing (2-4 seats, or a record)", field="seats")
        return seats, bool(variable)
    if seats is not None and len(seats) != imported.players:
        raise InvalidInput(f"seats: the record is a {imported.players}-player game, got "
                           f"{len(seats)} seats", field="seats")
    if variable is not None and variable != imported.variable:
        raise InvalidInput(f"variable: the record's game has the "
                           f"{'variable' if imported.variable else 'first-game'} setup",
                           field="variable")
    if seats is None:
        seats = [{"kind": "human", "bot": None} if st.kind == "human"
                 else {"kind": "ai", "bot": st.bot} for st in imported.seats]
    return seats, imported.variable


def import_steps(game: Game, imported: engine.GameRecord) -> list[Row]:
    """Play a record's steps on a new game (in memory; the rows to store), each checked
    where it stands (``GameRecord.replay`` from the game's own first state: its secret
    seed deals what follows). A submission is a run of steps of one player and source.
    422 naming the first step that cannot be played (``record.steps[i]``) and why."""
    if game.mode == "play":
        _no_unseen_tiles(imported)
    try:
        states = replace(imported, seed=game.seed).replay(game.state.cat)
    except engine.RecordError as exc:
        raise _record_error(exc) from None
    records: list[Record] = []
    group, last = -1, None
    for rec in imported.steps:
        assert rec.step is not None  # replayed: nothing hidden
        if (rec.player, rec.source) != last:
            group, last = group + 1, (rec.player, rec.source)
        records.append(Record(rec.player, rec.step, rec.source, group))
    return game.add(records, states[1:])


def _no_unseen_tiles(imported: engine.GameRecord) -> None:
    """422 for a starting tile dealt face down at a live table (``deal-tile P2 ?``): in
    play mode the service deals, and cannot play on from a tile nobody knows."""
    for i, rec in enumerate(imported.steps):
        if rec.step is not None and rec.step.kind == "deal-tile" \
                and rec.step.b == engine.HIDDEN:
            raise InvalidInput(f"record.steps[{i}]: a starting tile dealt unseen (a live "
                               "table's record): play mode cannot go on from it; import "
                               "it with \"mode\": \"live\"", field=f"record.steps[{i}]")


def _replay(game: Game, rows: list[Row]) -> None:
    """Apply stored steps to the game in memory (500 naming the step if they do not
    replay: a damaged database)."""
    try:
        game.replay(rows)
    except (IllegalStep, NotationError) as exc:
        log.error("game %s cannot be replayed: %s", game.id, exc)
        raise StorageError(f"game {game.id!r} cannot be replayed from the database at step "
                           f"{len(game.history)}: {exc}") from None


def deal(game: Game) -> list[Row]:
    """The chance events the service settles itself (in memory; the rows to store):
    in play mode every one (the state's own generator); in live mode the starting
    tiles dealt face down to the other seats, which nobody at the table reports
    (``deal-tile P1 ?``: only the tile each keeps is entered, at the reveal)."""
    s = game.state
    records: list[Record] = []
    states: list[State] = []
    group = game.next_group
    while not s.is_over() and s.decision.kind == "chance":
        d = s.decision
        if game.mode == "play":
            step, source = s.sample_chance(), "chance"
        elif (d.event == "deal-tile" and d.target is not None
              and d.target != game.perspective - 1):
            step, source = Step("deal-tile", d.target, engine.HIDDEN), "unseen"
        else:
            break
        s = s.apply(step)
        records.append(Record(-1, step, source, group))
        states.append(s)
    return game.add(records, states) if records else []


async def to_the_end(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` (a database write and what memory keeps of it); if the caller is
    cancelled meanwhile, let it finish first, then pass the cancellation on."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.done():
            await asyncio.wait({task})
        if not task.cancelled():
            task.exception()  # retrieved: the cancellation is what the caller sees
        raise
