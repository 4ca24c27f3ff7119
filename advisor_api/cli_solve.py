"""``mombasa solve``: the exact solvers on a saved state.

    mombasa random-game --players 3 --seed 2 --stop-at 120 --dump-state position.json
    mombasa solve expansion position.json --company CAI --points 4 --top 3
    mombasa solve books position.json --points 2 --json

A readable table by default, JSON with ``--json``. The state must be at a decision
where the solver applies (see ``docs/solvers.md``), otherwise the command explains why
and exits with status 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

import typer
from rich.console import Console
from rich.table import Table

import engine
from advisor_api.cli_errors import catalogue_setting, fail, read_state
from search.solvers import SolverError, best_bookkeeping, best_expansions

solve_app = typer.Typer(add_completion=False, no_args_is_help=True,
                        help="Exact solvers: expansion routes and bookkeeping points.")

StateArg = Annotated[Path, typer.Argument(help="A state JSON file (mombasa random-game "
                                               "--stop-at K --dump-state FILE).")]
PointsOpt = Annotated[int | None, typer.Option(min=0, help="Points to use (default: what "
                                                           "the state says).")]
TopOpt = Annotated[int, typer.Option("--top", min=1, help="How many best plans to show.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
MethodOpt = Annotated[str, typer.Option(help="dp (fast, default) or cpsat (reference).")]


def _load(path: Path) -> engine.State:
    catalogue_setting()
    return read_state(path, "STATE_FILE")


def _emit_json(payload: dict[str, Any]) -> None:
    json.dump(payload, sys.stdout, indent=1)
    sys.stdout.write("\n")


def _header(s: engine.State) -> str:
    d = s.decision
    who = "chance" if d.player < 0 else f"P{d.player + 1}"
    return f"round {s.round}, {who} to decide: {d.kind}"


P = TypeVar("P")


def _solve(solve: Callable[[], list[P]]) -> list[P]:
    """Run a solver; a SolverError ends the command with its message."""
    try:
        return solve()
    except SolverError as exc:
        fail(str(exc))


def _emit_plans(s: engine.State, plans: list[Any]) -> None:
    _emit_json({"decision": {"kind": s.decision.kind, "player": s.decision.player + 1},
                "plans": [p.to_json(s.cat) for p in plans]})


def _table(title: str, columns: tuple[tuple[str, str], ...]) -> Table:
    table = Table(title=title)
    for name, justify in columns:
        table.add_column(name, justify=cast(Any, justify))
    return table


@solve_app.command("expansion")
def expansion(
    state_file: StateArg,
    company: Annotated[str, typer.Option(help="Company to expand (MOM, CAP, STL, CAI).")],
    points: PointsOpt = None,
    top: TopOpt = 1,
    as_json: JsonOpt = False,
    method: MethodOpt = "dp",
) -> None:
    """The best expansion routes of COMPANY for the player deciding (at an expansion
    decision, or hypothetically at an action decision)."""
    s = _load(state_file)
    plans = _solve(lambda: best_expansions(s, company, points, k=top,
                                           method=cast(Any, method)))
    cat = s.cat
    if as_json:
        _emit_plans(s, plans)
        return
    table = _table(f"Expansion of {company.upper()} ({_header(s)})",
                   (("#", "right"), ("value", "right"), ("route", "left"),
                    ("rewards", "left"), ("points", "right"), ("returns", "left"),
                    ("steps", "left")))
    ids = [c.id for c in cat.companies]
    for i, p in enumerate(plans, 1):
        route = " ".join(f"{cat.regions[r].id}/{k + 1}" for r, k in
                         zip(p.regions, p.columns, strict=True)) or "(nothing)"
        r = p.rewards
        rewards = ", ".join(f"{v} {name}" for v, name in (
            (r.pounds, "£"), (r.diamonds, "diamond"), (r.track, "track"),
            (r.bookkeeping, "bookkeeping"), (r.remove_posts, "removal")) if v) or "-"
        returns = " ".join(f"{ids[c]}->{k + 1 if k >= 0 else 'out'}" for c, k in p.returns)
        table.add_row(str(i), f"{p.value:.3f}", route, rewards,
                      f"{p.spent}/{p.points}", returns or "-", p.text(cat))
    Console().print(table)


@solve_app.command("books")
def books(
    state_file: StateArg,
    points: PointsOpt = None,
    top: TopOpt = 1,
    as_json: JsonOpt = False,
    method: MethodOpt = "dp",
) -> None:
    """The best ways to spend bookkeeping points (at a bookkeeping-points decision, or
    with --points hypothetically at an action decision)."""
    s = _load(state_file)
    plans = _solve(lambda: best_bookkeeping(s, points, k=top, method=cast(Any, method)))
    cat = s.cat
    if as_json:
        _emit_plans(s, plans)
        return
    table = _table(f"Bookkeeping points ({_header(s)})",
                   (("#", "right"), ("value", "right"), ("books", "left"),
                    ("pounds", "right"), ("coins", "right"), ("steps", "left")))
    for i, p in enumerate(plans, 1):
        taken = " ".join(f"{cat.books[b].name}@{cat.book_space_name(j)}"
                         for b, j in zip(p.books, p.spaces, strict=True)) or "-"
        table.add_row(str(i), f"{p.value:.3f}", taken, str(p.pounds), str(p.coins),
                      p.text(cat) + ("" if p.exact else "  (hypothetical)"))
    Console().print(table)
