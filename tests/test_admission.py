"""Fair share of the machine: one admission control for AI moves, analyses and streams
(a bounded queue), per-client limits (429 with Retry-After), abandoned searches stopped,
search processes recycled."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from advisor_api.app import Service, create_app
from tests.service_process import serving
from tests.test_api_helpers import mid_game, small_settings, state_json
from tests.worker_tasks import WORKER_TASKS

Scope = dict[str, Any]


def _as_clients(app: Any) -> Any:
    """The app, with the test header ``x-client`` as the request's remote address."""

    async def wrapped(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for key, value in scope["headers"]:
                if key == b"x-client":
                    scope = {**scope, "client": (value.decode(), 4000)}
        await app(scope, receive, send)

    return wrapped


@contextlib.contextmanager
def service(tmp: Path, **changes: Any) -> Iterator[tuple[TestClient, Service]]:
    """A started service with small settings (``x-client`` header: who asks; the test
    task kinds of :mod:`tests.worker_tasks`)."""
    app = create_app(settings=small_settings(tmp, **changes), worker_tasks=WORKER_TASKS)
    with TestClient(_as_clients(app)) as c:
        yield c, app.state.service


def _who(name: str) -> dict[str, str]:
    return {"x-client": name}


def _body(seconds: float | None = None, iterations: int | None = None) -> dict[str, Any]:
    limit: dict[str, Any] = {"time": seconds} if seconds else {"iterations": iterations}
    return {"state": state_json(mid_game()), "limit": limit}


def _health(c: TestClient) -> dict[str, Any]:
    body: dict[str, Any] = c.get("/v1/health").json()
    return body


def _until(cond: Any, timeout: float = 10.0) -> None:
    deadline = time.time() + timeout
    while not cond():
        assert time.time() < deadline, "timed out"
        time.sleep(0.02)


AI_ONLY = [{"kind": "ai", "bot": "mcts:time=0.05"}, {"kind": "ai", "bot": "mcts:time=0.05"}]


# -- one admission control ---------------------------------------------------------------

def test_ai_moves_share_the_pool_with_requests(tmp_path: Path) -> None:
    """Many all-AI games of one client on one process: AI moves are never refused and
    never fail, and another client's analyses, asked while they play, are admitted at
    once and answered."""
    with service(tmp_path, workers=1, max_queue=2, client_ai_games=0) as (c, svc):
        games = [c.post("/v1/games", json={"seats": AI_ONLY, "seed": k, "reproducible": True},
                        headers=_who("10.0.0.1")).json()["id"] for k in range(8)]
        _until(lambda: _health(c)["in_flight"] >= 4)  # the AI moves are under way
        answers = [c.post("/v1/analyse", json=_body(iterations=30),
                          headers=_who("10.0.0.2")).status_code for _ in range(3)]
        assert answers == [200, 200, 200]
        deadline = time.time() + 10
        while time.time() < deadline and not all(
                any(h["source"] == "ai" for h in c.get(f"/v1/games/{g}").json()["history"])
                for g in games):
            time.sleep(0.05)
        for gid in games:
            v = c.get(f"/v1/games/{gid}").json()  # no human seat: the spectator's view
            assert v["ai"]["error"] is None
            assert any(h["source"] == "ai" for h in v["history"])  # every game moved
        assert _health(c)["stats"]["refused"] == 0


def test_stream_burst_beyond_the_cap_is_refused_at_once(tmp_path: Path) -> None:
    """8 streams at once on 1 process with a queue of 2: 3 admitted (1 running, 2
    queued), the others 429 at once with Retry-After; the queue never over 2."""
    with service(tmp_path, workers=1, max_queue=2, client_analyses=0) as (c, _):
        body = _body(seconds=1.5)  # all 8 arrive while the first one runs

        def one(_: int) -> tuple[int, float, str | None]:
            t0 = time.perf_counter()
            with c.stream("POST", "/v1/analyse/stream", json=body) as r:
                first = time.perf_counter() - t0
                retry = r.headers.get("Retry-After")
                r.read()
            return r.status_code, first, retry

        with ThreadPoolExecutor(8) as ex:
            results = list(ex.map(one, range(8)))
        codes = sorted(code for code, _, _ in results)
        assert codes == [200] * 3 + [429] * 5, results
        for code, first, retry in results:
            if code == 429:
                assert first < 1.0 and retry is not None and int(retry) >= 1
        h = _health(c)
        assert h["queued"] == 0 and h["idle"] == 1 and h["stats"]["refused"] == 5


def test_streams_opened_one_after_another_count_when_accepted(tmp_path: Path) -> None:
    with service(tmp_path, workers=1, max_queue=1, client_analyses=0) as (c, _):
        body = _body(seconds=2.0)
        with contextlib.ExitStack() as stack:
            first = stack.enter_context(c.stream("POST", "/v1/analyse/stream", json=body))
            second = stack.enter_context(c.stream("POST", "/v1/analyse/stream", json=body))
            assert first.status_code == second.status_code == 200
            assert _health(c)["queued"] == 1
            r = c.post("/v1/analyse/stream", json=body)
            assert r.status_code == 429 and r.json()["error"] == "busy"
            assert int(r.headers["Retry-After"]) >= 1
        # both streams closed: their places are free again at once
        _until(lambda: _health(c)["idle"] == 1, 5)
        assert _health(c)["queued"] == 0
        assert c.post("/v1/analyse", json=_body(iterations=20)).status_code == 200


# -- per-client limits --------------------------------------------------------------------

def test_analyses_at_once_per_client(tmp_path: Path) -> None:
    with service(tmp_path, workers=2, max_queue=4, client_analyses=1) as (c, _):
        results: list[int] = []
        t = threading.Thread(target=lambda: results.append(c.post(
            "/v1/analyse", json=_body(seconds=1.5), headers=_who("10.0.0.1")).status_code))
        t.start()
        _until(lambda: _health(c)["clients"]["analyses"] == 1)
        r = c.post("/v1/analyse", json=_body(iterations=20), headers=_who("10.0.0.1"))
        assert r.status_code == 429 and r.json()["error"] == "client-limit"
        assert 1 <= int(r.headers["Retry-After"]) <= 2
        with c.stream("POST", "/v1/analyse/stream", json=_body(iterations=20),
                      headers=_who("10.0.0.1")) as s:
            assert s.status_code == 429
        # another client is not affected
        assert c.post("/v1/analyse", json=_body(iterations=20),
                      headers=_who("10.0.0.2")).status_code == 200
        t.join()
        assert results == [200]
        # the first client's analysis finished: it may analyse again
        assert c.post("/v1/analyse", json=_body(iterations=20),
                      headers=_who("10.0.0.1")).status_code == 200
        assert _health(c)["clients"]["refused"]["analyses"] == 2


def test_games_per_minute_per_client(tmp_path: Path) -> None:
    with service(tmp_path, client_games_per_minute=2) as (c, svc):
        now = [1000.0]
        svc.limits.clock = lambda: now[0]
        humans = {"seats": [{"kind": "human"}, {"kind": "human"}]}
        for _ in range(2):
            assert c.post("/v1/games", json=humans, headers=_who("a")).status_code == 201
            now[0] += 10
        r = c.post("/v1/games", json=humans, headers=_who("a"))
        assert r.status_code == 429 and r.json()["error"] == "client-limit"
        assert int(r.headers["Retry-After"]) == 40  # the first creation leaves the window
        assert c.post("/v1/games", json=humans, headers=_who("b")).status_code == 201
        now[0] += 40.5  # the first creation left the window, the second not yet
        assert c.post("/v1/games", json=humans, headers=_who("a")).status_code == 201
        r = c.post("/v1/games", json=humans, headers=_who("a"))
        assert r.status_code == 429 and r.headers["Retry-After"] == "10"
        now[0] += 10
        assert c.post("/v1/games", json=humans, headers=_who("a")).status_code == 201


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client(tmp_path: Path) -> None:
    """MOMBASA_TRUSTED_PROXIES: a request from the proxy counts for the address its
    X-Forwarded-For names; another peer's X-Forwarded-For is not believed."""
    with service(tmp_path, client_games_per_minute=1,
                 trusted_proxies=("10.9.0.0/16",)) as (c, _):
        humans = {"seats": [{"kind": "human"}, {"kind": "human"}]}

        def create(peer: str, forwarded: str) -> int:
            return c.post("/v1/games", json=humans, headers={
                "x-client": peer, "x-forwarded-for": forwarded}).status_code

        assert create("10.9.0.1", "198.51.100.1") == 201
        assert create("10.9.0.1", "198.51.100.1") == 429  # that user, through the proxy
        assert create("10.9.0.2", "198.51.100.2") == 201  # another user, another proxy
        assert create("10.9.0.1", "203.0.113.9, 198.51.100.3") == 201  # the last hop counts
        assert create("192.0.2.5", "198.51.100.4") == 201  # not a proxy: its own address
        assert create("192.0.2.5", "198.51.100.5") == 429  # ...the header is ignored


def test_ipv6_clients_count_by_their_64_network(tmp_path: Path) -> None:
    """Addresses of one IPv6 /64 (what one host or home is given) are one client."""
    with service(tmp_path, client_games_per_minute=1) as (c, _):
        humans = {"seats": [{"kind": "human"}, {"kind": "human"}]}
        codes = [c.post("/v1/games", json=humans, headers=_who(peer)).status_code
                 for peer in ("2001:db8:0:1::1", "2001:db8:0:1::2", "2001:db8:0:2::1")]
        assert codes == [201, 429, 201]


def test_trusted_proxies_must_be_addresses() -> None:
    from advisor_api.settings import Settings

    assert Settings(trusted_proxies=(" 10.0.0.5 ", "fd00::/8")).trusted_proxies == (
        "10.0.0.5", "fd00::/8")
    with pytest.raises(ValueError, match="MOMBASA_TRUSTED_PROXIES.*'proxy.example'"):
        Settings(trusted_proxies=("proxy.example",))


def test_ai_games_running_per_client(tmp_path: Path) -> None:
    with service(tmp_path, client_ai_games=1) as (c, _):
        slow_ai_first = {"seats": [{"kind": "ai", "bot": "mcts:time=1"}, {"kind": "human"}],
                         "seed": 4, "reproducible": True}
        g = c.post("/v1/games", json=slow_ai_first, headers=_who("a")).json()
        assert g["ai"]["thinking"]
        r = c.post("/v1/games", json=slow_ai_first, headers=_who("a"))
        assert r.status_code == 429 and r.json()["error"] == "client-limit"
        assert int(r.headers["Retry-After"]) >= 1
        # games without AI seats playing are not counted; nor are other clients
        humans = {"seats": [{"kind": "human"}, {"kind": "human"}]}
        assert c.post("/v1/games", json=humans, headers=_who("a")).status_code == 201
        live = {**slow_ai_first, "mode": "live"}
        assert c.post("/v1/games", json=live, headers=_who("a")).status_code == 201
        assert c.post("/v1/games", json=slow_ai_first, headers=_who("b")).status_code == 201
        # once the AI seat has moved (the human's turn), the client may start another
        v = c.get(f"/v1/games/{g['id']}", params={"wait": 20}).json()
        assert not v["ai"]["thinking"]
        assert c.post("/v1/games", json=slow_ai_first, headers=_who("a")).status_code == 201


# -- abandoned requests -------------------------------------------------------------------

def test_disconnected_analysis_stops_its_search(tmp_path: Path) -> None:
    """A client that leaves a plain /v1/analyse (its connection closed) frees the only
    process at once, long before the search's 8 s."""
    with service(tmp_path, workers=1, max_time=10, grace=5) as (c, _):
        app = c.app
        raw = json.dumps(_body(seconds=8.0)).encode()
        sent: list[dict[str, Any]] = []

        async def call() -> None:
            gone = asyncio.Event()
            messages = [{"type": "http.request", "body": raw, "more_body": False}]

            async def receive() -> dict[str, Any]:
                if messages:
                    return messages.pop()
                await gone.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                sent.append(message)

            scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                     "method": "POST", "scheme": "http", "path": "/v1/analyse",
                     "raw_path": b"/v1/analyse", "query_string": b"", "root_path": "",
                     "headers": [(b"host", b"testserver"),
                                 (b"content-type", b"application/json"),
                                 (b"content-length", str(len(raw)).encode())],
                     "client": ("10.0.0.9", 5000), "server": ("testserver", 80)}
            asyncio.get_running_loop().call_later(0.6, gone.set)
            await app(scope, receive, send)

        t0 = time.perf_counter()
        c.portal.call(call)
        assert time.perf_counter() - t0 < 2.0
        assert sent[0]["status"] == 499
        _until(lambda: _health(c)["idle"] == 1, 2.0)
        assert time.perf_counter() - t0 < 2.5
        h = _health(c)
        assert h["stats"]["cancelled"] == 1 and h["stats"]["timeouts"] == 0
        assert h["stats"]["crashes"] == 0 and h["processes"][0]["tasks"] == 1
        assert h["clients"]["analyses"] == 0
        r = c.post("/v1/analyse", json=_body(iterations=20))
        assert r.status_code == 200


def test_disconnected_analysis_stops_on_a_real_server(tmp_path: Path) -> None:
    env = {"MOMBASA_WORKERS": "1", "MOMBASA_MAX_TIME": "10"}
    with serving(tmp_path / "games.db", tmp_path / "serve.log", env) as (_, url):
        t0 = time.perf_counter()
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/v1/analyse", json=_body(seconds=8.0), timeout=0.8)

        def health() -> dict[str, Any]:
            body: dict[str, Any] = httpx.get(f"{url}/v1/health", timeout=5).json()
            return body

        _until(lambda: health()["stats"]["cancelled"] == 1 and health()["idle"] == 1, 3.0)
        assert time.perf_counter() - t0 < 3.5  # the 8 s search was stopped
        r = httpx.post(f"{url}/v1/analyse", json=_body(iterations=20), timeout=10)
        assert r.status_code == 200


# -- recycling ----------------------------------------------------------------------------

def test_workers_recycled_after_n_tasks(tmp_path: Path) -> None:
    with service(tmp_path, workers=1, worker_max_tasks=3) as (c, _):
        pids = {_health(c)["processes"][0]["pid"]}
        for _ in range(8):
            assert c.post("/v1/analyse", json=_body(iterations=20)).status_code == 200
            _until(lambda: _health(c)["idle"] == 1)  # a fresh process may be starting
            pids.add(_health(c)["processes"][0]["pid"])
        h = _health(c)
        assert h["stats"]["recycled"] == 2 and len(pids) == 3
        assert h["processes"][0]["tasks"] == 2 and h["workers"] == 1


def test_workers_recycled_above_the_memory_bound(tmp_path: Path) -> None:
    """A process whose memory after a task is over the bound is replaced, while analyses
    from another thread keep being answered."""
    with service(tmp_path, workers=2, worker_max_tasks=0) as (c, svc):
        base = max(p["rss_mb"] for p in _health(c)["processes"])
        assert base > 10
        svc.pool.max_rss_mb = base + 60
        codes: list[int] = []
        stop = threading.Event()

        def analyses() -> None:
            while not stop.is_set():
                codes.append(c.post("/v1/analyse", json=_body(iterations=20)).status_code)

        t = threading.Thread(target=analyses)
        t.start()
        try:
            pids = {p["pid"] for p in _health(c)["processes"]}
            for _ in range(3):
                c.portal.call(svc.pool.run, [{"kind": "_grow", "mb": 100}], 5.0)
            _until(lambda: _health(c)["stats"]["recycled"] >= 3, 10)
            time.sleep(0.3)
        finally:
            stop.set()
            t.join()
        h = _health(c)
        assert len(h["processes"]) == 2
        assert all(p["rss_mb"] < base + 60 for p in h["processes"])
        assert len(pids | {p["pid"] for p in h["processes"]}) >= 4
        assert codes and set(codes) == {200}
        assert h["stats"]["crashes"] == h["stats"]["timeouts"] == 0
