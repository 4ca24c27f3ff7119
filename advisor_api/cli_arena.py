"""``mombasa arena``: a series of games between bots (seats rotated; here, in parallel
processes or on a Ray cluster) with a progress bar, reported as tables of wins, money
and win rate by seat, and optionally written as JSON and as CSV (one row per game and
seat), and every game as a game record (``--records DIR``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from advisor_api.cli_bots import _connect_ray, split_players
from advisor_api.cli_errors import catalogue_setting, output_file, unusable

if TYPE_CHECKING:
    from search.arena import ArenaReport

arena_app = typer.Typer()


@arena_app.command()
def arena(
    players: Annotated[str, typer.Option(help="Bot specs, one per seat, comma separated: "
                                              "random, policy, greedy, mcts:time=0.25, "
                                              "mcts:iterations=400,c=0.05, openspiel-mcts:"
                                              "sims=50, openspiel-ismcts:time=0.25")],
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 20,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the series.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Games played in parallel.")] = 1,
    variable: Annotated[bool, typer.Option(help="Variable setup.")] = False,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the report here.")]
    = None,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Write one row per game.")]
    = None,
    ray_address: Annotated[str | None, typer.Option(
        "--ray", help="Spread the games over a Ray cluster: 'auto' (the running one), "
                      "an address, or 'local' (start one here).")] = None,
    journal: Annotated[Path | None, typer.Option(
        help="Add each finished game to this file; run the same series again with it "
             "and only the games it lacks are played (a long series survives a stop).")]
    = None,
    records: Annotated[Path | None, typer.Option(
        help="Write every game played as a game record (mombasa-game/1) into this "
             "folder: game-0000.json, game-0001.json...")] = None,
) -> None:
    """Play bots against each other (seats rotated) and report wins and money."""
    catalogue_setting()
    for path, what in ((json_out, "--json"), (csv_out, "--csv"), (journal, "--journal")):
        output_file(path, what)
    _records_folder(records)
    specs = split_players(players)
    _check_series(specs, seed, variable, ray_address, journal)
    _note_unrecorded(specs, games, seed, variable, journal, records)
    if ray_address is not None:
        _connect_ray(ray_address)
    report = _play_series(specs, games, seed, jobs, variable, ray_address, journal,
                          records)
    _print_report(report, specs, games, seed)
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(), indent=1))
    if csv_out is not None:
        _write_csv(report, csv_out)


def _check_series(specs: list[str], seed: int, variable: bool, ray_address: str | None,
                  journal: Path | None) -> None:
    """The bots build, 2 to 4 of them; a journal (local runs only) of this series."""
    try:
        from search.bot_specs import make_bot

        for spec in specs:
            make_bot(spec)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--players") from None
    if not 2 <= len(specs) <= 4:
        raise typer.BadParameter(f"2 to 4 bots, got {len(specs)}", param_hint="--players")
    if ray_address is not None and journal is not None:
        raise typer.BadParameter("a journal is kept for local runs only; leave out --ray",
                                 param_hint="--journal")
    if journal is not None:
        from search.arena import Journal

        try:  # a journal of another series, or a damaged one, is refused before playing
            Journal(journal, specs, seed, variable).load()
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--journal") from None


def _records_folder(records: Path | None) -> None:
    """Check, before any game, that ``--records`` is a folder or can be made one."""
    if records is None:
        return
    if records.exists() and not records.is_dir():
        unusable("--records", records, "a file, not a folder")
    try:
        records.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        unusable("--records", records, f"cannot make the folder: {exc.strerror}")


def _note_unrecorded(specs: list[str], games: int, seed: int, variable: bool,
                     journal: Path | None, records: Path | None) -> None:
    """Say which games the journal already holds without a record in ``--records``
    (played before it was given): they are not played again, so they stay unrecorded."""
    if journal is None or records is None:
        return
    from search.arena import Journal, record_path

    kept = Journal(journal, specs, seed, variable).load()
    lacking = [i for i in sorted(kept) if i < games and not record_path(records, i).exists()]
    if lacking:
        Console(stderr=True).print(
            f"note: {len(lacking)} game(s) of the journal were played without --records "
            f"(first: game {lacking[0]}); they are not played again, so {records} has no "
            "record of them", markup=False)


def _play_series(specs: list[str], games: int, seed: int, jobs: int, variable: bool,
                 ray_address: str | None, journal: Path | None,
                 records: Path | None = None) -> ArenaReport:
    """The series, here or on the Ray cluster, with a progress bar (standard error)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from search.arena import run_arena

    console = Console(stderr=True)
    with Progress(TextColumn("[bold]arena"), BarColumn(), TextColumn("{task.completed}/"
                  "{task.total} games"), TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("games", total=games)
        if ray_address is not None:
            from search.distributed import run_arena_ray

            return run_arena_ray(specs, games, seed, variable, address=ray_address,
                                 on_game=lambda rec: bar.advance(task), records=records)
        return run_arena(specs, games, seed, jobs, variable,
                         on_game=lambda rec: bar.advance(task), journal=journal,
                         records=records)


def _print_report(report: ArenaReport, specs: list[str], games: int, seed: int) -> None:
    """The tables of wins and money, and of the win rate by seat."""
    out = Console()
    table = Table(title=f"{games} games, seed {seed}, {report.elapsed:.1f} s")
    for col in ("bot", "wins", "win rate", "95% CI", "money", "cash", "companies",
                "diamonds", "bookkeeping", "keeper games", "s/decision"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for b in report.bots.values():
        lo, hi = b.confidence()
        table.add_row(b.spec, f"{b.wins:g}", f"{b.win_rate:.1%}", f"{lo:.0%}-{hi:.0%}",
                      f"{b.mean(b.money):.1f}", f"{b.mean(b.cash):.1f}",
                      f"{b.mean(b.companies):.1f}", f"{b.mean(b.diamonds):.1f}",
                      f"{b.mean(b.bookkeeping):.1f}", f"{b.keeper_games}/{b.games}",
                      f"{b.think / b.decisions if b.decisions else 0:.3f}")
    out.print(table)
    seats = Table(title="win rate by seat")
    seats.add_column("bot")
    for k in range(len(specs)):
        seats.add_column(f"seat {k + 1}", justify="right")
    for b in report.bots.values():
        seats.add_row(b.spec, *(f"{b.seat_wins.get(k, 0) / g:.1%} ({g})"
                                for k, g in sorted(b.seat_games.items())))
    out.print(seats)


def _write_csv(report: ArenaReport, csv_out: Path) -> None:
    """One row per game and seat."""
    import csv

    with csv_out.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["game", "seed", "seat", "bot", "total", "cash", "companies",
                         "diamonds", "bookkeeping", "won"])
        for rec in report.games:
            for seat, spec in enumerate(rec.seats):
                won = 1 / len(rec.winners) if seat in rec.winners else 0
                writer.writerow([rec.index, rec.seed, seat + 1, spec, rec.totals[seat],
                                 rec.cash[seat], rec.companies[seat], rec.diamonds[seat],
                                 rec.bookkeeping[seat], won])
