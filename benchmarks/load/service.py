"""A real ``mombasa serve`` for a load test: a subprocess on a free port with a fresh
database in a temporary folder and the default limits (no ``MOMBASA_*`` variable of the
caller's environment leaks in, only the settings given), stopped and removed at the end.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx

START_TIMEOUT = 60.0  # seconds for /v1/health to answer after the start
STOP_TIMEOUT = 60.0  # seconds after SIGINT before the service's processes are killed


@dataclass(frozen=True)
class Service:
    """A started service: its base URL, process id and the ``MOMBASA_*`` settings it
    was started with (the database path included)."""

    base: str
    pid: int
    settings: dict[str, str]


def _free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on (at the time of asking)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _mombasa(checkout: Path | None) -> list[str]:
    """The ``mombasa`` script beside this Python; with another ``checkout``, or without
    the script, the CLI through this Python (the checkout comes first on its path)."""
    script = Path(sys.executable).with_name("mombasa")
    if script.exists() and checkout is None:
        return [str(script)]
    return [sys.executable, "-c", "from advisor_api.cli import app; app()"]


def service_environment(settings: dict[str, str], checkout: Path | None = None
                        ) -> dict[str, str]:
    """This process's environment without its ``MOMBASA_*`` variables, plus
    ``settings``: the service runs on its defaults except what the benchmark sets. With
    ``checkout``, that source tree is imported before the installed one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOMBASA_")}
    if checkout is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(checkout.resolve()), *filter(None, [env.get("PYTHONPATH")])])
    env.update(settings)
    return env


def _wait_until_healthy(base: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Return once ``GET /v1/health`` answers 200; raise (with the service's log) if the
    process ends or :data:`START_TIMEOUT` passes first."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        with suppress(httpx.TransportError):
            if httpx.get(f"{base}/v1/health", timeout=5).status_code == 200:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"mombasa serve did not start:\n{log.read_text()}")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGINT (uvicorn's graceful stop: requests in flight get a search's time to
    finish), then, after :data:`STOP_TIMEOUT`, SIGKILL to the service's own process
    group (it was started in a session of its own: its search processes and nothing
    else)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with suppress(ProcessLookupError):  # a search process left behind by the stop
        os.killpg(proc.pid, signal.SIGKILL)


@contextmanager
def running_service(settings: dict[str, str], checkout: Path | None = None
                    ) -> Iterator[Service]:
    """Start ``mombasa serve`` on a free port of 127.0.0.1 with ``settings``
    (``MOMBASA_*`` variables) and a fresh ``MOMBASA_DB`` in a temporary folder, from the
    installed code or the source tree ``checkout``; yield it once ``/v1/health``
    answers; stop it and delete the folder at the end."""
    folder = Path(tempfile.mkdtemp(prefix="mombasa-load-"))
    settings = {"MOMBASA_DB": str(folder / "games.db"), **settings}
    port = _free_port()
    log = folder / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*_mombasa(checkout), "serve", "--port", str(port), "--log-level", "warning"],
            stdout=out, stderr=subprocess.STDOUT, env=service_environment(settings, checkout),
            cwd=checkout, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_until_healthy(base, proc, log)
        yield Service(base=base, pid=proc.pid, settings=settings)
    finally:
        _stop(proc)
        shutil.rmtree(folder, ignore_errors=True)
