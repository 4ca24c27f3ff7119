"""The examples in the docstrings of the engine and search modules run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine
import search

MODULES = sorted(
    info.name
    for package in (engine, search)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result.failed} docstring example(s) failed"


def test_engine_api_page_examples() -> None:
    """docs/engine.md's example session runs as written."""
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "engine.md"
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
