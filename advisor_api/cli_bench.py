"""``mombasa bench``: the speed suite of the regression gate for installed users (the
workloads of :mod:`search.bench.speed`, the very code ``make bench-check`` times), and
with ``--peers`` the comparison with catanatron and OpenSpiel (the ``peers`` extra).

    mombasa bench --quick                       # a few seconds: 3 rounds of each
    mombasa bench                               # the gate's counts (about 10 s)
    mombasa bench --only clone --only mcts --json bench.json
    mombasa bench --peers                       # pip install 'mombasa-advisor[peers]'

A progress bar on stderr, then a table on stdout: per benchmark the time per call (mean
and median over its rounds), its headline figure (steps/s, iterations/s, ms per
solve...) and its cost relative to the calibration loop, the figure the gate compares
with its baseline. Exit status 1 when ``--peers`` is asked without the extra, 2 for a
bad option.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from advisor_api.cli_errors import fail, output_file
from advisor_api.version import VERSION

bench_app = typer.Typer()

QUICK_ROUNDS = 3
QUICK_PEERS = (1, 0.1)  # repeats, seconds per measurement
PEERS = (5, 1.0)


def duration(seconds: float) -> str:
    """A time with a readable unit.

    >>> duration(4.5e-7), duration(0.00219), duration(0.0604), duration(2.5)
    ('450 ns', '2.19 ms', '60.4 ms', '2.50 s')
    """
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{number(seconds / scale)} {unit}"
    return f"{seconds * 1e9:.0f} ns"


def number(value: float) -> str:
    """Three significant figures, thousands separated above 1,000.

    >>> number(68027.1), number(496.53), number(20.957), number(0.4489)
    ('68,027', '497', '21.0', '0.449')
    """
    if value >= 1000:
        return f"{value:,.0f}"
    digits = 0 if value >= 100 else 1 if value >= 10 else 2 if value >= 1 else 3
    return f"{value:.{digits}f}"


def plural(n: int, word: str) -> str:
    """``n word`` or ``n words``.

    >>> plural(1, "round"), plural(3, "round")
    ('1 round', '3 rounds')
    """
    return f"{n} {word}{'' if n == 1 else 's'}"


@bench_app.command()
def bench(
    quick: Annotated[bool, typer.Option(
        "--quick", help=f"A small run: {QUICK_ROUNDS} rounds of each, no CP-SAT reference; "
                        f"with --peers, {QUICK_PEERS[0]} repeats of {QUICK_PEERS[1]} s.")]
    = False,
    rounds: Annotated[int | None, typer.Option(
        min=1, help="Rounds of every timing (timed, and interleaved with the calibration "
                    "loop) instead of the gate's; with --peers, its repeats.")] = None,
    only: Annotated[list[str] | None, typer.Option(
        "--only", metavar="NAME", help="Run only this benchmark (repeatable): calibration, "
                                       "clone, playouts, mcts, expansion, bookkeeping.")]
    = None,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="Write the figures here (pytest-benchmark's shape: "
                       "benchmarks/check.py reads it).")] = None,
    peers: Annotated[bool, typer.Option(
        "--peers", help="Then compare with catanatron and OpenSpiel (the 'peers' extra).")]
    = False,
) -> None:
    """Time the engine, search and solvers as the regression gate does."""
    from search.bench import speed

    unknown = [name for name in only or () if name not in speed.SUITE]
    if unknown:
        raise typer.BadParameter(f"no benchmark {unknown[0]!r}; choose from "
                                 f"{', '.join(speed.SUITE)}", param_hint="--only")
    output_file(json_out, "--json")
    if peers:
        from search.bench.peers import require_peers
        from search.extras import MissingExtra

        try:
            require_peers()
        except MissingExtra as exc:
            fail(str(exc), code=1)
    count = QUICK_ROUNDS if quick and rounds is None else rounds
    keys = [k for k in speed.SUITE if not only or k in only]
    report: dict[str, Any] = {"schema": "mombasa-bench/1", "version": VERSION,
                              "rounds": count, "quick": quick, "machine": _machine()}
    measured = _run_suite(keys, count, reference=not quick)
    report["benchmarks"] = [m.to_json() for m in measured]
    out = Console()
    out.print(_suite_table(measured, count))
    load, cpus = speed.machine_load()
    out.print(speed.load_text(load, cpus))
    warning = speed.load_warning(load, cpus)
    if warning:
        out.print(warning)
    if peers:
        repeats, seconds = QUICK_PEERS if quick else PEERS
        report["peers"] = _run_peers(rounds or repeats, seconds)
        out.print(_peers_table(report["peers"]))
    if json_out is not None:
        json_out.write_text(json.dumps(report, indent=1))


def _machine() -> dict[str, Any]:
    from search.bench.speed import machine_load

    load, cpus = machine_load()
    return {"cpus": cpus, "load_average": list(load), "python": platform.python_version(),
            "system": platform.platform()}


def _progress() -> Any:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("[bold]bench {task.description}"), BarColumn(),
                    TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                    console=Console(stderr=True))


def _run_suite(keys: list[str], rounds: int | None, reference: bool) -> list[Any]:
    """Build every benchmark's inputs first, so that the bar's total is known, then time
    them one after the other."""
    from search.bench import speed

    with _progress() as bar:
        task = bar.add_task("positions", total=len(keys))
        benches = []
        for key in keys:
            benches.append(speed.SUITE[key]())
            bar.advance(task)
        total = sum(speed.steps(b, rounds, reference) for b in benches)
        bar.update(task, description="", completed=0, total=total)
        measured = []
        for b in benches:
            bar.update(task, description=b.key)
            measured.append(speed.measure(b, rounds, reference,
                                          tick=lambda: bar.advance(task)))
    return measured


def _suite_table(measured: list[Any], rounds: int | None) -> Table:
    size = "the gate's rounds" if rounds is None else f"{plural(rounds, 'round')} each"
    table = Table(title=f"mombasa bench: {plural(len(measured), 'benchmark')}, {size}")
    for col in ("benchmark", "rounds", "mean", "median", "figure", "rel. cost"):
        table.add_column(col, justify="left" if col == "benchmark" else "right")
    for m in measured:
        cost = "1" if m.relative_cost is None else f"{m.relative_cost:.3g}"
        table.add_row(m.key, f"{len(m.times)} x {m.iterations}" if m.iterations > 1
                      else str(len(m.times)), duration(m.mean), duration(m.median),
                      f"{number(m.figure)} {m.unit}", cost)
    table.caption = ("mean, median: time per call; rel. cost: time over the calibration "
                     "loop's, interleaved round by round (what make bench-check compares)")
    return table


def _run_peers(repeats: int, seconds: float) -> dict[str, Any]:
    from search.bench import peers

    with _progress() as bar:
        task = bar.add_task("peers", total=repeats * peers.STEPS_PER_REPEAT)
        return peers.run(repeats, seconds, tick=lambda: bar.advance(task))


def _peers_table(report: dict[str, Any]) -> Table:
    table = Table(title=f"peers: {plural(report['repeats'], 'interleaved repeat')}, "
                        f"{report['seconds']} s per measurement (medians)")
    table.add_column("measurement")
    table.add_column("value", justify="right")
    for key, value in report["medians"].items():
        table.add_row(key, number(value))
    for key, value in report["ratios"].items():
        table.add_row(key, f"{value:,.1f}x")
    return table
