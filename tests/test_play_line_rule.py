"""Nothing plays past what the player has seen (issue 54): a suggested line is played
up to the first point where something the player has not seen appears, or another
seat decides. One rule, ``engine.playable_prefix``, used by the service's analysis
(``playable`` / ``stop`` of each line), ``POST /v1/games/{id}/moves`` (``partial``: a
line played up to there; a whole move past the reveal: 409) and ``mombasa play``.

The rules' text behind it: "The Planning phase is carried out by all players
simultaneously ... As soon as all players are finished placing their cards in their
action area, turn all cards face up." (rulebook, I. Planning Phase); the starting tiles
likewise: "Then players reveal their chosen tiles simultaneously." What the others
planned is new information: no step after the reveal is taken for the player.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import engine
from advisor_api import analysis
from advisor_api.cli import app
from advisor_api.settings import Settings
from advisor_api.worker import advisor_config
from search.mcts import MCTS
from tests.test_api_helpers import auth, client, remember

AI = "mcts:iterations=10"


def _planning(seed: int = 1, first_plans_last: bool = False) -> engine.State:
    """A 2-player game at round 1's Planning, P1 first; with ``first_plans_last`` P2
    has planned already (as the service's AI seats do at once), so P1 plans last."""
    s = engine.new_game(players=2, seed=seed)
    while s.decision.kind != "plan":
        s = s.apply(s.sample_chance() if s.decision.is_chance else s.legal_steps()[0])
    if first_plans_last:
        s = s.apply(engine.Step("ready"), player=1)  # the AI planned at once (nothing)
    return s


def _steps(s: engine.State, text: str) -> list[engine.Step]:
    return [engine.Step.parse(t, s.cat) for t in text.split("; ")]


PLAN = "plan one/1 2; plan ban2/1 3; plan exp1/1 4; ready"


# -- the rule --------------------------------------------------------------------------

def test_the_first_player_s_line_stops_at_the_reveal() -> None:
    """Planning: the plans are revealed together, once the last seat is ready. The first
    player planning last: its plan and ``ready`` are played, nothing after the reveal
    (the expansion the line goes on with was chosen before seeing P2's plan)."""
    s = _planning(first_plans_last=True)
    line = _steps(s, PLAN)
    after = s
    for step in line:
        after = after.apply(step)
    assert after.revealed and after.decision.kind == "action" and after.decision.player == 0
    line += [after.legal_steps()[1]]  # the line goes on into the action phase
    assert engine.playable_prefix(s, 0, line) == (4, "reveal")
    assert engine.playable_prefix(s, 0, line[:4]) == (4, "reveal")
    assert engine.playable_prefix(s, 0, line[:2]) == (2, None)  # still planning


def test_a_line_stops_where_another_seat_decides_or_chance_deals() -> None:
    """While P2 still plans, P1's ``ready`` hands the decision over; a buy is followed
    by a card dealt (chance); an illegal step and the end of the game stop it too."""
    s = _planning()
    assert engine.playable_prefix(s, 0, _steps(s, PLAN) + [engine.Step("ready")]) \
        == (4, "other-seat")
    assert engine.playable_prefix(s, 1, _steps(s, "plan one/2 2")) == (1, None)
    assert engine.playable_prefix(s, 0, _steps(s, "plan one/1 2; plan one/1 3")) \
        == (1, "illegal")
    dealt = engine.new_game(players=2, seed=1)
    assert dealt.decision.is_chance
    assert engine.playable_prefix(dealt, 0, _steps(s, "ready")) == (0, "chance")
    start = engine.new_game(players=2, seed=1)
    while start.decision.is_chance:
        start = start.apply(start.sample_chance())
    assert engine.playable_prefix(start, 1, [start.legal_steps()[0]]) == (0, "other-seat")


def test_the_analysis_lines_say_how_much_is_playable() -> None:
    """Each line of an analysis carries ``playable`` (the first player's plan up to the
    reveal, never beyond) and ``stop`` (what comes after those steps)."""
    s = _planning(first_plans_last=True)
    obs = engine.observe(s, 0)
    settings = Settings()
    plan = analysis.make_plan(obs, settings, iterations=200, time=None, multipv=3,
                              seed=1, jobs=1)
    result = MCTS(advisor_config(200, None, 1)).search(obs)
    lines = analysis.build_response(plan, result, 1.0)["lines"]
    # the search's moves go on past the reveal (an expansion chosen before seeing P2's
    # plan): the lines' playable steps stop at it
    assert any(len(x["move"]["text"].split("; ")) > x["playable"] for x in lines), lines
    for line in lines:
        steps = line["move"]["text"].split("; ")
        k = line["playable"]
        assert 1 <= k <= len(steps)
        if "ready" in steps:  # the plan ends with ready: the reveal follows it
            assert steps.index("ready") == k - 1 and line["stop"] == "reveal", line
        else:
            assert line["stop"] is None and k == len(steps), line


# -- the service -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("line-rule")) as c:
        yield c


def _ai_game(api: TestClient, seed: int) -> dict[str, Any]:
    """Seat 1 against an AI seat, at round 1's Planning with the AI's plan made."""
    r = api.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "ai", "bot": AI}],
                                    "seed": seed, "reproducible": True})
    assert r.status_code == 201, r.text
    g: dict[str, Any] = remember(r.json())
    gid = g["id"]
    r = api.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": g["legal"][0]["text"]},
                 headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    v = _view(api, gid)
    assert v["decision"]["kind"] == "plan" and v["decision"]["seats"] == [1], v["decision"]
    return v


def _view(api: TestClient, gid: str) -> dict[str, Any]:
    r = api.get(f"/v1/games/{gid}", params={"seat": 1, "wait": 20}, headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _line_past_the_reveal(v: dict[str, Any]) -> list[str]:
    """Seat 1's plan of one card, ``ready``, and an action step after the reveal."""
    plan = next(x["text"] for x in v["legal"] if x["text"].startswith("plan"))
    return [plan, "ready", "expand MOM"]


def test_a_whole_move_past_the_reveal_is_refused(api: TestClient) -> None:
    """The plans are revealed together: a whole move that goes on after the reveal is
    409 naming the first step past it, and nothing is played."""
    v = _ai_game(api, 31)
    gid, before = v["id"], v["steps"]
    r = api.post(f"/v1/games/{gid}/moves", json={"seat": 1, "move": _line_past_the_reveal(v)},
                 headers=auth(gid, 1))
    assert r.status_code == 409, r.text
    body = r.json()
    assert body["message"].startswith("steps[2]: the move goes on past new information: "
                                      "the plans (or starting tiles) are revealed after "
                                      "steps[1]"), body
    assert _view(api, gid)["steps"] == before


def test_a_partial_line_is_played_up_to_the_reveal(api: TestClient) -> None:
    """With ``partial`` the same line plays the plan and ``ready``: the plans are
    revealed, nothing after; the answer says so (``played`` 2, ``stop`` reveal) and the
    AI's plan is in the history now, seen; the first player decides its action."""
    v = _ai_game(api, 32)
    gid = v["id"]
    line = _line_past_the_reveal(v)
    r = api.post(f"/v1/games/{gid}/moves",
                 json={"seat": 1, "move": "; ".join(line), "partial": True},
                 headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["played"] == 2 and body["stop"] == "reveal", body
    assert body["decision"]["kind"] == "action" and body["decision"]["seat"] == 1
    mine = [h["step"] for h in body["history"] if h["player"] == "P1" and h["round"] == 1]
    assert mine == line[:2]  # the expansion was not played
    theirs = [h for h in body["history"] if h["player"] == "P2" and h["round"] == 1]
    assert theirs and all(h["step"] is not None for h in theirs)  # revealed to seat 1
    # a whole move that stops at the reveal is fine, and says what follows it
    v = _ai_game(api, 33)
    r = api.post(f"/v1/games/{v['id']}/moves",
                 json={"seat": 1, "move": "; ".join(line[:2])}, headers=auth(v["id"], 1))
    assert r.status_code == 200 and r.json()["played"] == 2, r.text
    assert r.json()["stop"] == "reveal"


def test_a_partial_line_with_an_illegal_step_plays_nothing(api: TestClient) -> None:
    v = _ai_game(api, 34)
    gid, before = v["id"], v["steps"]
    plan = _line_past_the_reveal(v)[0]
    r = api.post(f"/v1/games/{gid}/moves",
                 json={"seat": 1, "move": [plan, plan], "partial": True},
                 headers=auth(gid, 1))
    assert r.status_code == 409 and r.json()["message"].startswith("steps[1]"), r.text
    assert _view(api, gid)["steps"] == before


def test_the_game_analysis_says_what_a_click_plays(api: TestClient) -> None:
    """``GET .../analysis`` at the first player's Planning: every line's ``playable``
    ends at the reveal at the latest, and ``partial`` plays exactly those steps."""
    v = _ai_game(api, 35)
    gid = v["id"]
    r = api.get(f"/v1/games/{gid}/analysis", params={"iterations": 150, "seed": 3},
                headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    top = r.json()["lines"][0]
    steps = top["move"]["text"].split("; ")
    k = top["playable"]
    assert "ready" not in steps[:k - 1]
    r = api.post(f"/v1/games/{gid}/moves",
                 json={"seat": 1, "move": top["move"]["text"], "partial": True},
                 headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    assert r.json()["played"] == k
    assert r.json()["stop"] == top.get("stop")


# -- mombasa play ----------------------------------------------------------------------

def test_mombasa_play_stops_a_pasted_line_at_the_reveal() -> None:
    """Seat 2 plans last (P1, the AI, first): its ``ready`` reveals the plans, and the
    rest of the pasted line is not played; the board is shown again, P1's plan face up."""
    r = CliRunner().invoke(app, ["play", "--ai", "random", "--seed", "1", "--seat", "2"],
                           input="rest cot1/2 cof1/2 ban2/2\nplan one/2 2; ready; "
                                 "goods cof1/2\nq\n")
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert ("played: plan one/2 2; ready - not played: goods cof1/2 (the plans are "
            "revealed first (new information); decide again)") in text
    after = r.output[r.output.index("not played"):]
    assert "slots 1:- 2:- 3:- 4:exp1/1" in after  # P1's card, revealed
