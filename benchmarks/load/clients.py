"""The load's clients: loops of ``POST /v1/analyse`` from a chosen source address (the
service tells clients apart by their address), every request recorded with its wall
latency, and a watcher of ``/v1/health``.

Every loop has an HTTP client of its own; all times are ``time.monotonic()``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

import engine
from search.bench.positions import mid_game

TIMEOUT = 600.0  # seconds a request may take: a queued long search can wait minutes


@dataclass(frozen=True)
class Record:
    """One request: who sent it, when it was sent and fully answered, the answer."""

    role: str  # "victim" or "attacker"
    address: str  # its source address
    started: float
    ended: float
    status: int  # HTTP status; 0: no answer (the connection failed or was closed)
    error: str  # the answer's "error" code ("busy", "client-limit"...), "" if none
    retry_after: float | None  # the Retry-After header, in seconds
    searched: float  # seconds of search of a 200 answer ("elapsed"), else 0

    @property
    def latency(self) -> float:
        """Wall seconds from sending the request to the end of its answer."""
        return self.ended - self.started


@dataclass
class Recorder:
    """The records of every loop, appended from many threads."""

    records: list[Record] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, record: Record) -> None:
        """Keep ``record``."""
        with self.lock:
            self.records.append(record)

    def snapshot(self) -> list[Record]:
        """The records so far."""
        with self.lock:
            return list(self.records)


def analysis_bodies(seconds: float, count: int = 8) -> list[dict[str, Any]]:
    """``count`` bodies of ``POST /v1/analyse``: mid-game positions (2 to 4 players,
    other seeds) with a time limit of ``seconds``."""
    return [{"state": engine.state_to_json(mid_game(players=2 + k % 3, seed=k + 1)),
             "limit": {"time": seconds}} for k in range(count)]


def http_client(base: str, address: str) -> httpx.Client:
    """An HTTP client of the service whose connections come from ``address``."""
    return httpx.Client(base_url=base, timeout=TIMEOUT,
                        transport=httpx.HTTPTransport(local_address=address))


def _retry_after(response: httpx.Response) -> float | None:
    """The Retry-After header in seconds, None if absent or not a number."""
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def _error_code(response: httpx.Response) -> str:
    """The ``error`` of an error answer's JSON, else ``""``."""
    if response.status_code < 400:
        return ""
    try:
        return str(response.json().get("error", ""))
    except ValueError:
        return ""


def post_analysis(http: httpx.Client, body: dict[str, Any], role: str, address: str
                  ) -> Record:
    """Send one ``POST /v1/analyse`` and record its answer and wall latency."""
    started = time.monotonic()
    try:
        response = http.post("/v1/analyse", json=body)
    except httpx.HTTPError as exc:
        return Record(role, address, started, time.monotonic(), 0, type(exc).__name__,
                      None, 0.0)
    ended = time.monotonic()
    searched = float(response.json().get("elapsed", 0.0)) if response.status_code == 200 else 0.0
    return Record(role, address, started, ended, response.status_code, _error_code(response),
                  _retry_after(response), searched)


@dataclass(frozen=True)
class Loop:
    """Analyses one after another from one address, until ``stop`` is set or (if
    given) ``until`` passes. After a 429 it waits Retry-After, capped at ``cap``
    seconds (so the pressure stays); after a failure, ``cap`` seconds."""

    base: str
    role: str
    address: str
    bodies: list[dict[str, Any]]
    cap: float
    first: int = 0  # which body it starts with
    until: float | None = None

    def run(self, recorder: Recorder, stop: threading.Event) -> None:
        """Send the analyses, recording each."""
        with http_client(self.base, self.address) as http:
            k = self.first
            while not stop.is_set() and (self.until is None or time.monotonic() < self.until):
                record = post_analysis(http, self.bodies[k % len(self.bodies)], self.role,
                                       self.address)
                recorder.add(record)
                k += 1
                if record.status == 429:
                    stop.wait(min(record.retry_after or self.cap, self.cap))
                elif record.status != 200:
                    stop.wait(self.cap)


@dataclass
class HealthWatch:
    """The peaks of ``/v1/health``'s pool figures while a scenario runs, and the last
    answer (sampled every ``every`` seconds by :meth:`run`)."""

    base: str
    every: float = 0.5
    peaks: dict[str, int] = field(default_factory=dict)
    last: dict[str, Any] = field(default_factory=dict)

    FIGURES = ("queued", "paused", "in_flight", "deferred")

    def sample(self, http: httpx.Client) -> None:
        """Read ``/v1/health`` once; keep its peaks (the figures it has) and itself."""
        try:
            health = http.get("/v1/health").json()
        except (httpx.HTTPError, ValueError):
            return
        for name in self.FIGURES:
            if isinstance(health.get(name), int):
                self.peaks[name] = max(self.peaks.get(name, 0), health[name])
        self.last = health

    def run(self, stop: threading.Event) -> None:
        """Sample until ``stop`` is set."""
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not stop.is_set():
                self.sample(http)
                stop.wait(self.every)
            self.sample(http)
