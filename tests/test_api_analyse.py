"""POST /v1/analyse and /v1/analyse/stream: answers, every decision kind, every error."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from advisor_api import analysis
from tests.test_api_helpers import (
    chance_pending,
    client,
    finished,
    mid_game,
    position,
    state_json,
)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("analyse")) as c:
        yield c


def _post(api: TestClient, body: dict[str, Any]) -> Any:
    return api.post("/v1/analyse", json=body)


def test_lines_best_first_with_pov_and_pv(api: TestClient) -> None:
    s = mid_game()
    r = _post(api, {"state": state_json(s), "limit": {"iterations": 400}, "multipv": 4,
                    "seed": 7})
    assert r.status_code == 200, r.text
    body = r.json()
    pov = f"P{s.decision.player + 1}"
    assert body["pov"] == pov and body["decision"]["player"] == pov
    assert body["iterations"] == 400 and body["determinizations"] == 400
    assert body["elapsed"] > 0 and body["iterations_per_second"] > 0
    lines = body["lines"]
    assert 1 <= len(lines) <= 4
    assert [ln["rank"] for ln in lines] == list(range(1, len(lines) + 1))
    visits = [ln["visits"] for ln in lines]
    assert visits == sorted(visits, reverse=True)
    legal = {st.text(s.cat) for st in s.legal_steps()}
    for ln in lines:
        assert ln["step"]["text"] in legal
        assert engine.Step.from_json(ln["step"]["json"], s.cat).text(s.cat) == ln["step"]["text"]
        assert ln["move"]["text"].startswith(ln["step"]["text"])
        assert ln["move"]["steps"][0] == ln["step"]["json"]
        assert ln["eval"]["pov"] == pov
        assert set(ln["eval"]["win"]) == set(ln["eval"]["money"]) == {"P1", "P2"}
        assert all(0 <= w <= 1 for w in ln["eval"]["win"].values())
        assert 0 < ln["share"] <= 1
        for item in ln["pv"]:
            engine.Step.parse(item["step"], s.cat)  # notation that parses
        # the move is playable from the true state
        engine.apply_move(s, engine.Move(s.decision.player, tuple(
            engine.Step.from_json(j, s.cat) for j in ln["move"]["steps"])), complete=False)


def test_state_is_searched_through_the_observation(api: TestClient) -> None:
    """Same seed and iterations: the state and the decider's observation give the same
    answer (so the search never used what the state adds to the observation)."""
    # a plan decision after another player planned: hidden cards in the observation
    s = position("plan", where=lambda s: any(
        c >= 0 for i, p in enumerate(s.players) if i != s.decision.player for c in p.slots),
        tag="after-another")
    obs = engine.observe(s, s.decision.player)
    assert engine.observe(s, s.decision.player).state != s  # something is hidden
    body = {"limit": {"iterations": 150}, "multipv": 5, "seed": 11}
    a = _post(api, {"state": state_json(s), **body}).json()
    b = _post(api, {"observation": engine.observation_to_json(obs), **body}).json()
    for x in (a, b):
        x.pop("elapsed"), x.pop("iterations_per_second")
    assert a == b


KINDS = ["resting-cards", "plan", "action", "goods-buy", "goods-track", "expansion",
         "bookkeeping-points", "place-book", "bookkeeper-flip", "ink-jar", "oust-return"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_decision_kind(api: TestClient, kind: str) -> None:
    s = position(kind)
    r = _post(api, {"state": state_json(s), "limit": {"iterations": 40}, "multipv": 50})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["decision"]["kind"] == kind
    legal = {st.text(s.cat) for st in s.legal_steps()}
    assert {ln["step"]["text"] for ln in body["lines"]} <= legal


def test_starting_tile_choice(api: TestClient) -> None:
    s = position("starting-tile", variable=True)
    r = _post(api, {"state": state_json(s), "limit": {"iterations": 30}})
    assert r.status_code == 200, r.text
    assert r.json()["lines"][0]["step"]["json"]["kind"] == "tile"


def test_resting_deck_choice_with_end(api: TestClient) -> None:
    """An action decision where ending the phase (which resting deck to take) is a
    choice: the `end N` steps are analysed like any other."""
    s = position("action")
    ends = [st for st in s.legal_steps() if st.kind == "end"]
    assert ends
    r = _post(api, {"state": state_json(s), "limit": {"iterations": 300}, "multipv": 64})
    texts = {ln["step"]["text"] for ln in r.json()["lines"]}
    assert texts & {st.text(s.cat) for st in ends}


@pytest.mark.parametrize("kind", ["expansion", "action"])
def test_solver_plan_on_expansion_lines(api: TestClient, kind: str) -> None:
    s = position(kind, where=lambda s: any(st.kind in ("expand", "enter")
                                           for st in s.legal_steps()), tag="exp")
    r = _post(api, {"state": state_json(s), "limit": {"iterations": 200}, "multipv": 64})
    assert r.status_code == 200, r.text
    with_plan = [ln for ln in r.json()["lines"] if "solver" in ln]
    assert with_plan
    for ln in with_plan:
        plan = ln["solver"]
        assert plan["kind"] == "expansion" and isinstance(plan["agrees"], bool)
        assert plan["plan"]["regions"] is not None
        if kind == "action":
            assert plan["steps"][0] == ln["step"]["text"]  # expand <company>
    assert all("solver" not in ln for ln in r.json()["lines"]
               if ln["step"]["json"]["kind"] not in ("expand", "enter", "stop"))


def test_solver_plan_on_bookkeeping_lines(api: TestClient) -> None:
    s = position("bookkeeping-points")
    r = _post(api, {"state": state_json(s), "limit": {"iterations": 100}, "multipv": 64})
    lines = r.json()["lines"]
    assert lines and all(ln["solver"]["kind"] == "bookkeeping" for ln in lines)
    best = lines[0]["solver"]
    assert best["plan"]["points"] >= 1 and best["steps"]
    assert all(isinstance(ln["solver"]["agrees"], bool) for ln in lines)


def test_jobs_add_up_iterations(api: TestClient) -> None:
    r = _post(api, {"state": state_json(mid_game()), "limit": {"iterations": 50}, "jobs": 2,
                    "seed": 1})
    assert r.status_code == 200, r.text
    assert r.json()["iterations"] == 100 and r.json()["jobs"] == 2


def test_default_limit_is_a_short_time(api: TestClient) -> None:
    r = _post(api, {"state": state_json(mid_game())})
    assert r.status_code == 200
    assert r.json()["limit"] == {"time": 0.2}


# -- 409 ----------------------------------------------------------------------------------

def test_chance_event_is_409(api: TestClient) -> None:
    r = _post(api, {"state": state_json(chance_pending())})
    assert r.status_code == 409
    assert r.json()["message"] == "chance event pending: report or sample the outcome"


def test_game_over_is_409(api: TestClient) -> None:
    r = _post(api, {"state": state_json(finished())})
    assert r.status_code == 409 and "over" in r.json()["message"]


def test_observation_of_another_player_is_409(api: TestClient) -> None:
    s = mid_game()
    rng = random.Random(2)
    while s.decision.simultaneous or s.decision.is_chance:
        s = s.apply(s.sample_chance() if s.decision.is_chance else rng.choice(s.legal_steps()))
    other = 1 - s.decision.player
    r = _post(api, {"observation": engine.observation_to_json(engine.observe(s, other))})
    assert r.status_code == 409
    assert r.json()["field"] == "observation.viewer"


def test_planning_is_analysed_for_every_seat_still_planning(api: TestClient) -> None:
    """Planning is simultaneous (issue 14): a seat's analysis is there as soon as the
    phase starts, whichever seat the state lists first."""
    s = mid_game()
    while s.decision.kind != "plan" or len(s.decision.seats or ()) < 2:
        s = s.apply(s.sample_chance() if s.decision.is_chance else s.legal_steps()[-1])
    second = s.decision.seats[1]
    obs = engine.observe(s, second)
    assert obs.state.decision.player == second
    r = _post(api, {"observation": engine.observation_to_json(obs), "limit": {"iterations": 30}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["decision"]["seat"] == second + 1 and body["pov"] == f"P{second + 1}"
    assert body["decision"]["kind"] == "plan" and body["lines"]


# -- 422 ----------------------------------------------------------------------------------

def test_malformed_json_is_422(api: TestClient) -> None:
    r = api.post("/v1/analyse", content=b'{"state": ', headers={"content-type":
                                                               "application/json"})
    assert r.status_code == 422
    assert r.json()["error"] == "invalid" and r.json()["field"] == "body"


def test_unknown_field_is_422_naming_it(api: TestClient) -> None:
    r = _post(api, {"state": state_json(mid_game()), "limit": {"tim": 1}})
    assert r.status_code == 422
    assert r.json()["field"] == "limit.tim"


def test_wrong_type_is_422_naming_it(api: TestClient) -> None:
    r = _post(api, {"state": state_json(mid_game()), "multipv": "many"})
    assert r.status_code == 422 and r.json()["field"] == "multipv"
    r = _post(api, {"state": state_json(mid_game()), "limit": {}})
    assert r.status_code == 422 and r.json()["field"] == "limit"


def test_state_and_observation_exclusive(api: TestClient) -> None:
    s = mid_game()
    r = _post(api, {})
    assert r.status_code == 422 and r.json()["field"] == "state"
    r = _post(api, {"state": state_json(s), "observation": engine.observation_to_json(
        engine.observe(s, 0))})
    assert r.status_code == 422 and r.json()["field"] == "observation"


def test_state_format_error_names_the_field(api: TestClient) -> None:
    obj = state_json(mid_game())
    obj["round"] = "seven"
    r = _post(api, {"state": obj})
    assert r.status_code == 422
    assert r.json()["field"] == "state.round"
    assert r.json()["message"].startswith("state.round:")
    obj = state_json(mid_game())
    obj["player_states"][0]["hand"] = ["Z99"]
    r = _post(api, {"state": obj})
    assert r.status_code == 422 and r.json()["field"].startswith("state.player_states")
    r = _post(api, {"observation": {"schema": "mombasa-observation/1", "viewer": 1,
                                    "state": None}})
    assert r.status_code == 422 and r.json()["field"] == "observation.state"


def test_broken_invariant_is_422_naming_it(api: TestClient) -> None:
    obj = state_json(mid_game())
    obj["removed_posts"]["MOM"] += 1  # a 16th trading post
    r = _post(api, {"state": obj})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invariant" and body["field"] == "state"
    assert any(b.startswith("trading posts of MOM: 16 accounted for")
               for b in body["invariants"])
    assert "trading posts of MOM" in body["message"]
    obj = state_json(mid_game())
    card = next(c for c in obj["display"].values() if c)
    obj["player_states"][0]["hand"].append(card)  # a card in two places
    r = _post(api, {"state": obj})
    assert r.status_code == 422 and r.json()["error"] == "invariant"
    assert any(f"card {card}" in b for b in r.json()["invariants"])
    obs = engine.observation_to_json(engine.observe(mid_game(), 0))
    obs["state"]["removed_posts"]["CAI"] = 2
    r = _post(api, {"observation": obs})
    assert r.status_code == 422 and r.json()["error"] == "invariant"
    assert r.json()["field"] == "observation.state"


def test_catalogue_path_is_refused(api: TestClient) -> None:
    obj = state_json(mid_game())
    obj["catalogue"] = "/etc/passwd"
    r = _post(api, {"state": obj})
    assert r.status_code == 422 and r.json()["field"] == "state.catalogue"


def test_caps_are_422(api: TestClient) -> None:
    st = state_json(mid_game())
    cases: list[tuple[dict[str, Any], str]] = [
             ({"limit": {"time": 60}}, "limit.time"),
             ({"limit": {"iterations": 10**9}}, "limit.iterations"),
             ({"multipv": 1000}, "multipv"), ({"jobs": 3}, "jobs"),
             ({"limit": {"time": -1}}, "limit.time"), ({"seed": -1}, "seed")]
    for extra, field in cases:
        r = _post(api, {"state": st, **extra})
        assert r.status_code == 422, extra
        assert r.json()["field"] == field, (extra, r.json())


# -- 413 ----------------------------------------------------------------------------------

def test_body_too_large_is_413(api: TestClient) -> None:
    big = {"state": state_json(mid_game()), "padding": "x" * 400_000}
    r = api.post("/v1/analyse", content=json.dumps(big).encode(),
                 headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "too-large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while read
        yield b'{"state": {}, "padding": "'
        for _ in range(40):
            yield b"x" * 10_000
        yield b'"}'

    r = api.post("/v1/analyse", content=chunks(), headers={"content-type":
                                                          "application/json"})
    assert r.status_code == 413


# -- 429, 500, 504 --------------------------------------------------------------------------

def test_full_queue_is_429_with_retry_after(tmp_path: Path) -> None:
    st = state_json(mid_game())
    with client(tmp_path, workers=1, max_queue=0) as c:
        results: list[int] = []
        t = threading.Thread(target=lambda: results.append(
            c.post("/v1/analyse", json={"state": st, "limit": {"time": 1.5}}).status_code))
        t.start()
        deadline = time.time() + 5
        while c.get("/v1/health").json()["idle"] != 0 and time.time() < deadline:
            time.sleep(0.02)
        r = c.post("/v1/analyse", json={"state": st, "limit": {"time": 0.5}})
        assert r.status_code == 429
        assert int(r.headers["Retry-After"]) >= 1
        assert r.json()["error"] == "busy"
        t.join()
        assert results == [200]


def test_crash_is_500_and_service_stays_up(api: TestClient,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis.Plan, "tasks", lambda self, progress_every=None:
                        [{"kind": "_crash"}])
    r = _post(api, {"state": state_json(mid_game())})
    assert r.status_code == 500
    assert r.json()["error"] == "search-failed" and "died" in r.json()["message"]
    monkeypatch.setattr(analysis.Plan, "tasks", lambda self, progress_every=None:
                        [{"kind": "_raise", "message": "engine bug"}])
    r = _post(api, {"state": state_json(mid_game())})
    assert r.status_code == 500 and "engine bug" in r.json()["message"]
    monkeypatch.undo()
    r = _post(api, {"state": state_json(mid_game()), "limit": {"iterations": 20}})
    assert r.status_code == 200


def test_search_over_its_time_is_504(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with client(tmp_path, grace=0.5) as c:
        monkeypatch.setattr(analysis.Plan, "tasks", lambda self, progress_every=None:
                            [{"kind": "_sleep", "seconds": 30}])
        t0 = time.time()
        r = c.post("/v1/analyse", json={"state": state_json(mid_game()),
                                        "limit": {"time": 0.3}})
        assert r.status_code == 504 and r.json()["error"] == "search-timeout"
        assert time.time() - t0 < 5
        monkeypatch.undo()
        r = c.post("/v1/analyse", json={"state": state_json(mid_game()),
                                        "limit": {"iterations": 20}})
        assert r.status_code == 200


# -- streaming ----------------------------------------------------------------------------

def _events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            yield name, json.loads(line[6:])


def test_stream_sends_lines_then_done(api: TestClient) -> None:
    body = {"state": state_json(mid_game()), "limit": {"time": 1.0}, "multipv": 2}
    with api.stream("POST", "/v1/analyse/stream", json=body) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = list(_events(r.iter_lines()))
    names = [n for n, _ in events]
    assert names[-1] == "done" and names.count("lines") >= 2
    its = [b["iterations"] for _, b in events]
    assert its == sorted(its)
    assert events[-1][1]["final"] is True and events[0][1]["final"] is False
    assert len(events[-1][1]["lines"]) == 2


def test_stream_stops_when_the_client_leaves(tmp_path: Path) -> None:
    st = state_json(mid_game())
    with client(tmp_path, workers=1, max_time=10) as c:
        t0 = time.time()
        with c.stream("POST", "/v1/analyse/stream",
                      json={"state": st, "limit": {"time": 8}}) as r:
            for name, _ in _events(r.iter_lines()):
                if name == "lines":
                    break
        # the only process is free again long before the 8 s limit
        r2 = c.post("/v1/analyse", json={"state": st, "limit": {"iterations": 20}})
        assert r2.status_code == 200
        assert time.time() - t0 < 5


def test_stream_reports_a_failed_search_as_an_event(api: TestClient,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis.Plan, "tasks", lambda self, progress_every=None:
                        [{"kind": "_raise", "message": "engine bug"}])
    with api.stream("POST", "/v1/analyse/stream",
                    json={"state": state_json(mid_game())}) as r:
        events = list(_events(r.iter_lines()))
    assert events[-1][0] == "error" and "engine bug" in events[-1][1]["message"]


def test_stream_errors_before_start_are_json(api: TestClient) -> None:
    r = api.post("/v1/analyse/stream", json={"state": state_json(chance_pending())})
    assert r.status_code == 409


def test_unknown_keys_of_an_observation_are_named_where_they_are(api: TestClient) -> None:
    obs = engine.observation_to_json(engine.observe(mid_game(), 0))
    r = _post(api, {"observation": {**obs, "junk": 1}})
    assert r.status_code == 422 and r.json()["field"] == "observation.junk"
    obs["state"]["junk"] = 1
    r = _post(api, {"observation": obs})
    assert r.status_code == 422 and r.json()["field"] == "observation.state.junk"
