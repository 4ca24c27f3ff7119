"""Games over HTTP: create, view, steps, moves, live chance reports, undo, analysis,
score, storage across restarts, and the errors of each. Every request of a seat carries
its token (remembered from the creation answer, ``tests.test_api_helpers.auth``); games
created with a seed in play mode are ``reproducible`` (their deals follow the seed)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from tests.test_api_helpers import auth, client, play_to_context_steps, remember

AI = "mcts:iterations=10"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("games")) as c:
        yield c


def _new(api: TestClient, seats: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    if "seed" in kw and kw.get("mode", "play") == "play":
        kw["reproducible"] = True  # these tests follow the seed's deals
    r = api.post("/v1/games", json={"seats": seats, **kw})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return remember(body)


def _view(api: TestClient, gid: str, seat: int, wait: float = 10) -> dict[str, Any]:
    r = api.get(f"/v1/games/{gid}", params={"seat": seat, "wait": wait},
                headers=auth(gid, seat))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _spectator(api: TestClient, gid: str, wait: float = 10) -> dict[str, Any]:
    """The view without a token: nobody's private things."""
    r = api.get(f"/v1/games/{gid}", params={"wait": wait})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert body["seat"] is None
    return body


def _step(api: TestClient, gid: str, seat: int, step: Any) -> Any:
    return api.post(f"/v1/games/{gid}/steps", json={"seat": seat, "step": step},
                    headers=auth(gid, seat))


def _undo(api: TestClient, gid: str, seat: int | None = None) -> Any:
    body = {} if seat is None else {"seat": seat}
    return api.post(f"/v1/games/{gid}/undo", json=body, headers=auth(gid, seat))


HUMAN_VS_AI = [{"kind": "human"}, {"kind": "ai", "bot": AI}]


def test_create_and_view(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=5)
    assert g["mode"] == "play" and g["players"] == 2 and g["seed"] == 5
    assert g["reproducible"] and g["takebacks"] and set(g["tokens"]) == {"1"}
    assert g["seats"][1] == {"seat": 2, "player": "P2", "kind": "ai", "bot": AI}
    assert g["seat"] == 1 and g["your_turn"] and g["decision"]["kind"] == "resting-cards"
    assert g["observation"]["schema"] == "mombasa-observation/1"
    assert g["observation"]["viewer"] == 1
    # the setup deals were made by the service and are in the history
    assert g["steps"] == len(g["history"]) > 0
    assert {h["source"] for h in g["history"]} == {"chance"}
    s = engine.new_game(players=2, seed=5)
    while s.decision.kind == "chance":
        s = s.apply(s.sample_chance())
    assert [x["text"] for x in g["legal"]] == [st.text(s.cat) for st in s.legal_steps()]
    assert all(engine.Step.from_json(x["json"]).text() == x["text"] for x in g["legal"])
    other = _spectator(api, g["id"])  # the AI seat's own view is nobody's to read
    assert other["legal"] == [] and not other["your_turn"]


def test_steps_then_the_ai_moves_by_itself(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=6)
    gid = g["id"]
    r = _step(api, gid, 1, g["legal"][0]["text"])  # notation
    assert r.status_code == 200, r.text
    v = _view(api, gid, 1)
    assert not v["ai"]["thinking"] and v["your_turn"]
    sources = [h["source"] for h in v["history"]]
    assert "human" in sources and "ai" in sources
    assert v["decision"]["kind"] == "plan"
    # a step as JSON
    r = _step(api, gid, 1, v["legal"][-1]["json"])
    assert r.status_code == 200, r.text


def test_play_to_the_end_and_score(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=7)
    gid = g["id"]
    rng = random.Random(7)
    for _ in range(2000):
        v = _view(api, gid, 1)
        if v["over"]:
            break
        assert v["your_turn"], v["decision"]
        r = _step(api, gid, 1, rng.choice(v["legal"])["json"])
        assert r.status_code == 200, r.text
    assert v["over"] and v["winners"]
    sc = api.get(f"/v1/games/{gid}/score").json()
    assert sc["final"] and sc["winners"] == v["winners"]
    assert [p["player"] for p in sc["score"]] == [1, 2]
    assert all(p["total"] == p["cash"] + sum(c["pounds"] for c in p["companies"].values())
               + p["diamonds"] + p["bookkeeping"] for p in sc["score"])
    r = _step(api, gid, 1, "ready")
    assert r.status_code == 409 and "over" in r.json()["message"]
    r = api.get(f"/v1/games/{gid}/analysis", headers=auth(gid, 1))
    assert r.status_code == 409


def test_history_context_is_the_position_before_each_step(api: TestClient) -> None:
    """Each history entry's ``context`` is what the board held before the step: the
    display card a buy took, the book a take took, the company an enter expanded; the
    same from every seat and for the spectator; null for hidden steps and steps whose
    words need nothing."""
    g = _new(api, [{"kind": "human"}, {"kind": "human"}], seed=3)
    gid = g["id"]
    seen = play_to_context_steps(api, gid)
    assert {"buy", "take", "enter"} <= seen, seen
    views = [_view(api, gid, s, wait=0)["history"] for s in (1, 2)] + [
        _spectator(api, gid, wait=0)["history"]]
    s = engine.new_game(players=2, seed=3)
    checked: set[str] = set()
    for h1, h2, hs in zip(*views, strict=True):
        text = h1["step"] or h2["step"]
        before = engine.state_to_json(s)
        kind = text.split()[0]
        arg = text.split()[1] if " " in text else ""
        want = ({"card": before["display"][arg]} if kind in ("buy", "buy-card")
                else {"book": before["book_display"][arg]} if kind == "take"
                else {"company": before["pending"][0]["company"]}
                if kind in ("enter", "return") else None)
        for h in (h1, h2, hs):
            assert h["context"] == (want if h["step"] else None), (h, want)
        if want:
            checked.add(kind)
        who = h1["player"]
        s = s.apply(engine.Step.parse(text), int(who[1:]) - 1 if who.startswith("P") else None)
    assert {"buy", "take", "enter"} <= checked, checked


def test_ai_only_game_plays_itself(api: TestClient) -> None:
    g = _new(api, [{"kind": "ai", "bot": "random"}, {"kind": "ai", "bot": "policy"}],
             seed=8)
    assert g["tokens"] == {}  # no human seat, no token: everyone is a spectator
    v = _spectator(api, g["id"], wait=30)
    assert v["over"] and not v["ai"]["thinking"]
    assert {h["source"] for h in v["history"]} == {"chance", "ai"}


def test_move_endpoint(api: TestClient) -> None:
    g = _new(api, [{"kind": "human"}, {"kind": "human"}], seed=9)
    gid = g["id"]
    first = g["legal"][0]["text"]
    r = api.post(f"/v1/games/{gid}/moves", json={"seat": 1, "move": first},
                 headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["decision"]["player"] == "P2"
    # seat 2 rests, then P1 plans: a whole planning move as a list of steps
    r = api.post(f"/v1/games/{gid}/moves", json={"seat": 2, "move": {
        "player": 2, "steps": [_view(api, gid, 2)["legal"][0]["json"]]}},
        headers=auth(gid, 2))
    assert r.status_code == 200, r.text
    v = _view(api, gid, 1)
    assert v["decision"]["kind"] == "plan"
    before = v["steps"]
    # incomplete move: 409, nothing changed
    plan = next(x["text"] for x in v["legal"] if x["text"].startswith("plan"))
    r = api.post(f"/v1/games/{gid}/moves", json={"seat": 1, "move": [plan]},
                 headers=auth(gid, 1))
    assert r.status_code == 409 and "incomplete" in r.json()["message"]
    # an illegal step inside: 409 naming its position, nothing changed
    r = api.post(f"/v1/games/{gid}/moves", json={"seat": 1, "move": f"{plan}; {plan}"},
                 headers=auth(gid, 1))
    assert r.status_code == 409 and r.json()["message"].startswith("steps[1]")
    assert _view(api, gid, 1)["steps"] == before
    r = api.post(f"/v1/games/{gid}/moves", json={"seat": 1, "move": f"{plan}; ready"},
                 headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    r = api.post(f"/v1/games/{gid}/moves", json={"seat": 2, "move": {
        "player": 1, "steps": [{"kind": "ready"}]}}, headers=auth(gid, 2))
    assert r.status_code == 422 and r.json()["field"] == "move.player"


def test_a_move_that_ends_where_the_turn_ends_is_complete(api: TestClient) -> None:
    """The last seat to plan may be the first to act: its planning move (ending with
    ``ready``) is complete although the next decision is its own action."""
    g = _new(api, [{"kind": "human"}, {"kind": "human"}], seed=9)
    gid = g["id"]
    for seat in (1, 2):  # resting cards, each seat in turn
        r = api.post(f"/v1/games/{gid}/steps", json={
            "seat": seat, "step": _view(api, gid, seat)["legal"][0]["text"]},
            headers=auth(gid, seat))
        assert r.status_code == 200, r.text
    first = _view(api, gid, 1)["decision"]["player"]  # the first player acts first
    last, other = (1, 2) if first == "P1" else (2, 1)
    for seat in (other, last):
        plan = next(x["text"] for x in _view(api, gid, seat)["legal"]
                    if x["text"].startswith("plan"))
        r = api.post(f"/v1/games/{gid}/moves", json={"seat": seat, "move": f"{plan}; ready"},
                     headers=auth(gid, seat))
        assert r.status_code == 200, r.text
    v = _view(api, gid, last)
    assert v["decision"]["kind"] == "action" and v["decision"]["seat"] == last


def test_illegal_and_misplaced_steps_are_409_and_change_nothing(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=10)
    gid = g["id"]
    before = _view(api, gid, 1)
    r = _step(api, gid, 1, "ready")
    assert r.status_code == 409
    assert "resting-cards" in r.json()["message"]
    r = _step(api, gid, 2, g["legal"][0]["text"])
    assert r.status_code == 409 and "not seat 2's decision" in r.json()["message"]
    assert _view(api, gid, 1) == before
    _step(api, gid, 1, g["legal"][0]["text"])
    v = _view(api, gid, 1)
    assert v["your_turn"]
    r = _step(api, gid, 2, "ready")
    assert r.status_code == 409


def test_ai_seat_cannot_be_played_by_hand(api: TestClient) -> None:
    g = _new(api, [{"kind": "ai", "bot": "mcts:time=1"}, {"kind": "human"}],
             seed=11)
    assert g["ai"]["thinking"]
    r = _step(api, g["id"], 1, "rest cof1/1 ban1/1 exp2/1")
    assert r.status_code == 409
    assert r.json()["message"] == "seat 1 is an AI seat: it moves by itself"


def test_bad_requests_are_422(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=12)
    gid = g["id"]
    r = _step(api, gid, 1, "fly to the moon")
    assert r.status_code == 422 and r.json()["field"] == "step"
    r = _step(api, gid, 1, {"kind": "unit", "company": "XXX"})
    assert r.status_code == 422 and r.json()["field"] == "step"
    r = _step(api, gid, 3, "ready")
    assert r.status_code == 422 and r.json()["field"] == "seat"
    r = api.post(f"/v1/games/{gid}/steps", json={"seat": 1}, headers=auth(gid, 1))
    assert r.status_code == 422 and r.json()["field"] == "step"
    r = api.get(f"/v1/games/{gid}", params={"seat": 9})
    assert r.status_code == 422 and r.json()["field"] == "seat"
    r = api.get(f"/v1/games/{gid}", params={"seat": 3})
    assert r.status_code == 422
    for seats, field in [
        ([{"kind": "human"}], "seats"),
        ([{"kind": "human"}, {"kind": "ai", "bot": "alphazero"}], "seats[1].bot"),
        ([{"kind": "human"}, {"kind": "ai", "bot": "mcts:time=99"}], "seats[1].bot"),
        ([{"kind": "human", "bot": "random"}, {"kind": "human"}], "seats[0].bot"),
        ([{"kind": "robot"}, {"kind": "human"}], "seats[0].kind"),
    ]:
        r = api.post("/v1/games", json={"seats": seats})
        assert r.status_code == 422, seats
        assert r.json()["field"] == field, r.json()
    r = api.post("/v1/games", json={"seats": [{"kind": "human"}] * 2, "mode": "watch"})
    assert r.status_code == 422 and r.json()["field"] == "mode"


def test_unknown_game_is_404(api: TestClient) -> None:
    for method, path, body in [
        ("GET", "/v1/games/nope?seat=1", None),
        ("POST", "/v1/games/nope/steps", {"seat": 1, "step": "ready"}),
        ("POST", "/v1/games/nope/moves", {"seat": 1, "move": "ready"}),
        ("POST", "/v1/games/nope/chance", {"step": "deal-card A1 L1"}),
        ("POST", "/v1/games/nope/undo", {}),
        ("GET", "/v1/games/nope/analysis", None),
        ("GET", "/v1/games/nope/score", None),
        ("DELETE", "/v1/games/nope", None),
    ]:
        r = api.request(method, path, json=body)
        assert r.status_code == 404, path
        assert r.json()["error"] == "not-found"


def test_undo(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=13)
    gid = g["id"]
    r = _undo(api, gid, 1)
    assert r.status_code == 409 and "nothing to undo" in r.json()["message"]
    _step(api, gid, 1, g["legal"][1]["text"])
    after = _view(api, gid, 1)
    assert after["steps"] > g["steps"] + 1  # the human's step and the AI's reply
    assert after["can_undo"]
    r = _undo(api, gid, 1)
    assert r.status_code == 200
    v = _view(api, gid, 1)
    assert v["steps"] == g["steps"] and v["legal"] == g["legal"]
    assert v["observation"] == g["observation"]


def test_undo_while_the_ai_thinks(api: TestClient) -> None:
    g = _new(api, [{"kind": "human"}, {"kind": "ai", "bot": "mcts:time=1"}], seed=19)
    gid = g["id"]
    r = _step(api, gid, 1, g["legal"][0]["text"])
    assert r.json()["ai"]["thinking"]
    r = _undo(api, gid)
    assert r.status_code == 200
    v = _view(api, gid, 1)
    assert v["steps"] == g["steps"] and v["your_turn"] and not v["ai"]["thinking"]
    r = _step(api, gid, 1, g["legal"][1]["text"])
    assert r.status_code == 200
    v = _view(api, gid, 1)
    assert v["history"][g["steps"]]["step"] == g["legal"][1]["text"]
    assert v["history"][-1]["source"] == "ai" and v["your_turn"]


def test_analysis_of_a_game(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=14)
    gid = g["id"]
    r = api.get(f"/v1/games/{gid}/analysis", params={"seat": 1, "iterations": 60,
                                                     "multipv": 2}, headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["pov"] == "P1" and len(body["lines"]) == 2
    assert body["lines"][0]["step"]["text"] in {x["text"] for x in g["legal"]}
    # seat 2 (the AI) is not the token's seat: its observation is not seat 1's to search
    r = api.get(f"/v1/games/{gid}/analysis", params={"seat": 2, "iterations": 10},
                headers=auth(gid, 1))
    assert r.status_code == 403
    r = api.get(f"/v1/games/{gid}/analysis", params={"time": 100}, headers=auth(gid, 1))
    assert r.status_code == 422 and r.json()["field"] == "time"
    # without a seat: the token's seat (here deciding)
    r = api.get(f"/v1/games/{gid}/analysis", params={"iterations": 20},
                headers=auth(gid, 1))
    assert r.status_code == 200 and r.json()["pov"] == "P1"


def test_live_mode(api: TestClient) -> None:
    g = _new(api, [{"kind": "human"}, {"kind": "ai", "bot": AI}], seed=15, mode="live")
    gid = g["id"]
    assert g["decision"]["kind"] == "chance" and g["steps"] == 0
    # outcomes are offered for reporting, never dealt by the service
    assert g["legal"] and all(x["text"].startswith("deal-card") for x in g["legal"])
    r = _step(api, gid, 1, "ready")
    assert r.status_code == 409 and "chance event pending" in r.json()["message"]
    assert set(g["tokens"]) == {"1", "2"}  # live: the user holds every seat
    r = api.get(f"/v1/games/{gid}/analysis", headers=auth(gid, 1))
    assert r.status_code == 409
    assert r.json()["message"] == "chance event pending: report or sample the outcome"
    r = api.post(f"/v1/games/{gid}/chance", json={"step": "deal-card Z9 L1"},
                 headers=auth(gid, 1))
    assert r.status_code == 422
    # report the whole setup as seen at the table
    s = engine.new_game(players=2, seed=99)
    while s.decision.kind == "chance":
        step = s.sample_chance()
        s = s.apply(step)
        r = api.post(f"/v1/games/{gid}/chance", json={"step": step.to_json()},
                     headers=auth(gid, 2))
        assert r.status_code == 200, r.text
    v = _view(api, gid, 1, wait=0)
    assert v["decision"]["kind"] == "resting-cards" and v["steps"] > 0
    assert {h["source"] for h in v["history"]} == {"report"}
    assert v["observation"]["state"]["display"] == engine.state_to_json(s)["display"]
    r = api.post(f"/v1/games/{gid}/chance", json={"step": "deal-card A1 L1"},
                 headers=auth(gid, 1))
    assert r.status_code == 409 and "no chance event" in r.json()["message"]
    # every player's moves are reported; the AI seat only suggests
    for seat in (1, 2):
        v = _view(api, gid, seat, wait=0)
        r = api.post(f"/v1/games/{gid}/moves", json={"seat": seat,
                                                     "move": v["legal"][0]["text"]},
                     headers=auth(gid, seat))
        assert r.status_code == 200, r.text
    v = _view(api, gid, 1, wait=0)
    assert v["decision"] == {"kind": "plan", "player": "P1", "seat": 1, "seats": [1, 2]}
    plan = next(x["text"] for x in v["legal"] if x["text"].startswith("plan"))
    _step(api, gid, 1, plan)
    _step(api, gid, 1, "ready")
    # P1's plan is hidden from seat 2 until the reveal, shown to seat 1
    hist2 = _view(api, gid, 2, wait=0)["history"]
    hist1 = _view(api, gid, 1, wait=0)["history"]
    assert hist1[-2]["step"] == plan and hist2[-2]["step"] is None
    v2 = _view(api, gid, 2, wait=0)
    assert v2["your_turn"] and not v2["ai"]["thinking"]
    r = api.get(f"/v1/games/{gid}/analysis", params={"iterations": 30},
                headers=auth(gid, 1))
    assert r.status_code == 200 and r.json()["pov"] == "P2"
    # undo takes back the last report
    r = _undo(api, gid)
    assert r.status_code == 200
    assert _view(api, gid, 1, wait=0)["decision"]["player"] == "P1"


def test_play_mode_has_no_chance_reports(api: TestClient) -> None:
    g = _new(api, HUMAN_VS_AI, seed=16)
    r = api.post(f"/v1/games/{g['id']}/chance", json={"step": "deal-card A1 L1"},
                 headers=auth(g["id"], 1))
    assert r.status_code == 409 and "play mode" in r.json()["message"]


def test_games_survive_a_restart(tmp_path: Path) -> None:
    rng = random.Random(3)
    with client(tmp_path) as c:
        g = _new(c, HUMAN_VS_AI, seed=17)
        gid = g["id"]
        for _ in range(25):
            v = _view(c, gid, 1)
            _step(c, gid, 1, rng.choice(v["legal"])["text"])
        live = _new(c, [{"kind": "human"}, {"kind": "human"}], seed=1, mode="live")
        step = live["legal"][3]["text"]
        c.post(f"/v1/games/{live['id']}/chance", json={"step": step},
               headers=auth(live["id"]))
        before = [_view(c, gid, 1), _spectator(c, gid)]
        live_before = _view(c, live["id"], 2)
    with client(tmp_path) as c:
        after = [_view(c, gid, 1), _spectator(c, gid)]
        assert after == before
        assert _view(c, live["id"], 2) == live_before
        v = after[0]
        r = _step(c, gid, 1, v["legal"][0]["text"])
        assert r.status_code == 200


def test_restart_with_the_ai_to_move_resumes_it(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        g = _new(c, [{"kind": "human"}, {"kind": "ai", "bot": "mcts:time=1"}], seed=18)
        gid = g["id"]
        _step(c, gid, 1, g["legal"][0]["text"])
        assert c.get(f"/v1/games/{gid}", params={"seat": 1},
                     headers=auth(gid, 1)).json()["ai"]["thinking"]
    with client(tmp_path) as c:
        v = _view(c, gid, 1, wait=20)
        assert v["your_turn"] and any(h["source"] == "ai" for h in v["history"])


def test_health(api: TestClient) -> None:
    body = api.get("/v1/health").json()
    assert body["status"] == "ok" and body["workers"] == 2
    assert api.get("/", follow_redirects=False).status_code in (200, 307)
