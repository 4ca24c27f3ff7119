"""The search's bookkeeping drive (``SearchConfig.book_drive``, ``search/routes.py``).

The drive adds a share of the bookkeeping route's bonus to the estimated money the
search selects by: the route's progress that the final money counts later ("the last
value your ink jar marker has passed on your bookkeeping track", rulebook) is steered
towards over several rounds. It must never reach the money or the win chances the
search reports, and it is gone once the game is over.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import apply_move, new_game, observe
from search.bot_specs import make_bot
from search.evaluator import rounds_left
from search.features import player_features
from search.mcts import MCTS, SearchConfig
from search.routes import bookkeeping_drive, route_bonus
from search.specialists import SpecialistBot


def _random_states(seed: int, count: int) -> list[engine.State]:
    rng = random.Random(seed)
    s = new_game(players=2, seed=seed)
    out = []
    while not s.is_over():
        if s.decision.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        legal = s.legal_steps()
        s = s.apply(legal[rng.randrange(len(legal))])
        out.append(s)
    return out[:: max(1, len(out) // count)]


def test_the_drive_is_the_bookkeeping_bonus_fading_with_the_rounds_left() -> None:
    for s in _random_states(3, 40):
        assert bookkeeping_drive(s, 0.0) is None
        drive = bookkeeping_drive(s, 2.0)
        assert drive is not None and len(drive) == s.n
        fade = rounds_left(s) / engine.ROUNDS
        for i in range(s.n):
            assert drive[i] == pytest.approx(2.0 * fade * route_bonus(s, i, "bookkeeper"))


def test_the_drive_is_gone_once_the_game_is_over() -> None:
    s = new_game(players=2, seed=5)
    rng = random.Random(5)
    while not s.is_over():
        s = s.apply(s.sample_chance() if s.decision.kind == "chance"
                    else rng.choice(s.legal_steps()))
    assert bookkeeping_drive(s, 3.0) is None


def test_the_specialist_judges_by_the_same_route_bonus() -> None:
    """One definition of route progress: the bookkeeping specialist's bonus is the
    search's drive before the weight and the fade."""
    bot = SpecialistBot("bookkeeper", strength=1.5)
    for s in _random_states(8, 10):
        for i in range(s.n):
            assert bot.route_bonus(s, i) == pytest.approx(1.5 * route_bonus(s, i, "bookkeeper"))


def test_the_features_of_one_state_are_computed_once_and_the_same() -> None:
    a, b = _random_states(4, 2)[:2]
    rows = player_features(a)
    assert player_features(a) is rows  # asked again: the same rows, not computed again
    other = player_features(b)
    assert player_features(a) == rows and other is not rows


def _planning_observation(seed: int) -> engine.Observation:
    s = new_game(players=2, seed=seed)
    while s.decision.kind == "chance":
        s = s.apply(s.sample_chance())
    return observe(s, s.decision.player)


def test_reported_money_and_win_chances_never_hold_the_drive() -> None:
    obs = _planning_observation(2)
    result = MCTS(SearchConfig(iterations=120, seed=1, book_drive=3.0)).search(obs)
    root = result.root
    assert root is not None
    driven = [child for child in root.children.values() if child.d is not None]
    assert driven and any(any(x > 0 for x in child.d or ()) for child in driven)
    for line in result.lines:
        child = root.children[line.step]
        assert line.money == [x / child.n for x in child.m]
        assert line.win == [x / child.n for x in child.w]


def test_without_a_drive_no_node_carries_one() -> None:
    obs = _planning_observation(2)
    result = MCTS(SearchConfig(iterations=120, seed=1, book_drive=0.0)).search(obs)
    assert result.root is not None
    stack = [result.root]
    while stack:
        node = stack.pop()
        assert node.d is None
        stack.extend(node.children.values())


def _keeper_actions(spec: str, seeds: range) -> int:
    used = 0
    for seed in seeds:
        s = new_game(players=2, seed=seed)
        bots = [make_bot(spec, seed=seed * 7 + i) for i in range(2)]
        while not s.is_over():
            d = s.decision
            if d.kind == "chance":
                s = s.apply(s.sample_chance())
                continue
            move = bots[d.player].choose(observe(s, d.player))
            used += sum(step.kind == "keeper" for step in move.steps)
            s = apply_move(s, move)
    return used


def test_a_driven_search_uses_the_bookkeeper_more() -> None:
    """The drive does what it is for: in short self-play the driven search takes the
    bookkeeper action more often than the same search without it (same seeds)."""
    seeds = range(2)
    plain = _keeper_actions("mcts:iterations=40,drive=0", seeds)
    driven = _keeper_actions("mcts:iterations=40,drive=3", seeds)
    assert driven > plain
