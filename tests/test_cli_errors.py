"""Ordinary mistakes at the ``mombasa`` commands end with one line naming the option,
argument or variable and what is wrong (exit status 2, or 1 at ``serve``), no
traceback, nothing written; and no command's help shows a value type after a flag."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import engine
from advisor_api import cli_errors
from advisor_api.cli import app
from tests.test_api_helpers import mid_game

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def _files(tmp_path: Path) -> dict[str, Path]:
    state = tmp_path / "pos.json"
    state.write_text(json.dumps(engine.state_to_json(mid_game())))
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    catalogue = tmp_path / "cat.json"
    catalogue.write_text(Path(engine.default_catalogue().path).read_text())
    folder = tmp_path / "folder"
    folder.mkdir()
    return {"state": state, "junk": junk, "catalogue": catalogue, "folder": folder,
            "missing": tmp_path / "nope.json", "nodir": tmp_path / "nodir" / "x.json"}


def _one_line_error(output: str, *parts: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("error: ") and "Traceback" not in output, output
    for part in parts:
        assert part in lines[0], (part, output)
    return lines[0]


# (arguments with {placeholders}, the words the error line must hold)
CASES = [
    (["random-game", "--catalogue", "{missing}"], ["--catalogue", "no such file"]),
    (["random-game", "--catalogue", "{state}"], ["--catalogue", "a state file, not a catalogue"]),
    (["random-game", "--catalogue", "{folder}"], ["--catalogue", "a directory"]),
    (["random-game", "--catalogue", "{junk}"], ["--catalogue", "not JSON", "line 1"]),
    (["random-game", "--stop-at", "3", "--dump-state", "{nodir}"],
     ["--dump-state", "does not exist"]),
    (["random-game", "--stop-at", "3", "--dump-state", "{folder}"],
     ["--dump-state", "a directory"]),
    (["analyse", "{missing}"], ["STATE_FILE", "no such file"]),
    (["analyse", "{folder}"], ["STATE_FILE", "a directory"]),
    (["analyse", "{junk}"], ["STATE_FILE", "not JSON"]),
    (["analyse", "{catalogue}"], ["STATE_FILE", "a catalogue file, not a state"]),
    (["solve", "books", "{missing}"], ["STATE_FILE", "no such file"]),
    (["solve", "books", "{folder}"], ["STATE_FILE", "a directory"]),
    (["solve", "expansion", "{catalogue}", "--company", "CAI"],
     ["STATE_FILE", "a catalogue file, not a state"]),
    (["arena", "--players", "random,random", "--games", "1", "--json", "{nodir}"],
     ["--json", "does not exist"]),
    (["arena", "--players", "random,random", "--games", "1", "--csv", "{folder}"],
     ["--csv", "a directory"]),
    (["train-value", "--out", "{nodir}", "--games", "1"], ["--out", "does not exist"]),
    (["train-value", "--out", "{state}", "--games", "0", "--data", "{missing}"],
     ["--data", "No such file"]),
]


@pytest.mark.parametrize("args,words", CASES, ids=[" ".join(a[:2] + a[-2:-1])
                                                   for a, _ in CASES])
def test_a_file_that_cannot_be_used_is_one_line(tmp_path: Path, args: list[str],
                                               words: list[str]) -> None:
    files = _files(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    state_text = files["state"].read_text()
    r = runner.invoke(app, [a.format(**{k: str(v) for k, v in files.items()}) for a in args])
    assert r.exit_code == 2, r.output
    _one_line_error(r.output, *words)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written
    assert files["state"].read_text() == state_text


def _mombasa(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # A process of its own: the default catalogue is cached per process.
    return subprocess.run([sys.executable, "-c", "from advisor_api.cli import app; app()",
                           *args], env={**os.environ, **env}, cwd=cwd, text=True,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize("args", [
    ["random-game"], ["play", "--ai", "random"], ["analyse", "pos.json"],
    ["solve", "books", "pos.json"], ["arena", "--players", "random,random", "--games", "1"],
    ["train-value", "--out", "m.json", "--games", "1"],
], ids=lambda a: a[0])
def test_a_bad_catalogue_setting_is_named_at_every_command(tmp_path: Path,
                                                          args: list[str]) -> None:
    _files(tmp_path)
    r = _mombasa(args, {"MOMBASA_CATALOGUE": "nope.json"}, tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stdout == ""
    line = _one_line_error(r.stderr, "MOMBASA_CATALOGUE=nope.json: no such file")
    assert "None" not in line
    assert not (tmp_path / "m.json").exists()


def test_a_state_file_as_the_catalogue_setting(tmp_path: Path) -> None:
    _files(tmp_path)
    r = _mombasa(["random-game"], {"MOMBASA_CATALOGUE": "pos.json"}, tmp_path)
    assert r.returncode == 2
    _one_line_error(r.stderr, "MOMBASA_CATALOGUE=pos.json: schema: must be "
                              "'mombasa-catalogue/1', got 'mombasa-state/2'")


def test_serve_stops_at_start_on_a_bad_catalogue_setting(tmp_path: Path) -> None:
    r = _mombasa(["serve", "--port", "0"], {"MOMBASA_CATALOGUE": "nope.json"}, tmp_path)
    assert r.returncode == 1
    _one_line_error(r.stderr, "MOMBASA_CATALOGUE=nope.json: no such file")


def test_help_still_works_with_a_bad_catalogue_setting(tmp_path: Path) -> None:
    r = _mombasa(["play", "--help"], {"MOMBASA_CATALOGUE": "nope.json"}, tmp_path)
    assert r.returncode == 0 and "--hint-time" in r.stdout


def test_the_engine_names_a_catalogue_file_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(engine.CatalogueError, match="nope.json: no such file"):
        engine.load_catalogue(tmp_path / "nope.json")
    with pytest.raises(engine.CatalogueError, match="a directory"):
        engine.load_catalogue(tmp_path)


def _commands(group: typer.core.TyperGroup, path: list[str]) -> list[list[str]]:
    out = [path]
    ctx = typer.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if isinstance(cmd, typer.core.TyperGroup):
            out += _commands(cmd, path + [name])
        else:
            out.append(path + [name])
    return out


COMMANDS = _commands(typer.main.get_group(app), [])


def test_every_command_is_walked() -> None:
    names = {" ".join(c) for c in COMMANDS}
    assert {"play", "random-game", "analyse", "solve books", "catalogue show"} <= names


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "mombasa")
def test_no_help_shows_a_value_type_after_a_flag(path: list[str]) -> None:
    r = runner.invoke(app, [*path, "--help"], terminal_width=120)
    assert r.exit_code == 0, r.output
    assert "<bool>" not in r.output
    assert "--help" in r.output


def test_flags_are_still_listed_in_help() -> None:
    r = runner.invoke(app, ["random-game", "--help"], terminal_width=120)
    assert "--variable" in r.output and "--no-variable" in r.output and "--json" in r.output
    assert "<int range>" in r.output  # options that take values keep their type


def test_docstring_examples() -> None:
    from advisor_api import cli_codes

    for module in (cli_errors, cli_codes):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize(("args", "option"), [
    (["arena", "--games", "x"], "--games"),
    (["play", "--seat", "5"], "--seat"),
    (["arena", "--players", "nobot"], "--players"),
])
def test_a_bad_option_is_one_line(args: list[str], option: str) -> None:
    """typer's usage errors come as one line naming the option and where the usage is,
    not as a box cut to the terminal's width."""
    result = runner.invoke(app, args, prog_name="mombasa")
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert line.startswith("error: Invalid value for ") and option in line, line
    assert line.endswith(f"(see mombasa {args[0]} --help)")
