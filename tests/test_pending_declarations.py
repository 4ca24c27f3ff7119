"""The work queue's operations are declared once, with the rules that own them
(``engine.rules.PENDING``): the decisions they ask for, the state format, its strict
checks and the invariants all follow the declarations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from engine import StateFormatError, state_from_json, state_to_json
from engine.primitives import PHASE_NAMES
from engine.rules import CHANCE_EVENTS, OP_KINDS, PENDING, SIMULTANEOUS_OPS
from engine.rules.pending import CHANCE, DECISION, THEN
from tests.random_games import game_states


def test_public_tables_follow_the_declarations() -> None:
    assert {op: p.name for op, p in PENDING.items() if p.entry == DECISION} == OP_KINDS
    assert {op: p.name for op, p in PENDING.items() if p.entry == CHANCE} == CHANCE_EVENTS
    assert {"plan", "tile"} == SIMULTANEOUS_OPS
    names = [(p.entry, p.name) for p in PENDING.values()]
    assert len(set(names)) == len(names), "two operations share an entry name"


def test_every_pending_item_agrees_with_its_declaration() -> None:
    """In the states of random games: each item has the declared number of arguments,
    stands in a phase its declaration allows, and the decision asked for is the
    declared kind (the chance event the declared step kind)."""
    seen = set()
    for s in game_states(3, 2, False):
        d = s.decision
        for k, item in enumerate(s.todo):
            p = PENDING[item[0]]
            seen.add(p.op)
            assert len(item) == p.args_at + len(p.fields), item
            assert s.phase in p.phases, (item, PHASE_NAMES[s.phase])
            if k == 0:
                assert p.entry != THEN, item
                assert (d.event if p.entry == CHANCE else d.kind) == p.name, (item, d)
            if p.player:
                assert 0 <= item[1] < s.n, item
    assert {"act", "plan", "buy", "c_card", "finish", "reveal"} <= seen


def test_an_entry_is_written_by_its_declared_names() -> None:
    s = engine.new_game(players=2, seed=1)
    entry = state_to_json(s)["pending"][0]
    p = PENDING[s.todo[0][0]]
    assert set(entry) == {p.entry, *(f for f, _ in p.fields)} | ({"player"} if p.player
                                                                    else set())


def _v1() -> dict:
    pair = json.loads((Path(__file__).parent / "data" / "states_v1_v2.json").read_text())[0]
    return pair["v1"]


@pytest.mark.parametrize("op", ["order", "pay"])
def test_operations_added_after_version_1_are_unknown_there(op: str) -> None:
    v1 = _v1()
    bad = dict(v1, todo=[*v1["todo"], [op, v1["turn"], 0, 0, 0, 0]])
    with pytest.raises(StateFormatError, match=rf"^todo\[1\]: unknown operation '{op}'"):
        state_from_json(bad)


def test_a_version_1_item_takes_its_declared_arguments() -> None:
    v1 = _v1()
    bad = dict(v1, todo=[*v1["todo"], ["track", v1["turn"], 0]])
    with pytest.raises(StateFormatError, match=r"^todo\[1\]: 'track' takes 3 arguments"):
        state_from_json(bad)


@pytest.mark.parametrize("key", ["decision", "chance", "then"])
def test_an_entry_name_that_is_not_a_string(key: str) -> None:
    js = state_to_json(engine.new_game(players=2, seed=1))
    js["pending"][0] = {key: ["deal-card"]}
    with pytest.raises(StateFormatError, match=rf"^pending\[0\]\.{key}: unknown \["):
        state_from_json(js)


def test_posts_on_their_way_home_are_counted() -> None:
    """An ousted post waiting in the queue (``oust``'s company, ``enter``'s ousted
    companies) counts towards its company's 15: one more breaks the count."""
    s = next(s for s in game_states(3, 3, False) if s.decision.kind == "action")
    assert engine.check_invariants(s) == []
    for extra in (("oust", s.turn, 1), ("enter", s.turn, 0, 0, (), (1,))):
        broken = s.clone()
        broken.todo = broken.todo + (extra,)
        cid = s.cat.companies[1].id
        assert any(v.startswith(f"trading posts of {cid}: ") and "going home 1)" in v
                   for v in engine.check_invariants(broken)), extra
