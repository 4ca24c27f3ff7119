"""``SearchConfig.plan``: which of its own plan steps the search holds, and ``plan_c``,
how widely it explores them. A card's slot
decides only which resting deck it joins (rounds-and-planning: "choose the slot of every
card with care: it decides with which other cards it comes back"; "In rounds 6 and 7
the slot no longer matters"), so ``late`` drops the slot choice where it changes
nothing and ``leftmost`` everywhere."""

from __future__ import annotations

import random

import pytest

import engine
from engine import State, Step
from search.candidates import leftmost_plan_steps
from search.mcts import LATE_ROUND, MCTS, Node, SearchConfig
from tests.builders import play_setup


def _planning_in(round_: int, seed: int = 3) -> State:
    """The first Planning decision of ``round_`` in a random game."""
    rng = random.Random(seed)
    s = play_setup(seed=seed)
    while not (s.round == round_ and s.decision.kind == "plan" and s.decision.slot == -1):
        assert not s.is_over()
        s = s.apply(s.random_step(rng))
    return s


def _plan_slots(steps: list[Step]) -> set[int]:
    return {st.b for st in steps if st.kind == "plan"}


def test_late_means_rounds_6_and_7() -> None:
    """rounds-and-planning: "In rounds 6 and 7 the slot no longer matters"."""
    assert LATE_ROUND == 6 and engine.ROUNDS == 7


def test_leftmost_keeps_ready_and_the_first_free_slot_only() -> None:
    s = _planning_in(1)
    legal = s.legal_steps()
    assert len(_plan_slots(legal)) >= 3
    kept = leftmost_plan_steps(legal)
    assert _plan_slots(kept) == {min(_plan_slots(legal))}
    assert [st for st in kept if st.kind != "plan"] == [st for st in legal if st.kind != "plan"]
    cards = {st.a for st in legal if st.kind == "plan"}
    assert {st.a for st in kept if st.kind == "plan"} == cards  # every card still offered
    not_planning = [Step("ready", -1, -1, -1)]
    assert leftmost_plan_steps(not_planning) == not_planning
    # in card order: only cards numbered above the one planned last
    middle = sorted(cards)[len(cards) // 2]
    later = leftmost_plan_steps(legal, after_card=middle)
    assert {st.a for st in later if st.kind == "plan"} == {c for c in cards if c > middle}
    assert leftmost_plan_steps(legal, after_card=max(cards)) == [
        st for st in legal if st.kind != "plan"]


@pytest.mark.parametrize(("plan", "round_", "cut"), [
    ("all", 1, False), ("all", 6, False),
    ("late", 1, False), ("late", 5, False), ("late", 6, True), ("late", 7, True),
    ("leftmost", 1, True), ("leftmost", 5, True), ("leftmost", 7, True)])
def test_the_root_holds_the_plan_steps_the_setting_keeps(plan: str, round_: int,
                                                          cut: bool) -> None:
    s = _planning_in(round_)
    obs = engine.observe(s, s.decision.player)
    search = MCTS(SearchConfig(iterations=30, plan=plan))
    root = search.candidates(obs)
    legal = s.legal_steps()
    assert root == (leftmost_plan_steps(legal) if cut else legal)
    result = search.search(obs)
    assert {line.step for line in result.lines} <= set(root)


def _own_plan_nodes(node: Node, me: int, planned: int = -1
                    ) -> list[tuple[int, list[Step]]]:
    """(the card planned last on the way, the steps held) for every node of ``me``'s
    plan decisions in the tree."""
    out = []
    if node.player == me and any(st.kind == "plan" for st in node.children):
        out.append((planned, list(node.children)))
    for step, child in node.children.items():
        out += _own_plan_nodes(child, me, step.a if step.kind == "plan" else planned)
    return out


def test_leftmost_holds_in_the_tree_below_the_root() -> None:
    s = _planning_in(1)
    me = s.decision.player
    obs = engine.observe(s, me)
    result = MCTS(SearchConfig(iterations=400, plan="leftmost")).search(obs)
    levels = _own_plan_nodes(result.root, me)
    assert len(levels) > 1  # the root and plan decisions below it
    assert all(len(_plan_slots(steps)) == 1 for _, steps in levels)
    assert any(last >= 0 for last, _ in levels)
    assert all(st.a > last for last, steps in levels for st in steps if st.kind == "plan")
    wide = _own_plan_nodes(MCTS(SearchConfig(iterations=400)).search(obs).root, me)
    assert any(len(_plan_slots(steps)) > 1 for _, steps in wide)
    assert any(st.a < last for last, steps in wide for st in steps if st.kind == "plan")


def test_a_setting_not_offered_is_refused() -> None:
    with pytest.raises(ValueError, match="plan: one of all, late, leftmost, got 'left'"):
        SearchConfig(iterations=10, plan="left")


def _root_visits(obs: engine.Observation, **knobs: object) -> list[int]:
    result = MCTS(SearchConfig(iterations=600, seed=2, **knobs)).search(obs)  # type: ignore[arg-type]
    return sorted((line.visits for line in result.lines), reverse=True)


def test_plan_c_explores_the_planning_root_more() -> None:
    """``plan_c``: UCB's constant at the searcher's own Planning decisions only."""
    s = _planning_in(2)
    obs = engine.observe(s, s.decision.player)
    greedy, spread = _root_visits(obs, plan_c=0.0), _root_visits(obs, plan_c=5.0)
    assert greedy[0] > spread[0] and len([v for v in spread if v > 10]) > len(
        [v for v in greedy if v > 10])
    assert _root_visits(obs) == _root_visits(obs, plan_c=0.3)  # None: c_uct (0.3)


def test_plan_c_leaves_other_decisions_alone() -> None:
    rng = random.Random(4)
    s = play_setup(seed=4)
    while s.decision.kind != "action":
        s = s.apply(s.random_step(rng))
    obs = engine.observe(s, s.decision.player)
    assert _root_visits(obs, plan_c=5.0) == _root_visits(obs)
    with pytest.raises(ValueError, match="plan_c: expected a finite number in"):
        SearchConfig(iterations=10, plan_c=11.0)
