"""The search pool's fair share by search-seconds (``advisor_api/pool.py``): time slices,
a search's clock that stands still while it is paused, the least-served client first,
admission that never refuses a client with nothing in flight, and stops that free a
process within a fraction of a second (issue 52)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import engine
from advisor_api.errors import Busy
from advisor_api.pool import WorkerPool
from search.bench.positions import mid_game
from tests.worker_tasks import WORKER_TASKS

SLICE = 0.1


def _spin(seconds: float) -> dict[str, Any]:
    return {"kind": "_spin", "seconds": seconds}


def _with_pool(body: Callable[[WorkerPool], Awaitable[Any]], size: int = 1,
               **options: Any) -> Any:
    async def go() -> Any:
        pool = WorkerPool(size, options.pop("max_queue", 4), options.pop("grace", 2.0),
                          extra_tasks=WORKER_TASKS, slice_seconds=SLICE, **options)
        await pool.start()
        try:
            return await body(pool)
        finally:
            await pool.close()

    return asyncio.run(go())


async def _timed(pool: WorkerPool, task: dict[str, Any], client: str,
                 limit: float = 5.0) -> tuple[Any, float]:
    t0 = time.perf_counter()
    [out] = await pool.run([task], limit, client=client)
    return out, time.perf_counter() - t0


def test_searches_on_one_process_share_it_in_slices() -> None:
    """Two 1 s searches of two clients on one process end together after about 2 s (each
    ran 1 s of its own clock in slices), not one after 1 s and the other after 2 s."""
    async def body(pool: WorkerPool) -> list[tuple[Any, float]]:
        return list(await asyncio.gather(_timed(pool, _spin(1.0), "a"),
                                         _timed(pool, _spin(1.0), "b")))

    (out_a, wall_a), (out_b, wall_b) = _with_pool(body)
    assert out_a == out_b == "done"
    assert 1.7 < wall_a < 3.0 and 1.7 < wall_b < 3.0
    assert abs(wall_a - wall_b) < 0.5


def test_a_newcomer_is_served_at_once_beside_a_client_with_long_searches() -> None:
    """One client holds four 3 s searches on two processes; another client's 0.5 s search
    arriving later ends within 0.5 s plus about a slice, and the long ones still get their
    whole 3 s of thinking."""
    async def body(pool: WorkerPool) -> tuple[list[Any], float]:
        hogs = [asyncio.ensure_future(_timed(pool, _spin(3.0), "hog")) for _ in range(4)]
        await asyncio.sleep(0.5)
        out, wall = await _timed(pool, _spin(0.5), "newcomer")
        assert out == "done"
        done = await asyncio.gather(*hogs)
        return [o for o, _ in done], wall

    outs, wall = _with_pool(body, size=2)
    assert outs == ["done"] * 4
    assert wall < 0.5 + 3 * SLICE + 0.3


def test_three_clients_get_equal_shares() -> None:
    """Three clients asking the same work at once on one process finish within a slice or
    two of each other: none is served before the others."""
    async def body(pool: WorkerPool) -> list[float]:
        runs = await asyncio.gather(*(_timed(pool, _spin(0.6), c) for c in "xyz"))
        return [wall for _, wall in runs]

    walls = _with_pool(body)
    assert max(walls) - min(walls) < 2.5 * SLICE
    assert max(walls) > 1.6  # 1.8 s of search on one process


def test_a_client_with_many_searches_does_not_outrank_a_new_one() -> None:
    """Ties of virtual time go to the client with fewer searches: a newcomer's search is
    not queued behind the many older searches of another client."""
    async def body(pool: WorkerPool) -> float:
        hogs = [asyncio.ensure_future(_timed(pool, _spin(2.0), "hog")) for _ in range(6)]
        await asyncio.sleep(0.05)  # all six admitted, the first one running
        _, wall = await _timed(pool, _spin(0.2), "new")
        for h in hogs:
            h.cancel()
        await asyncio.gather(*hogs, return_exceptions=True)
        return float(wall)

    assert _with_pool(body, max_queue=8) < 0.2 + 3 * SLICE + 0.3


def test_a_client_with_nothing_in_flight_is_never_busy() -> None:
    """With ``size + max_queue`` requests in flight, a client that has one of them is
    refused (429 busy, with Retry-After); a client with nothing in flight is admitted."""
    async def body(pool: WorkerPool) -> None:
        held = [pool.admit(1, 5.0, client="flood") for _ in range(3)]  # size 1 + queue 2
        with pytest.raises(Busy) as refused:
            pool.admit(1, 5.0, client="flood")
        assert refused.value.retry_after >= 1
        other = pool.admit(1, 5.0, client="other")  # nothing in flight: admitted
        with pytest.raises(Busy):
            pool.admit(1, 5.0, client="other")  # now it has something in flight
        background = pool.admit(1, 5.0, client="flood", background=True)  # AI moves
        for t in (*held, other, background):
            t.close()
        pool.admit(1, 5.0, client="flood").close()  # room again

    _with_pool(body, max_queue=2)


def test_a_process_opens_at_most_max_sessions_searches() -> None:
    """A process holds at most ``max_sessions`` started searches; the others wait, not
    started (holding no memory), and start as places free."""
    async def body(pool: WorkerPool) -> tuple[int, list[Any]]:
        runs = [asyncio.ensure_future(_timed(pool, _spin(0.3), f"c{k}")) for k in range(4)]
        await asyncio.sleep(0.15)
        peak = max(w["sessions"] for w in pool.workers())
        waiting = pool.waiting
        outs = await asyncio.gather(*runs)
        return peak + 10 * waiting, [o for o, _ in outs]

    code, outs = _with_pool(body, max_sessions=2)
    assert code == 2 + 10 * 2  # two open, two waiting
    assert outs == ["done"] * 4


def test_a_cancelled_paused_search_frees_its_place_within_half_a_second() -> None:
    """Cancelling a search that is paused (another search holds the process) stops it at
    its next slice: the pool holds no session of it within 0.5 s."""
    async def body(pool: WorkerPool) -> float:
        long = asyncio.ensure_future(_timed(pool, _spin(5.0), "a"))
        other = asyncio.ensure_future(_timed(pool, _spin(5.0), "b"))
        await asyncio.sleep(0.5)  # both started, taking turns
        t0 = time.perf_counter()
        long.cancel()
        other.cancel()
        await asyncio.gather(long, other, return_exceptions=True)
        while any(w["sessions"] for w in pool.workers()):
            await asyncio.sleep(0.01)
        return time.perf_counter() - t0

    assert _with_pool(body) < 0.5


def test_a_cancelled_ai_move_stops_its_search_within_half_a_second() -> None:
    """An AI seat's 10 s move (the real ``mcts`` bot) cancelled mid-search (its game
    deleted or undone): its process is free and runs another search within 0.5 s."""
    state = mid_game()
    task = {"kind": "bot", "spec": "mcts:time=10", "seed": 1,
            "observation": engine.observation_to_json(engine.observe(state, state.decision.player))}

    async def body(pool: WorkerPool) -> float:
        move = asyncio.ensure_future(pool.run([task], 10.0, admit=False, client="game"))
        await asyncio.sleep(1.0)  # thinking
        t0 = time.perf_counter()
        move.cancel()
        await asyncio.gather(move, return_exceptions=True)
        while pool.workers()[0]["sessions"]:
            await asyncio.sleep(0.01)
        return time.perf_counter() - t0

    assert _with_pool(body) < 0.5


def test_a_search_that_overruns_its_limit_is_stopped_with_504() -> None:
    """A search that keeps pausing but never ends is stopped once it has run ``limit +
    grace`` seconds of slices."""
    from advisor_api.errors import SearchTimeout

    async def body(pool: WorkerPool) -> None:
        with pytest.raises(SearchTimeout, match="past its limit"):
            await pool.run([_spin(30.0)], 0.3, client="a")
        [out] = await pool.run([_spin(0.1)], 1.0, client="a")  # the process goes on
        assert out == "done"

    _with_pool(body, grace=0.3)


def test_a_clients_own_searches_take_turns() -> None:
    """One client's short analysis asked while its own long search (an AI game's move)
    runs is not queued behind it: the two take turns, the short one ends after about
    twice its length."""
    async def body(pool: WorkerPool) -> float:
        long = asyncio.ensure_future(_timed(pool, _spin(3.0), "me"))
        await asyncio.sleep(0.3)
        _, wall = await _timed(pool, _spin(0.3), "me")
        long.cancel()
        await asyncio.gather(long, return_exceptions=True)
        return float(wall)

    assert _with_pool(body) < 2 * 0.3 + 2 * SLICE + 0.3


# -- through the service: a game's AI move stopped, deleted or undone ---------------------

def _open_sessions(c: Any) -> int:
    return sum(p["sessions"] for p in c.get("/v1/health").json()["processes"])


def _thinking_game(c: Any, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """A new game whose AI seat is searching a 10 s move (one session open)."""
    from tests.test_admission import _until

    created: dict[str, Any] = c.post("/v1/games", json={"seats": seats}).json()
    _until(lambda: _open_sessions(c) == 1)
    time.sleep(0.5)  # well into its search
    return created


@pytest.mark.parametrize("how", ["stop", "delete"])
def test_a_stopped_or_deleted_games_ai_frees_its_process_within_half_a_second(
        tmp_path: Any, how: str) -> None:
    """An AI-only game's 10 s move: the owner's stop or delete ends its search, and the
    process holds no session of it, within 0.5 s of the answer."""
    from tests.test_admission import service

    ai = {"kind": "ai", "bot": "mcts:time=10"}
    with service(tmp_path, workers=1, max_bot_time=10.0, max_time=10.0) as (c, _):
        game = _thinking_game(c, [ai, ai])
        owner = {"Authorization": f"Bearer {game['owner_token']}"}
        if how == "stop":
            r = c.post(f"/v1/games/{game['id']}/stop", json={}, headers=owner)
        else:
            r = c.delete(f"/v1/games/{game['id']}", headers=owner)
        t0 = time.perf_counter()
        assert r.status_code == 200, r.text
        while _open_sessions(c):
            assert time.perf_counter() - t0 < 0.5, "the AI's search still holds its process"
            time.sleep(0.01)


def test_an_undo_stops_the_ai_search_within_half_a_second(tmp_path: Any) -> None:
    """A human's takeback while the AI thinks about its reply (a 10 s move): the search
    for the position that is gone ends, and its process holds no session, within 0.5 s
    (the human is to decide again: the AI does not think meanwhile)."""
    from tests.test_admission import _until, service

    with service(tmp_path, workers=1, max_bot_time=10.0, max_time=10.0) as (c, _):
        created = c.post("/v1/games", json={"seats": [
            {"kind": "human"}, {"kind": "ai", "bot": "mcts:time=10"}]}).json()
        gid = created["id"]
        auth = {"Authorization": f"Bearer {created['tokens']['1']}"}
        view = c.get(f"/v1/games/{gid}?seat=1", headers=auth).json()
        assert c.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": view["legal"][0]["text"]},
                      headers=auth).status_code == 200
        _until(lambda: _open_sessions(c) == 1)
        time.sleep(0.5)
        r = c.post(f"/v1/games/{gid}/undo", json={"seat": 1}, headers=auth)
        t0 = time.perf_counter()
        assert r.status_code == 200, r.text
        assert r.json()["decision"]["seat"] == 1  # the human decides again
        while _open_sessions(c):
            assert time.perf_counter() - t0 < 0.5, "the undone search still holds its process"
            time.sleep(0.01)
        assert c.get("/v1/health").json()["stats"]["cancelled"] == 1
