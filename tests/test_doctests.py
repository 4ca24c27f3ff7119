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
