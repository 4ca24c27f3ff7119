"""How the search pictures a plan it cannot see (rulebook, "1. Planning phase": cards
from the hand into the action slots, face down until all reveal).

The search makes another player's hidden plan, and the rest of a plan it is judging,
with :func:`search.policy.plan_step`: the leftmost free slot, a random card, ready when
no slot is free (now and then earlier, as players keep a card back)."""

from __future__ import annotations

import random
from functools import partial

import pytest

import engine
import search.policy as policy_module
from search.mcts import MCTS, SearchConfig
from search.policy import HOLD_BACK, plan_step, policy_step


def _planning_state(seed: int) -> engine.State:
    s = engine.new_game(players=2, seed=seed)
    while s.decision.kind != "plan":
        s = s.apply(s.sample_chance() if s.decision.kind == "chance" else s.legal_steps()[0])
    return s


def _plan_out(s: engine.State, choose) -> list[engine.Step]:  # type: ignore[no-untyped-def]
    """Every step of the deciding player's plan, made by ``choose(state)``."""
    me = s.decision.player
    steps = []
    while s.decision.kind == "plan" and s.decision.player == me:
        step = choose(s)
        steps.append(step)
        s = s.apply(step)
    return steps


def test_plan_step_fills_slots_from_the_left_without_gaps() -> None:
    s = _planning_state(5)
    free = sorted({st.b for st in s.legal_steps() if st.kind == "plan"})
    for seed in range(60):
        steps = _plan_out(s, partial(plan_step, rng=random.Random(seed)))
        slots = [st.b for st in steps if st.kind == "plan"]
        assert slots == free[:len(slots)]  # left to right, none skipped
        assert steps[-1].kind == "ready"
        assert len({st.a for st in steps if st.kind == "plan"}) == len(slots)


def test_plan_step_places_about_as_many_cards_as_players_do() -> None:
    """Each card is kept back with chance HOLD_BACK, so the mean number placed is the
    sum over the free slots of (1 - HOLD_BACK)^k; the slot-blind policy leaves slots
    empty behind a card placed further right, and places far fewer."""
    s = _planning_state(5)
    free = len({st.b for st in s.legal_steps() if st.kind == "plan"})
    expected = sum((1 - HOLD_BACK) ** k for k in range(1, free + 1))
    rng = random.Random(0)
    games = 2000
    placed = sum(sum(st.kind == "plan" for st in _plan_out(s, lambda st: plan_step(st, rng)))
                 for _ in range(games)) / games
    assert placed == pytest.approx(expected, abs=0.1)
    by_policy = sum(sum(st.kind == "plan" for st in _plan_out(s, lambda st: policy_step(st, rng)))
                    for _ in range(400)) / 400
    assert by_policy < expected - 0.5


def test_plan_step_is_ready_when_every_slot_is_taken() -> None:
    s = _planning_state(5)
    rng = random.Random(0)
    while True:
        plans = [st for st in s.legal_steps() if st.kind == "plan"]
        if not plans:
            break
        s = s.apply(min(plans, key=lambda st: st.b))
    assert plan_step(s, rng).kind == "ready"


def test_search_makes_the_hidden_plan_with_plan_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """rules-decisions.md, Hidden information: the searcher planning first never sees the
    other's plan; the search makes it inside each iteration with plan_step (never with
    the slot-blind policy), so the other's plan fills its slots."""
    s = _planning_state(11)
    me = s.decision.player
    made: list[tuple[int, str]] = []
    policy_kinds: list[tuple[int, str]] = []
    real_plan, real_policy = policy_module.plan_step, policy_module.policy_step

    def spy_plan(state, rng, legal=None):  # type: ignore[no-untyped-def]
        made.append((state.decision.player, state.decision.kind))
        return real_plan(state, rng, legal)

    def spy_policy(state, rng, legal=None, **kw):  # type: ignore[no-untyped-def]
        policy_kinds.append((state.decision.player, state.decision.kind))
        return real_policy(state, rng, legal, **kw)

    monkeypatch.setattr(policy_module, "plan_step", spy_plan)
    monkeypatch.setattr(policy_module, "policy_step", spy_policy)
    MCTS(SearchConfig(iterations=300, seed=1)).search(engine.observe(s, me))
    assert (1 - me, "plan") in made
    assert all(kind != "plan" for _, kind in policy_kinds)
