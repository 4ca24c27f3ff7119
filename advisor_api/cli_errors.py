"""How every ``mombasa`` command reports an ordinary mistake: a file or setting the user
named that cannot be used (no such file, a folder, not JSON, the wrong kind of file,
a folder to write into that does not exist) ends the command with one line on stderr,
``error: <option> <value>: <what is wrong>``, exit status 2, no traceback and nothing
written (outputs are checked before any work). ``MombasaGroup``, the ``mombasa`` app's
command class, turns a catalogue that cannot be loaded (``--catalogue``, a state's
catalogue, ``MOMBASA_CATALOGUE``, whose message names the variable) into such a line
wherever a command meets it, and keeps flags' help free of value types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup, TyperOption

try:  # typer 0.26 and later carry their own copy of click
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - older typer, on the click package
    from click.exceptions import UsageError  # type: ignore[assignment]

import engine

# What a file is, by its "schema" field, to say "a state file, not a catalogue".
KINDS = {"mombasa-state": "a state file", "mombasa-observation": "an observation file",
         "mombasa-catalogue": "a catalogue file"}


def fail(message: str, code: int = 2) -> NoReturn:
    """End the command with ``error: message`` (one line on stderr) and ``code``."""
    typer.echo(f"error: {' '.join(message.split())}", err=True)
    raise typer.Exit(code=code)


def unusable(what: str, value: object, reason: str, code: int = 2) -> NoReturn:
    """A file or setting the user named cannot be used: ``what`` is the option, argument
    or variable (``--catalogue``, ``STATE_FILE``), ``value`` what was given."""
    fail(f"{what} {value}: {reason}", code)


def kind_of(obj: Any) -> str | None:
    """What a parsed file is by its schema ("a state file"...), None if unknown.

    >>> kind_of({"schema": "mombasa-state/2"}), kind_of([1])
    ('a state file', None)
    """
    schema = obj.get("schema") if isinstance(obj, dict) else None
    if not isinstance(schema, str):
        return None
    return KINDS.get(schema.partition("/")[0])


def read_json(path: Path, what: str) -> Any:
    """The parsed JSON of a file the user named, or the command ends saying why not."""
    if not path.exists():
        unusable(what, path, "no such file")
    if path.is_dir():
        unusable(what, path, "a directory, not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        unusable(what, path, "not JSON (not a UTF-8 text file)")
    except OSError as exc:
        unusable(what, path, f"cannot read it: {exc.strerror or exc}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        unusable(what, path, f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")


def _read_kind(path: Path, what: str, schema: str) -> Any:
    """The parsed file, refused when its schema says it is another kind of file."""
    obj = read_json(path, what)
    kind, wanted = kind_of(obj), KINDS[schema]
    if kind is not None and kind != wanted:
        unusable(what, path, f"{kind}, not {wanted.removesuffix(' file')}")
    return obj


def read_state(path: Path, what: str) -> engine.State:
    """The state in a JSON file the user named (``random-game --dump-state``)."""
    obj = _read_kind(path, what, "mombasa-state")
    try:
        return engine.state_from_json(obj)
    except engine.StateFormatError as exc:
        unusable(what, path, f"not a valid state: {exc}")


def read_catalogue(spec: str, what: str = "--catalogue") -> engine.Catalogue:
    """The catalogue in a file the user named."""
    path = Path(spec)
    _read_kind(path, what, "mombasa-catalogue")
    try:
        return engine.load_catalogue(path)
    except engine.CatalogueError as exc:
        unusable(what, path, f"not a valid catalogue: {exc}")


def catalogue_setting() -> None:
    """Load the default catalogue first (before bots, searches or states are made), so
    that a ``MOMBASA_CATALOGUE`` that cannot be used is reported as the setting it is."""
    try:
        engine.default_catalogue()
    except engine.CatalogueError as exc:
        fail(str(exc))


def output_file(path: Path | None, what: str) -> None:
    """Check, before any work, that a file the command will write can be written: its
    folder exists and it is not a folder itself."""
    if path is None:
        return
    if path.is_dir():
        unusable(what, path, "a directory, not a file")
    folder = path.parent
    if not folder.exists():
        unusable(what, path, f"the folder {folder} does not exist")
    if not folder.is_dir():
        unusable(what, path, f"{folder} is not a folder")


class MombasaGroup(TyperGroup):
    """The ``mombasa`` command group: a catalogue that cannot be loaded is an ordinary
    mistake wherever a command meets it (``MOMBASA_CATALOGUE`` at any command, a
    state's catalogue), reported as one line, exit status 2."""

    def invoke(self, ctx: Any) -> Any:  # typer's click Context (vendored since 0.26)
        try:
            return super().invoke(ctx)
        except engine.CatalogueError as exc:
            fail(str(exc))
        except UsageError as exc:
            # A bad option of a command (typer would draw a box of several lines, cut to
            # the terminal's width): one line, with where to read the usage.
            where = f" (see {exc.ctx.command_path} --help)" if exc.ctx is not None else ""
            fail(f"{exc.format_message()}{where}", exc.exit_code)


def _hide_flag_types() -> None:
    """typer 0.29's rich help prints a flag's type (``--json <bool>``) as if it took a
    value; its plain help leaves it out, and so does ours (older typers print none)."""
    original = getattr(TyperOption, "display_type_rich", None)
    if original is None:
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else original(self, ctx)

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_hide_flag_types()
