"""docs/notation.md is generated from the engine (scripts/notation_doc.py) and current."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import engine
from engine.steps import KINDS

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "notation_doc.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("notation_doc", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notation_doc_is_generated_and_up_to_date() -> None:
    doc = _script()
    assert doc.DOC.read_text() == doc.render(), "run: python scripts/notation_doc.py"


def test_every_kind_has_one_row_whose_example_parses_to_that_kind() -> None:
    text = _script().DOC.read_text()
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| [^|]* \| `([^`]*)` \|", text, re.M)
    assert [kind for kind, _ in rows] == list(KINDS)
    cat = engine.default_catalogue()
    for kind, example in rows:
        assert engine.Step.parse(example, cat).kind == kind, example
