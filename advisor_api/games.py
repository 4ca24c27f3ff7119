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
need; without one a client sees the spectator's view. Games idle for
``MOMBASA_GAME_TTL_HOURS`` are deleted (on access, and by a sweep every few minutes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import engine
from advisor_api import access
from advisor_api.analysis import player_name, step_out
from advisor_api.catalogues import CatalogueLibrary, is_default
from advisor_api.errors import ApiError, Conflict, InvalidInput, NotFound, StorageError
from advisor_api.pool import WorkerPool
from advisor_api.settings import Settings
from advisor_api.store import Row, Store
from engine import IllegalStep, Move, NotationError, State, Step
from search.bot_specs import make_bot, parse_spec
from search.bots import RandomBot

log = logging.getLogger("advisor_api.games")
T = TypeVar("T")

HIDDEN_KINDS = frozenset({"plan", "tile"})  # steps others see only after the reveal
_CACHE = 256  # games kept in memory (others are replayed from the database on demand)
TOUCH_EVERY = 60.0  # seconds: a game's activity is written at most this often
SWEEP_EVERY = 300.0  # seconds between two sweeps of the idle games


@dataclass(frozen=True)
class Record:
    """One step of a game's history."""

    player: int  # 0-based decider, -1 chance
    step: Step
    source: str  # human, ai, chance, report, unseen (tiles dealt to others, live)
    group: int  # submission number (undo removes whole submissions)


class Game:
    """A game in memory: its parameters, every state reached and its history."""

    def __init__(self, gid: str, params: dict[str, Any],
                 catalogue: engine.Catalogue | None = None) -> None:
        self.id = gid
        self.params = params
        self.players: int = params["players"]
        self.seed: int = params["seed"]
        self.variable: bool = params["variable"]
        self.mode: str = params["mode"]
        self.seats: list[dict[str, Any]] = params["seats"]
        # "I am seat N" (1-based): the default seat of views, suggestions and the page.
        self.perspective: int = params.get("perspective") or next(
            (i + 1 for i, st in enumerate(self.seats) if st["kind"] == "human"), 1)
        # The components: a stored catalogue's (params["catalogue"]), else the shipped.
        self.states: list[State] = [engine.new_game(players=self.players, seed=self.seed,
                                                    variable=self.variable,
                                                    catalogue=catalogue)]
        self.history: list[Record] = []
        self.lock = asyncio.Lock()
        self.version = 0
        self.ai_task: asyncio.Task[None] | None = None
        self.ai_error: str | None = None
        # Games from before these settings showed their seed, and had no seat tokens.
        self.reproducible: bool = params.get("reproducible", True)
        humans = sum(1 for st in self.seats if st["kind"] == "human")
        self.takebacks: bool = params.get("takebacks", humans <= 1 or self.mode == "live")
        kept = params.get("tokens")  # seat -> SHA-256 of its token; None: open to all
        self.tokens: dict[int, str] | None = (
            None if kept is None else {int(k): str(v) for k, v in kept.items()})
        self.touched = time.time()  # last activity (epoch seconds)
        self.touch_saved = self.touched  # ... as the database has it
        self.deleted = False
        # Game-event streams (GET .../events): set, and replaced, on every change.
        self._changed = asyncio.Event()
        self.watchers = 0  # event streams open on this game (kept in memory meanwhile)

    def changed(self) -> asyncio.Event:
        """An event set at the next change (a step stored, an undo, the AI starting or
        stopping to think, the game deleted)."""
        return self._changed

    def notify(self) -> None:
        """Wake the game-event streams (after a change is in memory and stored)."""
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def next_group(self) -> int:
        return self.history[-1].group + 1 if self.history else 0

    def is_ai(self, player: int) -> bool:
        return 0 <= player < self.players and self.seats[player]["kind"] == "ai"

    def replay(self, rows: list[Row]) -> None:
        """Apply stored steps (raises IllegalStep / NotationError on a corrupt record)."""
        s = self.state
        cat = s.cat
        for idx, player, text, source, group in rows:
            if idx != len(self.history):
                raise IllegalStep(f"step index {idx} out of order")
            step = Step.parse(text, cat)
            s = engine.apply(s, step, player if player >= 0 else None)
            self.states.append(s)
            self.history.append(Record(player, step, source, group))

    def add(self, records: list[Record], states: list[State]) -> list[Row]:
        """Append records and their states; the rows to store."""
        start = len(self.history)
        cat = self.state.cat
        self.history.extend(records)
        self.states.extend(states)
        self.version += 1
        return [(start + k, r.player, r.step.text(cat), r.source, r.group)
                for k, r in enumerate(records)]


def default_bot(settings: Settings) -> str:
    """``mcts:time=0.5``, or less when the service's cap per move is lower."""
    return f"mcts:time={min(0.5, settings.max_bot_time):g}"


def bot_limit(spec: str, settings: Settings) -> float:
    """Seconds an AI move with this bot is expected to take at most."""
    name, opts = parse_spec(spec)
    if "time" in opts:
        return min(2 * float(opts["time"]) + 1.0, 2 * settings.max_bot_time)
    if name == "mcts" and "iterations" not in opts:
        return 2 * 0.25 + 1.0
    return settings.max_bot_time


def check_bot(spec: str, settings: Settings, field: str) -> str:
    """A usable bot spec within the caps, or 422 naming the field."""
    try:
        name, opts = parse_spec(spec)
        make_bot(spec)
        if "time" in opts and float(opts["time"]) > settings.max_bot_time:
            raise ValueError(f"time: at most {settings.max_bot_time:g} s per move "
                             "(MOMBASA_MAX_BOT_TIME)")
        for key in ("iterations", "sims"):
            if key in opts and int(opts[key]) > settings.max_bot_iterations:
                raise ValueError(f"{key}: at most {settings.max_bot_iterations} "
                                 "(MOMBASA_MAX_BOT_ITERATIONS)")
    except Exception as exc:  # a bad spec, or a bot that cannot be built here
        raise InvalidInput(f"{field}: {exc}", field=field) from None
    return spec


def parse_step(value: Any, state: State, field: str) -> Step:
    """A step from notation or JSON; 422 naming the field if it does not parse."""
    try:
        if isinstance(value, str):
            return Step.parse(value, state.cat)
        return Step.from_json(value, state.cat)
    except NotationError as exc:
        raise InvalidInput(f"{field}: {exc}", field=field) from None


def parse_move(value: Any, seat: int, state: State) -> list[Step]:
    """A move (notation, move JSON or a list of steps) as its steps."""
    try:
        if isinstance(value, str):
            return list(Move.parse(seat - 1, value, state.cat).steps)
        if isinstance(value, dict):
            move = Move.from_json(value, state.cat)
            if move.player != seat - 1:
                raise InvalidInput(f"move.player: the move is P{move.player + 1}'s, the "
                                   f"request is for seat {seat}", field="move.player")
            return list(move.steps)
    except NotationError as exc:
        raise InvalidInput(f"move: {exc}", field="move") from None
    if not value:
        raise InvalidInput("move: expected at least one step", field="move")
    return [parse_step(v, state, f"move[{i}]") for i, v in enumerate(value)]


class GameService:
    """Every game of the service, backed by the store; AI seats played in the pool."""

    def __init__(self, store: Store, pool: WorkerPool, settings: Settings,
                 catalogues: CatalogueLibrary | None = None) -> None:
        self.store = store
        self.pool = pool
        self.settings = settings
        self.catalogues = catalogues
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._load_lock = asyncio.Lock()
        self.clock = time.time  # epoch seconds (tests move it on)
        self._sweeper: asyncio.Task[None] | None = None

    # -- life cycle ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the sweep of idle games (every ``SWEEP_EVERY`` s, from now on), unless
        games never expire (``game_ttl_hours`` 0)."""
        if self.settings.game_ttl_hours > 0 and self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep_loop())

    async def close(self) -> None:
        tasks = [g.ai_task for g in self._games.values() if g.ai_task is not None]
        if self._sweeper is not None:
            tasks.append(self._sweeper)
            self._sweeper = None
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(BaseException):
                await t

    async def create(self, seats: list[dict[str, Any]], seed: int | None, variable: bool,
                     mode: str, perspective: int | None = None,
                     catalogue: str | None = None, *, reproducible: bool = False,
                     takebacks: bool | None = None) -> tuple[Game, dict[int, str]]:
        """A new game and the tokens of its seats (seat -> token: every human seat's,
        in live mode every seat's), which are never shown again."""
        if seed is not None and mode == "play" and not reproducible:
            raise InvalidInput("seed: a seed chosen by a client lets whoever knows it "
                               "predict every card the service deals; send "
                               "\"reproducible\": true with it (every view then shows "
                               "the seed), or leave it out", field="seed")
        clean: list[dict[str, Any]] = []
        for i, seat in enumerate(seats):
            if seat["kind"] == "ai":
                spec = check_bot(seat.get("bot") or default_bot(self.settings),
                                 self.settings, f"seats[{i}].bot")
                clean.append({"kind": "ai", "bot": spec})
            else:
                if seat.get("bot"):
                    raise InvalidInput(f"seats[{i}].bot: only AI seats have a bot",
                                       field=f"seats[{i}].bot")
                clean.append({"kind": "human", "bot": None})
        if perspective is not None:
            if not 1 <= perspective <= len(seats):
                raise InvalidInput(f"perspective: this game has seats 1-{len(seats)}, got "
                                   f"{perspective}", field="perspective")
            if mode == "play" and clean[perspective - 1]["kind"] == "ai":
                raise InvalidInput(f"perspective: seat {perspective} is an AI seat; in play "
                                   "mode you sit at a human seat", field="perspective")
        # The deals come from this seed: the client's (reproducible), else a secret.
        humans = sum(1 for st in clean if st["kind"] == "human")
        tokens = {i + 1: access.new_token() for i, st in enumerate(clean)
                  if mode == "live" or st["kind"] == "human"}
        params = {"players": len(seats), "seed": seed if seed is not None else
                  secrets.randbits(63), "variable": variable,
                  "mode": mode, "seats": clean, "format": 1,
                  "reproducible": bool(reproducible),
                  "takebacks": mode == "live" or (humans <= 1 if takebacks is None
                                                  else bool(takebacks)),
                  "tokens": {str(k): access.token_hash(v) for k, v in tokens.items()}}
        if perspective is not None:
            params["perspective"] = perspective
        cat, ref = self._catalogue_for_new_game(catalogue)
        if ref is not None:
            params["catalogue"] = ref  # its content (sha256), whatever the name becomes
        gid = secrets.token_hex(8)
        game = Game(gid, params, cat)
        rows = self._deal(game)
        # One transaction (a 503 storage-busy leaves no game behind), off the event loop.
        await self.store.off_loop(self.store.create, gid, params, rows)
        game.touched = game.touch_saved = self.clock()
        self._remember(game)
        self._kick(game)
        return game, tokens

    async def get(self, gid: str) -> Game:
        """The game (loaded from the database if needed), 404 if unknown."""
        game = self._games.get(gid)
        if game is not None:
            self._games.move_to_end(gid)
            await self._expire_if_idle(game)
            return game
        async with self._load_lock:
            game = self._games.get(gid)
            if game is None:
                # in a thread: the database read and the replay keep the loop free
                game = await self.store.off_loop(self._load, gid)
                self._remember(game)
        await self._expire_if_idle(game)
        async with game.lock:
            mark = len(game.history)
            await self._commit(game, self._deal(game), mark)
        self._kick(game)
        return game

    def _load(self, gid: str) -> Game:
        if len(gid) > 64:
            raise NotFound(f"no game {gid[:64]!r}...", field="id")
        loaded = self.store.load(gid)
        if loaded is None:
            raise NotFound(f"no game {gid!r}", field="id")
        params, rows = loaded
        cat = None
        if params.get("catalogue"):
            if self.catalogues is None:
                raise StorageError(f"game {gid!r} plays with a stored catalogue, and this "
                                   "service keeps none")
            cat = self.catalogues.for_game(params)
        game = Game(gid, params, cat)
        game.touched = game.touch_saved = self.store.last_active(gid) or self.clock()
        try:
            game.replay(rows)
        except (IllegalStep, NotationError) as exc:
            log.error("game %s cannot be replayed: %s", gid, exc)
            raise StorageError(f"game {gid!r} cannot be replayed from the database at step "
                               f"{len(game.history)}: {exc}") from None
        return game

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
        return [g for g in self._games.values() if g.watchers]

    def _remember(self, game: Game) -> None:
        self._games[game.id] = game
        self._games.move_to_end(game.id)
        while len(self._games) > _CACHE:
            old = next((g for g in self._games.values() if g.ai_task is None
                        and not g.lock.locked() and not g.watchers), None)
            if old is None:
                break
            del self._games[old.id]

    # -- changes -------------------------------------------------------------------------
    def _deal(self, game: Game) -> list[Row]:
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
            s = engine.apply(s, step)
            records.append(Record(-1, step, source, group))
            states.append(s)
        return game.add(records, states) if records else []

    def _check_turn(self, game: Game, seat: int, *, ai: bool = False) -> None:
        s = game.state
        if not 1 <= seat <= game.players:
            raise InvalidInput(f"seat: this game has seats 1-{game.players}, got {seat}",
                               field="seat")
        if s.is_over():
            raise Conflict("the game is over", field="seat")
        d = s.decision
        if d.kind == "chance":
            raise Conflict("chance event pending: report the outcome (POST .../chance)",
                           field="seat")
        if seat - 1 not in d.deciders:
            raise Conflict(f"not seat {seat}'s decision: the decision ({d.kind}) is "
                           f"{deciders_text(d)}", field="seat")
        if game.mode == "play" and game.is_ai(seat - 1) and not ai:
            raise Conflict(f"seat {seat} is an AI seat: it moves by itself", field="seat")

    def _play(self, game: Game, seat: int, steps: list[Step], source: str,
              whole_move: bool) -> list[Row]:
        """Apply a submission atomically (409 naming the step if one is illegal)."""
        s = game.state
        me = seat - 1
        states: list[State] = []
        for i, step in enumerate(steps):
            where = f"steps[{i}]: " if whole_move else ""
            d = s.decision
            if s.is_over() or me not in d.deciders:
                who = "nobody's (the game is over)" if s.is_over() else deciders_text(d)
                raise Conflict(f"{where}the move goes on after the turn ended (the "
                               f"decision is {who})", field="move")
            try:
                # Planning and the starting tile: any seat still deciding may go first.
                s = engine.apply(s, step, me)
            except IllegalStep as exc:
                raise Conflict(f"{where}{exc}", field="move" if whole_move else "step") from None
            states.append(s)
        d = s.decision
        if whole_move and not s.is_over() and d.player == me and not d.starts_turn:
            # The rule of engine.apply_move (Decision.starts_turn), on the state reached.
            raise Conflict(f"move incomplete: {player_name(me)} still has to decide "
                           f"{d.kind!r} (send the rest, or use /steps)", field="move")
        group = game.next_group
        rows = game.add([Record(me, st, source, group) for st in steps], states)
        return rows + self._deal(game)

    async def _commit(self, game: Game, rows: list[Row], mark: int) -> None:
        if game.deleted:  # a request that waited for the lock while the game went
            raise NotFound(f"no game {game.id!r} (deleted)", field="id")
        await self._commit_rows(game, rows, mark)

    async def _commit_rows(self, game: Game, rows: list[Row], mark: int) -> None:
        """Store rows (the records from ``mark`` on), then keep them in memory. While the
        write waits for the database (in a thread, off the event loop; the caller holds
        the game's lock) the game shows none of them; if it fails (503 storage-busy...)
        the game is unchanged. A write under way is seen to its end even if the caller
        is cancelled meanwhile, so memory and database agree."""
        if not rows:
            return
        records, states = game.history[mark:], game.states[mark + 1:]
        del game.history[mark:]
        del game.states[mark + 1:]

        async def write() -> None:
            await self.store.off_loop(self.store.append, game.id, rows)
            game.history.extend(records)
            game.states.extend(states)
            game.notify()

        await _to_the_end(write())

    async def submit(self, game: Game, seat: int, raw: Any, whole_move: bool) -> None:
        """A human's step or move (live mode: any player's, reported)."""
        async with game.lock:
            self._check_turn(game, seat)
            if whole_move:
                steps = parse_move(raw, seat, game.state)
            else:
                steps = [parse_step(raw, game.state, "step")]
            source = "human" if game.mode == "play" else "report"
            mark = len(game.history)
            rows = self._play(game, seat, steps, source, whole_move)
            await self._commit(game, rows, mark)
        self._kick(game)

    async def report_chance(self, game: Game, raw: Any) -> None:
        """Live mode: the outcome of the pending chance event, as seen at the table."""
        async with game.lock:
            if game.mode != "live":
                raise Conflict("this game is in play mode: the service deals chance itself",
                               field="step")
            s = game.state
            if s.is_over():
                raise Conflict("the game is over", field="step")
            if s.decision.kind != "chance":
                raise Conflict(f"no chance event is pending (the decision is "
                               f"{s.decision.kind} of {player_name(s.decision.player)})",
                               field="step")
            step = parse_step(raw, s, "step")
            try:
                new = engine.apply(s, step)
            except IllegalStep as exc:
                raise Conflict(str(exc), field="step") from None
            mark = len(game.history)
            rows = game.add([Record(-1, step, "report", game.next_group)], [new])
            await self._commit(game, rows + self._deal(game), mark)

    async def undo(self, game: Game, seat: int | None = None) -> None:
        """Back to before ``seat``'s last submission (None: anyone's, live mode) and all
        that followed it; 409 when that is not allowed (``access.takeback_start``)."""
        async with game.lock:
            start = access.takeback_start(game, seat)

            first = start

            async def cut() -> asyncio.Task[None] | None:
                await self.store.off_loop(self.store.truncate, game.id, first)
                del game.history[first:]
                del game.states[first + 1:]
                game.version += 1
                game.ai_error = None
                task, game.ai_task = game.ai_task, None
                game.notify()
                return task

            task = await _to_the_end(cut())
        if task is not None:
            task.cancel()  # its move, if it still comes, is for a position that is gone
        self._kick(game)

    async def wait(self, game: Game, seconds: float) -> None:
        """Wait (at most ``seconds``) until the AI seats have moved."""
        task = game.ai_task
        if task is not None and seconds > 0:
            await asyncio.wait({task}, timeout=seconds)

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
        if self._games.get(game.id) is game:
            del self._games[game.id]

    def _idle(self, game: Game, now: float) -> bool:
        ttl = self.settings.game_ttl_hours
        return (ttl > 0 and game.ai_task is None
                and now - game.touched > ttl * 3600)

    async def _expire_if_idle(self, game: Game) -> None:
        """404 (and the game deleted) if nobody touched it for ``game_ttl_hours``."""
        if game.deleted:
            raise NotFound(f"no game {game.id!r} (deleted)", field="id")
        if self._idle(game, self.clock()):
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
            game = self._games.get(gid)
            if game is None:  # only in the database: idle there, so gone
                async with self._load_lock:  # not being loaded meanwhile
                    if gid in self._games:
                        continue
                    _, dropped = await self.store.off_loop(self.store.delete_game, gid)
                if dropped and self.catalogues is not None:
                    self.catalogues.game_deleted(dropped)
                gone.append(gid)
            elif self._idle(game, now):
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

    # -- AI seats ------------------------------------------------------------------------
    def _kick(self, game: Game) -> None:
        """Start the AI seats' background task if an AI seat is to move (play mode)."""
        if game.mode != "play" or game.ai_task is not None:
            return
        if self._ai_to_move(game) is None:
            return
        game.ai_task = asyncio.ensure_future(self._ai_loop(game))
        game.notify()  # the AI thinks (the views say so)

    @staticmethod
    def _ai_to_move(game: Game) -> int | None:
        """The AI seat to move next: the decider, or at a simultaneous decision any AI
        seat still deciding (AI seats plan without waiting for the humans)."""
        s = game.state
        if s.is_over() or game.deleted:
            return None
        return next((p for p in s.decision.deciders if game.is_ai(p)), None)

    async def _ai_loop(self, game: Game) -> None:
        me = asyncio.current_task()
        try:
            while True:
                async with game.lock:
                    s = game.state
                    ai_seat = self._ai_to_move(game)
                    if ai_seat is None:
                        return
                    player = ai_seat
                    spec = game.seats[player]["bot"]
                    version = game.version
                    obs = engine.observe(s, player)
                    seed = (game.seed * 7919 + len(game.history)) & ((1 << 62) - 1)
                task = {"kind": "bot", "spec": spec, "seed": seed,
                        "observation": engine.observation_to_json(obs)}
                try:
                    [move] = await self.pool.run([task], bot_limit(spec, self.settings),
                                                 admit=False)
                    steps = list(move.steps)
                except ApiError as exc:
                    log.warning("game %s: AI %s failed: %s", game.id, spec, exc.message)
                    game.ai_error = f"{spec}: {exc.message}; a random move was played"
                    steps = list(RandomBot(seed).choose(obs).steps)
                async with game.lock:
                    if game.version != version:
                        continue
                    mark = len(game.history)
                    try:
                        rows = self._play(game, player + 1, steps, "ai", True)
                    except Conflict as exc:
                        game.ai_error = f"{spec} proposed an illegal move: {exc.message}"
                        log.error("game %s: %s", game.id, game.ai_error)
                        steps = list(RandomBot(seed).choose(obs).steps)
                        rows = self._play(game, player + 1, steps, "ai", True)
                    await self._commit(game, rows, mark)
                await self.touch(game)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # keep the service up; the game says what went wrong
            log.exception("game %s: AI seat stopped", game.id)
            game.ai_error = f"the AI stopped: {type(exc).__name__}: {exc}"
        finally:
            if game.ai_task is me:
                game.ai_task = None
                game.notify()  # done thinking

    # -- views ---------------------------------------------------------------------------
    def view(self, game: Game, seat: int | None) -> dict[str, Any]:
        """The game from one seat's point of view (its observation; hidden steps hidden);
        ``seat`` None: the spectator's (no seat's private things)."""
        if seat is not None and not 1 <= seat <= game.players:
            raise InvalidInput(f"seat: this game has seats 1-{game.players}, got {seat}",
                               field="seat")
        me = seat - 1 if seat is not None else -1
        s = game.state
        d = s.decision
        mine = seat is not None and not s.is_over() and me in d.deciders
        seats = d.seats  # in turn order, as the state lists them
        if mine and d.player != me:
            d = s.decide_as(me).decision  # a simultaneous decision, seen as this seat's
        legal: list[dict[str, Any]] = []
        if mine:
            legal = [step_out(st, s) for st in s.legal_steps(player=me)]
        elif (seat is not None and not s.is_over() and d.kind == "chance"
              and game.mode == "live"):
            legal = [step_out(st, s) for st in s.legal_steps()]
        over = s.is_over()
        # The seed deals the cards: secret in play mode until the end (for replay),
        # unless the game was created reproducible (then everyone may know it).
        shown = game.reproducible or over or game.mode == "live"
        return {
            "id": game.id,
            "mode": game.mode,
            "players": game.players,
            "seed": game.seed if shown else None,
            "reproducible": game.reproducible,
            "takebacks": game.takebacks,
            "can_undo": access.can_undo(game, seat),
            "variable": game.variable,
            "seats": [{"seat": i + 1, "player": player_name(i), "kind": st["kind"],
                       "bot": st["bot"]} for i, st in enumerate(game.seats)],
            "seat": seat,
            "perspective": game.perspective,
            "round": s.round,
            "phase": ("setup", "planning", "actions", "over")[s.phase],
            "decision": {"kind": d.kind, "player": player_name(d.player) if d.player >= 0
                         else None, "seat": d.player + 1 if d.player >= 0 else None,
                         "seats": [k + 1 for k in seats] if seats is not None else None},
            "your_turn": mine,
            "legal": legal,
            "observation": (engine.observation_to_json(engine.observe(s, me))
                            if seat is not None else access.spectator_observation(s)),
            "history": self._history(game, me),
            "score": score_json(s),
            "over": over,
            "winners": [w + 1 for w in engine.winners(s)] if over else None,
            "ai": {"thinking": game.ai_task is not None, "error": game.ai_error},
            "steps": len(game.history),
        }

    @staticmethod
    def event(game: Game) -> dict[str, Any]:
        """What a game-event stream sends at a change: only what every view shows (the
        page re-reads its own view): never a step, a card or a hand."""
        s = game.state
        d = s.decision
        over = s.is_over()
        return {"id": game.id, "version": game.version, "steps": len(game.history),
                "round": s.round, "phase": ("setup", "planning", "actions", "over")[s.phase],
                "decision": {"kind": None if over else d.kind,
                             "seats": [] if over else [k + 1 for k in d.deciders]},
                "over": over, "ai_thinking": game.ai_task is not None}

    def _history(self, game: Game, me: int) -> list[dict[str, Any]]:
        """Every step; another player's plan / tile steps read ``null`` until the reveal
        that made them public, and the starting tiles dealt to others stay ``null``."""
        cat = game.state.cat
        out: list[dict[str, Any]] = []
        revealed_later = False
        for i in range(len(game.history) - 1, -1, -1):
            rec = game.history[i]
            if game.states[i + 1].revealed:
                revealed_later = True
            hidden = ((not revealed_later and rec.step.kind in HIDDEN_KINDS
                       and rec.player != me)
                      # tiles dealt to others: the unchosen ones go back unseen
                      or (rec.step.kind == "deal-tile" and rec.step.a != me))
            out.append({"index": i, "player": player_name(rec.player),
                        "step": None if hidden else rec.step.text(cat), "source": rec.source,
                        "round": game.states[i].round,
                        "context": None if hidden else step_context(rec.step, game.states[i])})
        out.reverse()
        return out


def step_context(step: Step, before: State) -> dict[str, str] | None:
    """The public facts of the position before ``step`` that its words depend on, so that
    a history entry reads as it did when it was taken (the board has changed since):
    ``card``, the display card a ``buy`` / ``buy-card`` took; ``book``, the book a
    ``take`` took; ``company``, the company an ``enter`` expanded or a ``return``'s
    ousted post belongs to. None when the step's words need nothing."""
    cat = before.cat
    if step.kind in ("buy", "buy-card") and 0 <= step.a < len(before.display):
        c = before.display[step.a]
        return {"card": cat.cards[c].name} if c >= 0 else None
    if step.kind == "take" and 0 <= step.a < len(before.book_display):
        b = before.book_display[step.a]
        return {"book": cat.books[b].name} if b >= 0 else None
    if step.kind in ("enter", "return"):
        company = before.decision.company
        return {"company": cat.companies[company].id} if company is not None else None
    return None


async def _to_the_end(work: Coroutine[Any, Any, T]) -> T:
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


def deciders_text(d: engine.Decision) -> str:
    """Whose decision it is, in words: "P2's", or "P1's, P3's" when simultaneous."""
    return ", ".join(f"{player_name(p)}'s" for p in d.deciders) or "chance's"


def score_json(s: State) -> list[dict[str, Any]]:
    """The score breakdown of every player (provisional before the end)."""
    ids = tuple(c.id for c in s.cat.companies)
    return [sc.to_json(ids) for sc in engine.score(s)]
