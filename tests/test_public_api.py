"""Layers: search, the service and the benchmarks use the engine through its public
names only (``engine.__all__``), never its modules, its rules interpreter's work queue
or its packed encodings (issue 13)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = sorted(p for d in ("search", "advisor_api", "benchmarks")
                 for p in (ROOT / d).rglob("*.py"))
PUBLIC = set(engine.__all__)


def _engine_imports(tree: ast.AST) -> list[tuple[int, str, str]]:
    """(line, module, name) of every import from engine or an engine module."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and (
                node.module == "engine" or node.module.startswith("engine.")):
            out += [(node.lineno, node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, "") for a in node.names
                    if a.name.startswith("engine.")]
    return out


def _docstring_imports(source: str) -> list[str]:
    return re.findall(r">>> from (engine\.\w+) import", source)


@pytest.mark.parametrize("path", CLIENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_clients_import_only_public_engine_names(path: Path) -> None:
    source = path.read_text()
    bad = [f"line {line}: {module}.{name}".rstrip(".")
           for line, module, name in _engine_imports(ast.parse(source))
           if module != "engine" or name not in PUBLIC]
    bad += [f"doctest: {m}" for m in _docstring_imports(source)]
    assert bad == [], f"{path.name} reaches past engine's public names: {bad}"


@pytest.mark.parametrize("path", CLIENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_clients_never_read_the_work_queue_or_packed_columns(path: Path) -> None:
    """``state.todo`` is the interpreter's private queue (use ``state.decision``); base
    columns are read with ``state.posts`` or ``Tables.posts_in``, never decoded here
    (``code & 7``)."""
    source = path.read_text()
    reads = [f"line {n}: {line.strip()}" for n, line in enumerate(source.splitlines(), 1)
             if re.search(r"\.todo\b|(\bcode\w*|\])\s*&\s*7\b|\bDEAD\b", line)]
    assert reads == []


def test_engine_exports_at_most_about_forty_names() -> None:
    assert len(engine.__all__) <= 40
    assert all(hasattr(engine, name) for name in engine.__all__)


MOVES = ("decision", "legal_steps", "apply", "apply_unchecked", "sample_chance",
         "chance_outcomes", "random_step", "decide_as")


def test_one_spelling_of_each_call() -> None:
    """Issue 51: a position's moves are spelled one way, as its methods
    (``s.apply(step)``, ``s.decision``); the engine exports no function twin."""
    assert not set(MOVES) & set(engine.__all__)
    assert all(hasattr(engine.State, name) for name in MOVES)


SPELLED = sorted(
    [p for d in ("engine", "search", "advisor_api", "benchmarks", "scripts", "tests")
     for p in (ROOT / d).rglob("*.py") if p != Path(__file__).resolve()]
    + list((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"])


@pytest.mark.parametrize("path", SPELLED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_spelling_of_a_move(path: Path) -> None:
    """``engine.apply(s, step)`` and the like are written ``s.apply(step)``."""
    pattern = re.compile(r"\bengine\.(" + "|".join(MOVES) + r")\(")
    found = [f"line {n}: {line.strip()}"
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if pattern.search(line)]
    assert found == []


def test_the_checker_sees_a_private_import() -> None:
    """The rule above can fail: a private import is found."""
    tree = ast.parse("from engine.rules import tables\nimport engine.state\n")
    found = _engine_imports(tree)
    assert [(m, n) for _, m, n in found] == [("engine.rules", "tables"), ("engine.state", "")]
