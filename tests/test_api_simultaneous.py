"""Planning over HTTP is simultaneous (issue 14): every seat still planning may plan in
any order, a seat's suggestions are there as soon as Planning starts, another seat's
plan stays hidden until the reveal, AI seats plan without waiting for the humans, and a
game has a perspective seat ("I am seat N") that views and analysis default to."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from tests.test_api_helpers import auth, client, remember

AI = "mcts:iterations=10"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("simultaneous")) as c:
        yield c


def _new(api: TestClient, **body: Any) -> dict[str, Any]:
    if "seed" in body and body.get("mode", "play") == "play":
        body["reproducible"] = True  # these tests follow the seed's deals
    r = api.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return remember(out)


def _view(api: TestClient, gid: str, seat: int | None = None, wait: float = 0,
          token_of: int | None = None) -> Any:
    """``seat``'s view (None: the token's seat's), with the token of ``token_of``
    (default: ``seat``'s, else the perspective's)."""
    params: dict[str, Any] = {"wait": wait}
    if seat is not None:
        params["seat"] = seat
    r = api.get(f"/v1/games/{gid}", params=params,
                headers=auth(gid, token_of or seat or _perspective[gid]))
    assert r.status_code == 200, r.text
    return r.json()


_perspective: dict[str, int] = {}


def _post(api: TestClient, gid: str, what: str, body: dict[str, Any]) -> Any:
    return api.post(f"/v1/games/{gid}/{what}", json=body, headers=auth(gid, body.get("seat")))


def _live_at_planning(api: TestClient, players: int, perspective: int) -> dict[str, Any]:
    g = _new(api, seats=[{"kind": "human"}] * players, mode="live", seed=3,
             perspective=perspective)
    gid = g["id"]
    _perspective[gid] = perspective
    s = engine.new_game(players=players, seed=41)
    while s.decision.kind != "plan":
        d = s.decision
        if d.is_chance:
            step = s.sample_chance()
            r = _post(api, gid, "chance", {"step": step.to_json()})
        else:
            step = s.legal_steps()[0]
            r = _post(api, gid, "steps", {"seat": d.player + 1, "step": step.to_json()})
        assert r.status_code == 200, r.text
        s = s.apply(step)
    return g


def test_every_seat_may_plan_in_any_order_and_plans_stay_hidden(api: TestClient) -> None:
    g = _live_at_planning(api, 3, perspective=2)
    gid = g["id"]
    v = _view(api, gid)  # the token's seat's view by default: here the perspective's
    assert v["seat"] == 2 and v["perspective"] == 2
    assert v["your_turn"] and v["decision"]["kind"] == "plan"
    assert sorted(v["decision"]["seats"]) == [1, 2, 3] and v["decision"]["seat"] == 2
    assert any(x["text"].startswith("plan") for x in v["legal"])
    plans: dict[int, str] = {}
    for seat in (3, 2, 1):  # the last seat in turn order first
        mine = _view(api, gid, seat)
        assert mine["your_turn"], seat
        plan = next(x["text"] for x in mine["legal"] if x["text"].startswith("plan"))
        r = _post(api, gid, "steps", {"seat": seat, "step": plan})
        assert r.status_code == 200, r.text
        plans[seat] = plan
        for other in (1, 2, 3):
            hist = _view(api, gid, other)["history"]
            shown = [h["step"] for h in hist if h["player"] == f"P{seat}"][-1]
            assert shown == (plan if other == seat else None), (seat, other)
            slots = _view(api, gid, other)["observation"]["state"]["player_states"][
                seat - 1]["slots"]
            card = plan.split()[1]
            assert (card in slots) == (other == seat), (seat, other, slots)
    for seat in (1, 3, 2):
        r = _post(api, gid, "steps", {"seat": seat, "step": "ready"})
        assert r.status_code == 200, r.text
    v = _view(api, gid, 1)
    assert v["phase"] == "actions"
    hist = [h["step"] for h in v["history"]]
    assert all(p in hist for p in plans.values())  # revealed to everyone


def test_a_seat_done_planning_is_refused_with_a_clear_error(api: TestClient) -> None:
    g = _live_at_planning(api, 2, perspective=1)
    gid = g["id"]
    r = _post(api, gid, "steps", {"seat": 2, "step": "ready"})
    assert r.status_code == 200
    before = _view(api, gid, 1)["steps"]
    r = _post(api, gid, "steps", {"seat": 2, "step": "ready"})
    assert r.status_code == 409
    assert r.json()["message"] == "not seat 2's decision: the decision (plan) is P1's"
    assert _view(api, gid, 1)["steps"] == before


def test_suggestions_for_a_seat_as_soon_as_planning_starts(api: TestClient) -> None:
    g = _live_at_planning(api, 3, perspective=3)
    gid = g["id"]
    r = api.get(f"/v1/games/{gid}/analysis", params={"iterations": 30}, headers=auth(gid, 3))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["pov"] == "P3" and body["decision"]["kind"] == "plan" and body["lines"]
    # live: the user holds the whole table, any seat's token asks for any seat
    r = api.get(f"/v1/games/{gid}/analysis", params={"iterations": 30, "seat": 2},
                headers=auth(gid, 3))
    assert r.status_code == 200 and r.json()["pov"] == "P2"


def test_ai_seats_plan_without_waiting_for_the_human(api: TestClient) -> None:
    """The human sits at the last seat in turn order; the AI seats' plans come first
    and the human's suggestions do not wait for them."""
    g = _new(api, seats=[{"kind": "ai", "bot": AI}, {"kind": "ai", "bot": AI},
                         {"kind": "human"}], seed=8)
    gid = g["id"]
    _perspective[gid] = 3
    assert g["perspective"] == 3
    for _ in range(20):
        v = _view(api, gid, wait=10)
        if v["decision"]["kind"] == "plan" and v["your_turn"]:
            break
        r = _post(api, gid, "moves", {"seat": 3, "move": v["legal"][0]["text"]})
        assert r.status_code == 200, r.text
    v = _view(api, gid, wait=10)
    assert v["decision"]["kind"] == "plan" and v["decision"]["seats"] == [3]
    hidden = [h for h in v["history"] if h["step"] is None and h["player"] in ("P1", "P2")]
    assert hidden, "the AI seats planned, face down"


def test_perspective_must_be_a_seat_of_the_game(api: TestClient) -> None:
    r = api.post("/v1/games", json={"seats": [{"kind": "human"}] * 2, "perspective": 3})
    assert r.status_code == 422 and r.json()["field"] == "perspective"
    r = api.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "ai", "bot": AI}],
                                    "perspective": 2})
    assert r.status_code == 422 and "AI seat" in r.json()["message"]


def test_live_variable_setup_asks_only_your_own_starting_tiles(api: TestClient) -> None:
    """Issue 14: the starting tiles dealt to the other seats are never asked; only the
    tile each keeps is entered, at the reveal, from every tile nobody else holds."""
    g = _new(api, seats=[{"kind": "human"}] * 3, mode="live", seed=4, variable=True,
             perspective=2)
    gid = g["id"]
    _perspective[gid] = 2
    ref = engine.new_game(players=3, seed=77, variable=True)
    asked = []
    for _ in range(80):
        v = _view(api, gid)
        d = v["decision"]
        if d["kind"] != "chance":
            break
        pending = v["observation"]["state"]["pending"][0]
        asked.append(pending)
        while not ref.decision.is_chance or (ref.decision.event == "deal-tile"
                                             and ref.decision.target != 1):
            ref = ref.apply(engine.Step("deal-tile", ref.decision.target, engine.HIDDEN)
                            if ref.decision.is_chance else ref.legal_steps()[0])
        step = ref.sample_chance()
        ref = ref.apply(step)
        r = _post(api, gid, "chance", {"step": step.to_json()})
        assert r.status_code == 200, (r.text, pending)
    tile_deals = [a for a in asked if a.get("chance") == "deal-tile"]
    assert len(tile_deals) == 2 and all(a["seat"] == 2 for a in tile_deals)
    v = _view(api, gid)
    assert v["decision"]["kind"] == "starting-tile" and v["decision"]["seats"] == [1, 2, 3]
    assert len(v["legal"]) == 2  # your own two tiles
    other = _view(api, gid, 1)
    assert len(other["legal"]) == 8  # any tile but the two dealt to seat 2
    sources = {h["source"] for h in v["history"]}
    assert "unseen" in sources
    assert all(h["step"] is None for h in v["history"]
               if h["source"] == "unseen")  # nothing to show, to anyone
