"""Planning and the starting-tile choice are simultaneous (rounds-and-planning.txt:
"All players place their cards at the same time"; rulebook.txt, Setup 13: "Each player
looks at his 2 tiles, secretly chooses one of them"). Every seat still deciding may go
first; no seat's choice depends on another's; the reveal comes after the last."""

from __future__ import annotations

import itertools
import random

import pytest

import engine
from engine import IllegalStep


def _at_planning(players: int, seed: int, variable: bool = False) -> engine.State:
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rng = random.Random(seed)
    while s.decision.kind != "plan":
        d = s.decision
        s = s.apply(s.sample_chance() if d.is_chance else rng.choice(s.legal_steps()))
    return s


def _plan(s: engine.State, seat: int, rng: random.Random) -> tuple[engine.State, list[engine.Step]]:
    """Seat ``seat`` plans some cards and says ready; returns the state and its steps."""
    steps = []
    while True:
        legal = s.legal_steps(player=seat)
        plans = [st for st in legal if st.kind == "plan"]
        step = rng.choice(plans) if plans and rng.random() < 0.8 else legal[0]
        s = s.apply(step, player=seat)
        steps.append(step)
        if step.kind == "ready":
            return s, steps


def test_every_seat_plans_at_once_in_turn_order_from_the_first_player() -> None:
    s = _at_planning(4, 3)
    first = s.first
    assert s.decision.seats == tuple((first + k) % 4 for k in range(4))
    assert s.decision.player == first and s.decision.simultaneous
    for seat in range(4):
        assert s.legal_steps(player=seat), seat
        assert s.decide_as(seat).decision.player == seat


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_order_of_planning_does_not_change_the_game(players: int) -> None:
    """The same plans entered in every order of the seats give the same position."""
    s = _at_planning(players, 10 + players)
    plans = {}
    base = s
    for seat in range(players):
        _, plans[seat] = _plan(base, seat, random.Random(seat))
    results = set()
    for order in itertools.permutations(range(players)):
        cur = s
        for seat in order:
            for step in plans[seat]:
                cur = cur.apply(step, player=seat)
        assert cur.phase_name == "actions" and cur.revealed
        results.add(cur)
    assert len(results) == 1


def test_a_seat_that_is_done_or_not_deciding_is_refused_and_nothing_changes() -> None:
    s = _at_planning(3, 4)
    seat = s.decision.seats[1]
    after, _ = _plan(s, seat, random.Random(1))
    assert seat not in after.decision.seats
    before = after.key()
    with pytest.raises(IllegalStep, match=rf"P{seat + 1} has no decision now"):
        after.apply(after.legal_steps()[0], player=seat)
    assert after.key() == before
    with pytest.raises(IllegalStep, match=rf"P{seat + 1} has no decision now"):
        after.legal_steps(player=seat)


def test_a_seat_sees_itself_deciding_and_never_another_seats_plan() -> None:
    s = _at_planning(3, 5)
    last = s.decision.seats[-1]
    first = s.decision.seats[0]
    card = next(st for st in s.legal_steps(player=first) if st.kind == "plan")
    s = s.apply(card, player=first).apply(engine.Step("ready"), player=first)  # face down
    obs = engine.observe(s, last)
    assert obs.state.decision.player == last
    assert all(c == engine.HIDDEN for c in obs.state.players[first].slots if c != -1)
    assert any(c == engine.HIDDEN for c in obs.state.players[first].slots)


def test_a_seat_may_start_planning_while_an_earlier_seat_is_still_planning() -> None:
    s = _at_planning(2, 6)
    a, b = s.decision.seats
    plan_a = next(st for st in s.legal_steps(player=a) if st.kind == "plan")
    s = s.apply(plan_a, player=a)  # a placed one card, not ready
    plan_b = next(st for st in s.legal_steps(player=b) if st.kind == "plan")
    s = s.apply(plan_b, player=b)
    assert s.decision.player == b and set(s.decision.seats) == {a, b}
    s = s.apply(engine.Step("ready"), player=b)
    assert s.decision.seats == (a,) and s.decision.slot == plan_a.b
    s = s.apply(engine.Step("ready"), player=a)
    assert s.phase_name == "actions"


def test_starting_tiles_are_chosen_in_any_order() -> None:
    s = engine.new_game(players=3, seed=4, variable=True)
    while s.decision.is_chance:
        s = s.apply(s.sample_chance())
    assert s.decision.kind == "starting-tile" and s.decision.seats == (0, 1, 2)
    chosen = {}
    for seat in (2, 0, 1):
        step = s.legal_steps(player=seat)[-1]
        chosen[seat] = step.a
        s = s.apply(step, player=seat)
    assert [p.tile for p in s.players] == [chosen[0], chosen[1], chosen[2]]


def test_a_move_of_a_later_seat_is_applied_whole() -> None:
    s = _at_planning(3, 7)
    seat = s.decision.seats[2]
    _, steps = _plan(s, seat, random.Random(3))
    after = engine.apply_move(s, engine.Move(seat, tuple(steps)))
    assert seat not in after.decision.seats and len(after.decision.seats or ()) == 2


def test_the_last_planner_who_acts_first_has_a_complete_move() -> None:
    """A move ends where the turn ends: the first player planning last goes straight on
    to its action, and its planning move is complete (a half plan is not)."""
    s = _at_planning(2, 7)
    first = s.decision.seats[0]
    s, _ = _plan(s, s.decision.seats[1], random.Random(5))
    _, steps = _plan(s, first, random.Random(6))
    after = engine.apply_move(s, engine.Move(first, tuple(steps)))
    assert after.decision.kind == "action" and after.decision.player == first
    assert steps[-1].kind == "ready" and len(steps) > 1
    with pytest.raises(IllegalStep, match="move incomplete"):
        engine.apply_move(s, engine.Move(first, tuple(steps[:-1])))


def test_files_saved_before_simultaneous_planning_load_as_the_same_game() -> None:
    """A ``mombasa-state/2`` file written while Planning was asked seat by seat lists
    only the seat planning now; it loads with every later seat queued and the reveal."""
    s = _at_planning(3, 8)
    first = s.decision.seats[0]
    s, _ = _plan(s, first, random.Random(4))  # the first seat is done: two still plan
    saved = engine.state_to_json(s)
    assert [e.get("decision") or e.get("then") for e in saved["pending"][:3]] == \
        ["plan", "plan", "reveal"]
    old = dict(saved, pending=[saved["pending"][0]] + saved["pending"][3:])
    assert engine.state_from_json(old) == s


def test_at_a_live_table_the_tiles_dealt_to_others_are_never_asked() -> None:
    """Issue 14: only the tile each other seat keeps is entered, at the reveal. A tile
    dealt face down to another seat is ``deal-tile P1 ?``; that seat may then keep any
    tile nobody else holds or kept."""
    s = engine.new_game(players=3, seed=9, variable=True)
    me = 1
    mine = []
    while s.decision.is_chance:
        d = s.decision
        if d.event == "deal-tile" and d.target != me:
            step = engine.Step.parse(f"deal-tile P{d.target + 1} ?", s.cat)
            assert step not in s.legal_steps()  # never a chance outcome of play mode
        else:
            step = s.sample_chance()
            if d.event == "deal-tile":
                mine.append(step.b)
        s = s.apply(step)
    assert s.players[me].tile_options == tuple(mine)
    assert [x.a for x in s.legal_steps(player=me)] == mine
    others = [x.a for x in s.legal_steps(player=0)]
    assert sorted(others) == [t for t in range(len(s.cat.starting_tiles)) if t not in mine]
    s = s.apply(engine.Step("tile", mine[0]), player=me)
    s = s.apply(engine.Step("tile", others[0]), player=0)
    third = [x.a for x in s.legal_steps(player=2)]
    assert others[0] not in third and mine[0] not in third and mine[1] not in third
    s = s.apply(engine.Step("tile", third[-1]), player=2)
    assert [p.tile for p in s.players] == [others[0], mine[0], third[-1]]
    assert engine.check_invariants(s) == []
    assert engine.state_from_json(engine.state_to_json(s)) == s


def test_an_unseen_deal_is_only_for_the_seat_being_dealt_to() -> None:
    s = engine.new_game(players=2, seed=9, variable=True)
    while s.decision.event != "deal-tile":
        s = s.apply(s.sample_chance())
    target = s.decision.target
    wrong = engine.Step.parse(f"deal-tile P{2 - target} ?", s.cat)
    with pytest.raises(IllegalStep):
        s.apply(wrong)
    assert engine.Step.parse(f"deal-tile P{target + 1} ?", s.cat).text(s.cat) == \
        f"deal-tile P{target + 1} ?"
