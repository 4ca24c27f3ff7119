"""Two replicas of the service on one PostgreSQL database (marker ``postgres``): two
``mombasa serve`` processes on two ports, as behind a reverse proxy (docs/deploy.md).

A game created on one is played on the other, and each answers for it at once (no
stale copy); the events stream of a page connected to one replica follows the steps
posted to the other, the AI's moves and the deletion; the replica driving a game's AI
seats is killed (SIGKILL) in the middle of an AI move, and the other takes the AI lease
over and finishes the move; in the end every acknowledged step is stored exactly once,
in order."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import pg
from tests.service_process import serving

pytestmark = pytest.mark.postgres

ENV = {"MOMBASA_WORKERS": "1", "MOMBASA_AI_LEASE": "2", "MOMBASA_EVENTS_HEARTBEAT": "1",
       "MOMBASA_MAX_BOT_TIME": "10"}
QUICK = "mcts:iterations=20"
SLOW = "mcts:time=4"  # long enough to kill its replica in the middle of it


@pytest.fixture
def db_url() -> Iterator[str]:
    with pg.fresh_database() as url:
        yield url


class Stream:
    """A game's event stream on one replica, read by a thread: (name, data) in order."""

    def __init__(self, stack: ExitStack, base: str, gid: str, token: str) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.ended = threading.Event()
        client = stack.enter_context(httpx.Client(timeout=60))
        self.resp = stack.enter_context(client.stream(
            "GET", f"{base}/v1/games/{gid}/events",
            headers={"authorization": f"Bearer {token}"}))
        assert self.resp.status_code == 200
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        name, data = "message", ""
        try:
            for line in self.resp.iter_lines():
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data += line[5:].strip()
                elif line == "" and data:
                    self.events.append((name, json.loads(data)))
                    name, data = "message", ""
        except httpx.HTTPError:
            pass
        finally:
            self.ended.set()

    def wait_for(self, check: Callable[[str, dict[str, Any]], bool], seconds: float,
                 what: str) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        seen = 0
        while time.monotonic() < deadline:
            while seen < len(self.events):
                name, data = self.events[seen]
                seen += 1
                if check(name, data):
                    return data
            time.sleep(0.02)
        raise AssertionError(f"no event {what} within {seconds} s: {self.events[-5:]}")


def _view(base: str, gid: str, token: str, wait: float = 0) -> dict[str, Any]:
    r = httpx.get(f"{base}/v1/games/{gid}", params={"wait": wait},
                  headers={"authorization": f"Bearer {token}"}, timeout=60)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _step(base: str, gid: str, token: str, rng: random.Random) -> dict[str, Any]:
    """Seat 1's step, chosen at random among its legal ones, posted to ``base``."""
    v = _view(base, gid, token)
    assert v["your_turn"], v["decision"]
    r = httpx.post(f"{base}/v1/games/{gid}/steps", timeout=60,
                   json={"seat": 1, "step": rng.choice(v["legal"])["json"]},
                   headers={"authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _until(check: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")


def _stored(url: str, gid: str) -> list[tuple[int, int, str, str]]:
    import psycopg

    with psycopg.connect(url) as db:
        return [tuple(r) for r in db.execute(
            "SELECT idx, player, step, source FROM steps WHERE game = %s ORDER BY idx",
            (gid,))]


def _lease_holder(url: str, gid: str) -> str | None:
    import psycopg

    with psycopg.connect(url) as db:
        row = db.execute("SELECT holder FROM ai_leases WHERE game = %s AND expires > "
                         "extract(epoch from clock_timestamp())", (gid,)).fetchone()
        return None if row is None else str(row[0])


def _new_game(base: str, bot: str, seed: int) -> tuple[str, str]:
    r = httpx.post(f"{base}/v1/games", timeout=60, json={
        "seats": [{"kind": "human"}, {"kind": "ai", "bot": bot}], "seed": seed,
        "reproducible": True})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["tokens"]["1"]


def _same_history(acked: dict[str, Any], final: dict[str, Any]) -> None:
    """An acknowledged answer's history is the start of the final one."""
    kept = final["history"][: acked["steps"]]
    assert len(kept) == len(acked["history"]) == acked["steps"]
    for now, then in zip(kept, acked["history"], strict=True):
        assert then["step"] in (None, now["step"]) and then["source"] == now["source"]


def test_two_replicas_play_one_game(db_url: str, tmp_path: Path) -> None:
    rng = random.Random(7)
    with ExitStack() as stack:
        _, a = stack.enter_context(serving(db_url, tmp_path / "a.log", ENV))
        _, b = stack.enter_context(serving(db_url, tmp_path / "b.log", ENV))
        gid, token = _new_game(a, QUICK, 11)
        events = Stream(stack, b, gid, token)  # a page on replica B
        first = events.wait_for(lambda n, d: n == "change", 10, "change")
        acked = []
        for k in range(12):  # steps posted to both replicas in turn, read on both
            here, there = (b, a) if k % 2 == 0 else (a, b)
            _until(lambda h=here: _view(h, gid, token)["your_turn"], 30, "seat 1's turn")
            answer = _step(here, gid, token, rng)
            acked.append(answer)
            assert _view(there, gid, token)["steps"] >= answer["steps"]  # never stale
            events.wait_for(lambda n, d, s=answer["steps"]: n == "change"
                            and d["steps"] >= s, 10, f"{answer['steps']} steps on B")
        final = _until(lambda: (v := _view(a, gid, token)) and v["your_turn"] and v, 60,
                       "the AI's moves")
        assert {h["source"] for h in final["history"]} >= {"human", "ai", "chance"}
        assert _view(b, gid, token)["history"] == final["history"]
        for answer in acked:
            _same_history(answer, final)
        assert first["steps"] < final["steps"]
        stored = _stored(db_url, gid)
        assert [r[0] for r in stored] == list(range(final["steps"]))  # each step once
        r = httpx.delete(f"{a}/v1/games/{gid}", headers={"authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        events.wait_for(lambda n, d: n == "deleted", 10, "deleted on B")
        assert httpx.get(f"{b}/v1/games/{gid}").status_code == 404


def test_a_replica_killed_mid_ai_move_is_replaced(db_url: str, tmp_path: Path) -> None:
    rng = random.Random(3)
    with ExitStack() as stack:
        pa, a = stack.enter_context(serving(db_url, tmp_path / "a.log", ENV))
        pb, b = stack.enter_context(serving(db_url, tmp_path / "b.log", ENV))
        procs = {pa.pid: (pa, a, b), pb.pid: (pb, b, a)}
        gid, token = _new_game(a, SLOW, 5)
        acked = [_step(a, gid, token, rng)]  # the plan of round 1, say
        views = [Stream(stack, base, gid, token) for base in (a, b)]
        # play until the AI seat has a move of its own to think about
        while not _view(a, gid, token)["ai"]["thinking"]:
            _until(lambda: _view(b, gid, token)["your_turn"], 60, "seat 1's turn")
            acked.append(_step(b if len(acked) % 2 else a, gid, token, rng))
        holder = _until(lambda: _lease_holder(db_url, gid), 10, "an AI lease")
        pid = int(holder.split(":")[1])
        dead, dead_base, alive = procs[pid]
        before = _view(alive, gid, token)
        assert before["ai"]["thinking"], before["ai"]  # the follower thinks too
        dead.kill()  # SIGKILL in the middle of the AI's move
        dead.wait()
        t0 = time.monotonic()
        after = _until(lambda: (v := _view(alive, gid, token)) and v["your_turn"] and v,
                       30, "the AI's move finished by the other replica")
        took = time.monotonic() - t0
        assert after["steps"] > before["steps"] and not after["ai"]["error"]
        assert after["history"][before["steps"]]["source"] == "ai"
        holder2 = _lease_holder(db_url, gid)
        assert holder2 is None or int(holder2.split(":")[1]) != pid
        stream = views[0] if alive == a else views[1]
        stream.wait_for(lambda n, d: n == "change" and d["steps"] == after["steps"], 10,
                        "the finished move on the surviving replica's stream")
        for answer in acked:
            _same_history(answer, after)
        stored = _stored(db_url, gid)
        assert [r[0] for r in stored] == list(range(after["steps"]))
        assert [r[3] for r in stored] == [h["source"] for h in after["history"]]
        print(f"AI move finished {took:.1f} s after the kill (lease 2 s, search 4 s)")
        assert dead_base != alive
