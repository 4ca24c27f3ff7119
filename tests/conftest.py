"""Fixtures shared by several test modules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per browser test module (``tests/browser.py``)."""
    yield from chromium()
