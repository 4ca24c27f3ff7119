"""The ``mombasa`` command line."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import engine
from engine.rules import apply_unchecked, decision, random_step

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Mombasa strategy advisor: engine, search and service.")


def _play_random(players: int, seed: int, variable: bool, stop_at: int | None,
                 catalogue: str | None) -> tuple[engine.State, list[tuple[int, engine.Step]]]:
    cat = engine.load_catalogue(catalogue) if catalogue else None
    s = engine.new_game(players=players, seed=seed, variable=variable, catalogue=cat)
    rng = random.Random(seed)
    history: list[tuple[int, engine.Step]] = []
    while not s.is_over() and (stop_at is None or len(history) < stop_at):
        who = decision(s).player
        step = random_step(s, rng)
        s = apply_unchecked(s, step)
        history.append((who, step))
    return s, history


def _score_json(s: engine.State) -> list[dict[str, Any]]:
    ids = tuple(c.id for c in s.cat.companies)
    return [sc.to_json(ids) for sc in engine.score(s)]


@app.command("random-game")
def random_game(
    players: Annotated[int, typer.Option(min=2, max=4, help="Number of players (2-4).")] = 4,
    seed: Annotated[int, typer.Option(min=0, help="Seed for the game and the players.")] = 0,
    variable: Annotated[bool, typer.Option(help="Variable setup instead of the first game.")]
    = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
    = False,
    stop_at: Annotated[int | None, typer.Option(min=0, help="Stop after this many steps.")]
    = None,
    dump_state: Annotated[Path | None, typer.Option(help="With --stop-at: write the state "
                                                          "reached as JSON to this file.")]
    = None,
    catalogue: Annotated[str | None, typer.Option(help="Component catalogue file.")] = None,
) -> None:
    """Play a uniformly random legal game; print the move log and the score breakdown."""
    if dump_state is not None and stop_at is None:
        raise typer.BadParameter("--dump-state needs --stop-at", param_hint="--dump-state")
    s, history = _play_random(players, seed, variable, stop_at, catalogue)
    moves = engine.group_moves(history)
    if dump_state is not None:
        dump_state.write_text(json.dumps(engine.state_to_json(s), indent=1))
    if as_json:
        out = {
            "players": players,
            "seed": seed,
            "steps": len(history),
            "over": s.is_over(),
            "moves": [{"player": m.player + 1 if m.player >= 0 else "chance",
                       "text": m.text(s.cat)} for m in moves],
            "score": _score_json(s),
            "winners": [w + 1 for w in engine.winners(s)] if s.is_over() else None,
        }
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    console = Console()
    for m in moves:
        who = "chance" if m.player < 0 else f"P{m.player + 1}"
        console.print(f"[dim]{who:>6}[/dim]  {m.text(s.cat)}", highlight=False)
    console.print(_score_table(s))
    if s.is_over():
        console.print("Winner(s): " + ", ".join(f"P{w + 1}" for w in engine.winners(s)))
    else:
        console.print(f"Stopped after {len(history)} steps; decision: {s.decision}")
    if dump_state is not None:
        console.print(f"State written to {dump_state}")


def _score_table(s: engine.State) -> Table:
    cat = s.cat
    final = "final" if s.is_over() else "provisional"
    table = Table(title=f"Score ({final})")
    table.add_column("player")
    table.add_column("cash", justify="right")
    for c in cat.companies:
        table.add_column(c.id, justify="right")
    table.add_column("diamonds", justify="right")
    table.add_column("bookkeeping", justify="right")
    table.add_column("total", justify="right", style="bold")
    for sc in engine.score(s):
        table.add_row(
            f"P{sc.player + 1}", str(sc.cash),
            *(f"{n}x{v}={p}" for n, v, p in zip(sc.shares, sc.share_values, sc.companies,
                                                 strict=True)),
            str(sc.diamonds), str(sc.bookkeeping), str(sc.total),
        )
    return table


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8000,
) -> None:
    """Start the advisor service (not built yet: see issue 'Advisor service')."""
    typer.echo(
        f"The advisor service is not built yet (it would listen on {host}:{port}). "
        "Until it lands, try: mombasa random-game --players 4 --seed 1")
    raise typer.Exit(code=0)


def main() -> None:  # pragma: no cover - console entry
    app()


def split_players(text: str) -> list[str]:
    """``"mcts:time=0.25,c=0.5,greedy"`` -> ``["mcts:time=0.25,c=0.5", "greedy"]``: a
    ``key=value`` part without a bot name belongs to the bot before it."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


@app.command()
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
) -> None:
    """Play bots against each other (seats rotated) and report wins and money."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from search.arena import run_arena

    specs = split_players(players)
    try:
        from search.bots import make_bot

        for spec in specs:
            make_bot(spec)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--players") from None
    if not 2 <= len(specs) <= 4:
        raise typer.BadParameter(f"2 to 4 bots, got {len(specs)}", param_hint="--players")
    console = Console(stderr=True)
    with Progress(TextColumn("[bold]arena"), BarColumn(), TextColumn("{task.completed}/"
                  "{task.total} games"), TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("games", total=games)
        report = run_arena(specs, games, seed, jobs, variable,
                           on_game=lambda rec: bar.advance(task))
    out = Console()
    table = Table(title=f"{games} games, seed {seed}, {report.elapsed:.1f} s")
    for col in ("bot", "wins", "win rate", "95% CI", "money", "cash", "companies",
                "diamonds", "bookkeeping", "s/decision"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for b in report.bots.values():
        lo, hi = b.confidence()
        table.add_row(b.spec, f"{b.wins:g}", f"{b.win_rate:.1%}", f"{lo:.0%}-{hi:.0%}",
                      f"{b.mean(b.money):.1f}", f"{b.mean(b.cash):.1f}",
                      f"{b.mean(b.companies):.1f}", f"{b.mean(b.diamonds):.1f}",
                      f"{b.mean(b.bookkeeping):.1f}",
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
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(), indent=1))
    if csv_out is not None:
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
