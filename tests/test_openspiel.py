"""The OpenSpiel yardstick: the game adapter, OpenSpiel's own bots on it, and the
``openspiel-*`` arena bots. Skipped when open-spiel (the ``openspiel`` extra) is absent."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel  # noqa: E402
import pytest
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import engine  # noqa: E402
from search.arena import play_game  # noqa: E402
from search.bot_specs import make_bot  # noqa: E402
from search.bots import Budget  # noqa: E402
from search.openspiel_bots import make_openspiel_bot  # noqa: E402
from search.openspiel_game import (  # noqa: E402
    NUM_DISTINCT_ACTIONS,
    MombasaState,
    action_to_step,
    step_to_action,
)


def _ready(players: int = 2, seed: int = 0) -> engine.State:
    s = engine.new_game(players=players, seed=seed)
    while s.decision.kind == "chance":
        s = s.apply_unchecked(s.sample_chance())
    return s


def _random_states(count: int, seed: int, players: int = 2) -> list[engine.State]:
    """States met along random games (every 3rd state), decisions and chance alike."""
    rng = random.Random(seed)
    out: list[engine.State] = []
    game_seed = seed
    while len(out) < count:
        s = engine.new_game(players=players, seed=game_seed)
        k = 0
        while not s.is_over() and len(out) < count:
            if k % 3 == 0:
                out.append(s)
            s = s.apply_unchecked(s.random_step(rng))
            k += 1
        game_seed += 1
    return out


def _play_random(state: MombasaState, rng: np.random.RandomState) -> MombasaState:
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_load_game() -> None:
    game = pyspiel.load_game("python_mombasa", {"players": 2})
    assert game.num_players() == 2
    assert game.get_type().short_name == "python_mombasa"
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_distinct_actions() == NUM_DISTINCT_ACTIONS < 2**31
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
    game4 = pyspiel.load_game("python_mombasa", {"players": 4, "seed": 9})
    assert game4.num_players() == 4 and game4.new_initial_state().is_chance_node()
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("python_mombasa", {"players": 5})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playthrough(players: int) -> None:
    game = pyspiel.load_game("python_mombasa", {"players": players})
    rng = np.random.RandomState(players)
    state = game.new_initial_state()
    assert state.returns() == [0.0] * players
    first = state.clone()
    state = _play_random(state, rng)
    returns = state.returns()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert sum(returns) == pytest.approx(1.0)
    winners = engine.winners(state.engine_state)
    assert [i for i, r in enumerate(returns) if r > 0] == winners
    assert len(state.history()) > 100
    assert first.is_chance_node() and len(first.history()) == 0  # the clone is untouched


def test_action_round_trip_on_random_states() -> None:
    kinds: set[str] = set()
    for s in _random_states(2000, seed=1) + _random_states(600, seed=2, players=4):
        seen: set[int] = set()
        for step in s.legal_steps():
            action = step_to_action(s, step)
            assert 0 <= action < NUM_DISTINCT_ACTIONS
            assert action_to_step(s, action) == step
            assert action not in seen
            seen.add(action)
            kinds.add(step.kind)
    assert {"goods", "rest", "plan", "deal-card", "end"} <= kinds


def test_adapter_actions_match_engine() -> None:
    game = pyspiel.load_game("python_mombasa", {"players": 2})
    for s in _random_states(600, seed=3):
        st = game.state_from_engine(s)
        if s.is_over():
            assert st.is_terminal() and st.legal_actions() == []
        elif s.decision.kind == "chance":
            outcomes = st.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert [st.to_step(a) for a, _ in outcomes] == [x for x, _ in
                                                           s.chance_outcomes()]
        else:
            actions = st.legal_actions()
            assert actions == sorted(step_to_action(s, x) for x in s.legal_steps())
            assert sorted(map(st.to_step, actions)) == sorted(s.legal_steps())
            text = st.action_to_string(actions[0])
            assert engine.Step.parse(text, s.cat) == st.to_step(actions[0])


def test_information_state_and_resampling() -> None:
    """Resampled states share the infostate string and the legal actions (ISMCTS keys
    its nodes by both); different viewers see different strings."""
    game = pyspiel.load_game("python_mombasa", {"players": 2})
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked_hidden = 0
    for s in _random_states(150, seed=4):
        if s.is_over() or s.decision.kind == "chance":
            continue
        st = game.state_from_engine(s)
        me = st.current_player()
        key = st.information_state_string()
        assert key == st.information_state_string(me) == st.observation_string(me)
        assert key != st.information_state_string(1 - me)
        for _ in range(3):
            r = st.resample_from_infostate(me, sampler)
            assert isinstance(r, MombasaState)
            assert r.information_state_string(me) == key
            assert r.legal_actions() == st.legal_actions()
            if r.engine_state.players[1 - me].slots != s.players[1 - me].slots:
                checked_hidden += 1
    assert checked_hidden > 0  # some resamples did deal other hidden plans


def test_clone_shares_the_engine_state_cheaply() -> None:
    game = pyspiel.load_game("python_mombasa", {"players": 2})
    st = game.state_from_engine(_ready())
    c = st.clone()
    assert isinstance(c, MombasaState)
    assert c.engine_state == st.engine_state
    c.apply_action(c.legal_actions()[0])
    assert c.current_player() == 1 and st.current_player() == 0
    assert len(c.history()) == len(st.history()) + 1


def _play_openspiel_bots(bots: list[Any], seed: int) -> list[float]:
    game = pyspiel.load_game("python_mombasa", {"players": 2})
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        legal = state.legal_actions()
        bot = bots[state.current_player()]
        action = legal[0] if len(legal) == 1 else bot.step(state)
        assert action in legal
        state.apply_action(int(action))
    returns: list[float] = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    return returns


def test_openspiel_mctsbot_plays_a_game() -> None:
    game = pyspiel.load_game("python_mombasa", {"players": 2})
    bots = [mcts.MCTSBot(game, 2.0, 3,
                         mcts.RandomRolloutEvaluator(1, np.random.RandomState(k)),
                         random_state=np.random.RandomState(k)) for k in range(2)]
    _play_openspiel_bots(bots, seed=1)


def test_openspiel_ismctsbot_plays_a_game() -> None:
    game = pyspiel.load_game("python_mombasa", {"players": 2})
    bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(k)),
                             2.0, 3, random_state=np.random.RandomState(k))
            for k in range(2)]
    _play_openspiel_bots(bots, seed=2)


@pytest.mark.parametrize("spec", ["openspiel-mcts:sims=8", "openspiel-ismcts:sims=8"])
def test_arena_game_with_openspiel_bot(spec: str) -> None:
    rec = play_game([spec, "random"], index=0, seed=3)
    assert rec.seats == [spec, "random"]
    assert rec.decisions[0] > 10 and rec.winners


def test_three_player_arena_game() -> None:
    specs = ["openspiel-ismcts:sims=3", "random", "openspiel-mcts:sims=3"]
    rec = play_game(specs, index=0, seed=5)
    assert len(rec.totals) == 3 and rec.winners and min(rec.decisions) > 10


def test_time_budget_searches_again_at_the_next_step() -> None:
    """After the short probe, the next step is searched too (its simulations add up);
    how long it searches is checked by ``benchmarks/test_openspiel_speed.py``."""
    bot = make_bot("openspiel-mcts:time=0.2", seed=1)
    obs = engine.observe(_ready(), 0)
    bot.choose(obs, Budget(time=0.05))
    before = bot.search_seconds  # type: ignore[attr-defined]
    sims = bot.simulations  # type: ignore[attr-defined]
    bot.choose(obs)  # the rest step: one searched step
    assert bot.search_seconds > before  # type: ignore[attr-defined]
    assert bot.simulations > sims + 2  # type: ignore[attr-defined]


def test_openspiel_bots_never_read_hidden_state() -> None:
    """Two true states differing only in the opponent's face-down plan give the same
    observation, hence (same seed) the same move: the bots see nothing else."""
    s = _ready(seed=5)
    rng = random.Random(5)
    while not (s.decision.kind == "plan" and s.decision.player == 1
               and any(c >= 0 for c in s.players[0].slots)):
        s = s.apply_unchecked(s.random_step(rng))
    obs = engine.observe(s, 1)
    a = engine.determinize(obs, random.Random(1))
    b = engine.determinize(obs, random.Random(2))
    assert a.players[0].slots != b.players[0].slots
    for name in ("openspiel-mcts", "openspiel-ismcts"):
        moves = [make_openspiel_bot(name, {"sims": "6"}, seed=3).choose(engine.observe(t, 1))
                 for t in (a, b)]
        assert moves[0] == moves[1]


def test_bad_specs() -> None:
    with pytest.raises(ValueError, match="sims"):
        make_bot("openspiel-mcts:sims=1")
    with pytest.raises(ValueError, match="not both"):
        make_bot("openspiel-ismcts:sims=4,time=0.1")
    with pytest.raises(ValueError, match="unknown"):
        make_openspiel_bot("openspiel-mcts", {"c": "1"})
    assert make_bot("openspiel-ismcts").name == "openspiel-ismcts"
