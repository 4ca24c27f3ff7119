"""``mombasa random-game``: play a uniformly random legal game (optionally stopping
part way, at a player's decision, and dumping the state reached, the usual way to make a
position for ``analyse`` and ``solve``) and print its move log and a score table; the
score table is also shown by ``play``."""

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
from advisor_api.cli_errors import catalogue_setting, output_file, read_catalogue, unusable

random_app = typer.Typer()


def _play_random(players: int, seed: int, variable: bool, stop_at: int | None,
                 cat: engine.Catalogue | None,
                 ) -> tuple[engine.State, list[tuple[int, engine.Step]]]:
    s = engine.new_game(players=players, seed=seed, variable=variable, catalogue=cat)
    rng = random.Random(seed)
    history: list[tuple[int, engine.Step]] = []
    # --stop-at K stops at the first player decision at or after step K: a chance event
    # is nobody's choice, so that position could be neither analysed nor solved.
    while not s.is_over() and (stop_at is None or len(history) < stop_at
                               or s.decision.is_chance):
        who = s.decision.player
        step = s.random_step(rng)
        s = s.apply_unchecked(step)
        history.append((who, step))
    return s, history


def _score_json(s: engine.State) -> list[dict[str, Any]]:
    ids = tuple(c.id for c in s.cat.companies)
    return [sc.to_json(ids) for sc in engine.score(s)]


@random_app.command("random-game")
def random_game(
    players: Annotated[int, typer.Option(min=2, max=4, help="Number of players (2-4).")] = 4,
    seed: Annotated[int, typer.Option(min=0, help="Seed for the game and the players.")] = 0,
    variable: Annotated[bool, typer.Option(help="Variable setup instead of the first game.")]
    = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
    = False,
    stop_at: Annotated[int | None, typer.Option(
        min=0, help="Stop at the first player decision at or after this many steps.")]
    = None,
    dump_state: Annotated[Path | None, typer.Option(help="With --stop-at: write the state "
                                                          "reached as JSON to this file.")]
    = None,
    catalogue: Annotated[str | None, typer.Option(help="Component catalogue file.")] = None,
) -> None:
    """Play a uniformly random legal game; print the move log and the score breakdown."""
    if dump_state is not None and stop_at is None:
        raise typer.BadParameter("--dump-state needs --stop-at", param_hint="--dump-state")
    output_file(dump_state, "--dump-state")
    if catalogue:
        cat = read_catalogue(catalogue)
    else:
        catalogue_setting()
        cat = None
    s, history = _play_random(players, seed, variable, stop_at, cat)
    moves = engine.group_moves(history)
    if dump_state is not None:
        try:
            dump_state.write_text(json.dumps(engine.state_to_json(s), indent=1))
        except OSError as exc:  # e.g. no permission: checked folders can still refuse
            unusable("--dump-state", dump_state, f"cannot write it: {exc.strerror or exc}")
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
