"""Fixtures shared by several test modules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import axe_script, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per browser test module (``tests/browser.py``)."""
    yield from chromium()


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's script for the browser tests' accessibility checks (fails the test
    when ``scripts/ensure-axe.sh`` has not installed it)."""
    return axe_script()
