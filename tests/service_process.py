"""``mombasa serve`` as a real process on a free port (end-to-end tests, web tests and
the API speed benchmark)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def command() -> list[str]:
    """The installed ``mombasa`` script next to this Python, or the CLI module."""
    script = Path(sys.executable).with_name("mombasa")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from advisor_api.cli import app; app()"]


@contextmanager
def serving(db: Path | str, log: Path, env: dict[str, str] | None = None,
            mombasa: list[str] | None = None, cwd: Path | None = None
            ) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Start ``mombasa serve --db DB`` (a SQLite file, or a ``postgresql://`` URL) on a
    free port, wait until ``/v1/health`` answers,
    yield (process, base URL); stop it (SIGINT, then kill) at the end. ``mombasa`` is the
    command to start (default :func:`command`), run in ``cwd``."""
    port = free_port()
    full_env = {**os.environ, **(env or {})}
    with log.open("ab") as out:
        proc = subprocess.Popen([*(mombasa or command()), "serve", "--port", str(port),
                                 "--db", str(db), "--log-level", "warning"], stdout=out,
                                stderr=out, env=full_env, cwd=cwd)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(f"{base}/v1/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"the service did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def service_fixture(folder: str, env: dict[str, str]) -> Any:
    """A module-scoped pytest fixture: ``mombasa serve`` on a free port with a database
    in a temporary folder named after ``folder``, with ``env`` added to the environment;
    yields the service's base URL.

    >>> service = service_fixture("web-layout", {"MOMBASA_WORKERS": "1"})  # in a module
    """

    @pytest.fixture(scope="module")
    def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
        tmp = tmp_path_factory.mktemp(folder)
        with serving(tmp / "games.db", tmp / "serve.log", env) as (_, base):
            yield base

    return service
