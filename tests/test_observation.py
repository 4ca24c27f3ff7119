"""Observations hide exactly what a player cannot know; determinizations keep the rest.

Hidden (engine/observation.py, rules-decisions.md "Hidden information"): the cards other
players placed face down in Planning until the reveal, the starting tiles dealt to and
chosen by the others in the variable setup, and the state of the chance generator.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import (
    Step,
    check_invariants,
    determinize,
    observe,
)
from engine.state import HIDDEN, OVER, PLANNING, State
from tests.builders import play_setup, with_player
from tests.random_games import MAX_STEPS, PROPERTY, SEEDS, game_states, state_at


def has_hidden(s: State, viewer: int) -> bool:
    o = observe(s, viewer).state
    return any(HIDDEN in p.slots or HIDDEN in p.tile_options or p.tile == HIDDEN
               for p in o.players)


def play_out(s: State, seed: int) -> State:
    rng = random.Random(seed)
    for _ in range(MAX_STEPS):
        if s.phase == OVER:
            return s
        s = s.apply_unchecked(s.random_step(rng))
    raise AssertionError("a determinized game does not end")


# -- nothing hidden leaks ---------------------------------------------------------------

def _planning_state(players: int, seed: int, variable: bool, skip: int) -> State | None:
    """A state where some player is about to plan (skipping ``skip`` such states)."""
    for s in game_states(players, seed, variable):
        if s.phase == PLANNING and s.decision.kind == "plan":
            if skip == 0:
                return s
            skip -= 1
    return None


def _two_plans(s: State, rng: random.Random) -> tuple[State, State]:
    """Two continuations of the decider's Planning: the same slots, different cards."""
    planner = s.decision.player
    a = b = s
    first = True
    while a.decision.kind == "plan" and a.decision.player == planner:
        plans_a = [x for x in a.legal_steps() if x.kind == "plan"]
        if not plans_a or (not first and rng.random() < 0.3):
            break
        step_a = rng.choice(plans_a)
        same_slot = [x for x in b.legal_steps() if x.kind == "plan" and x.b == step_a.b]
        assert same_slot, "plan B cannot fill the slot plan A filled"
        other = [x for x in same_slot if x.a != step_a.a]
        step_b = rng.choice(other if first and other else same_slot)
        a, b = a.apply(step_a), b.apply(step_b)
        first = False
    return a, b


@settings(PROPERTY, max_examples=150)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans(),
       skip=st.integers(0, 20), choice_seed=st.integers(0, 2**16))
def test_face_down_plans_are_hidden(seed: int, players: int, variable: bool, skip: int,
                                    choice_seed: int) -> None:
    s = _planning_state(players, seed, variable, skip)
    if s is None:
        return
    planner = s.decision.player
    a, b = _two_plans(s, random.Random(choice_seed))
    assert a.revealed is False and b.revealed is False
    for viewer in range(players):
        if viewer != planner:
            assert observe(a, viewer) == observe(b, viewer), (
                f"P{viewer + 1} can tell P{planner + 1}'s face-down plans apart")
    if a != b:
        assert observe(a, planner) != observe(b, planner), "the planner must see own cards"
    # Passing on to the next planner keeps them hidden until everyone is ready.
    ready_a, ready_b = a.apply(Step("ready")), b.apply(Step("ready"))
    if not ready_a.revealed:
        for viewer in range(players):
            if viewer != planner:
                assert observe(ready_a, viewer) == observe(ready_b, viewer)
    elif a != b:
        assert observe(ready_a, (planner + 1) % players) != observe(
            ready_b, (planner + 1) % players), "the reveal shows the plans"


def test_two_plans_of_p2_look_alike_to_p1_and_p3() -> None:
    """A concrete case: P2 plans card X or card Y in the same slot."""
    s = _planning_state(3, 11, False, 0)  # round 1: P1 plans first
    assert s is not None and (s.decision.kind, s.decision.player) == ("plan", 0)
    s = s.apply(next(x for x in s.legal_steps() if x.kind == "plan"))
    s = s.apply(Step("ready"))
    assert (s.decision.kind, s.decision.player) == ("plan", 1)
    plans = [x for x in s.legal_steps() if x.kind == "plan"]
    slot = plans[0].b
    x, y = [p for p in plans if p.b == slot][:2]
    a, b = s.apply(x), s.apply(y)
    assert a != b and a.players[1].slots != b.players[1].slots
    assert observe(a, 0) == observe(b, 0)
    assert observe(a, 2) == observe(b, 2)
    assert observe(a, 1) != observe(b, 1)
    o = observe(a, 0).state.players[1]
    assert o.slots[slot] == HIDDEN and (o.hand >> x.a) & 1 and (o.hand >> y.a) & 1


def _tile_setup_states(players: int, seed: int) -> Iterator[State]:
    """States of a variable setup from the starting-tile deal to the last tile choice."""
    for s in game_states(players, seed, True):
        if s.revealed or s.phase != 0:
            return
        if any(it[0] in ("c_tile", "tile") for it in s.todo):
            yield s


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_starting_tiles_of_others_are_hidden(players: int, seed: int) -> None:
    """Different deals to, or choices by, another player look the same to the others."""
    checked = 0
    for s in _tile_setup_states(players, seed):
        d = s.decision
        top = s.todo[0]
        if d.kind == "chance" and top[0] == "c_tile":
            target = top[2]  # the seat being dealt a tile
        elif d.kind == "starting-tile":
            target = d.player
        else:
            continue
        outcomes = s.legal_steps()
        assert len(outcomes) >= 2
        a, b = s.apply(outcomes[0]), s.apply(outcomes[-1])
        assert a != b
        assert observe(a, target) != observe(b, target), "a player sees own tiles"
        if a.revealed:  # the last choice: every chosen tile is revealed at once
            assert observe(a, (target + 1) % players) != observe(b, (target + 1) % players)
            continue
        for viewer in range(players):
            if viewer != target:
                assert observe(a, viewer) == observe(b, viewer), (
                    f"P{viewer + 1} sees {outcomes[0].text(s.cat)!r} vs "
                    f"{outcomes[-1].text(s.cat)!r}")
        checked += 1
    assert checked >= 3 * players - 1


@settings(PROPERTY, max_examples=40)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans(),
       stop=st.integers(0, 400), other_rng=st.integers(0, 2**64 - 1))
def test_rng_state_is_hidden(seed: int, players: int, variable: bool, stop: int,
                             other_rng: int) -> None:
    s = state_at(players, seed, variable, stop)
    t = s.clone()
    t.rng = other_rng
    for viewer in range(players):
        assert observe(s, viewer) == observe(t, viewer)
        assert observe(s, viewer).state.rng == 0


def test_observe_rejects_a_missing_seat() -> None:
    s = engine.new_game(players=2, seed=1)
    with pytest.raises(ValueError, match="viewer"):
        observe(s, 2)
    with pytest.raises(ValueError, match="viewer"):
        observe(s, -1)


# -- determinization ------------------------------------------------------------------

def check_determinization(s: State, viewer: int, rng: random.Random) -> State:
    obs = observe(s, viewer)
    violations = check_invariants(obs.state)  # hidden plan cards count in the hand
    assert violations == [], violations
    d = determinize(obs, rng)
    assert observe(d, viewer) == obs, "determinize changed what the viewer knows"
    assert not any(HIDDEN in p.slots or HIDDEN in p.tile_options or p.tile == HIDDEN
                   for p in d.players), "determinize left hidden entries"
    assert d.players[viewer] == s.players[viewer]
    violations = check_invariants(d)
    assert violations == [], violations
    # A seat in a simultaneous decision sees itself deciding (issue 14: Planning is
    # every unplanned seat's decision at once).
    own = s.decide_as(viewer) if viewer in s.decision.deciders else s
    assert d.decision == own.decision
    return d


@settings(PROPERTY, max_examples=150)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans(),
       biased=st.booleans(), stop=st.integers(0, 350), det_seed=st.integers(0, 2**32),
       data=st.data())
def test_determinize_keeps_what_the_viewer_knows(
        seed: int, players: int, variable: bool, biased: bool, stop: int, det_seed: int,
        data: st.DataObject) -> None:
    s = state_at(players, seed, variable, stop, biased)
    viewer = data.draw(st.integers(0, players - 1), label="viewer")
    d = check_determinization(s, viewer, random.Random(det_seed))
    end = play_out(d, det_seed)
    assert end.phase == OVER and check_invariants(end) == []


@pytest.mark.parametrize(("players", "seed", "variable"),
                         [(2, 5, True), (3, 6, True), (4, 7, True), (4, 8, False)])
def test_determinize_every_hidden_state_of_a_game(players: int, seed: int,
                                                  variable: bool) -> None:
    """Every state with something hidden (mid-Planning, starting-tile deal and choice)."""
    rng = random.Random(seed)
    hidden = 0
    planning_hidden = tile_hidden = 0
    for s in game_states(players, seed, variable):
        for viewer in range(players):
            if not has_hidden(s, viewer):
                continue
            hidden += 1
            if s.phase == PLANNING:
                planning_hidden += 1
            else:
                tile_hidden += 1
            check_determinization(s, viewer, rng)
    assert planning_hidden > 20
    assert tile_hidden > 0 or not variable


@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinize_samples_the_hidden_plans(players: int) -> None:
    """Different generators give different hidden plans (the true plan is not leaked),
    always drawn from the planner's own non-share cards."""
    s = _planning_state(players, 21, False, 0)  # round 1: P1 holds 7 cards
    assert s is not None
    planner = s.decision.player
    for _ in range(2):
        s = s.apply(next(x for x in s.legal_steps() if x.kind == "plan"))
    s = s.apply(Step("ready"))
    viewer = (planner + 1) % players
    seen = set()
    for k in range(40):
        d = check_determinization(s, viewer, random.Random(k))
        seen.add(d.players[planner].slots)
        for c in d.players[planner].slots:
            if c >= 0:
                assert s.cat.cards[c].kind != "share"
    assert len(seen) > 1, "determinize always returns the same hidden plan"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinize_deals_unknown_starting_tiles(players: int) -> None:
    for k, s in enumerate(_tile_setup_states(players, 40 + players)):
        for viewer in range(players):
            d = check_determinization(s, viewer, random.Random(k))
            options = [t for p in d.players for t in p.tile_options]
            assert len(options) == len(set(options)), "a starting tile dealt twice"
            for p in d.players:
                assert p.tile == -1 or p.tile in p.tile_options
            end = play_out(d, k)
            assert end.phase == OVER


def test_a_hidden_plan_never_holds_a_share_card_its_planner_holds() -> None:
    """rules (Planning): single-share cards are never planned. A planner who holds
    share cards and plans face down: every determinization of its plan, seen by the
    other player, draws only from its non-share cards, and the share cards stay in its
    hand (200 samples)."""
    s = play_setup(players=2, seed=4)
    planner = s.decision.player
    share_cards = [i for i, c in enumerate(s.cat.cards) if c.kind == "share"][:2]
    shares = sum(1 << i for i in share_cards)
    s = with_player(s, planner, hand=s.players[planner].hand | shares)
    for _ in range(2):
        s = s.apply(next(x for x in s.legal_steps() if x.kind == "plan"))
    s = s.apply(Step("ready"))
    assert s.decision.player != planner
    for k in range(200):
        d = determinize(observe(s, 1 - planner), random.Random(k))
        drawn = [c for c in d.players[planner].slots if c >= 0]
        assert len(drawn) == 2
        assert not any((shares >> c) & 1 for c in drawn), f"sample {k}: {drawn}"
        assert d.players[planner].hand & shares == shares


def test_a_missing_seat_is_named_from_1() -> None:
    s = engine.new_game(players=2, seed=1)
    with pytest.raises(ValueError, match=r"^viewer: no seat 3 in a 2-player game$"):
        observe(s, 2)


def test_observations_print_and_hash_by_seat() -> None:
    """The repr names the seat P1-P4; equal observations hash alike, and the two seats'
    observations of one position (different values) hash apart."""
    s = engine.new_game(players=2, seed=1)
    assert repr(observe(s, 1)).startswith("Observation(viewer=P2, state=<State ")
    assert hash(observe(s, 0)) == hash(observe(s, 0))
    assert observe(s, 0) != observe(s, 1)
    assert hash(observe(s, 0)) != hash(observe(s, 1))
