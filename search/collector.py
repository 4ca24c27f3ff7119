"""Python's cyclic garbage collector, paused while a search runs.

A search builds a tree of many small container objects, and the cyclic collector
scans them over and over as they accumulate (hundreds of collections in a 0.25 s
search) although an iteration leaves no cycles behind to collect: reference counting
frees everything an iteration discards (``tests/test_collector.py`` holds the search
to that). Pausing the collector for the search gives more iterations in the same time.

Searches may run in several threads at once (the service), so the pause is counted:
the collector is switched off by the first search to start and back on by the last to
end, and only if it was on before.

>>> import gc
>>> with collector_paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0  # searches running with the collector paused
_resume = False  # whether the collector was on when the first of them began


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (counted across threads)."""
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()
