"""What the browser tests share: Debian's Chromium under Playwright, a recorder of the
page's console errors, the git-ignored folder for screenshots and timings, axe-core's
script, and a player's finger (touch drags and taps, or the mouse).

The module-scoped ``browser`` and ``axe_source`` fixtures that the browser test modules
use are in ``tests/conftest.py``; they call :func:`chromium` and :func:`axe_script`.
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
#: axe-core, the accessibility checker the tests inject into the page
#: (``scripts/ensure-axe.sh`` installs it with npm under ``tools/``, which git ignores).
AXE = Path(__file__).resolve().parents[1] / "tools" / "axe" / "node_modules" / "axe-core" / \
    "axe.min.js"


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


def axe_script() -> str:
    """axe-core's source, to add to a page (``page.add_script_tag(content=...)``)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run scripts/ensure-axe.sh (make test does)")
    return AXE.read_text()


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


class Finger:
    """Drags and taps as a player at one screen: touch events (a touch screen: through
    CDP, ``Input.dispatchTouchEvent``) or the mouse."""

    def __init__(self, context: Any, page: Any, touch: bool) -> None:
        self.page = page
        self.touch = touch
        self.cdp = context.new_cdp_session(page) if touch else None

    def drag(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """One finger (or the mouse's button held) from (x0, y0) to (x1, y1) in small
        moves."""
        if self.cdp is None:
            self.page.mouse.move(x0, y0)
            self.page.mouse.down()
            for k in range(1, 9):
                self.page.mouse.move(x0 + (x1 - x0) * k / 8, y0 + (y1 - y0) * k / 8)
            self.page.mouse.up()
            return
        send = self.cdp.send
        send("Input.dispatchTouchEvent", {"type": "touchStart",
                                          "touchPoints": [{"x": x0, "y": y0, "id": 1}]})
        for k in range(1, 9):
            send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
                {"x": x0 + (x1 - x0) * k / 8, "y": y0 + (y1 - y0) * k / 8, "id": 1}]})
        # the finger rests before it lifts: no fling (a tap during one is no tap)
        self.page.wait_for_timeout(120)
        send("Input.dispatchTouchEvent", {"type": "touchMove",
                                          "touchPoints": [{"x": x1, "y": y1, "id": 1}]})
        send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def tap(self, x: float, y: float) -> None:
        """A tap (a touch screen) or a click at (x, y)."""
        if self.touch:
            self.page.touchscreen.tap(x, y)
        else:
            self.page.mouse.click(x, y)


def player_page(browser: Any, width: int, height: int,
                touch: bool) -> tuple[Any, Any, Console, Finger]:
    """:func:`sized_page` and the player's :class:`Finger` on it: (context, page,
    console, finger)."""
    context, page, console = sized_page(browser, width, height, touch)
    return context, page, console, Finger(context, page, touch)
