"""Figures of a load scenario from its records: per client group, the answers, the
latency percentiles of the answered requests, the 429s by error code, the other
failures and the seconds of search answered; and a table of them (rich)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.load.clients import Record


def percentile(values: list[float], q: int) -> float | None:
    """The ``q``-th percentile (inclusive method), None without values."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def group_figures(records: Iterable[Record], window: float) -> dict[str, Any]:
    """The figures of one group of records over a window of ``window`` seconds:
    ``requests``, ``answers`` (200), ``p50``/``p95``/``max`` wall latency of the answers,
    ``refused`` (429s by error code), ``retry_after_max``, ``failed`` (other statuses by
    code, ``"0"``: no answer), ``search_seconds`` answered and ``processes`` (search
    seconds per second of the window: how many search processes the group used)."""
    records = list(records)
    answers = [r for r in records if r.status == 200]
    latencies = sorted(r.latency for r in answers)
    refused = Counter(r.error or "?" for r in records if r.status == 429)
    failed = Counter(str(r.status) for r in records if r.status not in (200, 429))
    retry = [r.retry_after for r in records if r.status == 429 and r.retry_after is not None]
    searched = sum(r.searched for r in answers)
    return {
        "requests": len(records),
        "answers": len(answers),
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "max": latencies[-1] if latencies else None,
        "refused": dict(sorted(refused.items())),
        "retry_after_max": max(retry, default=None),
        "failed": dict(sorted(failed.items())),
        "search_seconds": round(searched, 3),
        "processes": round(searched / window, 3) if window > 0 else None,
    }


def in_window(records: Iterable[Record], start: float, end: float) -> list[Record]:
    """The records whose answer came within [start, end] (the victim's window)."""
    return [r for r in records if start <= r.ended <= end]


def _seconds(value: float | None) -> str:
    """Seconds with two decimals, ``-`` for none."""
    return "-" if value is None else f"{value:.2f}"


def _row(name: str, figures: dict[str, Any]) -> list[str]:
    """The table's cells of one group's figures (see :data:`COLUMNS`)."""
    refused = figures["refused"]
    others = sum(n for code, n in refused.items() if code not in ("busy", "client-limit"))
    failed = ", ".join(f"{n} x {code}" for code, n in figures["failed"].items()) or "0"
    return [name, str(figures["requests"]), str(figures["answers"]), _seconds(figures["p50"]),
            _seconds(figures["p95"]), _seconds(figures["max"]), str(refused.get("busy", 0)),
            str(refused.get("client-limit", 0)) + (f" (+{others} other)" if others else ""),
            _seconds(figures["retry_after_max"]), failed, f"{figures['search_seconds']:.1f}",
            _seconds(figures["processes"])]


COLUMNS = ("client", "sent", "200", "p50 s", "p95 s", "max s", "429 busy", "429 limit",
           "Retry-After max", "failed", "search s", "processes")


def print_result(result: dict[str, Any], console: Console) -> None:
    """A scenario's table (one row per client group) and its verdict lines."""
    table = Table(title=f"scenario {result['scenario']}: {result['summary']}",
                  title_justify="left")
    for column in COLUMNS:
        table.add_column(column, justify="left" if column in ("client", "failed") else "right",
                         no_wrap=column == "client")
    for name, figures in result["groups"].items():
        table.add_row(*_row(name, figures))
    console.print(table)
    for line in result["notes"]:
        console.print(f"  {line}", highlight=False, markup=False)
    goal = result["goal"]
    verdict = "met" if goal["met"] else "NOT met"
    console.print(f"  goal: {goal['text']}: {verdict}", highlight=False, markup=False)
    console.print(f"  issue 52 baseline: {result['baseline']}", highlight=False, markup=False)
