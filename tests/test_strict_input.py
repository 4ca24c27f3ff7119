"""Stricter input (issue 15, item 5): hostile bot settings and hostile saved states.

Bot specs: every setting is a finite number in its range, an integer where one is meant,
or one of its choices; the ``ValueError`` names the spec and the setting, and the service
answers 422 naming ``seats[i].bot``. States and observations: an unknown key is refused at
every level with its JSON path, and whose turn it is must agree with the phase and the
pending work as the rules keep it; every state the engine produces still loads.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from engine import (
    StateFormatError,
    observation_from_json,
    observation_to_json,
    observe,
    state_from_json,
    state_to_json,
)
from engine.state import ACTIONS, OVER, PLANNING, SETUP, State
from search.bot_specs import make_bot, parse_spec
from search.evaluator import DEFAULT_WEIGHTS
from search.mcts import BOUNDS, WEIGHT_BOUNDS, SearchConfig
from tests.random_games import game_states, state_at
from tests.test_api_helpers import client

# -- bot settings -----------------------------------------------------------------------

NOT_FINITE = ["nan", "NaN", "inf", "-inf", "1e400"]
HUGE = "1e308"
# spec -> values out of range below (negative, zero where it must be positive) and
# non-integers where an integer is meant; the mcts knobs, a weight, the other bots.
BELOW: dict[tuple[str, str], list[str]] = {
    ("mcts", "time"): ["0", "-1", "-0.001"],
    ("mcts", "iterations"): ["0", "-5", "2.5", "1e3", "many"],
    ("mcts", "c"): ["-5", "-0.001"],
    ("mcts", "widen"): ["0", "-1"],
    ("mcts", "prior"): ["-1", "1.5"],
    ("mcts", "noise"): ["-0.5"],
    ("mcts", "tempo"): ["-1000"],
    ("mcts", "drive"): ["-0.5", "11"],
    ("mcts", "win_scale"): ["0", "-4"],
    ("mcts", "round_unit"): ["-1e307"],
    ("greedy", "samples"): ["0", "-1", "1.5"],
    ("shares", "strength"): ["-1", "101"],
    ("openspiel-mcts", "time"): ["0", "-2"],
    ("openspiel-mcts", "sims"): ["0", "2.5"],
}
BAD_SETTINGS = [(bot, key, value) for (bot, key), below in BELOW.items()
                for value in [*NOT_FINITE, HUGE, *below]]


@pytest.mark.parametrize(("bot", "key", "value"), BAD_SETTINGS,
                         ids=[f"{b}:{k}={v}" for b, k, v in BAD_SETTINGS])
def test_bad_bot_setting_is_refused_naming_it(bot: str, key: str, value: str) -> None:
    spec = f"{bot}:{key}={value}" if bot != "mcts" or key in ("time", "iterations") \
        else f"{bot}:iterations=5,{key}={value}"
    with pytest.raises(ValueError) as info:
        make_bot(spec)
    msg = str(info.value)
    assert msg.startswith(f"bot spec {spec!r}: {key}: "), msg
    assert "expected " in msg or key == "strength", msg  # strength: "a number >= 0"
    assert msg.endswith((f"got {value}", f"got {value!r}")), msg


def test_the_reported_specs_are_refused() -> None:
    """The hostile client's specs: every AI move timed out with them."""
    for spec, message in [
        ("mcts:time=nan", "time: expected a finite number in (0, 3600], got nan"),
        ("mcts:c=nan", "c: expected a finite number in [0, 10], got nan"),
        ("mcts:c=-5", "c: expected a finite number in [0, 10], got -5"),
        ("mcts:c=1e308", "c: expected a finite number in [0, 10], got 1e308"),
    ]:
        with pytest.raises(ValueError) as info:
            make_bot(spec)
        assert str(info.value) == f"bot spec {spec!r}: {message}"


@pytest.mark.parametrize(("spec", "key"), [
    ("mcts:horizon=forever", "horizon"), ("mcts:tree=bush", "tree"),
    ("mcts:eval=oracle", "eval"), ("greedy:eval=oracle", "eval"),
    ("bookkeeper:eval=oracle", "eval"), ("mcts:node_priors=yes", "node_priors"),
    ("mcts:c=0.3,c=nan", "c"), ("mcts:time=0.1,time=100", "time"),
])
def test_bad_choice_or_repeated_setting_is_refused(spec: str, key: str) -> None:
    with pytest.raises(ValueError) as info:
        make_bot(spec)
    assert str(info.value).startswith(f"bot spec {spec!r}: {key}: "), info.value


def test_settings_at_their_bounds_are_accepted() -> None:
    for spec in ["mcts:c=0,iterations=1", "mcts:c=10,time=3600", "mcts:iterations=10000000",
                 "mcts:time=0.001,widen=100,prior=0,noise=0,tempo=-100,win_scale=0.5",
                 "mcts:iterations=3,node_priors=true,horizon=cycle,tree=move,eval=hand",
                 "mcts:iterations=2,drive=0", "mcts:iterations=2,drive=10",
                 "greedy:samples=1000", "shares:strength=0", "diamonds:strength=100"]:
        make_bot(spec)
    assert parse_spec(" mcts : c = 0.5 ") == ("mcts", {"c": "0.5"})


@pytest.mark.parametrize("name", sorted(BOUNDS))
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e308, -1e308, True])
def test_search_config_checks_every_knob(name: str, value: float) -> None:
    budget = {"iterations": 5} if name != "iterations" else {"time": 1.0}
    with pytest.raises(ValueError) as info:
        SearchConfig(**budget, **{name: value})
    assert str(info.value).startswith(f"{name}: expected "), info.value


@pytest.mark.parametrize("name", sorted(WEIGHT_BOUNDS))
def test_search_config_checks_every_weight(name: str) -> None:
    for value in (math.nan, math.inf, -1e308):
        with pytest.raises(ValueError) as info:
            SearchConfig(iterations=5, weights=replace(DEFAULT_WEIGHTS, **{name: value}))
        assert str(info.value).startswith(f"weights.{name}: expected "), info.value


def test_search_config_integers_seed_and_flags() -> None:
    for kw, name in [({"iterations": 2.0}, "iterations"), ({"prior_visits": 1.5}, "prior_visits"),
                     ({"report_every": 0}, "report_every"), ({"seed": 1.5}, "seed"),
                     ({"node_priors": 1}, "node_priors"), ({"widen_alpha": 2}, "widen_alpha")]:
        with pytest.raises(ValueError) as info:
            SearchConfig(**{"time": 1.0, **kw})
        assert str(info.value).startswith(f"{name}: "), info.value


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("strict")) as c:
        yield c


@pytest.mark.parametrize("bot", ["mcts:time=nan", "mcts:c=nan", "mcts:c=-5", "mcts:c=1e308",
                                 "mcts:iterations=10,widen=inf", "greedy:samples=nan"])
def test_service_answers_422_naming_the_seat(api: TestClient, bot: str) -> None:
    for seats, field in [([{"kind": "human"}, {"kind": "ai", "bot": bot}], "seats[1].bot"),
                         ([{"kind": "ai", "bot": bot}, {"kind": "human"}], "seats[0].bot")]:
        r = api.post("/v1/games", json={"seats": seats})
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["field"] == field, body
        key = parse_spec(bot)[1].popitem()[0]
        assert f"{field}: bot spec {bot!r}: {key}: expected" in body["message"], body


# -- states: unknown keys ------------------------------------------------------------------

def _first(kind: str, players: int = 3, seed: int = 5, variable: bool = True) -> State:
    for s in game_states(players, seed, variable, biased=True):
        if s.decision.kind == kind:
            return s
    raise LookupError(kind)


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    """Mid-game, an action decision (3 players, round 2 or later)."""
    s = state_at(3, 5, True, 120, True)
    while s.decision.kind != "action":
        s = s.apply_unchecked(s.random_step(random.Random(1)))
    js = state_to_json(s)
    assert js["phase"] == "actions" and js["pending"] == [{"decision": "action",
                                                           "player": js["turn"]}]
    return js


Mutation = Callable[[dict[str, Any]], None]


def _put(*path: Any, value: Any) -> Mutation:
    def mutate(js: dict[str, Any]) -> None:
        obj = js
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
    return mutate


UNKNOWN_KEYS: list[tuple[str, Mutation, str]] = [
    ("top-level", _put("junk", value=1), "junk: unknown key"),
    ("top-level-todo-in-v2", _put("todo", value=[]), "todo: unknown key"),
    ("player-state", _put("player_states", 1, "colour", value="red"),
     "player_states[1].colour: unknown key"),
    ("player-track", _put("player_states", 0, "track", "XXX", value=0),
     "player_states[0].track.XXX: unknown company"),
    ("display", _put("display", "Q9", value=None), "display.Q9: unknown display space"),
    ("display-padded-name", _put("display", "L01", value=None),
     "display.L01: unknown display space"),
    ("owners", _put("owners", "NOWHERE", value=None), "owners.NOWHERE: unknown region"),
    ("bases", _put("bases", "XXX", value=[[5, False]] * 3), "bases.XXX: unknown company"),
    ("removed-posts", _put("removed_posts", "XXX", value=0),
     "removed_posts.XXX: unknown company"),
    ("tracks", _put("tracks", "XXX", value=None), "tracks.XXX: unknown company"),
    ("book-display", _put("book_display", "9.9", value=None),
     "book_display.9.9: unknown book space"),
    ("book-coins", _put("book_coins", "2.3", value=0), "book_coins.2.3: unknown book space"),
    ("bonus", _put("bonus", "nowhere", value=None), "bonus.nowhere: unknown bonus space"),
    ("pending-entry", _put("pending", 0, "colour", value="red"),
     "pending[0].colour: unknown key"),
    ("base-rear-flag-not-a-bool", _put("bases", "MOM", 0, 1, value=0), "bases.MOM[0][1]:"),
    ("tile-true", _put("player_states", 0, "tile", value=True), "player_states[0].tile:"),
    ("tile-option-true", _put("player_states", 0, "tile_options", value=[True]),
     "player_states[0].tile_options[0]:"),
]


@pytest.mark.parametrize(("mutation", "message"), [(m, e) for _, m, e in UNKNOWN_KEYS],
                         ids=[name for name, _, _ in UNKNOWN_KEYS])
def test_unknown_key_is_refused_with_its_path(action: dict[str, Any], mutation: Mutation,
                                              message: str) -> None:
    bad = copy.deepcopy(action)
    mutation(bad)
    with pytest.raises(StateFormatError) as info:
        state_from_json(bad)
    assert str(info.value).startswith(message), info.value


def test_unknown_key_of_an_observation(action: dict[str, Any]) -> None:
    obs = {"schema": "mombasa-observation/1", "viewer": 1, "state": action, "junk": 1}
    with pytest.raises(StateFormatError, match=r"^junk: unknown key"):
        observation_from_json(obs)
    obs = {"schema": "mombasa-observation/1", "viewer": 1, "state": copy.deepcopy(action)}
    obs["state"]["display"]["Q9"] = None
    with pytest.raises(StateFormatError, match=r"^state\.display\.Q9: unknown display space"):
        observation_from_json(obs)


def test_v1_file_with_a_pending_list() -> None:
    pair = json.loads((Path(__file__).parent / "data" / "states_v1_v2.json").read_text())[0]
    bad = dict(pair["v1"], pending=pair["v2"]["pending"])
    with pytest.raises(StateFormatError, match=r"^pending: unknown key .*'todo'"):
        state_from_json(bad)


def test_pending_display_space_is_an_exact_name() -> None:
    js = state_to_json(engine.new_game(players=2, seed=1))
    assert js["pending"][0]["chance"] == "deal-card"
    js["pending"][0]["space"] = js["pending"][0]["space"][0] + "01"
    with pytest.raises(StateFormatError, match=r"^pending\[0\]\.space: unknown display space"):
        state_from_json(js)


# -- states: whose turn it is ----------------------------------------------------------------

def _refused(js: dict[str, Any], path: str) -> str:
    with pytest.raises(StateFormatError) as info:
        state_from_json(js)
    assert str(info.value).startswith(f"{path}: "), info.value
    return str(info.value)


def test_action_decision_of_another_seat(action: dict[str, Any]) -> None:
    bad = copy.deepcopy(action)
    other = action["turn"] % 3 + 1
    bad["pending"][0]["player"] = other
    msg = _refused(bad, "pending[0].player")
    assert f"P{other}'s entry" in msg and f"P{action['turn']}'s turn" in msg
    bad = copy.deepcopy(action)
    bad["turn"] = other  # the same disagreement, seen from the turn
    _refused(bad, "pending[0].player")


def test_work_of_an_action_left_to_another_seat() -> None:
    s = _first("expansion")
    js = state_to_json(s)
    assert [e.get("then") for e in js["pending"]][-1] == "end-of-action"
    last = len(js["pending"]) - 1
    js["pending"][last]["player"] = js["turn"] % s.n + 1
    _refused(js, f"pending[{last}].player")


def test_action_decision_not_first() -> None:
    js = state_to_json(_first("expansion"))
    js["pending"].insert(1, {"decision": "action", "player": js["turn"]})
    _refused(js, "pending[1]")


def test_turn_seat_has_ended(action: dict[str, Any]) -> None:
    bad = copy.deepcopy(action)
    bad["player_states"][action["turn"] - 1]["ended"] = True
    _refused(bad, f"player_states[{action['turn'] - 1}].ended")


def test_action_that_does_not_pass_the_turn() -> None:
    js = state_to_json(_first("expansion"))
    last = len(js["pending"]) - 1
    js["pending"][last]["next_turn"] = False
    _refused(js, f"pending[{last}].next_turn")


def test_first_player_taking_the_first_player_space(action: dict[str, Any]) -> None:
    bad = copy.deepcopy(action)
    bad["next_first"] = bad["first"]
    _refused(bad, "next_first")


def _planning() -> dict[str, Any]:
    js = state_to_json(_first("plan", players=4))
    assert [e.get("decision") or e.get("then") for e in js["pending"]] == \
        ["plan"] * 4 + ["reveal"]
    return js


def test_planning_seat_twice() -> None:
    js = _planning()
    js["pending"][2]["player"] = js["pending"][0]["player"]
    msg = _refused(js, "pending[2].player")
    assert "two 'plan' entries" in msg


def test_planning_with_an_action_decision() -> None:
    js = _planning()
    js["pending"][0] = {"decision": "action", "player": js["turn"]}
    _refused(js, "pending[0]")


def test_planning_work_after_the_reveal() -> None:
    js = _planning()
    js["pending"].append({"then": "new-round"})
    _refused(js, "pending[5]")


def test_planning_with_next_first_or_an_ended_seat() -> None:
    js = _planning()
    js["next_first"] = js["first"] % 4 + 1
    _refused(js, "next_first")
    js = _planning()
    js["player_states"][3]["ended"] = True
    _refused(js, "player_states[3].ended")


def test_setup_turn_and_first() -> None:
    js = state_to_json(engine.new_game(players=3, seed=2, variable=True))
    assert js["phase"] == "setup"
    for key in ("turn", "first"):
        bad = dict(js, **{key: 2})
        _refused(bad, key)
    _refused(dict(js, round=1), "round")


def test_setup_tile_choice_twice() -> None:
    js = state_to_json(_first("starting-tile"))
    tiles = [i for i, e in enumerate(js["pending"]) if e.get("decision") == "starting-tile"]
    js["pending"][tiles[1]]["player"] = js["pending"][tiles[0]]["player"]
    _refused(js, f"pending[{tiles[1]}].player")


def test_over_with_work_pending() -> None:
    s = next(s for s in game_states(2, 3, False) if s.phase == OVER)
    js = state_to_json(s)
    js["pending"] = [{"decision": "action", "player": js["turn"]}]
    _refused(js, "pending")
    _refused(dict(state_to_json(s), round=5), "round")


def test_v1_todo_player_and_chance() -> None:
    pair = json.loads((Path(__file__).parent / "data" / "states_v1_v2.json").read_text())[0]
    v1 = pair["v1"]
    assert v1["todo"] == [["act", v1["turn"]]]
    _refused(dict(v1, todo=[["act", v1["turn"] % 3 + 1]]), "todo[0][1]")
    _refused(dict(v1, todo=[["c_card", 2, 0], ["act", v1["turn"]]]), "todo[0][1]")


# -- every state the engine produces still loads ----------------------------------------------

def _with(js: dict[str, Any], *path: Any, value: Any) -> dict[str, Any]:
    """A copy of ``js`` with ``value`` at ``path``: only the objects on the path are
    copied (a deep copy of every state would take most of the test's time)."""
    top = dict(js)
    obj: Any = top
    for key in path[:-1]:
        obj[key] = child = copy.copy(obj[key])
        obj = child
    obj[path[-1]] = value
    return top


def _hostile(js: dict[str, Any], phase: int) -> Iterator[tuple[dict[str, Any], str]]:
    """Mutations of a state's JSON that must be refused, with the path each names."""
    last = js["players"] - 1
    yield _with(js, "junk", value=1), "junk"
    yield (_with(js, "player_states", last, "colour", value=1),
           f"player_states[{last}].colour")
    yield _with(js, "display", "Q9", value=None), "display.Q9"
    yield _with(js, "owners", "NOWHERE", value=None), "owners.NOWHERE"
    pending = js["pending"]
    if pending:
        k = len(pending) - 1
        yield _with(js, "pending", k, "colour", value=1), f"pending[{k}].colour"
    seated = [i for i, e in enumerate(pending) if "player" in e]
    if phase == ACTIONS and seated:
        i = seated[0]
        yield (_with(js, "pending", i, "player", value=js["turn"] % js["players"] + 1),
               f"pending[{i}].player")
    if phase == PLANNING and len(seated) >= 2:
        yield (_with(js, "pending", 1, "player", value=pending[0]["player"]),
               "pending[1].player")
    if phase == SETUP:
        yield _with(js, "turn", value=js["players"]), "turn"


def test_every_state_of_random_games_round_trips_and_hostile_copies_fail() -> None:
    """30 random games for each of 2, 3 and 4 players, first-game and variable setups
    alternately (uniform and biased steps): every state loads back equal, and seats
    still deciding at a simultaneous decision may decide in any order (``decide_as``);
    every 10th state's hostile copies are refused, each naming its path."""
    states = hostile = 0
    phases = set()
    for players in (2, 3, 4):
        for game in range(30):
            variable = game % 2 == 1
            for k, s in enumerate(game_states(players, 1000 * players + game, variable,
                                              biased=game % 4 >= 2)):
                js = state_to_json(s)
                assert state_from_json(js) == s
                states += 1
                phases.add(s.phase)
                d = s.decision
                if d.seats and len(d.seats) > 1 and k % 3 == 0:
                    other = s.decide_as(d.seats[-1])
                    assert state_from_json(state_to_json(other)) == other
                if k % 10:
                    continue
                viewer = k % players
                obs = observe(s, viewer)
                assert observation_from_json(observation_to_json(obs)) == obs
                for bad, path in _hostile(js, s.phase):
                    with pytest.raises(StateFormatError) as info:
                        state_from_json(bad)
                    assert str(info.value).startswith(f"{path}: "), (path, info.value)
                    hostile += 1
    assert phases == {SETUP, PLANNING, ACTIONS, OVER}
    assert states > 20_000 and hostile > 10_000
