"""The search reads positions and never writes them (issue 51: search and the service
read many of ``State``'s fields directly, for speed; only the engine may change one).

A state handed out is shared: the search keeps it in trees and caches, the service in a
game's history. A write through a field (a player's cash, a mask, the work queue) would
change a position everyone else still holds. Every reader is run on real positions here
and the position compared, field by field, with a copy taken before.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine import State
from search.bench.positions import mid_game
from search.bot_specs import make_bot
from search.candidates import candidate_steps
from search.evaluator import estimate_money, evaluate
from search.features import player_features
from search.policy import policy_step, rollout_step
from search.solvers import best_bookkeeping, best_expansions


def _snapshot(s: State) -> tuple[Any, ...]:
    """Every field of the state and of its players, as values."""
    players = tuple(tuple(getattr(p, f) for f in type(p).__slots__ if not f.startswith("_"))
                    for p in s.players)
    return (engine.state_to_json(s), s.key(), players)


def _positions() -> list[State]:
    """Positions of every kind of decision: mid-game for 2-4 players, and those a
    random game passes through (with expansion and bookkeeping decisions)."""
    out = [mid_game(players=n, seed=n, round_=r) for n in (2, 3, 4) for r in (1, 4, 7)]
    s = engine.new_game(players=3, seed=11)
    rng = random.Random(11)
    kinds: set[str] = set()
    while not s.is_over():
        d = s.decision
        if d.kind not in kinds and d.kind != "chance":
            kinds.add(d.kind)
            out.append(s)
        s = s.apply_unchecked(s.random_step(rng))
    assert {"expansion", "bookkeeping-points", "plan", "action"} <= kinds
    return out


POSITIONS = _positions()


READERS: dict[str, Callable[[State], object]] = {
    "legal steps and candidates": lambda s: candidate_steps(s, s.legal_steps()),
    "evaluators": lambda s: (evaluate(s, evaluator="learned"), evaluate(s),
                             estimate_money(s), player_features(s)),
    "policy and rollout steps": lambda s: (policy_step(s, random.Random(1)),
                                           rollout_step(s, random.Random(2))),
    "solvers": lambda s: (best_expansions(s, s.decision.company, k=2)
                          if s.decision.kind == "expansion" else
                          best_bookkeeping(s, k=2)
                          if s.decision.kind == "bookkeeping-points" else None),
    "observe and determinize": lambda s: engine.determinize(
        engine.observe(s, max(0, s.decision.player)), random.Random(3)),
    "the greedy bot": lambda s: make_bot("greedy").choose(
        engine.observe(s, s.decision.player)),
    "the MCTS bot": lambda s: make_bot("mcts:iterations=30").choose(
        engine.observe(s, s.decision.player)),
}


@pytest.mark.parametrize("reader", list(READERS))
def test_readers_leave_the_position_unchanged(reader: str) -> None:
    read = READERS[reader]
    checked = 0
    for s in POSITIONS:
        if s.decision.is_chance or s.is_over():
            continue
        before = _snapshot(s)
        read(s)
        assert _snapshot(s) == before, f"{reader} changed the position {s!r}"
        checked += 1
    assert checked >= 10


def test_the_snapshot_sees_a_write() -> None:
    """The comparison itself: a write through a player's field or the queue shows."""
    s = mid_game(players=2, seed=1, round_=3)
    before = _snapshot(s)
    s.players[0].cash += 1
    assert _snapshot(s) != before
    s.players[0].cash -= 1
    assert _snapshot(s) == before
    s.todo = s.todo + (("round",),)
    assert _snapshot(s) != before


def test_random_games_leave_their_start_unchanged() -> None:
    """A game played from a position never changes that position."""
    s = mid_game(players=4, seed=2, round_=2)
    before = _snapshot(s)
    t = s
    rng = random.Random(5)
    while not t.is_over():
        t = t.apply_unchecked(t.random_step(rng))
    assert _snapshot(s) == before
