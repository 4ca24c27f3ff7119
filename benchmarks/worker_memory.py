"""Memory of the search processes over many analyses of different positions (issue 15,
item 3), against a real ``mombasa serve``: ``--analyses`` analyses (each of another
position: random games of 2-4 players stopped after 20-300 steps), two at a time, with
recycling off (``MOMBASA_WORKER_MAX_TASKS=0``, ``MOMBASA_WORKER_MAX_RSS_MB=0``) and then
on (the defaults, or ``--max-tasks`` / ``--max-rss-mb``). Prints each process's memory
(RSS, from ``/v1/health``) before and after, its peak, and the processes recycled.
Not part of the test suite::

    .venv/bin/python -m benchmarks.worker_memory [--analyses 500] [--iterations 300]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

import engine
from advisor_api.settings import Settings
from tests.service_process import serving


def position(k: int) -> engine.State:
    """A player's decision of a random game of 2-4 players after 20-300 random steps."""
    s = engine.new_game(players=2 + k % 3, seed=1000 + k)
    rng = random.Random(k)
    steps = 20 + (k * 37) % 280
    while True:
        t = s.apply(s.sample_chance() if s.decision.kind == "chance"
                    else rng.choice(s.legal_steps()))
        if t.is_over():
            break
        s = t
        steps -= 1
        if steps <= 0 and s.decision.kind != "chance":
            break
    while s.decision.kind == "chance":  # only just before the end
        s = s.apply(s.sample_chance())
    return s


def positions(n: int) -> list[dict[str, Any]]:
    return [engine.state_to_json(position(k)) for k in range(n)]


def rss(health: dict[str, Any]) -> str:
    return ", ".join(f"#{p['id']} {p['rss_mb']:.0f} MB ({p['tasks']} tasks)"
                     for p in health["processes"])


def run(states: list[dict[str, Any]], iterations: int, env: dict[str, str],
        label: str) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="mombasa-memory-"))
    with serving(tmp / "games.db", tmp / "serve.log", {"MOMBASA_WORKERS": "2", **env}) as (
            _, base), httpx.Client(base_url=base, timeout=120) as http:
        before = http.get("/v1/health").json()
        peak = max(p["rss_mb"] for p in before["processes"])
        codes: dict[int, int] = {}
        t0 = time.perf_counter()

        def one(k: int) -> None:
            r = http.post("/v1/analyse", json={"state": states[k], "seed": k,
                                               "limit": {"iterations": iterations}})
            codes[r.status_code] = codes.get(r.status_code, 0) + 1

        with ThreadPoolExecutor(2) as ex:
            for start in range(0, len(states), 50):
                list(ex.map(one, range(start, min(start + 50, len(states)))))
                h = http.get("/v1/health").json()
                peak = max(peak, *(p["rss_mb"] for p in h["processes"]))
        wall = time.perf_counter() - t0
        after = http.get("/v1/health").json()
    print(f"{label}: {len(states)} analyses of {iterations} iterations in {wall:.1f} s, "
          f"answers {codes}")
    print(f"  before: {rss(before)}")
    print(f"  after:  {rss(after)}")
    print(f"  peak {peak:.0f} MB; recycled {after['stats']['recycled']}; "
          f"crashes {after['stats']['crashes']}, timeouts {after['stats']['timeouts']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--analyses", type=int, default=500)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--max-tasks", type=int, default=Settings.worker_max_tasks)
    ap.add_argument("--max-rss-mb", type=float, default=Settings.worker_max_rss_mb)
    args = ap.parse_args()
    states = positions(args.analyses)
    run(states, args.iterations, {"MOMBASA_WORKER_MAX_TASKS": "0",
                                  "MOMBASA_WORKER_MAX_RSS_MB": "0"}, "recycling off")
    run(states, args.iterations, {"MOMBASA_WORKER_MAX_TASKS": str(args.max_tasks),
                                  "MOMBASA_WORKER_MAX_RSS_MB": f"{args.max_rss_mb:g}"},
        f"recycling on (after {args.max_tasks or 'any number of'} tasks, or above "
        f"{args.max_rss_mb:g} MB)")


if __name__ == "__main__":
    main()
