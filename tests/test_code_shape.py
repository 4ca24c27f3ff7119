"""Units small enough to see at once (issue 51: "no function over about 80 lines without
a reason written beside it").

A function of the packages longer than :data:`LIMIT` lines must carry its reason on the
line right above its ``def`` (or its first decorator), as a comment starting
``# long:``, for example ``# long: one CP-SAT model, read top to bottom``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "search", "advisor_api")
LIMIT = 80


def _long_functions(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """``path:line name (n lines)`` of every long function without a written reason."""
    out = []
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            for node in ast.walk(ast.parse(text)):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                assert node.end_lineno is not None
                size = node.end_lineno - node.lineno + 1
                if size <= LIMIT:
                    continue
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                above = lines[first - 2].strip() if first >= 2 else ""
                if not above.startswith("# long:"):
                    rel = path.relative_to(root)
                    out.append(f"{rel}:{node.lineno} {node.name} ({size} lines)")
    return out


def test_no_long_function_without_a_reason() -> None:
    long = _long_functions()
    assert not long, ("functions over 80 lines: split them, or write the reason on the "
                      "line above as '# long: ...':\n" + "\n".join(long))


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    """The checker itself: a long function is reported, the same with a reason is not,
    nor one of exactly the limit."""
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))  # def + LIMIT lines
    (tmp_path / "pkg").mkdir()
    module = tmp_path / "pkg" / "m.py"
    module.write_text(f"import os\n\n\ndef f() -> None:\n{body}\n")
    assert _long_functions(tmp_path, ("pkg",)) == [f"pkg/m.py:4 f ({LIMIT + 1} lines)"]
    module.write_text(f"import os\n\n# long: a reason\n@staticmethod\ndef f() -> None:\n{body}\n")
    assert _long_functions(tmp_path, ("pkg",)) == []
    short = "\n".join(f"    x{i} = {i}" for i in range(LIMIT - 1))
    module.write_text(f"def f() -> None:\n{short}\n")
    assert _long_functions(tmp_path, ("pkg",)) == []
