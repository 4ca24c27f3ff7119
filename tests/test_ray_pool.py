"""The search pool on a Ray cluster (``mombasa serve --ray ADDRESS``,
``advisor_api/ray_backend.py``): a local cluster of two nodes of one CPU each
(``ray.cluster_utils.Cluster``, stopped after: ``ray stop`` would end every Ray process
of the machine), and a real service joined to it. Analyses, a deep analysis (``jobs``),
AI moves and a review job run on the cluster's search actors (their pids and nodes in
``/v1/health``); the capacity is the cluster's CPUs, followed as a node joins and
leaves (the actors and the analyses' ``jobs`` cap); admission keeps its promises against
it; a killed actor fails its search over (500) and is replaced. About a minute."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import engine
from search.bench.positions import mid_game
from tests.service_process import command, serving

pytestmark = pytest.mark.ray

RANDOM_AI = [{"kind": "ai", "bot": "random"}, {"kind": "ai", "bot": "random"}]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True,
                head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    c.shutdown()


def _on_ray(address: str, tmp: Path) -> Any:
    """``mombasa serve ... --ray ADDRESS``: 429 ``busy`` as soon as two requests are in
    flight (no queue), two analyses at once per client, AI seats of 1 s at most."""
    # serving() puts "serve --port ..." after the command: a shell adds --ray at the end
    wrapped = ["sh", "-c", f'exec "$0" "$@" --ray {address}', *command()]
    env = {"MOMBASA_MAX_QUEUE": "0", "MOMBASA_CLIENT_ANALYSES": "2",
           "MOMBASA_MAX_BOT_TIME": "1", "MOMBASA_MAX_TIME": "4", "MOMBASA_RAY": ""}
    return serving(tmp / "games.db", tmp / "serve.log", env, mombasa=wrapped)


@pytest.fixture(scope="module")
def service(cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _on_ray(cluster.address, tmp_path_factory.mktemp("ray-pool")) as (_, base):
        yield base


def _health(base: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{base}/v1/health", timeout=10).json()
    return body


def _until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _position() -> dict[str, Any]:
    return engine.state_to_json(mid_game(2, 5, 3))


def _analyse(base: str, seconds: float, source: str = "127.0.0.1",
             **extra: Any) -> httpx.Response:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=base, transport=transport, timeout=60) as http:
        return http.post("/v1/analyse", json={"state": _position(),
                                              "limit": {"time": seconds}, **extra})


def _tasks(base: str) -> dict[int, int]:
    return {p["pid"]: p["tasks"] for p in _health(base)["processes"]}


def test_the_benchmark_runs_shrunk(cluster: Any) -> None:
    """``python -m benchmarks.ray_pool`` (docs/api.md) on this cluster, one client for
    2 s. First in the module: it needs the cluster's CPUs free (the service fixture's
    actors hold them once it has started)."""
    import ray

    from benchmarks.ray_pool import players_served, run

    assert not ray.is_initialized()
    result = run([1], duration=2.0, rounds=1, address=cluster.address, arrivals=2000)
    assert not ray.is_initialized()
    costs = result["costs"]
    assert set(costs) == {"local", "ray"}
    for c in costs.values():
        assert 0 < c["task_s"] < 1 and 1.0 <= c["analysis_s"] < 3 and c["cpu_per_analysis_s"] > 0
    assert [(row["backend"], row["clients"]) for row in result["load"]] == [
        ("local", 1), ("ray", 1)]
    assert all(row["answers"] >= 1 and row["p95_s"] >= 1.0 for row in result["load"])
    rows = result["model"]["30.0"]
    assert [r["nodes"] for r in rows] == [1, 2, 4, 8, 16]
    assert all(a["players"] < b["players"] for a, b in zip(rows, rows[1:], strict=False))
    # 1.1 s analyses on 16 CPUs: p95 1.5 s at about 11.4 a second (78% busy)
    model = players_served(1, {"analysis_s": 1.1}, 30.0, arrivals=4000)
    assert model["cpus"] == 16 and 0.7 < model["utilisation"] < 0.9
    assert 290 < model["players"] < 400


def test_the_pool_is_the_clusters_actors(cluster: Any, service: str) -> None:
    health = _health(service)
    assert health["backend"]["kind"] == "ray"
    assert health["backend"]["cpus"] == 2 and health["backend"]["nodes"] == 2
    assert health["workers"] == 2
    nodes = {n.node_id for n in cluster.list_all_nodes()}
    procs = health["processes"]
    assert {p["node"] for p in procs} == nodes  # one actor on each node
    assert all(p["pid"] != os.getpid() for p in procs)


def test_analyses_run_as_ray_actor_calls(service: str) -> None:
    before = _tasks(service)
    r = _analyse(service, 0.5, jobs=2)  # a deep analysis: root parallelism on both nodes
    assert r.status_code == 200, r.text
    assert r.json()["jobs"] == 2 and r.json()["lines"]
    after = _tasks(service)
    assert set(after) == set(before)
    assert all(after[pid] == before[pid] + 1 for pid in before), (before, after)
    body = {"state": _position(), "limit": {"time": 1.0}}
    with httpx.Client(base_url=service, timeout=60) as http, \
            http.stream("POST", "/v1/analyse/stream", json=body) as s:
        events = [line for line in s.iter_lines() if line.startswith("event:")]
    assert "event: lines" in events and events[-1] == "event: done"


def test_admission_against_the_clusters_capacity(service: str) -> None:
    """Two CPUs, no queue: a client with nothing in flight is admitted, others get 429
    busy with Retry-After once two requests are in flight; the per-client limit holds."""
    answers: list[httpx.Response] = []
    runs = [threading.Thread(target=lambda: answers.append(_analyse(service, 2.0)))
            for _ in range(2)]
    for t in runs:
        t.start()
    _until(lambda: _health(service)["in_flight"] == 2, 10, "two analyses in flight")
    third = _analyse(service, 0.2)
    assert third.status_code == 429 and third.json()["error"] == "client-limit"
    other = "127.0.0.2"  # another client: nothing in flight, admitted over the capacity
    late: list[httpx.Response] = []
    fourth = threading.Thread(target=lambda: late.append(_analyse(service, 1.0, other)))
    fourth.start()
    _until(lambda: _health(service)["in_flight"] == 3, 10, "the other client admitted")
    busy = _analyse(service, 0.2, other)
    assert busy.status_code == 429 and busy.json()["error"] == "busy"
    assert int(busy.headers["Retry-After"]) >= 1
    for t in [*runs, fourth]:
        t.join(30)
    assert [a.status_code for a in [*answers, *late]] == [200, 200, 200]


def test_ai_moves_and_a_review_job_run_on_the_cluster(service: str) -> None:
    before = _health(service)["stats"]["tasks"]  # actors are recycled after 200 tasks
    with httpx.Client(base_url=service, timeout=60) as http:
        r = http.post("/v1/games", json={"seats": RANDOM_AI, "seed": 5,
                                         "reproducible": True})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        deadline = time.monotonic() + 60
        while not (view := http.get(f"/v1/games/{gid}?wait=20").json())["over"]:
            assert time.monotonic() < deadline, "the AI game did not finish"
        assert not view["ai"]["error"]
        played = _health(service)["stats"]["tasks"]
        assert played - before > 50  # every AI move a task of the actors
        r = http.post(f"/v1/games/{gid}/review", json={"budget": {"iterations": 4},
                                                       "seed": 1})
        assert r.status_code == 202, r.text
        job = r.json()["job"]
        _until(lambda: http.get(f"/v1/games/{gid}/review/{job}").json()["status"]
               not in ("queued", "running"), 60, "the review did not end")
        body = http.get(f"/v1/games/{gid}/review/{job}").json()
    assert body["status"] == "done", body
    assert body["review"]["format"] == "mombasa-review/1"
    assert _health(service)["stats"]["tasks"] == played + 1


def test_a_killed_actor_fails_its_search_and_is_replaced(service: str) -> None:
    crashes = _health(service)["stats"]["crashes"]
    answer: list[httpx.Response] = []
    run = threading.Thread(target=lambda: answer.append(_analyse(service, 3.0)))
    run.start()
    _until(lambda: any(p["sessions"] for p in _health(service)["processes"]), 10,
           "the search started")
    victim = next(p for p in _health(service)["processes"] if p["sessions"])
    os.kill(victim["pid"], signal.SIGKILL)
    run.join(30)
    assert answer[0].status_code == 500 and answer[0].json()["error"] == "search-failed"

    def replaced() -> bool:
        procs = _health(service)["processes"]
        return len(procs) == 2 and victim["pid"] not in {p["pid"] for p in procs} and \
            all(p["pid"] for p in procs)

    _until(replaced, 30, "no new actor took the dead one's place")
    assert _health(service)["stats"]["crashes"] == crashes + 1
    assert _analyse(service, 0.3).status_code == 200


def test_the_capacity_follows_nodes_joining_and_leaving(cluster: Any,
                                                        service: str) -> None:
    node = cluster.add_node(num_cpus=1)

    def cpus(n: int) -> Callable[[], bool]:
        def check() -> bool:
            h = _health(service)
            ready = [p for p in h["processes"] if p["pid"]]
            return h["backend"]["cpus"] == h["workers"] == n and len(ready) == n
        return check

    _until(cpus(3), 40, "the third node's CPU was not used")
    # the jobs cap is the capacity now, not the CPUs read at the start
    r = _analyse(service, 0.3, jobs=3)
    assert r.status_code == 200 and r.json()["jobs"] == 3, r.text
    r = _analyse(service, 0.3, jobs=4)
    assert r.status_code == 422 and r.json()["field"] == "jobs", r.text
    assert "at most 3 " in r.text, r.text
    cluster.remove_node(node)
    _until(cpus(2), 40, "the actor of the node that left was not dropped")
    r = _analyse(service, 0.3, jobs=3)  # the node gone: its CPU no longer counts
    assert r.status_code == 422 and r.json()["field"] == "jobs", r.text
    assert "at most 2 " in r.text, r.text
    assert _analyse(service, 0.3, jobs=2).status_code == 200


def _ready(base: str) -> int:
    return sum(1 for p in _health(base)["processes"] if p["pid"])


def test_two_services_on_one_cluster_split_its_cpus(cluster: Any, service: str,
                                                   tmp_path: Path) -> None:
    """Replicas on one cluster: each sees the other's actors and takes half the CPUs;
    when one stops, the other takes them all again."""
    with _on_ray(cluster.address, tmp_path) as (_, second):
        def split() -> bool:
            a, b = _health(service), _health(second)
            return a["workers"] == b["workers"] == 1 and a["backend"]["services"] == 2 \
                and _ready(service) == _ready(second) == 1
        _until(split, 40, "the two services did not split the cluster's CPUs")
        assert _analyse(second, 0.3).status_code == 200
        r = _analyse(service, 0.3, jobs=2)  # a share of one CPU: one job at most
        assert r.status_code == 422 and r.json()["field"] == "jobs", r.text
    _until(lambda: _health(service)["workers"] == _ready(service) == 2, 40,
           "the service did not take the CPUs back")
    assert _analyse(service, 0.3, jobs=2).status_code == 200


def test_the_settings_choose_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MOMBASA_RAY`` is a setting (``Settings.ray``): the service hands the pool its
    backend (the pool reads no environment), and ``serve --ray`` puts the address in the
    settings, not in the environment."""
    from advisor_api import ray_backend
    from advisor_api.pool import LocalBackend
    from advisor_api.service import search_backend
    from advisor_api.settings import Settings

    assert Settings.from_env({"MOMBASA_RAY": " auto "}).ray == "auto"
    assert Settings.from_env({}).ray == ""
    local = search_backend(Settings(workers=3))
    assert isinstance(local, LocalBackend) and local.capacity() == 3
    on_ray = search_backend(Settings(ray="10.0.0.5:6379"))
    assert isinstance(on_ray, ray_backend.RayBackend) and on_ray.address == "10.0.0.5:6379"
    monkeypatch.setattr(ray_backend, "cluster_cpus", lambda address: 6)
    monkeypatch.delenv("MOMBASA_RAY", raising=False)
    served = ray_backend.serve_on_ray(Settings(), "auto")
    assert (served.ray, served.workers) == ("auto", 6)
    assert "MOMBASA_RAY" not in os.environ


def test_shares_of_the_cpus() -> None:
    from advisor_api.ray_backend import share

    assert [share(5, ["a", "b"], p) for p in "ab"] == [3, 2]
    assert [share(2, ["a", "b", "c"], p) for p in "abc"] == [1, 1, 0]
    assert share(16, ["only"], "only") == 16


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
