"""Review jobs: a game's review (:func:`search.review.review_record`) run in the search
pool, followed, cancelled and stored with the game.

``POST /v1/games/{id}/review`` (:mod:`advisor_api.routes.review`) checks who may review
what, admits the job at once like an analysis (the client's analyses at once, 429
``client-limit``; a place in the pool, 429 ``busy`` with Retry-After) and answers 202
with the job; the review then runs as one task of the pool (kind ``review``,
:mod:`advisor_api.worker`), time-sliced and shared fairly with every other search, its
progress (decisions reviewed of the total) reported back. When it is done its result is
stored with the game (one row of the store's ``reviews`` table, one transaction) and the
job reads ``done``; a cancel stops its search within a slice; deleting the game stops
it and forgets its stored reviews.

Who may review (:func:`check_access`): before the game is over a seat's token reviews
what that seat saw (its own seat; in live mode any seat token of the game, as for the
views); once it is over anyone may review any seat, and ask for the all-seeing view.
Each seat's decisions are searched from that seat's observation (unless all-seeing), so
a review never uses what its seat could not see. A review is shown to whoever may review
its seats now; a decision's best step that would name what the caller never saw (the
starting tiles offered to another seat) reads null (:func:`shown_review`).

Jobs live in memory while they run (and a while after); a done review is read back from
the store after a restart, a running one is lost with the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from advisor_api import access
from advisor_api.errors import ApiError, Conflict, InvalidInput, NotFound, StorageBusy
from advisor_api.game_model import Game
from advisor_api.game_views import game_record
from advisor_api.limits import CLIENT
from advisor_api.review_schemas import ReviewRequest
from advisor_api.service import Service
from search.review import DEFAULT_ITERATIONS

#: Seconds a finished job (cancelled, failed; done ones are stored) stays in memory.
KEEP = 600.0
#: Attempts to store a finished review when the database is busy (0.1 s doubling).
STORE_ATTEMPTS = 6
#: Iterations a second a review's search is expected to make at least (on a busy
#: machine), for the time an iteration budget takes: the pool stops a task past its
#: expected time plus the grace.
SLOW_RATE = 150.0
#: A decision's search and the played step's extra iterations, with room to spare.
SEARCHES = 2


@dataclass
class ReviewJob:
    """One review of a game: what it reviews, who asked, where it is."""

    id: str
    game: str
    seats: list[int]  # 1-based
    iterations: int | None
    seconds: float | None
    all_seeing: bool
    steps: int
    over: bool
    creator: str  # "seat:N", "owner", or "client:<address>" (no token)
    seed: int
    created: float = field(default_factory=time.time)
    status: str = "queued"
    done: int = 0
    total: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    ended: float | None = None
    task: asyncio.Task[None] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def finished(self) -> bool:
        return self.status in ("done", "cancelled", "failed")

    def params(self) -> dict[str, Any]:
        """What the store keeps beside the result."""
        return {"seats": self.seats, "iterations": self.iterations,
                "seconds": self.seconds, "all_seeing": self.all_seeing,
                "steps": self.steps, "over": self.over, "creator": self.creator,
                "seed": self.seed, "total": self.total}

    def notify(self) -> None:
        event, self.changed = self.changed, asyncio.Event()
        event.set()

    def out(self, with_review: bool = True) -> dict[str, Any]:
        """The job's answer (``review``: the result as stored, unfiltered)."""
        return {"id": self.game, "job": self.id, "status": self.status,
                "seats": self.seats,
                "budget": {"iterations": self.iterations, "seconds": self.seconds},
                "all_seeing": self.all_seeing, "steps": self.steps, "over": self.over,
                "progress": {"done": self.done, "total": self.total},
                "created": self.created, "error": self.error,
                "review": self.result if with_review else None}

    @classmethod
    def stored(cls, game: str, job: str, created: float, params: dict[str, Any],
               result: dict[str, Any] | None) -> ReviewJob:
        total = params.get("total")
        return cls(job, game, list(params["seats"]), params.get("iterations"),
                   params.get("seconds"), bool(params.get("all_seeing")),
                   int(params["steps"]), bool(params.get("over")),
                   str(params.get("creator", "")), int(params.get("seed", 0)), created,
                   "done", total or 0, total, result)


# -- who may review what ------------------------------------------------------------------

def caller_identity(game: Game, token: str | None) -> str:
    """Who asks: ``seat:N`` (a seat token), ``owner``, or ``client:<address>``; 403 for
    a token that is not this game's."""
    if access.is_owner(game, token):
        return "owner"
    mine = access.caller(game, token)
    return f"seat:{mine}" if mine is not None else f"client:{CLIENT.get()}"


def check_access(game: Game, token: str | None, seats: list[int], over: bool) -> None:
    """401 / 403 unless the bearer of ``token`` may review ``seats`` now: any seat of a
    finished game (a token given must be the game's), else each seat's view must be the
    caller's (:func:`advisor_api.access.viewer`: its own seat; live mode: any)."""
    if over:
        caller_identity(game, token)  # 403 for a token of another game
        return
    for seat in seats:
        access.viewer(game, token, seat)


def private_seats(game: Game, token: str | None) -> set[int]:
    """The seats whose private things (their plans, the tiles offered to them) the
    caller may see: its own seat's; in live mode and in games from before seat tokens,
    every seat's."""
    if game.tokens is None:
        return set(range(1, game.players + 1))
    if access.is_owner(game, token):
        return set()
    mine = access.caller(game, token)
    if mine is None:
        return set()
    return set(range(1, game.players + 1)) if game.mode == "live" else {mine}


def shown_review(game: Game, result: dict[str, Any] | None,
                 private: set[int]) -> dict[str, Any] | None:
    """The review as the caller may see it: a starting-tile decision of a seat whose
    offer the caller never saw has its best step (and solver) null."""
    if result is None:
        return None
    decisions = []
    for d in result.get("decisions", []):
        index = int(d.get("index", -1))
        if (d.get("player") not in private and 0 <= index < len(game.states)
                and game.states[index].decision.kind == "starting-tile"):
            d = {**d, "best": None, "solver": None}
        decisions.append(d)
    return {**result, "decisions": decisions}


def visible(job: ReviewJob, game: Game, token: str | None) -> None:
    """401 / 403 unless the caller may see the job now (may review its seats)."""
    check_access(game, token, job.seats, game.state.is_over())


# -- the request read ----------------------------------------------------------------------

def read_request(svc: Service, game: Game, req: ReviewRequest, token: str | None
                 ) -> tuple[list[int], int | None, float | None]:
    """The seats (1-based) and the budget of a review request: checked (422 naming the
    field, 409 for the all-seeing view of an unfinished game) and allowed (401 / 403)."""
    over = game.state.is_over()
    if req.all_seeing and not over:
        raise Conflict("all_seeing: the all-seeing view reviews a finished game only "
                       "(it uses every seat's cards)", field="all_seeing")
    seats = req.seats
    if seats is None:
        mine = None if access.is_owner(game, token) else access.caller(game, token)
        seats = [mine] if mine is not None else list(range(1, game.players + 1))
    for i, seat in enumerate(seats):
        if not 1 <= seat <= game.players:
            raise InvalidInput(f"seats[{i}]: this game has seats 1-{game.players}, got "
                               f"{seat}", field=f"seats[{i}]")
    if len(set(seats)) != len(seats):
        raise InvalidInput("seats: a seat is named twice", field="seats")
    check_access(game, token, seats, over)
    budget = req.budget
    iterations = budget.iterations if budget else None
    seconds = budget.seconds if budget else None
    settings = svc.settings
    if seconds is not None and seconds > settings.max_time:
        raise InvalidInput(f"budget.seconds: at most {settings.max_time:g} s a decision "
                           f"(MOMBASA_MAX_TIME), got {seconds:g}", field="budget.seconds")
    if iterations is not None and iterations > settings.max_iterations:
        raise InvalidInput(f"budget.iterations: at most {settings.max_iterations} a "
                           f"decision (MOMBASA_MAX_ITERATIONS), got {iterations}",
                           field="budget.iterations")
    if game.params.get("catalogue"):
        raise Conflict("this game plays with a stored catalogue: reviews play the "
                       "shipped one only", field="id")
    return sorted(seats), iterations, seconds


def expected_seconds(job: ReviewJob, game: Game) -> float:
    """Seconds of search the review is expected to take at most (the pool's limit)."""
    mine = sum(1 for rec in game.history[:job.steps] if rec.player + 1 in job.seats)
    iterations = job.iterations if job.iterations is not None else DEFAULT_ITERATIONS
    each = job.seconds if job.seconds is not None else 0.05 + iterations / SLOW_RATE
    return max(1.0, mine * SEARCHES * each)


# -- the jobs of a service --------------------------------------------------------------------

class ReviewJobs:
    """The review jobs of one service (:func:`jobs_of`)."""

    def __init__(self, svc: Service) -> None:
        self.svc = svc
        self.jobs: dict[str, ReviewJob] = {}

    async def start(self, game: Game, req: ReviewRequest, token: str | None) -> ReviewJob:
        """A new job, admitted now (429) and running; 409 if the caller has one running
        on this game already."""
        seats, iterations, seconds = read_request(self.svc, game, req, token)
        creator = caller_identity(game, token)
        self._forget_old()
        for other in self.jobs.values():
            if other.game == game.id and other.creator == creator and not other.finished:
                raise Conflict(f"a review of this game asked by you is running: job "
                               f"{other.id} (cancel it first)", field="id")
        seed = req.seed if req.seed is not None else random.SystemRandom().randrange(1 << 31)
        job = ReviewJob(secrets.token_hex(8), game.id, seats, iterations, seconds,
                        req.all_seeing, len(game.history), game.state.is_over(), creator,
                        seed)
        limit = expected_seconds(job, game)
        client = CLIENT.get()
        lease = self.svc.limits.analysis(client, limit)
        try:
            ticket = self.svc.pool.admit(1, limit, client=client)
        except BaseException:
            lease.release()
            raise
        # the whole game: the review searches each seat's decisions from its own
        # observation, never from the record's truth (unless all-seeing)
        task = {"kind": "review", "record": game_record(game).to_json(),
                "seats": [s - 1 for s in seats], "iterations": iterations,
                "seconds": seconds, "all_seeing": req.all_seeing, "seed": seed}
        run = self.svc.pool.run([task], limit, ticket=ticket,
                                on_progress=lambda _, p: self._progress(job, p))

        async def runner() -> None:
            try:
                await self._run(job, game, run)
            finally:
                ticket.close()
                lease.release()

        self.jobs[job.id] = job
        job.task = asyncio.ensure_future(runner())
        return job

    def _progress(self, job: ReviewJob, payload: Any) -> None:
        if job.finished or not isinstance(payload, dict):
            return
        job.status = "running"
        job.done = int(payload.get("done", job.done))
        job.total = int(payload.get("total", job.total or 0))
        job.notify()

    async def _run(self, job: ReviewJob, game: Game, run: Any) -> None:
        """Wait for the pool's answer (the game deleted meanwhile: stop), then store it."""
        work = asyncio.ensure_future(run)
        try:
            while not work.done():
                wake = game.changed()
                if game.deleted:
                    work.cancel()
                    self._end(job, "cancelled", error=("game-deleted", "the game was deleted"))
                    return
                waiter = asyncio.ensure_future(wake.wait())
                try:
                    await asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiter.cancel()
            result = work.result()[0]
        except asyncio.CancelledError:
            work.cancel()
            self._end(job, "cancelled")
            raise
        except ApiError as exc:
            self._end(job, "failed", error=(exc.code, exc.message))
            return
        await self._store(job, result)

    async def _store(self, job: ReviewJob, result: dict[str, Any]) -> None:
        store = self.svc.store
        job.total = job.total if job.total is not None else len(result.get("decisions", []))
        job.done = job.total
        pause = 0.1
        for attempt in range(STORE_ATTEMPTS):
            try:
                kept = await store.off_loop(store.put_review, job.game, job.id,
                                            job.created, job.params(), result)
            except StorageBusy as exc:
                if attempt == STORE_ATTEMPTS - 1:
                    self._end(job, "failed", error=(exc.code, exc.message))
                    return
                await asyncio.sleep(pause)
                pause = min(2.0, pause * 2)
                continue
            if not kept:
                self._end(job, "cancelled", error=("game-deleted", "the game was deleted"))
                return
            job.result = result
            self._end(job, "done")
            return

    def _end(self, job: ReviewJob, status: str,
             error: tuple[str, str] | None = None) -> None:
        if job.finished:
            return
        job.status = status
        job.ended = time.monotonic()
        if error is not None:
            job.error = {"error": error[0], "message": error[1]}
        job.notify()

    async def cancel(self, job: ReviewJob) -> None:
        """Stop a job: its search is stopped in the pool (within a slice)."""
        task = job.task
        self._end(job, "cancelled", error=("cancelled", "the review was cancelled"))
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(task), 2.0)

    def _forget_old(self) -> None:
        now = time.monotonic()
        for key, job in list(self.jobs.items()):
            if job.ended is not None and now - job.ended > KEEP:
                del self.jobs[key]

    # -- reading --------------------------------------------------------------------------
    async def get(self, game: Game, job_id: str) -> ReviewJob:
        """A job of the game: in memory, else stored (done); 404 otherwise."""
        job = self.jobs.get(job_id)
        if job is not None and job.game == game.id:
            return job
        store = self.svc.store
        row = await store.off_loop(store.review, game.id, job_id[:64])
        if row is None:
            raise NotFound(f"no review {job_id[:64]!r} of game {game.id!r}", field="job")
        return ReviewJob.stored(game.id, job_id, row[0], row[1], row[2])

    async def of_game(self, game: Game) -> list[ReviewJob]:
        """Every job of the game, oldest first: stored ones and those in memory."""
        store = self.svc.store
        rows = await store.off_loop(store.reviews, game.id)
        found = {job_id: ReviewJob.stored(game.id, job_id, created, params, None)
                 for job_id, created, params in rows}
        for job in self.jobs.values():
            if job.game == game.id and job.id not in found:
                found[job.id] = job
        return sorted(found.values(), key=lambda j: (j.created, j.id))

    async def forget(self, game: Game, job: ReviewJob) -> bool:
        """Delete a stored review; whether there was one."""
        self.jobs.pop(job.id, None)
        store = self.svc.store
        return await store.off_loop(store.delete_review, game.id, job.id)


_JOBS: weakref.WeakKeyDictionary[Service, ReviewJobs] = weakref.WeakKeyDictionary()


def jobs_of(svc: Service) -> ReviewJobs:
    """The review jobs of a service (made on first use)."""
    jobs = _JOBS.get(svc)
    if jobs is None:
        jobs = _JOBS[svc] = ReviewJobs(svc)
    return jobs
