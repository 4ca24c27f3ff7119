"""Compare a benchmark run with the committed baseline (the performance gate).

Every tracked benchmark records its ``relative_cost``: the median, over rounds that
interleave it with a fixed calibration workload, of its time divided by the
calibration's (``benchmarks/conftest.py``). The gate fails when a relative cost grew by
more than ``--tolerance`` (25%) over the baseline's. Refresh the baseline with
``make bench-baseline`` after an intended change (it rewrites
``benchmarks/baseline.json``; commit it).

    python -m benchmarks.check benchmarks/results.json benchmarks/baseline.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# Tracked: clone, step throughput, MCTS iterations, solver time (when present).
TRACKED = (
    "test_clone",
    "test_random_game_throughput",
    "test_mcts_fixed_iterations",
    "test_expansion_8_points",
    "test_bookkeeping_up_to_4_points",
)


def normalised(path: Path) -> dict[str, float]:
    data = json.loads(path.read_text())
    out = {}
    for b in data["benchmarks"]:
        if b["name"] in TRACKED:
            if "relative_cost" not in b["extra_info"]:
                raise SystemExit(f"{path}: {b['name']} has no relative_cost")
            out[b["name"]] = float(b["extra_info"]["relative_cost"])
    return out


def compare(run: dict[str, float], base: dict[str, float], tolerance: float) -> list[str]:
    """Lines of a report; a line starting with FAIL is a regression."""
    lines = []
    for name, value in run.items():
        if name not in base:
            lines.append(f"new   {name}: {value:.4g} x the calibration workload (no baseline)")
            continue
        change = value / base[name] - 1
        verdict = "FAIL" if change > tolerance else "ok  "
        lines.append(f"{verdict}  {name}: {change:+.1%} vs baseline "
                     f"({value:.4g} vs {base[name]:.4g} x the calibration workload)")
    for name in base:
        if name not in run:
            lines.append(f"FAIL  {name}: in the baseline but missing from this run")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("baseline", type=Path)
    ap.add_argument("--tolerance", type=float, default=0.25)
    args = ap.parse_args(argv)
    lines = compare(normalised(args.run), normalised(args.baseline), args.tolerance)
    print("\n".join(lines))
    return 1 if any(line.startswith("FAIL") for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
