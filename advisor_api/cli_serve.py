"""``mombasa serve``: start the advisor service (the HTTP API, its /docs and the web
page) with uvicorn, on the settings of the environment (``Settings.from_env``) and an
optional database of the games: a SQLite file, or a ``postgresql://`` URL that several
replicas of the service share (docs/deploy.md).

The service has no user accounts. On a loopback interface (the default, 127.0.0.1) only
this machine reaches it; ``--host`` anything else (0.0.0.0, a LAN address) prints a
warning, and requests are still answered only for the host names of
``MOMBASA_ALLOWED_HOSTS`` (default this machine's) plus those given with
``--allow-host``: the name that clients use must be allowed explicitly (see "Running
beyond localhost" in docs/api.md)."""

from __future__ import annotations

import os
from typing import Annotated

import typer
from rich.console import Console

from advisor_api.store_sql import shown as shown_db

serve_app = typer.Typer()


def exposure_warning(host: str, port: int, allowed: tuple[str, ...]) -> str:
    """What ``serve`` prints (stderr) when it listens beyond this machine."""
    names = ", ".join(allowed)
    text = (f"WARNING: listening on {host}:{port}, not only on this machine. The service "
            "has no user accounts: anyone who can reach this port can create games, use "
            "the CPU with searches, watch any game whose id they learn, and save or delete "
            "catalogues. Serve it only on a network you trust, or behind a reverse proxy "
            "that authenticates users.")
    if "*" in allowed:
        text += (" Any Host header is accepted (MOMBASA_ALLOWED_HOSTS=*): web pages of "
                 "other sites can reach it through DNS rebinding.")
    else:
        text += (f" Requests are answered only when they name one of these hosts: {names} "
                 "(others get 400); add the name or address clients use with "
                 "--allow-host NAME or MOMBASA_ALLOWED_HOSTS.")
    return text


def allowed_hosts(configured: tuple[str, ...], host: str,
                  extra: list[str]) -> tuple[str, ...]:
    """The hosts requests may name: the setting's, the bound host when it is a loopback
    one (127.0.0.2, localhost...: only this machine can use it), then ``--allow-host``."""
    from advisor_api.guards import is_loopback

    out = list(configured)
    bound = host.strip().lower().removeprefix("[").removesuffix("]")
    if is_loopback(bound):
        out.append(bound)
    out.extend(extra)
    return tuple(dict.fromkeys(out))


def _check_database(path: str) -> None:
    """A PostgreSQL database that cannot be reached, or without psycopg, stops the start
    with one line (exit 1); its tables are created if missing."""
    from advisor_api.store import Store
    from advisor_api.store_sql import is_url

    if not is_url(path):
        return
    try:
        Store(path).close()
    except Exception as exc:
        typer.echo(f"error: --db {shown_db(path)}: {str(exc).strip()}", err=True)
        raise typer.Exit(1) from None


@serve_app.command()
def serve(
    host: Annotated[str, typer.Option(help=(
        "Interface to listen on. Anything but a loopback address (e.g. 0.0.0.0) lets "
        "other machines in: there are no user accounts (a warning is printed)."))
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port.")] = 8000,
    db: Annotated[str | None, typer.Option(help=(
        "The games' database: a SQLite file, or postgresql://USER@HOST/DB shared by "
        "several replicas (default: $MOMBASA_DB or ./mombasa.db)."))] = None,
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", metavar="NAME", help=(
            "Also answer requests naming this host (the name or address clients use, "
            "e.g. the machine's LAN address with --host 0.0.0.0); repeatable. Added to "
            "MOMBASA_ALLOWED_HOSTS (default localhost, 127.0.0.1, ::1)."))] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    ray: Annotated[str | None, typer.Option(
        envvar="MOMBASA_RAY", metavar="auto|ADDRESS", help=(
            "Run the searches on a Ray cluster ('distributed' extra): 'auto' (the running "
            "one), its address, or 'local'; one search actor per CPU of the cluster "
            "(default: search processes of this machine)."))] = None,
) -> None:
    """Start the advisor service (HTTP API and /docs) with uvicorn."""
    import uvicorn

    from advisor_api.app import create_app
    from advisor_api.guards import is_loopback
    from advisor_api.settings import Settings
    from search.bot_specs import SETTINGS_ENV, search_settings

    try:
        search_settings()  # a bad MOMBASA_SEARCH stops the start, not every analysis
        settings = Settings.from_env()
        if db is not None:
            settings = settings.with_(db_path=str(db))
        settings = settings.with_(allowed_hosts=allowed_hosts(
            settings.allowed_hosts, host, allow_host or []))
        if ray:  # the searches on the cluster, one per CPU
            from advisor_api.ray_backend import serve_on_ray
            settings = serve_on_ray(settings, ray)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    _check_database(settings.db_path)
    try:
        service = create_app(settings=settings)
    except (ValueError, OSError) as exc:  # a data file missing or damaged: no service
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    console = Console(stderr=True)
    if not is_loopback(host):
        console.print(exposure_warning(host, port, settings.allowed_hosts),
                      style="bold yellow", highlight=False, markup=False)
    elif "*" in settings.allowed_hosts:
        console.print("WARNING: any Host header is accepted (MOMBASA_ALLOWED_HOSTS=*): web "
                      "pages of other sites can reach this service through DNS rebinding.",
                      style="bold yellow", highlight=False, markup=False)
    shown = f"[{host}]" if ":" in host else host
    console.print(
        f"Mombasa advisor on http://{shown}:{port} (API docs: /docs); games in "
        f"{shown_db(settings.db_path)}; {settings.workers} search processes"
        f"{f' (CPUs of the Ray cluster {ray})' if ray else ''}", highlight=False, markup=False)
    if os.environ.get(SETTINGS_ENV, "").strip():
        console.print(f"Search settings ({SETTINGS_ENV}): {os.environ[SETTINGS_ENV].strip()}",
                      highlight=False, markup=False)
    # uvicorn's own proxy handling stays off: the app believes X-Forwarded-For only from
    # MOMBASA_TRUSTED_PROXIES (create_app), whatever server runs it.
    # Requests still running at a stop get the time of a search to finish (the open
    # game-event streams end at once: create_app's stop signal handlers).
    uvicorn.run(service, host=host, port=port, log_level=log_level,
                proxy_headers=False,
                timeout_graceful_shutdown=int(settings.max_time + settings.grace) + 1)
