"""What a user gets from ``pip install``: the wheel built from this checkout, installed
into a fresh virtual environment outside it, run from another folder (issue 50).

Nothing here imports the checkout: every command runs the installed ``mombasa`` with a
clean environment (no ``PYTHONPATH``, the new environment's ``bin`` first on ``PATH``),
so a data file left out of the wheel, or an import of an optional extra at start, fails
here as it would for a user. The runtime environment has no dev extras: the optional
peers (open-spiel, catanatron, ray) must be imported only when used.

``make run`` is checked at the end: it serves on ``PORT=`` with the runtime set, and what
the service writes is ignored by git.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.service_process import free_port, serving

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]
# The folders whose files the installed package reads at run time (pyproject.toml's
# package-data): every tracked file in them must be in the wheel.
DATA_DIRS = ("engine/data", "search/data", "advisor_api/static")


@dataclass(frozen=True)
class Installed:
    """A fresh virtual environment with the wheel installed, and a folder outside the
    checkout to run it from."""

    wheel: Path
    venv: Path
    work: Path

    @property
    def mombasa(self) -> list[str]:
        return [str(self.venv / "bin" / "mombasa")]

    def env(self, **extra: str) -> dict[str, str]:
        """A clean environment: nothing of the checkout or of the dev environment."""
        keep = {k: v for k, v in os.environ.items()
                if k in ("HOME", "LANG", "LC_ALL", "TMPDIR", "PIP_INDEX_URL",
                         "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE")}
        path = f"{self.venv / 'bin'}{os.pathsep}/usr/local/bin{os.pathsep}/usr/bin{os.pathsep}/bin"
        return {**keep, "PATH": path, "MOMBASA_WORKERS": "1", **extra}

    def run(self, *args: str, timeout: float = 120, **env: str
            ) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.mombasa, *args], cwd=self.work, env=self.env(**env),
                              capture_output=True, text=True, timeout=timeout)


def _check(cmd: list[str], cwd: Path, timeout: float = 600) -> str:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Build the wheel (with pip, in an isolated build environment, as a user would) and
    install it alone into a new virtual environment."""
    tmp = tmp_path_factory.mktemp("install")
    dist, venv, work = tmp / "dist", tmp / "venv", tmp / "elsewhere"
    work.mkdir()
    _check([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist),
            str(ROOT)], cwd=tmp)
    [wheel] = dist.glob("mombasa_advisor-*.whl")
    _check([sys.executable, "-m", "venv", str(venv)], cwd=tmp)
    _check([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
           cwd=tmp)
    return Installed(wheel, venv, work)


def test_wheel_contents(installed: Installed) -> None:
    """The wheel carries the model, the catalogue and the page, and nothing of the
    tests or benchmarks' research scripts."""
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    tracked = subprocess.run(["git", "ls-files", *DATA_DIRS], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    missing = [p for p in tracked if p not in names]
    assert not missing, f"data files not in the wheel: {missing}"
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/"))]


def test_no_checkout_no_dev_extras(installed: Installed) -> None:
    """The runtime environment imports the installed package, not this checkout, and has
    none of the optional peers."""
    code = ("import importlib.util, search; print(search.__file__); "
            "print([m for m in ('pyspiel', 'catanatron', 'ray', 'pytest') "
            "if importlib.util.find_spec(m)])")
    out = subprocess.run([str(installed.venv / "bin" / "python"), "-c", code],
                         cwd=installed.work, env=installed.env(), capture_output=True,
                         text=True, check=True).stdout.split("\n")
    assert str(installed.venv) in out[0] and str(ROOT) not in out[0]
    assert out[1] == "[]"


def test_version(installed: Installed) -> None:
    done = installed.run("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"mombasa-advisor {VERSION}"


@pytest.fixture(scope="module")
def position(installed: Installed) -> Path:
    """A position dumped by the installed ``random-game`` (a player's decision), in the
    folder the commands run from."""
    dumped = installed.run("random-game", "--players", "2", "--seed", "3", "--stop-at",
                           "90", "--dump-state", "pos.json")
    assert dumped.returncode == 0, dumped.stderr
    return installed.work / "pos.json"


def test_analyse_a_dumped_position(installed: Installed, position: Path) -> None:
    done = installed.run("analyse", position.name, "--iterations", "200", "--seed", "1",
                         "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["iterations"] == 200 and answer["lines"]
    assert answer["lines"][0]["eval"]["money"]  # the learned evaluator's estimate


def test_short_arena(installed: Installed) -> None:
    done = installed.run("arena", "--players", "mcts:iterations=30,greedy", "--games", "2",
                         "--seed", "1", "--json", "arena.json")
    assert done.returncode == 0, done.stderr
    report = json.loads((installed.work / "arena.json").read_text())
    assert report["games"] == 2


def test_bench_at_a_small_size(installed: Installed) -> None:
    """``mombasa bench``: the gate's speed suite, from the installed package."""
    done = installed.run("bench", "--quick", "--json", "bench.json")
    assert done.returncode == 0, done.stderr
    report = json.loads((installed.work / "bench.json").read_text())
    names = {b["name"] for b in report["benchmarks"]}
    assert {"test_clone", "test_mcts_fixed_iterations"} <= names, names
    assert "rel. cost" in done.stdout
    done = installed.run("bench", "--quick", "--peers")
    assert done.returncode == 1
    assert "pip install 'mombasa-advisor[peers]'" in done.stderr


def test_an_optional_extra_is_named_when_missing(installed: Installed) -> None:
    """open-spiel is an extra: its bots say how to install it, in one line."""
    done = installed.run("arena", "--players", "openspiel-mcts,random", "--games", "1")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: Invalid value for --players: bot spec 'openspiel-mcts': "
                           "an openspiel-* bot needs open-spiel, which is not installed: "
                           "pip install 'mombasa-advisor[openspiel]'"), line
    assert "Traceback" not in done.stderr


def test_serve_plays_ai_seats_with_the_shipped_model(installed: Installed,
                                                    position: Path) -> None:
    """The installed service: the page loads, an analysis answers 200, and an AI game's
    moves are the bots' own (no ``ai.error``: a failing search would have been replaced
    by a random move and said so there)."""
    pos = json.loads(position.read_text())
    with serving(installed.work / "games.db", installed.work / "serve.log",
                 env=installed.env(), mombasa=installed.mombasa, cwd=installed.work
                 ) as (_, base):
        page = httpx.get(f"{base}/", timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower()
        scripts = re.findall(r'src="(/static/[^"]+)"', page.text)
        assert scripts and all(httpx.get(base + s, timeout=10).status_code == 200
                               for s in scripts)
        assert httpx.get(f"{base}/v1/health", timeout=10).json()["version"] == VERSION
        answer = httpx.post(f"{base}/v1/analyse", json={
            "state": pos, "limit": {"iterations": 100}, "multipv": 2}, timeout=60)
        assert answer.status_code == 200, answer.text
        assert len(answer.json()["lines"]) == 2
        game = httpx.post(f"{base}/v1/games", json={"seats": [
            {"kind": "ai", "bot": "mcts:iterations=40"}, {"kind": "ai", "bot": "greedy"}]},
            timeout=30)
        assert game.status_code == 201, game.text
        gid = game.json()["id"]
        deadline = time.time() + 90
        moved = 0
        while time.time() < deadline:
            view = httpx.get(f"{base}/v1/games/{gid}?wait=5", timeout=30).json()
            assert view["ai"]["error"] is None, view["ai"]["error"]
            moved = view["steps"]
            if moved >= 30:
                break
        assert moved >= 30, f"only {moved} steps in 90 s"
        health = httpx.get(f"{base}/v1/health", timeout=10).json()
        assert "ai.error" not in json.dumps(health)


def test_a_missing_model_stops_the_start(installed: Installed, position: Path) -> None:
    """A model named by MOMBASA_VALUE_MODEL that does not exist, and the shipped one
    removed from the installation: ``serve`` stops at once, in one line, and creates no
    database; ``analyse`` says the same."""
    done = installed.run("serve", "--port", str(free_port()), timeout=60,
                         MOMBASA_VALUE_MODEL="nope.json")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: MOMBASA_VALUE_MODEL: nope.json: No such file or directory; name a model "
        "file written by `mombasa train-value`, or unset it to use the shipped model"]
    assert not (installed.work / "mombasa.db").exists()
    [model] = installed.venv.glob("lib/python*/site-packages/search/data/value_model.json")
    kept = model.with_suffix(".kept")
    shutil.move(model, kept)
    try:
        done = installed.run("serve", "--port", str(free_port()), timeout=60)
        assert done.returncode == 1
        assert "the shipped value model is missing or damaged" in done.stderr
        assert "reinstall mombasa-advisor" in done.stderr and "Traceback" not in done.stderr
        done = installed.run("analyse", position.name, "--iterations", "10")
        assert done.returncode != 0 and "reinstall mombasa-advisor" in done.stderr
    finally:
        shutil.move(kept, model)


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``make run PORT=...`` in this checkout (its database in a temporary folder)."""
    port = free_port()
    proc = subprocess.Popen(["make", "--no-print-directory", "run", f"PORT={port}",
                             f"ARGS=--db {tmp_path / 'run.db'} --log-level warning"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        yield proc, port
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_make_run_serves_on_the_given_port(make_run: tuple[subprocess.Popen[str], int]
                                           ) -> None:
    """README: ``make run`` installs the runtime set and serves; ``PORT=`` moves it."""
    proc, port = make_run
    deadline = time.time() + 300  # a first run installs the runtime set
    while time.time() < deadline:
        try:
            health = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=5)
            if health.status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        time.sleep(0.2)
    assert health.json()["status"] == "ok"


def test_what_the_service_writes_is_ignored_by_git() -> None:
    """The default database, its WAL files and the catalogue copies beside it."""
    names = ["mombasa.db", "mombasa.db-wal", "mombasa.db-shm", "catalogues/ab.json"]
    done = subprocess.run(["git", "check-ignore", "--no-index", *names], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.stdout.split() == names
