"""Helpers for the service tests (positions, clients, small settings); no tests here."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

import engine
from advisor_api.app import create_app
from advisor_api.settings import LOCAL_HOSTS, Settings
from tests.worker_tasks import WORKER_TASKS

_CACHE: dict[tuple[str, bool], engine.State] = {}


def small_settings(tmp: Path, **changes: Any) -> Settings:
    """Settings for tests: 2 workers, short caps, a database in ``tmp``."""
    base: dict[str, Any] = {"db_path": str(tmp / "games.db"), "workers": 2, "max_time": 3.0,
                            "max_iterations": 20_000, "max_queue": 4, "grace": 2.0,
                            "default_time": 0.2, "max_body": 300_000, "max_bot_time": 1.0,
                            "max_bot_iterations": 2_000, "stream_interval": 0.2,
                            # TestClient's Host (not a default: tests only)
                            "allowed_hosts": (*LOCAL_HOSTS, "testserver")}
    base.update(changes)
    return Settings(**base)


@contextmanager
def client(tmp: Path, **changes: Any) -> Iterator[TestClient]:
    """A started service (its lifespan runs) with :func:`small_settings`; its search
    processes also run the test task kinds of :mod:`tests.worker_tasks`."""
    app = create_app(settings=small_settings(tmp, **changes), worker_tasks=WORKER_TASKS)
    with TestClient(app) as c:
        yield c


def position(kind: str, variable: bool = False,
             where: Callable[[engine.State], bool] | None = None,
             tag: str = "") -> engine.State:
    """The first state of random games (seeds 0, 1, ...) whose decision is ``kind`` (and
    that satisfies ``where``; ``tag`` names that condition for the cache)."""
    key = (kind + tag, variable)
    if key in _CACHE:
        return _CACHE[key]
    for seed in range(200):
        s = engine.new_game(players=2 + seed % 3, seed=seed, variable=variable)
        rng = random.Random(seed)
        while not s.is_over():
            d = s.decision
            if d.kind == kind and (where is None or where(s)):
                _CACHE[key] = s
                return s
            s = s.apply(s.sample_chance() if d.kind == "chance"
                        else rng.choice(s.legal_steps()))
    raise LookupError(f"no {kind!r} decision in 200 random games")


def mid_game(players: int = 2, seed: int = 1, steps: int = 120) -> engine.State:
    """A player's decision after about ``steps`` random steps."""
    s = engine.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_over():
            break
        s = s.apply(s.sample_chance() if s.decision.kind == "chance"
                    else rng.choice(s.legal_steps()))
    while not s.is_over() and s.decision.kind == "chance":
        s = s.apply(s.sample_chance())
    assert not s.is_over()
    return s


def finished() -> engine.State:
    """A finished game."""
    s = engine.new_game(players=2, seed=3)
    rng = random.Random(3)
    while not s.is_over():
        s = s.apply(s.sample_chance() if s.decision.kind == "chance"
                    else rng.choice(s.legal_steps()))
    return s


def chance_pending() -> engine.State:
    """A state waiting for a chance event."""
    return engine.new_game(players=2, seed=2)


def state_json(s: engine.State) -> dict[str, Any]:
    return engine.state_to_json(s)


# -- seat tokens: the games a test created, and the header each request needs ---------------

TOKENS: dict[str, dict[int, str]] = {}


def remember(game: dict[str, Any]) -> dict[str, Any]:
    """Keep the seat tokens of a creation answer (``tokens``) for :func:`auth`."""
    TOKENS[game["id"]] = {int(k): v for k, v in game["tokens"].items()}
    return game


def new_game(api: Any, seats: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """Create a game through ``api`` (201 expected, else the test fails with the answer);
    its creation answer, with the seat tokens remembered for :func:`auth`."""
    r = api.post("/v1/games", json={"seats": seats, **kw})
    assert r.status_code == 201, r.text
    return remember(r.json())


def auth(gid: str, seat: int | None = None) -> dict[str, str]:
    """The ``Authorization`` header of ``seat``'s token in game ``gid`` (remembered at
    creation); a seat without a token of its own (live mode: any token acts for every
    seat) gets the lowest seat's; ``seat`` None: the lowest seat's."""
    tokens = TOKENS.get(gid, {})
    if not tokens:
        return {}
    token = tokens.get(seat) if seat is not None else None
    return {"Authorization": f"Bearer {token or tokens[min(tokens)]}"}


# -- a game played through the API to the steps whose words need the board before them ----

# Steps whose words name something the board loses when they are taken (and the moves
# that lead to them), preferred so that a short game meets them all.
CONTEXT_FIRST = ("buy", "take", "return", "enter", "goods", "keeper", "expand", "plan",
                 "ready", "unit", "place", "pounds", "stop", "end")


def play_to_context_steps(client: Any, gid: str, kinds: tuple[str, ...] = ("buy", "take",
                                                                            "enter"),
                          limit: int = 600) -> set[str]:
    """Play a game of human seats (tokens remembered) through ``client`` (a TestClient
    or an ``httpx.Client`` with the service's base URL), each step the first of
    :data:`CONTEXT_FIRST` legal, until every kind of ``kinds`` was played; the kinds
    played."""
    seen: set[str] = set()
    for _ in range(limit):
        v = client.get(f"/v1/games/{gid}", params={"seat": 1, "wait": 0},
                       headers=auth(gid, 1)).json()
        if v["over"] or set(kinds) <= seen:
            break
        seat = (v["decision"]["seats"] or [v["decision"]["seat"]])[0]
        legal = [x["text"] for x in client.get(f"/v1/games/{gid}", params={
            "seat": seat, "wait": 0}, headers=auth(gid, seat)).json()["legal"]]
        first = [t.split()[0] for t in legal]
        pick = next((legal[first.index(k)] for k in CONTEXT_FIRST if k in first), legal[0])
        seen.add(pick.split()[0])
        r = client.post(f"/v1/games/{gid}/steps", json={"seat": seat, "step": pick},
                        headers=auth(gid, seat))
        assert r.status_code == 200, r.text
    return seen
