"""The cost of the search pool on a Ray cluster against local processes, on the same
cores (issue 55), and the capacity model built on the measured costs.

It starts a local Ray cluster of two nodes of one CPU each (``ray.cluster_utils``,
stopped at the end), then:

1. **Costs** (in this process, a :class:`~advisor_api.pool.WorkerPool` of two places on
   each backend): the per-task overhead (a random bot's move, a task of almost no work,
   start to answer), the per-slice overhead (a 1 s analysis in 0.25 s slices against
   the same in one slice, the difference over its 3 resumes), and the CPU-seconds of
   the search places per 1 s analysis (from ``/proc/<pid>/stat``).
2. **Load** (a real ``mombasa serve`` each: ``MOMBASA_WORKERS=2``, or ``--ray`` on the
   cluster): ``K`` clients, each its own address, ask 1 s analyses one after another
   for ``--duration`` seconds; p50 / p95 wall latency, answers per second, and the
   service process's own CPU-seconds per analysis (HTTP, admission, merging, and on Ray
   the driver's calls).
3. **Model**: how many players a cluster of ``N`` 16-core nodes serves at a p95 of 1.5 s
   for 1 s analyses (:func:`players_served`).

    .venv/bin/python -m benchmarks.ray_pool --clients 2,4 --duration 30 --json ray_pool.json
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import math
import os
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine
from advisor_api.pool import Backend, LocalBackend, WorkerPool
from benchmarks.load.clients import analysis_bodies, http_client, post_analysis
from benchmarks.load.figures import percentile
from benchmarks.load.service import running_service
from search.bench.positions import mid_game

TICK = os.sysconf("SC_CLK_TCK")
SLICE = 0.25
#: The latency target of the model (seconds) and the analyses' budget.
TARGET, BUDGET = 1.5, 1.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _tasks() -> tuple[dict[str, Any], Callable[[float, int], dict[str, Any]]]:
    s = mid_game(2, 5, 3)
    obs = engine.observation_to_json(engine.observe(s, s.decision.player))
    bot = {"kind": "bot", "spec": "random", "seed": 0, "observation": obs}

    def analysis(seconds: float, seed: int) -> dict[str, Any]:
        return {"kind": "analyse", "observation": obs, "iterations": None, "time": seconds,
                "seed": seed, "progress_every": None, "solve": True}

    return bot, analysis


async def _timed(pool: WorkerPool, task: dict[str, Any], limit: float) -> float:
    t0 = time.perf_counter()
    await pool.run([task], limit)
    return time.perf_counter() - t0


async def measure_costs(backend: Backend, rounds: int) -> dict[str, float]:
    """Per-task and per-slice overhead and CPU-seconds per 1 s analysis on ``backend``
    (two places), medians of ``rounds`` runs, one search at a time."""
    pool = WorkerPool(2, 16, 5.0, backend=backend)
    await pool.start()
    try:
        bot, analysis = _tasks()
        await pool.run([analysis(0.3, 1), analysis(0.3, 2)], 0.3)  # both places warm
        task = statistics.median([await _timed(pool, bot, 1.0) for _ in range(rounds * 5)])
        sliced, whole = [], []
        pids = [int(w["pid"]) for w in pool.workers()]
        cpu0 = sum(cpu_seconds(p) for p in pids)
        for k in range(rounds):
            pool.slice = SLICE
            sliced.append(await _timed(pool, analysis(BUDGET, k), BUDGET))
            pool.slice = 10 * BUDGET
            whole.append(await _timed(pool, analysis(BUDGET, k), BUDGET))
        cpu = (sum(cpu_seconds(p) for p in pids) - cpu0) / (2 * rounds)
        resumes = math.ceil(BUDGET / SLICE) - 1
        return {"task_s": task, "analysis_s": statistics.median(sliced),
                "slice_s": (statistics.median(sliced) - statistics.median(whole)) / resumes,
                "cpu_per_analysis_s": cpu}
    finally:
        await pool.close()


def measure_load(settings: dict[str, str], clients: int, duration: float) -> dict[str, Any]:
    """``clients`` clients asking 1 s analyses back to back against a service started
    with ``settings``: latency p50 / p95, answers per second, service CPU per answer."""
    bodies = analysis_bodies(BUDGET)
    with running_service(settings) as svc:
        with http_client(svc.base, "127.0.0.1") as http:  # warm both places at once
            http.post("/v1/analyse", json={**bodies[0], "limit": {"time": 0.3}, "jobs": 2})
        records: list[Any] = []
        cpu0, t0 = cpu_seconds(svc.pid), time.monotonic()

        def loop(k: int) -> None:
            address = f"127.0.0.{k + 2}"
            with http_client(svc.base, address) as http:
                while time.monotonic() < t0 + duration:
                    records.append(post_analysis(http, bodies[k % len(bodies)], "c",
                                                 address))

        threads = [threading.Thread(target=loop, args=(k,)) for k in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        window = time.monotonic() - t0
        cpu = cpu_seconds(svc.pid) - cpu0
    ok = [r.latency for r in records if r.status == 200]
    return {"clients": clients, "answers": len(ok), "other": len(records) - len(ok),
            "p50_s": percentile(ok, 50), "p95_s": percentile(ok, 95),
            "per_second": len(ok) / window, "service_cpu_per_analysis_s":
                cpu / max(1, len(ok))}


def simulated_p95(rate: float, cpus: int, work: float, arrivals: int = 20_000,
                  seed: int = 0) -> float:
    """The 95th percentile of the latency of analyses of ``work`` seconds arriving at
    ``rate`` a second (Poisson) on ``cpus`` CPUs shared in time slices, simulated as
    processor sharing: with ``n`` searches in flight each runs at ``min(1, cpus / n)``
    of a CPU (the slices' granularity aside: a new search's first slice starts within a
    slice, 0.25 s, of its arrival, and with many CPUs far sooner). Every search needs
    the same work and runs at the same rate, so they end in the order they came: a
    queue of the virtual times at which each ends."""
    import random
    from collections import deque

    rng = random.Random(seed)
    now = virtual = 0.0  # virtual: the work every search in flight has had so far
    ends: deque[tuple[float, float]] = deque()  # (virtual end, arrival time)
    latencies: list[float] = []
    next_arrival = rng.expovariate(rate)
    while len(latencies) < arrivals:
        speed = min(1.0, cpus / len(ends)) if ends else 0.0
        finish = now + (ends[0][0] - virtual) / speed if ends else math.inf
        step_to = min(finish, next_arrival)
        virtual += (step_to - now) * speed
        now = step_to
        if finish <= next_arrival:
            latencies.append(now - ends.popleft()[1])
        else:
            ends.append((virtual + work, now))
            next_arrival = now + rng.expovariate(rate)
    kept = sorted(latencies[arrivals // 10:])  # the first tenth warms the queue up
    return kept[int(0.95 * len(kept))]


@functools.lru_cache(maxsize=64)
def highest_rate(cpus: int, work: float, target: float, arrivals: int) -> float:
    """The most analyses a second whose simulated p95 meets ``target`` (bisection)."""
    low, high = 0.0, cpus / work  # the CPUs' bound
    for _ in range(16):
        mid = (low + high) / 2
        fits = simulated_p95(mid, cpus, work, arrivals) <= target
        low, high = (mid, high) if fits else (low, mid)
    return low


def players_served(nodes: int, costs: dict[str, float], think: float, cores: int = 16,
                   target: float = TARGET, arrivals: int = 20_000) -> dict[str, Any]:
    """The model: players on ``nodes`` nodes of ``cores`` CPUs (one search actor
    each), each asking a 1 s analysis every ``think`` seconds on average (Poisson), so
    that the 95th percentile of the latency (:func:`simulated_p95`) stays within
    ``target``. An analysis is ``costs["analysis_s"]`` seconds of a CPU: its 1 s of
    thinking and the measured overheads (the task's start and answer, its resumes, the
    solvers), all counted as CPU (an upper bound). ``service_replicas``: service
    processes needed, each one's event loop busy ``costs["service_cpu_per_analysis_s"]``
    per analysis (if given), kept at most half busy."""
    cpus = nodes * cores
    work = costs["analysis_s"]
    low = highest_rate(cpus, work, target, arrivals)
    players = low * think
    service = costs.get("service_cpu_per_analysis_s")
    replicas = math.ceil(low * service / 0.5) if service else None
    return {"nodes": nodes, "cpus": cpus, "analyses_per_second": round(low, 2),
            "utilisation": round(low * work / cpus, 3), "players": int(players),
            "service_replicas": replicas}


def _cluster() -> Any:
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True,
                head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    return c


def run(clients: list[int], duration: float, rounds: int, address: str | None = None,
        arrivals: int = 20_000) -> dict[str, Any]:
    """Every measurement (on the cluster at ``address``, else one started here), and
    the model (each point simulated over ``arrivals`` analyses)."""
    from advisor_api.ray_backend import RayBackend

    cluster: Any = None
    if address is None:
        cluster = _cluster()
        address = str(cluster.address)
    try:
        costs = {"local": asyncio.run(measure_costs(LocalBackend(2), rounds)),
                 "ray": asyncio.run(measure_costs(RayBackend(address), rounds))}
        import ray

        ray.shutdown()  # the actors of this process go; the services' come
        load = [{"backend": name, **measure_load(settings, k, duration)}
                for k in clients
                for name, settings in (("local", {"MOMBASA_WORKERS": "2"}),
                                       ("ray", {"MOMBASA_RAY": address}))]
    finally:
        if cluster is not None:
            cluster.shutdown()
    service = max(row["service_cpu_per_analysis_s"] for row in load if row["backend"] == "ray")
    ray_costs = {**costs["ray"], "service_cpu_per_analysis_s": service}
    model = {str(think): [players_served(n, ray_costs, think, arrivals=arrivals)
                          for n in (1, 2, 4, 8, 16)] for think in (10.0, 30.0)}
    return {"costs": costs, "load": load, "model": model,
            "service_analyses_per_second": 1 / service if service else None}


def _print(result: dict[str, Any]) -> None:
    for name, c in result["costs"].items():
        print(f"{name:6} task {c['task_s'] * 1000:6.1f} ms  slice {c['slice_s'] * 1000:5.1f} ms"
              f"  1 s analysis {c['analysis_s']:.3f} s wall, {c['cpu_per_analysis_s']:.2f}"
              " CPU-s")
    for row in result["load"]:
        print(f"{row['backend']:6} {row['clients']} clients: {row['answers']} answers, p50 "
              f"{row['p50_s'] or 0:.2f} s, p95 {row['p95_s'] or 0:.2f} s, "
              f"{row['per_second']:.2f}/s, service {row['service_cpu_per_analysis_s'] * 1000:.0f}"
              " ms CPU per analysis")
    for think, rows in result["model"].items():
        print(f"one 1 s analysis per player every {think} s: " +
              ", ".join(f"{r['nodes']} node(s) {r['players']} players "
                        f"({r['service_replicas']} service replica(s))" for r in rows))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default="2,4", help="clients of the load runs (comma list)")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of each load run")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each cost measurement")
    ap.add_argument("--address", help="a running Ray cluster (default: start one here)")
    ap.add_argument("--json", type=Path, help="write every figure here")
    args = ap.parse_args(argv)
    result = run([int(k) for k in args.clients.split(",")], args.duration, args.rounds,
                 args.address)
    _print(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
