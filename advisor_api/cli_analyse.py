"""``mombasa analyse``: ranked suggestions for the deciding player of a saved position,
searched in this process on that player's observation, printed as a table of the
MultiPV lines (with the exact solvers' notes) or as the API's JSON answer. Its search
with a progress bar, its tables and ``parse_seconds`` (the ``--time`` option) are also
used by the suggestions of ``play``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import engine
from advisor_api.cli_errors import KINDS, catalogue_setting, kind_of, read_json, unusable

analyse_app = typer.Typer()


def parse_seconds(text: str) -> float:
    """``"2s"``, ``"1.5"``, ``"500ms"``, ``"1m"`` -> seconds.

    >>> parse_seconds("500ms"), parse_seconds("2s"), parse_seconds("1m")
    (0.5, 2.0, 60.0)
    """
    raw = text.strip().lower()
    scale = 1.0
    for suffix, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
        if raw.endswith(suffix):
            raw, scale = raw[: -len(suffix)], factor
            break
    try:
        value = float(raw) * scale
    except ValueError:
        raise typer.BadParameter(f"expected a duration like 2s or 500ms, got {text!r}",
                                 param_hint="--time") from None
    if not value > 0 or value == float("inf"):
        raise typer.BadParameter(f"must be > 0, got {text!r}", param_hint="--time")
    return value


def _search(obs: engine.Observation, iterations: int | None, seconds: float | None,
            seed: int, jobs: int, console: Console, label: str) -> Any:
    """Run the search in this process (progress on ``console``); a SearchResult."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from advisor_api.worker import advisor_config
    from search.mcts import MCTS, SearchResult
    from search.parallel import ParallelMCTS

    cfg = advisor_config(iterations, seconds, seed)
    if jobs > 1:
        with console.status(f"{label}: searching with {jobs} processes"), \
                ParallelMCTS(cfg, jobs=jobs) as par:
            return par.search(obs)
    total = iterations if iterations is not None else None
    with Progress(TextColumn(f"[bold]{label}"), BarColumn(), TextColumn("{task.fields[it]} "
                  "iterations"), TimeElapsedColumn(), console=console,
                  transient=True) as bar:
        task = bar.add_task("search", total=total or (seconds or 1.0), it=0)

        def report(interim: SearchResult) -> None:
            done = interim.iterations if total is not None else interim.elapsed
            bar.update(task, completed=done, it=interim.iterations)

        return MCTS(cfg).search(obs, report)


def _lines_table(answer: dict[str, Any], title: str) -> Table:
    """The MultiPV lines of an analysis answer as a table."""
    pov = answer["pov"]
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("visits", justify="right")
    table.add_column("share", justify="right")
    table.add_column(f"win {pov}", justify="right", style="bold")
    players = list(answer["lines"][0]["eval"]["money"]) if answer["lines"] else []
    for p in players:
        table.add_column(f"money {p}", justify="right")
    table.add_column("then")
    for line in answer["lines"]:
        ev = line["eval"]
        table.add_row(str(line["rank"]), line["move"]["text"], str(line["visits"]),
                      f"{line['share']:.0%}", f"{ev['win'][pov]:.0%}",
                      *(f"{ev['money'][p]:.1f}" for p in players),
                      line["pv_text"][:80])
    return table


def _summary(answer: dict[str, Any]) -> str:
    d = answer["decision"]
    return (f"{answer['pov']} to decide ({d['kind']}), round {answer['round']}: "
            f"{answer['iterations']} iterations in {answer['elapsed']:.2f} s "
            f"({answer['iterations_per_second']:.0f}/s), {answer['legal_steps']} legal steps")


@analyse_app.command()
def analyse(
    state_file: Annotated[Path, typer.Argument(help="A state or observation JSON file "
                                                    "(e.g. from random-game --dump-state).")],
    multipv: Annotated[int, typer.Option(min=1, help="Number of lines.")] = 3,
    time: Annotated[str | None, typer.Option(help="Search time: 2s, 500ms...")] = None,
    iterations: Annotated[int | None, typer.Option(min=1, help="Search iterations.")]
    = None,
    seed: Annotated[int, typer.Option(min=0, help="Search seed.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Search processes.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON answer.")]
    = False,
) -> None:
    """Ranked suggestions for the deciding player of a position (searched on that
    player's observation only)."""
    from advisor_api import analysis
    from advisor_api.errors import ApiError
    from advisor_api.settings import Settings
    from advisor_api.solvers import solve_decision

    err = Console(stderr=True, soft_wrap=True)
    seconds = parse_seconds(time) if time is not None else None
    if seconds is None and iterations is None:
        seconds = 2.0
    catalogue_setting()
    obj = read_json(state_file, "STATE_FILE")
    if kind_of(obj) == KINDS["mombasa-catalogue"]:
        unusable("STATE_FILE", state_file, "a catalogue file, not a state or observation")
    try:
        if isinstance(obj, dict) and obj.get("schema") == "mombasa-observation/1":
            obs = analysis.read_observation(obj)
        else:
            obs = analysis.observation_for_decider(analysis.read_state(obj))
        settings = Settings(max_time=max(seconds or 1.0, 1.0), workers=jobs,
                            max_iterations=max(iterations or 1, 1), max_multipv=multipv)
        plan = analysis.make_plan(obs, settings, iterations=iterations, time=seconds,
                                  multipv=multipv, seed=seed, jobs=jobs)
    except ApiError as exc:
        unusable("STATE_FILE", state_file, exc.message)
    try:
        result = _search(obs, iterations, seconds, seed, jobs, err, "analysing")
    except ValueError as exc:  # the installation's search settings (MOMBASA_SEARCH)
        err.print(f"error: {exc}", highlight=False)
        raise typer.Exit(code=2) from None
    answer = analysis.build_response(plan, result, result.elapsed,
                                     solved=solve_decision(obs.state))
    if as_json:
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    out = Console()
    out.print(_lines_table(answer, _summary(answer)))
    _print_solver_notes(answer, out)


def _print_solver_notes(answer: dict[str, Any], console: Console, label: str = "#") -> None:
    for line in answer["lines"]:
        plan = line.get("solver")
        if plan:
            verdict = "agrees" if plan["agrees"] else "differs"
            console.print(f"  {label}{line['rank']}: exact {plan['kind']} solver: "
                          f"{'; '.join(plan['steps'])} ({verdict})", highlight=False)
