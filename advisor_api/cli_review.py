"""``mombasa review``: a game record reviewed decision by decision (``search.review``):
a table of each reviewed decision (the step played, the search's best, the losses in
win chance and projected money, the class), each seat's tally and the solvers' notes,
with a progress bar on stderr; or, with ``--json``, the review as JSON
(``mombasa-review/1``) on stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import engine
from advisor_api.cli_analyse import parse_seconds
from advisor_api.cli_errors import catalogue_setting, fail, kind_of, read_json, unusable

review_app = typer.Typer()

CLASS_STYLE = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red"}
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def parse_seats(text: str, players: int) -> list[int]:
    """``"1,2"`` -> ``[0, 1]`` (0-based), each a seat of the game.

    >>> parse_seats("2, 1", 3)
    [0, 1]
    """
    out = []
    for part in text.split(","):
        word = part.strip()
        if not word.isdigit() or not 1 <= int(word) <= players:
            raise typer.BadParameter(f"expected seat numbers 1 to {players} separated by "
                                     f"commas, got {text!r}", param_hint="--seats")
        out.append(int(word) - 1)
    return sorted(set(out))


def read_record(path: Path) -> engine.GameRecord:
    """The game record in a file the user named (``mombasa arena --records``), replayed:
    a record that cannot be read or replayed ends the command naming the field."""
    obj = read_json(path, "RECORD")
    kind = kind_of(obj)
    if kind is not None:
        unusable("RECORD", path, f"{kind}, not a game record")
    try:
        record = engine.GameRecord.from_json(obj)
        if record.viewer is None:  # a step illegal where it stands: before any search
            record.replay()
    except engine.RecordError as exc:  # its message begins with the field
        unusable("RECORD", path, f"not a usable game record: {exc}")
    return record


def _table(answer: dict[str, Any]) -> Table:
    title = (f"Review of P{', P'.join(map(str, answer['seats']))}: "
             f"{len(answer['decisions'])} decisions"
             + (" (all-seeing: every hidden card shown)" if answer["all_seeing"] else ""))
    table = Table(title=title, title_justify="left")
    for name, justify in (("#", "right"), ("player", "left"), ("played", "left"),
                          ("best", "left"), ("loss win", "right"),
                          ("loss money", "right"), ("class", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for d in answer["decisions"]:
        cls = d["class"] or ""
        same = d["played"] == d["best"]
        table.add_row(str(d["index"]), f"P{d['player']}", d["played"],
                      "=" if same else d["best"], f"{100 * d['loss_win']:.1f}%",
                      f"{d['loss_money']:.1f}",
                      f"[{CLASS_STYLE[cls]}]{cls}[/]" if cls else "")
    return table


def _tallies(answer: dict[str, Any], out: Console) -> None:
    for seat in answer["seats"]:
        mine = [d for d in answer["decisions"] if d["player"] == seat]
        counts = {c: sum(d["class"] == c for d in mine) for c in CLASS_STYLE}
        curve = answer["curves"][str(seat)]
        last = f", last estimate: win {curve[-1]['win']:.0%}, {curve[-1]['money']:.0f} pounds" \
            if curve else ""
        out.print(f"P{seat}: {len(mine)} decisions, "
                  + ", ".join(f"{n} {c if n == 1 else PLURAL[c]}" for c, n in counts.items())
                  + last, highlight=False)
    for d in answer["decisions"]:
        note = d["solver"]
        if note and note["played"]["rank"] != 1:
            rank = note["played"]["rank"]
            where = f"#{rank} of the solver's" if rank else "not among the solver's best"
            out.print(f"  step {d['index']} (P{d['player']}): exact {note['kind']}: "
                      f"{'; '.join(note['exact']['steps'])} (value "
                      f"{note['exact']['value']:g}); played {'; '.join(note['played']['steps'])}"
                      f" ({where})", highlight=False)


def _run(record: engine.GameRecord, seats: list[int] | None, iterations: int | None,
         seconds: float | None, all_seeing: bool, seed: int, err: Console) -> Any:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from search.review import review_record

    with Progress(TextColumn("[bold]reviewing"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("decisions"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=err, transient=True) as bar:
        task = bar.add_task("review", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return review_record(record, seats, iterations=iterations, seconds=seconds,
                             all_seeing=all_seeing, progress=progress, seed=seed)


@review_app.command()
def review(
    record_file: Annotated[Path, typer.Argument(
        metavar="RECORD", help="A game record (mombasa-game/1), e.g. from mombasa "
                               "arena --records DIR.")],
    seats: Annotated[str | None, typer.Option(
        help="Seats to review, 1-based: 1,2 (default: every seat).")] = None,
    time: Annotated[str | None, typer.Option(
        help="Search time a decision: 2s, 500ms... (default: a fixed number of "
             "iterations).")] = None,
    iterations: Annotated[int | None, typer.Option(
        min=1, help="Search iterations a decision.")] = None,
    all_seeing: Annotated[bool, typer.Option(
        "--all-seeing", help="Search with every hidden card shown (a finished record "
                             "only); the review says so.")] = False,
    seed: Annotated[int, typer.Option(min=0, help="Search seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the review as JSON.")]
    = False,
) -> None:
    """Where each player lost, by how much, and what was better: every decision of the
    chosen seats searched from what that seat could see then."""
    err = Console(stderr=True, soft_wrap=True)
    if time is not None and iterations is not None:
        fail("give --time or --iterations, not both")
    seconds = parse_seconds(time) if time is not None else None
    catalogue_setting()
    record = read_record(record_file)
    chosen = parse_seats(seats, record.players) if seats is not None else None
    if all_seeing and record.viewer is not None:
        who = "a spectator's" if record.viewer < 0 else f"P{record.viewer + 1}'s"
        unusable("RECORD", record_file, f"{who} view of the game: --all-seeing needs a "
                 "record with every step")
    try:
        result = _run(record, chosen, iterations, seconds, all_seeing, seed, err)
    except engine.RecordError as exc:
        unusable("RECORD", record_file, f"not a usable game record: {exc}")
    except ValueError as exc:  # all-seeing on an unfinished game, the search settings
        fail(str(exc))
    answer = result.to_json()
    if as_json:
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    out = Console()
    out.print(_table(answer))
    _tallies(answer, out)


__all__ = ["parse_seats", "read_record", "review_app"]
