"""``SearchConfig.plan``: which of its own plan steps the search holds. A card's slot
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


@pytest.mark.parametrize(("plan", "round_", "cut"), [
    ("all", 1, False), ("all", LATE_ROUND, False),
    ("late", 1, False), ("late", LATE_ROUND, True),
    ("leftmost", 1, True), ("leftmost", LATE_ROUND, True)])
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


def _own_plan_children(node: Node, me: int) -> list[list[Step]]:
    """The steps held below every node of ``me``'s plan decisions in the tree."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.player == me and any(st.kind == "plan" for st in n.children):
            out.append(list(n.children))
        stack.extend(n.children.values())
    return out


def test_leftmost_holds_in_the_tree_below_the_root() -> None:
    s = _planning_in(1)
    me = s.decision.player
    obs = engine.observe(s, me)
    result = MCTS(SearchConfig(iterations=400, plan="leftmost")).search(obs)
    levels = _own_plan_children(result.root, me)
    assert len(levels) > 1  # the root and plan decisions below it
    assert all(len(_plan_slots(steps)) == 1 for steps in levels)
    wide = _own_plan_children(MCTS(SearchConfig(iterations=400)).search(obs).root, me)
    assert any(len(_plan_slots(steps)) > 1 for steps in wide)


def test_a_setting_not_offered_is_refused() -> None:
    with pytest.raises(ValueError, match="plan: one of all, late, leftmost, got 'left'"):
        SearchConfig(iterations=10, plan="left")
