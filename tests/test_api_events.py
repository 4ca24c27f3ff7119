"""``GET /v1/games/{id}/events``: a game's changes as Server-Sent Events, against the real
``mombasa serve`` (a streamed answer needs a real server: the test client buffers).

The same tokens as the view (401 / 403 / 404), only public facts in the events (never a
step, a hand or a plan: the page re-reads its own view), a heartbeat, a limit of streams
per client (429, given back when a stream closes) and the end of the stream when the game
is deleted.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service_process import serving

KEYS = {"id", "version", "steps", "round", "phase", "decision", "over", "ai_thinking",
        "seat", "your_turn"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("events")
    env = {"MOMBASA_WORKERS": "1", "MOMBASA_EVENTS_HEARTBEAT": "0.5",
           "MOMBASA_CLIENT_STREAMS": "4"}
    with serving(tmp / "games.db", tmp / "serve.log", env) as (_, url):
        yield url


class Events:
    """One open stream: its events in order (name, data), heartbeats counted."""

    def __init__(self, stack: ExitStack, base: str, gid: str, token: str | None = None,
                 seat: int | None = None) -> None:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        params = {"seat": seat} if seat else {}
        client = stack.enter_context(httpx.Client(timeout=10))
        self.resp = stack.enter_context(client.stream(
            "GET", f"{base}/v1/games/{gid}/events", headers=headers, params=params))
        assert self.resp.status_code == 200, self.resp.read()
        assert self.resp.headers["content-type"].startswith("text/event-stream")
        self.lines = self.resp.iter_lines()
        self.raw: list[str] = []
        self.heartbeats = 0

    def next(self) -> tuple[str, dict[str, Any]]:
        name, data = "message", ""
        for line in self.lines:
            self.raw.append(line)
            if line.startswith(":"):
                self.heartbeats += 1
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
            elif line == "" and data:
                return name, json.loads(data)
        raise EOFError("the stream ended")


def _new_game(base: str) -> tuple[str, dict[str, str]]:
    r = httpx.post(f"{base}/v1/games", json={
        "seats": [{"kind": "human"}, {"kind": "human"}], "mode": "play"})
    assert r.status_code == 201, r.text
    body = r.json()
    return body["id"], body["tokens"]


def _view(base: str, gid: str, token: str) -> dict[str, Any]:
    r = httpx.get(f"{base}/v1/games/{gid}", headers={"authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_events_need_the_views_tokens(base: str) -> None:
    gid, tokens = _new_game(base)
    url = f"{base}/v1/games/{gid}/events"
    assert httpx.get(url, params={"seat": 1}).status_code == 401
    assert httpx.get(url, params={"seat": 1}, headers={
        "authorization": f"Bearer {tokens['2']}"}).status_code == 403
    assert httpx.get(url, headers={"authorization": "Bearer nope"}).status_code == 403
    assert httpx.get(f"{base}/v1/games/0000/events").status_code == 404
    assert httpx.get(url, params={"seat": 3}).status_code == 422


def _to_a_hidden_step(base: str, gid: str, tokens: dict[str, str]) -> None:
    """Play the first legal steps until seat 1 may keep a tile (or plan) face down."""
    for _ in range(40):
        for seat in (1, 2):
            legal = [x["text"] for x in _view(base, gid, tokens[str(seat)])["legal"]]
            if seat == 1 and any(t.split()[0] in ("tile", "plan") for t in legal):
                return
            if legal:
                httpx.post(f"{base}/v1/games/{gid}/steps", json={"seat": seat,
                           "step": legal[0]}, headers={
                           "authorization": f"Bearer {tokens[str(seat)]}"}
                           ).raise_for_status()
                break
    raise AssertionError("no hidden step came")


def test_changes_are_pushed_without_hidden_information(base: str) -> None:
    gid, tokens = _new_game(base)
    _to_a_hidden_step(base, gid, tokens)
    with ExitStack() as stack:
        one = Events(stack, base, gid, tokens["1"])
        two = Events(stack, base, gid, tokens["2"])
        spectator = Events(stack, base, gid)
        firsts = [s.next() for s in (one, two, spectator)]
        for (name, data), seat in zip(firsts, (1, 2, None), strict=True):
            assert name == "change" and set(data) == KEYS
            assert data["seat"] == seat
        assert firsts[0][1]["your_turn"] and not firsts[2][1]["your_turn"]
        assert firsts[0][1]["decision"]["seats"] == [1, 2]  # simultaneous
        v = _view(base, gid, tokens["1"])
        assert firsts[0][1]["steps"] == v["steps"]
        # seat 1 keeps a starting tile face down: a hidden step (tile, or plan)
        step = next(x["text"] for x in v["legal"] if x["text"].split()[0] in ("tile", "plan"))
        r = httpx.post(f"{base}/v1/games/{gid}/steps", json={"seat": 1, "step": step},
                       headers={"authorization": f"Bearer {tokens['1']}"})
        assert r.status_code == 200, r.text
        for s, (_, before) in zip((one, two, spectator), firsts, strict=True):
            name, data = s.next()
            assert name == "change" and set(data) == KEYS
            assert data["version"] > before["version"]
            assert data["steps"] == before["steps"] + 1 == r.json()["steps"]
            text = "\n".join(s.raw)
            assert step not in text and "hand" not in text and "tile " not in text
        # a heartbeat comes every MOMBASA_EVENTS_HEARTBEAT seconds (0.5 here)
        time.sleep(1.2)
        httpx.post(f"{base}/v1/games/{gid}/steps", json={"seat": 2, "step": next(
            x["text"] for x in _view(base, gid, tokens["2"])["legal"])},
            headers={"authorization": f"Bearer {tokens['2']}"}).raise_for_status()
        name, _ = spectator.next()
        assert name == "change" and spectator.heartbeats >= 1


def test_streams_per_client_and_deletion(base: str) -> None:
    gid, tokens = _new_game(base)
    with ExitStack() as stack:
        streams = [Events(stack, base, gid, tokens["1"]) for _ in range(4)]
        for s in streams:
            s.next()
        r = httpx.get(f"{base}/v1/games/{gid}/events")
        assert r.status_code == 429 and r.json()["error"] == "client-limit"
        assert "MOMBASA_CLIENT_STREAMS" in r.json()["message"]
        # closing one gives its place back
        streams[0].resp.close()
        deadline = time.time() + 5
        with httpx.Client(timeout=10) as client:
            while True:
                with client.stream("GET", f"{base}/v1/games/{gid}/events") as resp:
                    if resp.status_code == 200:
                        break
                assert time.time() < deadline, "a closed stream kept its place"
                time.sleep(0.1)
        # deleting the game ends every stream with "deleted"
        r = httpx.delete(f"{base}/v1/games/{gid}",
                         headers={"authorization": f"Bearer {tokens['2']}"})
        assert r.status_code == 200, r.text
        for s in streams[1:]:
            assert s.next() == ("deleted", {"id": gid, "deleted": True})
            with pytest.raises(EOFError):
                s.next()
    assert httpx.get(f"{base}/v1/games/{gid}/events").status_code == 404


def test_health_counts_open_streams(base: str) -> None:
    gid, tokens = _new_game(base)
    with ExitStack() as stack:
        stream = Events(stack, base, gid, tokens["1"])
        stream.next()
        assert httpx.get(f"{base}/v1/health").json()["clients"]["streams"] >= 1


def test_a_stop_ends_the_streams(tmp_path: Path) -> None:
    """SIGINT: the open streams end at once and the service exits (no waiting for the
    clients to leave)."""
    with serving(tmp_path / "games.db", tmp_path / "serve.log",
                 {"MOMBASA_WORKERS": "1"}) as (proc, url):
        gid, tokens = _new_game(url)
        with ExitStack() as stack:
            stream = Events(stack, url, gid, tokens["1"])
            stream.next()
            start = time.monotonic()
            proc.send_signal(signal.SIGINT)
            with pytest.raises((EOFError, httpx.HTTPError)):
                stream.next()
            proc.wait(10)
            assert time.monotonic() - start < 5
