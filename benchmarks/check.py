"""Compare a benchmark run with the committed baseline (the performance gate).

Every tracked benchmark records its ``relative_cost``: the median, over rounds that
interleave it with a fixed calibration workload, of its time divided by the
calibration's (``search/bench/speed.py``). The gate fails when a relative cost grew by
more than ``--tolerance`` (25%) over the baseline's. Refresh the baseline with
``make bench-baseline`` after an intended change (it rewrites
``benchmarks/baseline.json``; commit it).

A busy machine slows a run unevenly (+42% to +58% at load 5 on 2 cores), so with
``--remeasure COMMAND`` (``make bench-check`` passes its pytest-benchmark command) a
benchmark over the tolerance is run once more (the command, the benchmarks' node ids
and ``--benchmark-json=<run>-remeasured.json``) and judged by the better of its two
relative costs: it fails only if it fails twice. The verdict line carries the load
average and the CPU count, and a warning follows it when the load exceeds the CPUs.

    python -m benchmarks.check benchmarks/gate.json benchmarks/baseline.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from search.bench.speed import load_text, load_warning, machine_load

# Tracked: clone, step throughput, MCTS iterations, solver time (when present).
TRACKED = (
    "test_clone",
    "test_random_game_throughput",
    "test_mcts_fixed_iterations",
    "test_expansion_8_points",
    "test_bookkeeping_up_to_4_points",
)

# Re-measures the named benchmarks, returns their relative costs.
Remeasure = Callable[[list[str]], dict[str, float]]


def _tracked(path: Path) -> list[dict[str, Any]]:
    return [b for b in json.loads(path.read_text())["benchmarks"] if b["name"] in TRACKED]


def normalised(path: Path) -> dict[str, float]:
    out = {}
    for b in _tracked(path):
        if "relative_cost" not in b["extra_info"]:
            raise SystemExit(f"{path}: {b['name']} has no relative_cost")
        out[b["name"]] = float(b["extra_info"]["relative_cost"])
    return out


def node_ids(path: Path) -> dict[str, str]:
    """Each tracked benchmark's pytest node id (``benchmarks/test_x.py::test_y``)."""
    return {b["name"]: b["fullname"] for b in _tracked(path) if "fullname" in b}


def over(run: dict[str, float], base: dict[str, float], tolerance: float) -> list[str]:
    """The benchmarks whose relative cost grew by more than ``tolerance``."""
    return [n for n, v in run.items() if n in base and v / base[n] - 1 > tolerance]


def compare(run: dict[str, float], base: dict[str, float], tolerance: float,
            second: dict[str, float] | None = None) -> list[str]:
    """Lines of a report; a line starting with FAIL is a regression. A benchmark in
    ``second`` (measured once more) is judged by the better of its two costs."""
    lines = []
    for name, first in run.items():
        if name not in base:
            lines.append(f"new   {name}: {first:.4g} x the calibration workload (no baseline)")
            continue
        again = (second or {}).get(name)
        value = first if again is None else min(first, again)
        change = value / base[name] - 1
        verdict = "FAIL" if change > tolerance else "ok  "
        line = (f"{verdict}  {name}: {change:+.1%} vs baseline "
                f"({value:.4g} vs {base[name]:.4g} x the calibration workload")
        if again is not None:
            line += (f"; better of 2 runs: {first / base[name] - 1:+.1%}, "
                     f"{again / base[name] - 1:+.1%}")
        lines.append(line + ")")
    for name in base:
        if name not in run:
            lines.append(f"FAIL  {name}: in the baseline but missing from this run")
    return lines


def judge(run: dict[str, float], base: dict[str, float], tolerance: float,
          remeasure: Remeasure | None = None) -> list[str]:
    """:func:`compare`, after measuring each benchmark over the tolerance once more
    (when ``remeasure`` is given) and keeping the better of its two costs."""
    slow = over(run, base, tolerance)
    if not slow or remeasure is None:
        return compare(run, base, tolerance)
    second = remeasure(slow)
    return compare(run, base, tolerance, {n: v for n, v in second.items() if n in slow})


def pytest_remeasure(command: str, run_path: Path) -> Remeasure:
    """Re-measure with ``command`` (a pytest-benchmark command line) run on the
    benchmarks' node ids, into ``<run>-remeasured.json``; a benchmark that is not in
    that file (the command failed) keeps its first cost."""
    ids = node_ids(run_path)
    out = run_path.with_name(f"{run_path.stem}-remeasured.json")

    def remeasure(names: list[str]) -> dict[str, float]:
        print(f"measuring once more: {', '.join(names)}", flush=True)
        out.unlink(missing_ok=True)
        argv = shlex.split(command) + [ids[n] for n in names if n in ids]
        done = subprocess.run([*argv, f"--benchmark-json={out}"], check=False)
        if done.returncode != 0 or not out.exists():
            print(f"the second measurement failed (exit status {done.returncode})")
            return {}
        return normalised(out)

    return remeasure


def verdict(lines: list[str], tolerance: float, load: tuple[float, float, float],
            cpus: int) -> list[str]:
    """The verdict with the load beside it, and a warning line on a loaded machine."""
    failed = sum(line.startswith("FAIL") for line in lines)
    if failed:
        text = f"gate: FAIL, {failed} of {len(lines)} benchmarks over +{tolerance:.0%}"
    else:
        text = f"gate: ok, {len(lines)} benchmarks within +{tolerance:.0%} of the baseline"
    warning = load_warning(load, cpus)
    return [f"{text}; {load_text(load, cpus)}", *([warning] if warning else [])]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("baseline", type=Path)
    ap.add_argument("--tolerance", type=float, default=0.25)
    ap.add_argument("--remeasure", metavar="COMMAND",
                    help="measure a failing benchmark once more with this pytest-benchmark "
                         "command (node ids and --benchmark-json are appended)")
    args = ap.parse_args(argv)
    remeasure = None if args.remeasure is None else pytest_remeasure(args.remeasure, args.run)
    lines = judge(normalised(args.run), normalised(args.baseline), args.tolerance, remeasure)
    load, cpus = machine_load()
    print("\n".join(lines + verdict(lines, args.tolerance, load, cpus)))
    return 1 if any(line.startswith("FAIL") for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
