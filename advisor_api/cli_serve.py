"""``mombasa serve``: start the advisor service (the HTTP API, its /docs and the web
page) with uvicorn, on the settings of the environment (``Settings.from_env``) and an
optional SQLite file of the games."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

serve_app = typer.Typer()


@serve_app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port.")] = 8000,
    db: Annotated[Path | None, typer.Option(help="SQLite file of the games (default: "
                                                "$MOMBASA_DB or ./mombasa.db).")] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Start the advisor service (HTTP API and /docs) with uvicorn."""
    import uvicorn

    from advisor_api.app import create_app
    from advisor_api.settings import Settings

    try:
        settings = Settings.from_env()
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if db is not None:
        settings = settings.with_(db_path=str(db))
    Console(stderr=True).print(
        f"Mombasa advisor on http://{host}:{port} (API docs: /docs); games in "
        f"{settings.db_path}; {settings.workers} search processes", highlight=False)
    # The client of the per-client limits is the direct peer: X-Forwarded-For is not trusted.
    uvicorn.run(create_app(settings=settings), host=host, port=port, log_level=log_level,
                proxy_headers=False)
