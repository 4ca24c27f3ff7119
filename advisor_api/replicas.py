"""This process among several replicas of the service on one PostgreSQL database
(``mombasa serve --db postgresql://...``, docs/deploy.md): it hears the others' changes
and keeps its AI leases. Not started with SQLite (one process owns the file).

* **Changes.** Every write of a game announces its new version on the channel
  ``mombasa_games`` (``NOTIFY`` at commit, :mod:`advisor_api.store_sql`). A thread
  of its own ``LISTEN``s and hands each announcement to the event loop: a game in
  memory catches up (:meth:`GameStore.heard <advisor_api.game_store.GameStore.heard>`),
  which wakes its game-event streams, so a page follows a game whichever replica its
  stream is connected to; a deleted game ends its streams. After a reconnection (the
  announcements meanwhile are lost) every game in memory looks at the database again.
* **AI leases.** Every third of ``MOMBASA_AI_LEASE`` (10 s) the leases this replica
  holds are renewed in one statement, and the games whose lease ran out (their driver
  died, or handed them over as it stopped) are taken over
  (:meth:`AiDriver.take_over <advisor_api.ai_driver.AiDriver.take_over>`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading

from advisor_api.ai_driver import AiDriver
from advisor_api.game_store import GameStore
from advisor_api.settings import Settings
from advisor_api.store import Store
from advisor_api.store_sql import Postgres

log = logging.getLogger("advisor_api.replicas")


class Replicas:
    """The listener and the lease keeper of one replica (:meth:`start`, :meth:`stop`)."""

    def __init__(self, store: Store, kept: GameStore, ai: AiDriver,
                 settings: Settings) -> None:
        assert isinstance(store.dialect, Postgres), "replicas share a PostgreSQL database"
        self.store = store
        self.dialect = store.dialect
        self.kept = kept
        self.ai = ai
        self.settings = settings
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self.dialect.listen,
                                        args=(self._deliver, self._stop),
                                        name="mombasa-listen", daemon=True)
        self._thread.start()
        self._keeper = asyncio.ensure_future(self._keep())

    async def stop(self) -> None:
        """Stop hearing and renewing; the AI leases are handed over when the AI tasks
        end (the service cancels them next)."""
        self.ai.closing = True
        self._stop.set()
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5)

    def _deliver(self, payload: str) -> None:
        """(The listening thread.) An announcement, handed to the event loop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self.heard, payload)

    def heard(self, payload: str) -> None:
        """``<game> <version>``, ``<game> deleted``, ``<game> lease`` (given back), or
        ``*`` (listening again: look at every game in memory)."""
        if payload == "*":
            for gid in list(self.kept.in_memory):
                self.kept.heard(gid, None)
            return
        gid, _, what = payload.partition(" ")
        if what == "lease":
            self.ai.lease_freed(gid)
        elif what.isdigit():
            self.kept.heard(gid, int(what))
        else:
            self.kept.heard(gid, None)

    async def _keep(self) -> None:
        every = self.settings.ai_lease / 3
        while True:
            try:
                held = await self.store.off_loop(self.store.renew_leases, self.ai.holder,
                                                 self.settings.ai_lease)
                self.ai.leases_kept(set(held))
                for gid in await self.store.off_loop(self.store.expired_leases):
                    await self.ai.take_over(gid)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database away a while: next round
                log.warning("AI leases not renewed: %s", exc)
            await asyncio.sleep(every)
