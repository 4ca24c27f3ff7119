"""A throwaway PostgreSQL for the tests marked ``postgres``: the cluster of
``scripts/ensure-postgres.sh`` (``make test`` runs it and passes its URL in
``MOMBASA_TEST_POSTGRES``; without that variable the first test starts it), and a fresh
database per use, dropped afterwards.

These tests are never skipped: if the cluster cannot start, they fail and say why.
``pytest -m "not postgres"`` leaves them out on a machine without PostgreSQL."""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = "MOMBASA_TEST_POSTGRES"
_url: list[str] = []


def server_url() -> str:
    """The test cluster's URL (its database ``mombasa``), started if needed."""
    if _url:
        return _url[0]
    url = os.environ.get(ENV, "").strip()
    if not url:
        done = subprocess.run(["sh", str(ROOT / "scripts" / "ensure-postgres.sh")],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            pytest.fail(f"scripts/ensure-postgres.sh could not start PostgreSQL "
                        f"(exit {done.returncode}):\n{done.stderr}", pytrace=False)
        url = done.stdout.strip().splitlines()[-1]
    _url.append(url)
    return url


def _admin() -> Any:
    import psycopg

    try:
        return psycopg.connect(server_url(), autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        pytest.fail(f"PostgreSQL at {server_url()} does not answer: {exc}", pytrace=False)


@contextmanager
def fresh_database() -> Iterator[str]:
    """A new, empty database on the test cluster; its URL. Dropped at the end (its
    connections closed by force)."""
    name = f"t_{secrets.token_hex(6)}"
    base = server_url().rsplit("/", 1)[0]
    with _admin() as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield f"{base}/{name}"
    finally:
        with _admin() as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
