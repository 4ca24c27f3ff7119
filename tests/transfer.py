"""What the web page costs to load, measured in Chromium: the requests and the bytes
transferred (``encodedDataLength``: headers and body as sent, compressed or not) on a
first visit with an empty cache, on a second visit (a new navigation) and on a reload.

``python -m tests.transfer http://127.0.0.1:8000`` prints the figures of a running
``mombasa serve``; ``tests/test_static_caching.py`` measures its own service with it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class Load:
    """One page load: requests sent to the network, answered 304, served from the
    browser's cache without a request, bytes transferred."""

    requests: int = 0
    not_modified: int = 0
    from_cache: int = 0
    bytes: int = 0


def _measure(page: Any, cdp: Any, go: Any) -> Load:
    load = Load()
    pending: dict[str, bool] = {}

    def sent(e: dict[str, Any]) -> None:
        pending[e["requestId"]] = True

    def cached(e: dict[str, Any]) -> None:
        load.from_cache += 1
        pending.pop(e["requestId"], None)

    def answered(e: dict[str, Any]) -> None:
        if e["response"].get("status") == 304:
            load.not_modified += 1

    def finished(e: dict[str, Any]) -> None:
        if pending.pop(e["requestId"], None):
            load.requests += 1
            load.bytes += int(e["encodedDataLength"])

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.requestServedFromCache", cached)
    cdp.on("Network.responseReceived", answered)
    cdp.on("Network.loadingFinished", finished)
    try:
        go()
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)
    finally:
        for name, fn in (("Network.requestWillBeSent", sent),
                         ("Network.requestServedFromCache", cached),
                         ("Network.responseReceived", answered),
                         ("Network.loadingFinished", finished)):
            cdp.remove_listener(name, fn)
    return load


def measure(browser: Any, base: str) -> dict[str, Load]:
    """First visit (empty cache), second visit and reload of ``base`` + ``/``."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        out = {"first": _measure(page, cdp, lambda: page.goto(base + "/")),
               "second": _measure(page, cdp, lambda: page.goto(base + "/?again")),
               "reload": _measure(page, cdp, lambda: page.reload())}
    finally:
        context.close()
    return out


def main(base: str) -> None:
    from tests.browser import chromium

    for browser in chromium():
        figures = measure(browser, base.rstrip("/"))
        print(json.dumps({k: asdict(v) for k, v in figures.items()}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
