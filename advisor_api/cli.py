"""The ``mombasa`` command line: the typer ``app``, its console entry ``main`` and the
registration of its commands, each kept in a module of its own (``cli_random``:
random-game, ``cli_serve``: serve, ``cli_analyse``: analyse, ``cli_play``: play,
``cli_train``: train-value, ``cli_arena``: arena, ``cli_review``: review, ``cli_solve``:
the solve group; their
shared bot-spec and Ray options are in ``cli_bots``). The names other code imports from
here (``app``, ``parse_seconds``, ``split_players``, ``_search``) stay importable."""

from __future__ import annotations

from typing import Annotated

import typer

from advisor_api.cli_analyse import _search, analyse_app, parse_seconds
from advisor_api.cli_arena import arena_app
from advisor_api.cli_bench import bench_app
from advisor_api.cli_bots import split_players
from advisor_api.cli_catalogue import catalogue_app
from advisor_api.cli_db import db_app
from advisor_api.cli_errors import MombasaGroup
from advisor_api.cli_play import play_app
from advisor_api.cli_random import random_app
from advisor_api.cli_review import review_app
from advisor_api.cli_serve import serve_app
from advisor_api.cli_solve import solve_app
from advisor_api.cli_train import train_app
from advisor_api.version import DISTRIBUTION, VERSION

__all__ = ["app", "main", "parse_seconds", "split_players", "_search"]

app = typer.Typer(cls=MombasaGroup, add_completion=False, no_args_is_help=True,
                  help="Mombasa strategy advisor: engine, search and service.")


def version_text() -> str:
    """What ``mombasa --version`` prints: the installed distribution and its version.

    >>> version_text().startswith("mombasa-advisor ")
    True
    """
    return f"{DISTRIBUTION} {VERSION}"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_show_version,
        help="Print the installed version and exit.")] = False,
) -> None:
    """Mombasa strategy advisor: engine, search and service."""
# Sub-apps without a name merge their commands into ``app``; ``mombasa --help`` lists
# them in this order.
app.add_typer(random_app)
app.add_typer(serve_app)
app.add_typer(analyse_app)
app.add_typer(play_app)
app.add_typer(train_app)
app.add_typer(arena_app)
app.add_typer(review_app)
app.add_typer(solve_app, name="solve")
app.add_typer(catalogue_app, name="catalogue")
app.add_typer(db_app, name="db")
app.add_typer(bench_app)


def main() -> None:  # pragma: no cover - console entry
    app()
