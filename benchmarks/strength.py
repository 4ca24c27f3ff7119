"""The strength series of ``docs/search.md`` ("Strength (measured)"): one schedule, and
one command that plays any of them (or resumes it from its journal) and writes its
journal and report where the docs link them.

A series is played again whenever what it measured changes (the shipped value model,
the catalogue, the search's defaults): its old journal is removed first (it lives on in
git history), since a journal played with another model or catalogue is refused on
resume. ``check`` reads every committed journal back and compares it with its report,
so a report never drifts from the games behind it.

    python -m benchmarks.strength list
    python -m benchmarks.strength run vs_greedy --jobs 2
    python -m benchmarks.strength check

A new value model is measured beside the shipped one before it replaces it: with
``MOMBASA_VALUE_MODEL=FILE`` (the model every bot of the process plays) and ``--folder
DIR`` the series are played into another folder (the table's own folder refuses them),
and ``check --folder DIR`` with the same variable holds them against that model; the
shipped figures stay checked until the switch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from search.arena import (
    ArenaReport,
    played_with,
    read_journal,
    run_arena,
    series_fingerprints,
    summarise,
)
from search.value_model import DEFAULT_PATH, file_fingerprint

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "benchmarks" / "strength"
T025, T1, GREEDY = "mcts:time=0.25", "mcts:time=1.0", "greedy:eval=learned"


@dataclass(frozen=True)
class Series:
    """``games`` games of ``players`` (seats rotated) from ``seed``; the journal and the
    report are ``journals/<stem>.jsonl`` and ``<stem>.json`` under ``folder``."""

    key: str
    players: tuple[str, ...]
    seed: int
    stem: str
    games: int = 200
    folder: Path = FOLDER

    @property
    def journal(self) -> Path:
        return self.folder / "journals" / f"{self.stem}.jsonl"

    @property
    def report(self) -> Path:
        return self.folder / f"{self.stem}.json"

    def command(self, jobs: int = 2) -> str:
        """The ``mombasa arena`` command that plays this series."""
        rel = self.folder.relative_to(ROOT) if self.folder.is_relative_to(ROOT) else self.folder
        return (f"mombasa arena --players {','.join(self.players)} --games {self.games} "
                f"--seed {self.seed} --jobs {jobs} --journal {rel}/journals/{self.stem}.jsonl "
                f"--json {rel}/{self.stem}.json")


def _stem(what: str, seed: int) -> str:
    return f"mcts_{what}_seed{seed}"


#: The series of the strength table, in its order.
SERIES: tuple[Series, ...] = (
    Series("vs_greedy", (T025, GREEDY), 41, _stem("time025_planmodel_vs_greedy_learned", 41)),
    Series("1s_seed51", (T1, T025), 51, _stem("time1_vs_time025_planmodel", 51)),
    Series("1s_seed57", (T1, T025), 57, _stem("time1_vs_time025_planmodel", 57)),
    Series("vs_bookkeeper", (T025, "bookkeeper"), 43,
           _stem("time025_planmodel_vs_bookkeeper", 43)),
    Series("vs_diamonds", (T025, "diamonds"), 43, _stem("time025_planmodel_vs_diamonds", 43)),
    Series("vs_shares", (T025, "shares"), 43, _stem("time025_planmodel_vs_shares", 43)),
    Series("vs_random", (T025, "random"), 44, _stem("time025_planmodel_vs_random", 44)),
    Series("3p", (T025, GREEDY, GREEDY), 45, _stem("time025_planmodel_vs_2_greedy_3p", 45)),
    Series("4p", (T025, GREEDY, GREEDY, GREEDY), 46,
           _stem("time025_planmodel_vs_3_greedy_4p", 46)),
    Series("selfplay", (T025, T025), 48, _stem("time025_planmodel_selfplay", 48)),
)


def find(keys: Sequence[str], series: Sequence[Series] = SERIES) -> list[Series]:
    """The series named by ``keys`` (``all``: every one); an unknown key is refused with
    the list of keys."""
    by_key = {s.key: s for s in series}
    if "all" in keys:
        return list(series)
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        raise SystemExit(f"series: unknown {unknown[0]!r}; one of all, {', '.join(by_key)}")
    return [by_key[k] for k in keys]


def shipped_play() -> bool:
    """Whether this process plays with the shipped catalogue, value model and search
    settings (no ``MOMBASA_CATALOGUE``, no ``MOMBASA_VALUE_MODEL`` naming another file,
    no ``MOMBASA_SEARCH``)."""
    plays_with = series_fingerprints()
    return (not os.environ.get("MOMBASA_CATALOGUE") and "search" not in plays_with
            and plays_with.get("value_model") == file_fingerprint(DEFAULT_PATH))


def play(series: Series, jobs: int = 1) -> ArenaReport:
    """Play ``series`` (resuming its journal) and write its report. The table's own
    folder takes only the shipped model's and settings' games (another model's series
    go to another folder until it is shipped)."""
    if series.folder.resolve() == FOLDER.resolve() and not shipped_play():
        raise SystemExit(f"{series.key}: this process plays with {series_fingerprints()}, "
                         f"not the shipped model and settings: give --folder DIR")
    series.journal.parent.mkdir(parents=True, exist_ok=True)
    report = run_arena(list(series.players), series.games, seed=series.seed, jobs=jobs,
                       journal=series.journal)
    series.report.write_text(json.dumps(report.to_json(), indent=1))
    return report


def _wins(report: dict[str, Any]) -> dict[str, tuple[float, int]]:
    return {b["bot"]: (b["wins"], b["games"]) for b in report["bots"]}


def check(series: Series) -> str | None:
    """``None`` when the series was played with this checkout's catalogue and value model
    and its report holds what its journal's games say (every game played, the same
    wins), else what differs."""
    if not series.journal.exists() or not series.report.exists():
        return f"{series.key}: {series.journal.name} or {series.report.name} missing"
    header, records = read_journal(series.journal)
    if not isinstance(header, dict) or tuple(header.get("players", ())) != series.players:
        return f"{series.key}: the journal's players are not {list(series.players)}"
    if played_with(header) != series_fingerprints():
        return (f"{series.key}: played with {played_with(header)}, this checkout plays with "
                f"{series_fingerprints()}: play the series again")
    if header.get("seed") != series.seed or len(records) != series.games:
        return (f"{series.key}: the journal holds {len(records)} games of seed "
                f"{header.get('seed')}, the series {series.games} of seed {series.seed}")
    played = _wins(summarise(list(series.players), list(records.values()), 0.0).to_json())
    written = _wins(json.loads(series.report.read_text()))
    if played != written:
        return f"{series.key}: the report says {written}, its journal {played}"
    return None


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.strength",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    lst = sub.add_parser("list", help="the series, their keys and commands")
    run = sub.add_parser("run", help="play (or resume) series and write their reports")
    run.add_argument("keys", nargs="+", help="series keys, or all")
    run.add_argument("--jobs", type=int, default=2)
    chk = sub.add_parser("check", help="every report against its journal")
    for p in (lst, run, chk):
        p.add_argument("--folder", type=Path, default=FOLDER,
                       help="where the journals and reports are (default: the table's)")
    args = parser.parse_args(argv)
    schedule = [replace(s, folder=args.folder.resolve()) for s in SERIES]
    if args.command == "list":
        for s in schedule:
            print(f"{s.key:14} {s.command()}")
    elif args.command == "run":
        for s in find(args.keys, schedule):
            wins = _wins(play(s, jobs=args.jobs).to_json())
            print(f"{s.key}: " + ", ".join(f"{bot} {w:g} of {n}"
                                          for bot, (w, n) in wins.items()))
    else:
        problems = [p for p in (check(s) for s in schedule) if p is not None]
        for p in problems:
            print(p)
        if problems:
            raise SystemExit(1)
        print(f"{len(schedule)} series: every report holds its journal's games")


if __name__ == "__main__":
    main(sys.argv[1:])
