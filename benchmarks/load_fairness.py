"""Fair share under a hostile client (issue 15, item 3), against a real ``mombasa serve``.

One client (from 127.0.0.2) creates all-AI games as fast as it can, never waiting for
Retry-After; another (from 127.0.0.3) runs 1-second analyses one after the other for
``--seconds``. Prints the second client's p50/p95 latency, the 429s of each client and
any 5xx, and the peak of the queue seen in ``/v1/health``. Target: p95 under 3 s, no 5xx.
Not part of the test suite::

    .venv/bin/python -m benchmarks.load_fairness [--seconds 60] [--workers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

import engine
from benchmarks.positions import mid_game
from tests.service_process import serving

ATTACKER = "127.0.0.2"
ANALYST = "127.0.0.3"


def _client(base: str, local: str) -> httpx.Client:
    """An HTTP client whose connections come from the address ``local`` (the service
    tells clients apart by their address)."""
    return httpx.Client(base_url=base, timeout=60,
                        transport=httpx.HTTPTransport(local_address=local))


def attacker(base: str, seconds: float, out: Any) -> None:
    """Create 2-seat all-AI games (default bot) as fast as possible; count the answers."""
    codes: Counter[int] = Counter()
    seats = [{"kind": "ai"}, {"kind": "ai"}]
    end = time.monotonic() + seconds
    with _client(base, ATTACKER) as http:
        while time.monotonic() < end:
            try:
                codes[http.post("/v1/games", json={"seats": seats}).status_code] += 1
            except httpx.HTTPError:
                codes[0] += 1
    out.put(dict(codes))


def percentile(xs: list[float], q: float) -> float:
    if len(xs) < 2:
        return xs[0] if xs else float("nan")
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--env", action="append", default=[],
                    help="extra MOMBASA_X=value settings of the service")
    args = ap.parse_args()
    env = {"MOMBASA_WORKERS": str(args.workers)}
    env.update(dict(kv.split("=", 1) for kv in args.env))
    tmp = Path(tempfile.mkdtemp(prefix="mombasa-fairness-"))
    bodies = [{"state": engine.state_to_json(mid_game(players=2 + k % 3, seed=k)),
               "limit": {"time": 1.0}, "multipv": 3, "seed": k} for k in range(8)]
    with serving(tmp / "games.db", tmp / "serve.log", env) as (_, base):
        peak = {"queued": 0, "paused": 0, "in_flight": 0}
        stop = threading.Event()

        def watch() -> None:
            with httpx.Client(base_url=base, timeout=30) as http:
                while not stop.is_set():
                    h = http.get("/v1/health").json()
                    for k in peak:
                        peak[k] = max(peak[k], h[k])
                    time.sleep(0.05)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        out: Any = multiprocessing.get_context("spawn").Queue()
        attack = multiprocessing.get_context("spawn").Process(
            target=attacker, args=(base, args.seconds, out))
        attack.start()
        time.sleep(2.0)  # the attack is under way
        latencies: list[float] = []
        codes: Counter[int] = Counter()
        end = time.monotonic() + args.seconds - 2.0
        with _client(base, ANALYST) as http:
            k = 0
            while time.monotonic() < end:
                t0 = time.perf_counter()
                r = http.post("/v1/analyse", json=bodies[k % len(bodies)])
                wall = time.perf_counter() - t0
                codes[r.status_code] += 1
                if r.status_code == 200:
                    latencies.append(wall)
                elif r.status_code == 429:
                    time.sleep(float(r.headers.get("Retry-After", "1")))
                k += 1
        attack_codes: dict[int, int] = out.get(timeout=120)
        attack.join(30)
        stop.set()
        watcher.join(5)
        health = httpx.get(f"{base}/v1/health", timeout=30).json()
    fives = sum(n for c, n in codes.items() if c >= 500) + sum(
        n for c, n in attack_codes.items() if c >= 500)
    print(f"service: {args.workers} search processes, {args.seconds:g} s")
    print(f"attacker ({ATTACKER}) POST /v1/games answers: {dict(sorted(attack_codes.items()))}")
    print(f"analyst ({ANALYST}) /v1/analyse answers: {dict(sorted(codes.items()))}")
    print(f"analyst latency (200s, n={len(latencies)}): p50 {percentile(latencies, 50):.3f} s, "
          f"p95 {percentile(latencies, 95):.3f} s, max {max(latencies, default=0):.3f} s")
    print(f"analyst 429s: {codes.get(429, 0)}; 5xx (both clients): {fives}")
    print(f"peak searches not started {peak['queued']}, paused {peak['paused']}, in flight "
          f"{peak['in_flight']} (max_queue {health['max_queue']}); pool stats "
          f"{health['stats']}; clients {health['clients']}")
    ok = latencies and percentile(latencies, 95) < 3.0 and fives == 0
    print("target (p95 < 3 s, no 5xx):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
