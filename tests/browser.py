"""What the browser tests share: Debian's Chromium under Playwright, a recorder of the
page's console errors, and the git-ignored folder for screenshots and timings.

The module-scoped ``browser`` fixture that every browser test module uses is in
``tests/conftest.py``; it calls :func:`chromium`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


def chromium() -> Iterator[Any]:
    """A headless Chromium for one test module (the browser tests share it)."""
    # Imported here so that collecting the suite does not need Playwright loaded.
    from playwright import sync_api

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Console:
    """Console messages of type error and uncaught page errors."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))


def artifacts() -> Path:
    """The folder for screenshots and timings, made on first use; it ignores itself."""
    ARTIFACTS.mkdir(exist_ok=True)
    ignore = ARTIFACTS / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    return ARTIFACTS


def sized_page(browser: Any, width: int, height: int, touch: bool) -> tuple[Any, Any, Console]:
    """A new context of ``width`` x ``height`` (a touch screen with mobile emulation when
    ``touch``), its page and the page's console: (context, page, console)."""
    context = browser.new_context(viewport={"width": width, "height": height},
                                  has_touch=touch, is_mobile=touch)
    page = context.new_page()
    return context, page, Console(page)
