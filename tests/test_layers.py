"""The architecture holds: advisor_api -> search -> engine, never backwards; no import
cycles between modules; no imports hidden inside functions in the engine (issue 13:
"the circles go")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "search", "advisor_api")
LAYER = {"engine": 0, "search": 1, "advisor_api": 2}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _runtime_imports(tree: ast.Module, name: str) -> set[str]:
    """Project modules imported at module level (``if TYPE_CHECKING:`` blocks excluded)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if not isinstance(node, ast.FunctionDef | ast.ClassDef) \
                else ():
            targets: list[str] = []
            if isinstance(sub, ast.Import):
                targets = [a.name for a in sub.names]
            elif isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                targets = [sub.module] + [f"{sub.module}.{a.name}" for a in sub.names]
            for t in targets:
                if t in MODULES and t != name and not name.startswith(t + "."):
                    out.add(t)
    return out


GRAPH = {name: _runtime_imports(ast.parse(path.read_text()), name)
         for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(GRAPH[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(GRAPH):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_no_import_cycles() -> None:
    assert _cycle() is None, f"import cycle: {' -> '.join(_cycle() or [])}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_layers_point_down(name: str) -> None:
    """engine imports neither search nor advisor_api; search does not import advisor_api."""
    mine = LAYER[name.split(".")[0]]
    up = [m for m in GRAPH[name] if LAYER[m.split(".")[0]] > mine]
    tree = ast.parse(MODULES[name].read_text())
    up += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
           and n.module.split(".")[0] in LAYER and LAYER[n.module.split(".")[0]] > mine]
    assert up == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("engine")))
def test_engine_imports_nothing_inside_functions(name: str) -> None:
    tree = ast.parse(MODULES[name].read_text())
    hidden = [n.lineno for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
              for n in ast.walk(f) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert hidden == [], f"{name}: imports inside functions at lines {hidden}"


def test_the_cycle_finder_finds_a_cycle() -> None:
    saved = dict(GRAPH)
    try:
        GRAPH["engine.steps"] = GRAPH["engine.steps"] | {"engine.state"}
        GRAPH["engine.state"] = GRAPH["engine.state"] | {"engine.steps"}
        assert _cycle() is not None
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
