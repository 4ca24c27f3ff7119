"""How a search is paced from outside: the clock its time budget runs on, and the
checkpoint between two iterations where it may be paused or told to stop.

A search alone on its process (the arena, the CLI) uses :data:`REAL_TIME`: the wall
clock, never paused, never stopped. A scheduler that shares one process between several
searches (the service's search pool, :mod:`advisor_api.worker`) gives each search its
own :class:`Pacer`: a clock that stands still while the search is paused, so a
"think 10 s" search gets 10 s of thinking however the slices fall, and a checkpoint that
pauses the search when its slice is over (it returns when the search may go on) or
answers False when the search should stop and answer what it has found.

>>> REAL_TIME.checkpoint()
True
>>> t = REAL_TIME.clock(); REAL_TIME.clock() >= t
True
"""

from __future__ import annotations

import time


class Pacer:
    """The pace of one search: :meth:`clock` and :meth:`checkpoint`.

    The base class is real time: subclasses override both."""

    def clock(self) -> float:
        """Seconds of thinking so far, on some origin (only differences count)."""
        return time.perf_counter()

    def checkpoint(self) -> bool:
        """Called between iterations (often: keep it cheap). May block while the search
        is paused; False: stop now and answer what has been found."""
        return True


#: The wall clock, never paused or stopped.
REAL_TIME = Pacer()

__all__ = ["REAL_TIME", "Pacer"]
