"""Determinization (``engine.determinize``) is consistent with the observation it
samples from, part by part (issue 51): every visible part is kept as seen, a hidden plan
fills exactly the hidden slots with cards its planner could hold (the whole of its
non-share hand, each card possible), the cards a seat owns are conserved, unknown
starting tiles come only from tiles nobody is known to hold, and the chance generator is
drawn afresh. ``tests/test_observation.py`` checks the same on random games as a whole
(the observation of a determinization is the observation); here each part is checked
where a one-line change in ``determinize`` would show.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import Step, determinize, observe
from engine.state import HIDDEN, PlayerState, State, bits
from engine.tables import tables
from tests.builders import play_setup, with_player
from tests.test_observation import _tile_setup_states


def _planned(players: int, seed: int, plans: int, shares: int = 2) -> State:
    """P1 (holding ``shares`` share cards too) has planned ``plans`` cards face down and
    is ready; the next seat is to plan."""
    s = play_setup(players=players, seed=seed)
    planner = s.decision.player
    share_cards = [i for i, c in enumerate(s.cat.cards) if c.kind == "share"][:shares]
    s = with_player(s, planner, hand=s.players[planner].hand | sum(1 << i for i in share_cards))
    for _ in range(plans):
        s = s.apply(next(x for x in s.legal_steps() if x.kind == "plan"))
    s = s.apply(Step("ready"))
    assert not s.revealed and s.decision.player != planner
    return s


VISIBLE = [f for f in PlayerState.FIELDS if f not in ("hand", "slots")]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("plans", [1, 2, 3])
def test_a_hidden_plan_fills_the_hidden_slots_from_the_planners_hand(
        players: int, plans: int) -> None:
    s = _planned(players, 30 + players, plans)
    planner = next(i for i, p in enumerate(s.players) if any(c >= 0 for c in p.slots))
    viewer = (planner + 1) % players
    obs = observe(s, viewer)
    seen = obs.state.players[planner]
    hidden_at = [k for k, c in enumerate(seen.slots) if c == HIDDEN]
    assert len(hidden_at) == plans
    share_mask = tables(s.cat).share_mask
    for k in range(60):
        d = determinize(obs, random.Random(k))
        p = d.players[planner]
        # The hidden slots, and only they, are filled, each with a different card.
        drawn = [p.slots[j] for j in hidden_at]
        assert all(c >= 0 for c in drawn) and len(set(drawn)) == plans
        assert all(p.slots[j] == seen.slots[j] for j in range(len(p.slots))
                   if j not in hidden_at)
        # Cards conserved: what was seen in hand (hidden plans included) is now the hand
        # plus the plan; no card twice; no share card planned.
        area = sum(1 << c for c in drawn)
        assert p.hand & area == 0
        assert p.hand | area == seen.hand
        assert area & share_mask == 0
        # Everything else of the planner and of every other seat is as seen.
        for f in VISIBLE:
            assert getattr(p, f) == getattr(seen, f), f
        for i in range(players):
            if i != planner:
                assert d.players[i] == obs.state.players[i]


def test_every_card_the_planner_could_plan_is_drawn() -> None:
    """The hidden plan is drawn from the whole non-share hand, each card about equally
    often (400 draws of 2 cards from 7: about 114 each)."""
    s = _planned(2, 4, 2)
    planner = s.decision.player ^ 1
    obs = observe(s, 1 - planner)
    share_mask = tables(s.cat).share_mask
    pool = set(bits(obs.state.players[planner].hand & ~share_mask))
    assert len(pool) == 7
    counts: Counter[int] = Counter()
    for k in range(400):
        d = determinize(obs, random.Random(k))
        counts.update(c for c in d.players[planner].slots if c >= 0)
    assert set(counts) == pool
    expected = 400 * 2 / len(pool)
    assert all(0.6 * expected < n < 1.4 * expected for n in counts.values()), counts


def test_nothing_is_sampled_once_the_plans_are_revealed() -> None:
    """With nothing hidden the determinization is the observed state itself, with a
    chance generator drawn from ``rng`` (different seeds, different generators; never
    the observation's 0)."""
    s = play_setup(2, 5)
    obs = observe(s, 0)
    rngs = set()
    for k in range(20):
        d = determinize(obs, random.Random(k))
        assert d.rng != 0
        rngs.add(d.rng)
        d.rng = 0
        assert d == obs.state
    assert len(rngs) == 20


def test_determinize_leaves_the_observation_as_it_was() -> None:
    s = _planned(3, 8, 2)
    obs = observe(s, 2)
    before = obs.state.clone()
    for k in range(10):
        determinize(obs, random.Random(k))
    assert obs.state == before
    assert obs.state.rng == 0


def test_the_generator_drives_the_sample() -> None:
    """Equal generators, equal samples (a search is reproducible from its seed)."""
    s = _planned(3, 8, 2)
    obs = observe(s, 2)
    assert determinize(obs, random.Random(7)) == determinize(obs, random.Random(7))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_unknown_starting_tiles_come_from_the_tiles_nobody_holds(players: int) -> None:
    """In the variable setup, the tiles dealt to the others (unknown to the viewer) are
    drawn from the starting tiles not known to be anyone's: never one the viewer holds,
    never one tile twice; a hidden chosen tile is one of its seat's options; a seat's
    known options are kept."""
    n_tiles = None
    checked = 0
    for k, s in enumerate(_tile_setup_states(players, 60 + players)):
        for viewer in range(players):
            obs = observe(s, viewer)
            seen = obs.state.players
            known = {x for p in seen for x in p.tile_options if x >= 0}
            n_tiles = len(s.cat.starting_tiles)
            drawn: set[int] = set()
            for j in range(8):
                d = determinize(obs, random.Random(1000 * k + j))
                options = [x for p in d.players for x in p.tile_options]
                assert len(options) == len(set(options))
                for p, o in zip(d.players, seen, strict=True):
                    assert len(p.tile_options) == len(o.tile_options)
                    if HIDDEN not in o.tile_options:
                        assert p.tile_options == o.tile_options and p.tile == o.tile
                        continue
                    checked += 1
                    assert not set(p.tile_options) & known
                    assert all(0 <= x < n_tiles for x in p.tile_options)
                    drawn.update(p.tile_options)
                    if o.tile == HIDDEN:
                        assert p.tile in p.tile_options
                    else:
                        assert p.tile == o.tile
            if drawn:
                # Over 8 samples, more than one hand of tiles shows up: not a fixed deal.
                assert len(drawn) > max(len(p.tile_options) for p in seen)
    assert checked > 0


def test_the_chance_generator_is_a_64_bit_state() -> None:
    """The state format holds a 64-bit unsigned generator (``engine.serialize``): every
    determinization's is one, and they spread over the whole range."""
    obs = observe(_planned(2, 4, 2), 1)
    rngs = [determinize(obs, random.Random(k)).rng for k in range(64)]
    assert all(0 <= x < 1 << 64 for x in rngs)
    assert any(x >= 1 << 63 for x in rngs)


@pytest.mark.parametrize("viewer", [0, 1])
def test_written_records_are_never_shared(viewer: int) -> None:
    """Copy on write (``State.player_mut``): a state handed out owns none of its player
    records, so writing one through ``player_mut`` copies it first; neither the
    observation nor a determinization may write into the state it came from."""
    s = _planned(2, 4, 2)
    cash = [p.cash for p in s.players]
    obs = observe(s, viewer)
    for i in range(2):
        obs.state.player_mut(i).cash += 100
    assert [p.cash for p in s.players] == cash
    obs = observe(s, viewer)
    seen = [p.cash for p in obs.state.players]
    d = determinize(obs, random.Random(1))
    for i in range(2):
        d.player_mut(i).cash += 100
    assert [p.cash for p in obs.state.players] == seen
    assert [p.cash for p in s.players] == cash
