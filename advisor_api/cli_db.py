"""``mombasa db migrate``: copy the games' database of a service (a SQLite file) into
PostgreSQL, for several replicas (docs/deploy.md).

    mombasa db migrate --from mombasa.db --to postgresql://mombasa@db.example/mombasa

Every table (games, their steps, activity, reviews, the stored catalogues) is copied in
one transaction of the target, then read back and compared row by row with the source.
The target must be empty: a target that already holds exactly the source's rows is
left as it is ("already copied", exit 0, so running it twice is harmless); one that holds
anything else is refused (exit 1) and nothing is written. Stop the service that uses
the source first (what it writes after the copy would not be copied). The source is
opened as the service opens it (a file from an older version gets the newer columns).
Exit codes: 0 copied (or already there), 1 refused or not verified, 2 a bad argument.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from advisor_api.store_sql import is_url, shown

db_app = typer.Typer(add_completion=False, no_args_is_help=True,
                     help="The games' database: copy a SQLite file into PostgreSQL.")


def _same(a: dict[str, list[tuple[Any, ...]]], b: dict[str, list[tuple[Any, ...]]]
          ) -> list[str]:
    """The tables whose rows differ (compared in one order: the databases' collations
    may sort text differently)."""
    return [t for t in a if sorted(a[t]) != sorted(b.get(t, []))]


def _counts(rows: dict[str, list[tuple[Any, ...]]]) -> str:
    return ", ".join(f"{t} {len(r)}" for t, r in rows.items())


@db_app.command()
def migrate(
    source: Annotated[str, typer.Option(
        "--from", metavar="DB", help="The database to copy: a SQLite file (or a URL).")],
    target: Annotated[str, typer.Option(
        "--to", metavar="URL", help="An empty database: postgresql://USER@HOST/DB (or a "
        "SQLite file).")],
    busy_ms: Annotated[int, typer.Option(
        min=100, help="Milliseconds each database may keep the copy waiting.")] = 60_000,
) -> None:
    """Copy every table into an empty database, then read it back and compare."""
    from advisor_api.store import NotEmpty, Store

    if not is_url(source) and not Path(source).is_file():
        raise typer.BadParameter(f"{source}: no such file", param_hint="--from")
    if source == target:
        raise typer.BadParameter("the source and the target are the same database",
                                 param_hint="--to")
    try:
        src = Store(source, busy_ms=busy_ms)
        dst = Store(target, busy_ms=busy_ms)
    except Exception as exc:
        typer.echo(f"error: {str(exc).strip()}", err=True)
        raise typer.Exit(1) from None
    try:
        rows = src.dump()
        try:
            dst.restore(rows)
        except NotEmpty as exc:
            if not _same(rows, dst.dump()):
                typer.echo(f"already copied: {shown(target)} holds exactly the rows of "
                           f"{source} ({_counts(rows)}); nothing to do")
                return
            held = ", ".join(f"{t} {n}" for t, n in exc.counts.items() if n)
            typer.echo(f"error: {shown(target)} is not empty ({held}): mombasa db migrate "
                       "copies into an empty database only, and never merges; nothing "
                       "was written", err=True)
            raise typer.Exit(1) from None
        differ = _same(rows, dst.dump())
        if differ:
            typer.echo(f"error: copied, but {', '.join(differ)} read back differently "
                       f"from {shown(target)}", err=True)
            raise typer.Exit(1)
        typer.echo(f"copied {source} to {shown(target)}: {_counts(rows)}")
        typer.echo(f"verified: every row of the {len(rows)} tables read back identical")
    finally:
        src.close()
        dst.close()
