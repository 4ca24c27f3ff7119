"""Fair share of the search under the attacks of issue 52, against a real ``mombasa
serve`` (a subprocess on a free port, a fresh database, ``MOMBASA_WORKERS=2``, default
limits otherwise). A victim asks 1 s analyses one after another for ``--duration``
seconds while:

* ``long``: one client (127.0.0.1) keeps four 10 s analyses running at all times;
* ``flood``: eight addresses (127.0.0.2-9) each keep four 10 s analyses in flight
  (the per-client limit), retrying a 429 after Retry-After capped at 1 s;
* ``ai``: one client (127.0.0.1) has two AI-only games of ``mcts:time=10`` seats.

Prints the victim's answers, p50/p95/max latency and 429s by code, the attackers'
answers and 429s, the victim's share of the search processes against its fair share,
and the issue's goal; ``--json OUT`` writes the same with the commit and the settings.
Not part of the test suite::

    .venv/bin/python -m benchmarks.load.fair_share [--scenario long|flood|ai|all]
        [--duration 45] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from benchmarks.load.clients import HealthWatch, Loop, Recorder, analysis_bodies, http_client
from benchmarks.load.figures import group_figures, in_window, print_result
from benchmarks.load.service import running_service

ROOT = Path(__file__).resolve().parents[2]
VICTIM_TIME = 1.0  # seconds of each of the victim's analyses
ATTACK_TIME = 10.0  # seconds of each attacking analysis
P95_GOAL = 2.5  # issue 52: the victim's p95 with one client holding four 10 s analyses
SHARE_TOLERANCE = 0.8  # flood: the victim must use at least this part of its fair share


@dataclass(frozen=True)
class Scenario:
    """An attack: its addresses, how many analysis loops each keeps going, its AI-only
    games, the victim's address and the issue's figure of the code before the fix."""

    name: str
    summary: str
    victim: str
    attackers: tuple[str, ...]
    loops: int = 0  # analysis loops per attacking address
    ai_games: int = 0  # AI-only games of the first attacking address
    ai_seats: int = 2
    ai_bot: str = "mcts:time=10"
    baseline: str = ""


SCENARIOS = {
    "long": Scenario(
        "long", "one client keeps four 10 s analyses running", victim="127.0.0.2",
        attackers=("127.0.0.1",), loops=4,
        baseline="victim p50 10.1 s, p95 11.0 s (5 answers in 45 s instead of 40)"),
    "flood": Scenario(
        "flood", "eight addresses keep four 10 s analyses each in flight",
        victim="127.0.0.10", attackers=tuple(f"127.0.0.{i}" for i in range(2, 10)), loops=4,
        baseline="the victim got 187 x 429 busy out of 188 (Retry-After up to 130 s)"),
    "ai": Scenario(
        "ai", "one client plays two AI-only games of mcts:time=10 seats",
        victim="127.0.0.2", attackers=("127.0.0.1",), ai_games=2,
        baseline="victim p95 7.0 s"),
}


@dataclass(frozen=True)
class Options:
    """The command line's settings of a run."""

    duration: float
    warmup: float
    cap: float
    settings: dict[str, str]  # MOMBASA_* of the service
    checkout: Path | None = None  # the service's source tree (default: this one)

    @property
    def workers(self) -> int:
        """Search processes of the service."""
        return int(self.settings["MOMBASA_WORKERS"])


def create_ai_games(base: str, scenario: Scenario) -> list[dict[str, Any]]:
    """Create the scenario's AI-only games from its first attacking address; each as
    ``{"status", "id", "error"}``."""
    seats = [{"kind": "ai", "bot": scenario.ai_bot}] * scenario.ai_seats
    out = []
    with http_client(base, scenario.attackers[0]) as http:
        for _ in range(scenario.ai_games):
            answer = http.post("/v1/games", json={"seats": seats})
            body = answer.json()
            out.append({"status": answer.status_code, "id": body.get("id"),
                        "error": body.get("error")})
    return out


def ai_progress(base: str, games: list[dict[str, Any]]) -> dict[str, Any]:
    """The AI steps played so far in ``games`` (their spectator views) and any
    ``ai.error`` they show."""
    steps = 0
    errors = []
    with httpx.Client(base_url=base, timeout=30) as http:
        for game in games:
            if game["id"] is None:
                continue
            view = http.get(f"/v1/games/{game['id']}").json()
            steps += sum(1 for h in view.get("history", []) if h.get("source") == "ai")
            if (view.get("ai") or {}).get("error"):
                errors.append(view["ai"]["error"])
    return {"ai_steps": steps, "ai_errors": errors}


def attack_loops(scenario: Scenario, base: str, cap: float) -> list[Loop]:
    """Every attacking analysis loop of the scenario (10 s analyses)."""
    bodies = analysis_bodies(ATTACK_TIME)
    return [Loop(base, "attacker", address, bodies, cap, first=k)
            for address in scenario.attackers for k in range(scenario.loops)]


def _load() -> list[float]:
    """The machine's load average (1, 5, 15 minutes)."""
    return [round(x, 2) for x in os.getloadavg()]


def measure(scenario: Scenario, options: Options) -> dict[str, Any]:
    """Start a service, run the attack, let it settle ``warmup`` seconds, run the victim
    for ``duration`` seconds; the raw figures (records, window, health, AI progress)."""
    recorder, stop = Recorder(), threading.Event()
    pool = ThreadPoolExecutor(max_workers=len(scenario.attackers) * scenario.loops + 1)
    raw: dict[str, Any] = {"load_before": _load()}
    try:
        with running_service(options.settings, options.checkout) as service:
            watch = HealthWatch(service.base)
            pool.submit(watch.run, stop)
            for loop in attack_loops(scenario, service.base, options.cap):
                pool.submit(loop.run, recorder, stop)
            games = create_ai_games(service.base, scenario)
            time.sleep(options.warmup)
            raw["ai_before"] = ai_progress(service.base, games)
            start = time.monotonic()
            victim = Loop(service.base, "victim", scenario.victim,
                          analysis_bodies(VICTIM_TIME), options.cap,
                          until=start + options.duration)
            victim.run(recorder, threading.Event())
            raw.update(start=start, end=time.monotonic())
            raw.update(ai_after=ai_progress(service.base, games), games=games)
            stop.set()
            time.sleep(2 * watch.every)  # its last sample
            raw.update(peaks=dict(watch.peaks), health=watch.last)
    finally:
        stop.set()
        pool.shutdown(wait=True)  # the attackers' requests ended with the service
    raw.update(records=recorder.snapshot(), load_after=_load())
    return raw


def _goal(scenario: Scenario, victim: dict[str, Any], fair: float) -> dict[str, Any]:
    """The issue's goal for the scenario and whether the run met it."""
    if scenario.name == "flood":
        busy = victim["refused"].get("busy", 0)
        used = victim["processes"] or 0.0
        return {"text": f"victim never answered 429 busy, and it used at least "
                        f"{SHARE_TOLERANCE:.0%} of its fair share ({fair:.2f} processes)",
                "met": busy == 0 and used >= SHARE_TOLERANCE * fair}
    p95 = victim["p95"]
    return {"text": f"victim p95 at most {P95_GOAL} s",
            "met": p95 is not None and p95 <= P95_GOAL}


def summarise(scenario: Scenario, options: Options, raw: dict[str, Any]) -> dict[str, Any]:
    """The figures of one run of ``scenario`` from :func:`measure`'s raw figures."""
    start, end = raw["start"], raw["end"]
    window = end - start
    records = in_window(raw["records"], start, end)
    victim = group_figures((r for r in records if r.role == "victim"), window)
    groups = {f"victim {scenario.victim}": victim}
    if scenario.loops:
        attack = [r for r in records if r.role == "attacker"]
        name = scenario.attackers[0] if len(scenario.attackers) == 1 else \
            f"{scenario.attackers[0]}-{scenario.attackers[-1].rsplit('.', 1)[1]}"
        groups[f"attackers {name}"] = group_figures(attack, window)
    clients = len(scenario.attackers) + 1
    fair = min(1.0, options.workers / clients)
    notes = [f"window {window:.1f} s, {options.workers} search processes, {clients} "
             f"clients: the victim's fair share is {fair:.2f} processes, it used "
             f"{victim['processes'] or 0:.2f}",
             f"peaks of /v1/health: {raw['peaks']}; pool stats at the end: "
             f"{raw['health'].get('stats')}",
             f"load average before {raw['load_before']}, after {raw['load_after']}"]
    if scenario.loops and len(scenario.attackers) > 1:
        per = [sum(1 for r in records if r.address == a and r.status == 200)
               for a in scenario.attackers]
        notes.insert(1, f"answers per attacking address: {per}")
    ai: dict[str, Any] = {}
    if scenario.ai_games:
        ai = {"games": raw["games"], "ai_steps_in_window": raw["ai_after"]["ai_steps"]
              - raw["ai_before"]["ai_steps"], "ai_errors": raw["ai_after"]["ai_errors"]}
        notes.insert(1, f"AI-only games: created {[g['status'] for g in raw['games']]}, "
                        f"{ai['ai_steps_in_window']} AI steps played in the window, AI "
                        f"errors {ai['ai_errors'] or 'none'}")
    return {"scenario": scenario.name, "summary": scenario.summary,
            "victim": scenario.victim, "attackers": list(scenario.attackers),
            "window_s": round(window, 2), "workers": options.workers, "clients": clients,
            "fair_processes": round(fair, 3), "groups": groups, "ai": ai,
            "peaks": raw["peaks"], "pool_stats": raw["health"].get("stats"),
            "load_before": raw["load_before"], "load_after": raw["load_after"],
            "goal": _goal(scenario, victim, fair), "baseline": scenario.baseline,
            "notes": notes}


def _git(folder: Path, *args: str) -> str:
    """The output of a git command in ``folder`` ("" if it fails)."""
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                          check=False)
    return done.stdout.rstrip() if done.returncode == 0 else ""


def run_header(options: Options) -> dict[str, Any]:
    """What a run measured: the service's checkout, its commit and uncommitted changes
    of the code ("" and none outside a git checkout), the command line and the
    settings."""
    folder = (options.checkout or ROOT).resolve()
    changed = _git(folder, "status", "--porcelain", "--", "engine", "search", "advisor_api")
    return {"checkout": str(folder),
            "commit": _git(folder, "rev-parse", "--short", "HEAD").strip(),
            "uncommitted": [line[3:] for line in changed.splitlines()],
            "command": " ".join([".venv/bin/python -m benchmarks.load.fair_share",
                                 *sys.argv[1:]]),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "cpus": os.cpu_count(),
            "settings": {"duration": options.duration, "warmup": options.warmup,
                         "retry_after_cap": options.cap, "victim_time": VICTIM_TIME,
                         "attack_time": ATTACK_TIME, "service": options.settings}}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.load.fair_share",
                                 description="Fair share of the search under the attacks of issue "
                                             "52, against a real mombasa serve "
                                             "(benchmarks/load/README.md).")
    ap.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    ap.add_argument("--duration", type=float, default=45.0,
                    help="seconds of the victim's analyses (default 45)")
    ap.add_argument("--warmup", type=float, default=3.0,
                    help="seconds of attack before the victim starts (default 3)")
    ap.add_argument("--retry-cap", type=float, default=1.0,
                    help="longest wait after a 429, whatever its Retry-After (default 1)")
    ap.add_argument("--workers", type=int, default=2, help="MOMBASA_WORKERS (default 2)")
    ap.add_argument("--env", action="append", default=[], metavar="MOMBASA_X=VALUE",
                    help="another setting of the service (repeatable)")
    ap.add_argument("--checkout", type=Path, metavar="DIR",
                    help="serve the source tree DIR instead (e.g. a `git worktree` of an "
                         "earlier commit), with this virtualenv")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run the chosen scenarios, print their tables, write the JSON if asked."""
    args = parse_args(argv)
    settings = {"MOMBASA_WORKERS": str(args.workers)}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key.startswith("MOMBASA_"):
            raise SystemExit(f"--env {item}: expected MOMBASA_X=VALUE")
        settings[key] = value
    if args.checkout is not None and not (args.checkout / "advisor_api").is_dir():
        raise SystemExit(f"--checkout {args.checkout}: no advisor_api folder there")
    options = Options(args.duration, args.warmup, args.retry_cap, settings, args.checkout)
    console = Console()
    console.width = max(console.width, 120)  # the table's columns, also in a pipe
    header = run_header(options)
    console.print(f"service from {header['checkout']}, commit {header['commit'] or '?'}"
                  + (f" with uncommitted changes to {', '.join(header['uncommitted'])}"
                     if header["uncommitted"] else "")
                  + f"; {header['cpus']} CPUs; service settings {settings}", highlight=False)
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    results = []
    for name in names:
        scenario = SCENARIOS[name]
        result = summarise(scenario, options, measure(scenario, options))
        print_result(result, console)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps({**header, "scenarios": results}, indent=2) + "\n")
        console.print(f"figures written to {args.json}", highlight=False)


if __name__ == "__main__":
    main()
