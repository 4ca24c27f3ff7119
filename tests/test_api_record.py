"""Game records through the service (issue 53): ``GET /v1/games/{id}/record`` (a finished
game whole; an unfinished one as the caller may see it, by the views' access rules, the
secret seed never) and ``POST /v1/games`` with a record (the game at the record's last
position with its history, every step replayed strictly: a bad record is a 422 naming
the step or field and why, and nothing is stored; what follows dealt from the game's
own seed)."""

from __future__ import annotations

import copy
import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import engine
from advisor_api.cli import app
from search.arena import play_recorded
from tests.test_api_helpers import auth, client, remember

HUMANS = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Path]]:
    tmp = tmp_path_factory.mktemp("records")
    with client(tmp) as c:
        yield c, tmp / "games.db"


@pytest.fixture(scope="module")
def api(service: tuple[TestClient, Path]) -> TestClient:
    return service[0]


@pytest.fixture(scope="module")
def arena_record() -> dict[str, Any]:
    """A finished game between the random and the greedy bot, as the arena writes it."""
    return play_recorded(["random", "greedy"], index=0, seed=5)[1]


def _games(db: Path) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])


def _import(api: TestClient, record: dict[str, Any], **kw: Any) -> dict[str, Any]:
    r = api.post("/v1/games", json={"record": record, **kw})
    assert r.status_code == 201, r.text
    return remember(r.json())


def _record(api: TestClient, gid: str, seat: int | None = None,
            headers: dict[str, str] | None = None) -> Any:
    return api.get(f"/v1/games/{gid}/record", params={} if seat is None else {"seat": seat},
                   headers=headers or {})


def test_an_arena_record_round_trips_through_the_service(
        api: TestClient, arena_record: dict[str, Any]) -> None:
    game = _import(api, arena_record)
    assert game["over"] and game["steps"] == len(arena_record["steps"])
    assert game["owner_token"] and not game["tokens"]  # its seats were bots: AI seats
    assert [s["bot"] for s in game["seats"]] == [s["bot"] for s in arena_record["seats"]]
    out = _record(api, game["id"]).json()  # finished: the whole record, for anyone
    assert out["steps"] == arena_record["steps"] and out["view"] is None
    assert out["result"] == arena_record["result"]
    assert out["seed"] is None  # the service's own seed is never told
    score = api.get(f"/v1/games/{game['id']}/score").json()
    assert [s["total"] for s in score["score"]] == arena_record["result"]["totals"]
    back = engine.GameRecord.from_json(out)
    assert back.result == arena_record["result"]
    assert back.replay()[-1].is_over()


def test_a_play_record_imports_at_its_last_position(api: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    r = CliRunner().invoke(app, ["play", "--ai", "random", "--seed", "1", "--record",
                                 str(path)],
                           input="rest cof1/1 exp2/1 ban1/1\nq\n")
    assert r.exit_code == 0, r.output
    record = json.loads(path.read_text())
    game = _import(api, record)  # seats as the record's: P1 human, P2 an AI seat
    assert [s["kind"] for s in game["seats"]] == ["human", "ai"]
    assert game["history"][:len(record["steps"])] == [
        {**h, "step": st["step"], "source": st["source"]}
        for h, st in zip(game["history"], record["steps"], strict=False)]
    mine = _record(api, game["id"], headers=auth(game["id"], 1)).json()
    assert mine["view"] == 1
    assert mine["steps"][:len(record["steps"])] == record["steps"]


def _planning_half_done(record: dict[str, Any]) -> tuple[int, int]:
    """The first point of a record where one seat has planned (its "ready") and the
    other still plans: (steps up to it, the seat that planned, 0-based)."""
    states = engine.GameRecord.from_json(record).replay()
    for i, st in enumerate(record["steps"]):
        after = states[i + 1]
        if st["step"] == "ready" and after.decision.kind == "plan" and not after.revealed:
            return i + 1, st["player"] - 1
    raise LookupError("no half-done planning")


def test_a_seat_sees_its_own_plan_and_not_the_others(
        api: TestClient, arena_record: dict[str, Any]) -> None:
    cut, planned = _planning_half_done(arena_record)
    part = {**arena_record, "steps": arena_record["steps"][:cut]}
    del part["result"]
    game = _import(api, part, seats=HUMANS)
    gid, other = game["id"], 1 - planned
    # its plan steps this round ("ready" itself is public)
    plans = [i for i in range(cut - 6, cut) if part["steps"][i]["player"] == planned + 1
             and part["steps"][i]["step"].startswith("plan ")]
    assert plans and plans[-1] == cut - 2
    theirs = _record(api, gid, headers=auth(gid, other + 1)).json()
    assert theirs["view"] == other + 1 and theirs["seed"] is None
    assert all(theirs["steps"][i]["step"] is None for i in plans)
    assert "result" not in theirs or theirs["result"] is None
    own = _record(api, gid, headers=auth(gid, planned + 1)).json()
    assert [own["steps"][i]["step"] for i in plans] == [part["steps"][i]["step"]
                                                       for i in plans]
    public = _record(api, gid).json()  # no token: the spectator's, no seat's plan
    assert public["view"] == 0 and all(public["steps"][i]["step"] is None for i in plans)
    # the views' rules: another seat's record needs that seat's token
    assert _record(api, gid, seat=planned + 1,
                   headers=auth(gid, other + 1)).status_code == 403
    assert _record(api, gid, seat=other + 1).status_code == 401
    assert _record(api, gid, headers={"Authorization": "Bearer nope"}).status_code == 403
    # what a seat's record shows is what its view's history shows
    view = api.get(f"/v1/games/{gid}", headers=auth(gid, other + 1)).json()
    assert [h["step"] for h in view["history"]] == [s["step"] for s in theirs["steps"]]


def test_a_seats_record_cannot_be_imported_past_a_hidden_step(
        service: tuple[TestClient, Path], arena_record: dict[str, Any]) -> None:
    api, db = service
    cut, planned = _planning_half_done(arena_record)
    part = {**arena_record, "steps": arena_record["steps"][:cut]}
    del part["result"]
    gid = _import(api, part, seats=HUMANS)["id"]
    theirs = _record(api, gid, headers=auth(gid, 2 - planned)).json()
    hidden = next(i for i, st in enumerate(theirs["steps"]) if st["step"] is None)
    before = _games(db)
    r = api.post("/v1/games", json={"record": theirs, "seats": HUMANS})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == f"record.steps[{hidden}]"
    assert "hidden" in r.json()["message"]
    assert _games(db) == before


def _refused(service: tuple[TestClient, Path], body: dict[str, Any], field: str,
             words: str) -> None:
    """A 422 naming ``field`` with ``words`` in its message, and no game stored."""
    api, db = service
    before = _games(db)
    r = api.post("/v1/games", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and words in r.json()["message"], r.json()
    assert r.json()["message"].startswith(field)
    assert _games(db) == before


def test_an_illegal_step_is_refused_naming_its_index(
        service: tuple[TestClient, Path], arena_record: dict[str, Any]) -> None:
    states = engine.GameRecord.from_json(arena_record).replay()
    # a bot's step replaced by another player's decision: the index and the reason
    k = next(i for i, st in enumerate(arena_record["steps"])
             if i > 40 and st["source"] == "bot" and st["step"].startswith("buy"))
    bad = copy.deepcopy(arena_record)
    bad["steps"][k]["step"] = "ready"
    assert not any(st == engine.Step("ready") for st in states[k].legal_steps())
    _refused(service, {"record": bad}, f"record.steps[{k}]", "illegal here")
    bad = copy.deepcopy(arena_record)
    bad["steps"][k]["player"] = 3 - bad["steps"][k]["player"]
    _refused(service, {"record": bad}, f"record.steps[{k}]", "no decision here")


def test_malformed_records_are_refused_naming_the_field(
        service: tuple[TestClient, Path], arena_record: dict[str, Any]) -> None:
    bad = copy.deepcopy(arena_record)
    bad["steps"][3]["note"] = "x"
    _refused(service, {"record": bad}, "record.steps[3].note", "unknown field")
    _refused(service, {"record": {**arena_record, "catalogue": "0123abcd"}},
             "record.catalogue", "played with the components 0123abcd")
    _refused(service, {"record": {**arena_record, "format": "mombasa-game/9"}},
             "record.format", "expected 'mombasa-game/1'")
    _refused(service, {"record": {**arena_record, "result": {"totals": [1, 2],
                                                             "winners": [1]}}},
             "record.result", "the record says")
    _refused(service, {"record": arena_record, "seats": HUMANS + HUMANS[:1]}, "seats",
             "2-player game")
    _refused(service, {"record": arena_record, "variable": True}, "variable",
             "first-game setup")
    _refused(service, {"record": {**arena_record, "seats": [
        {"kind": "bot", "bot": "mcts:time=99"}, {"kind": "human"}]}},
             "record.seats[0].bot", "at most")
    _refused(service, {"record": "game.json"}, "record", "valid dictionary")
    _refused(service, {"mode": "play"}, "seats", "missing")


def test_after_an_import_chance_comes_from_the_games_own_seed(
        api: TestClient, arena_record: dict[str, Any]) -> None:
    rec = engine.GameRecord.from_json(arena_record)
    states = rec.replay()
    k = next(i for i, s in enumerate(states) if i > 30 and s.decision.is_chance)
    part = {**arena_record, "steps": arena_record["steps"][:k]}
    del part["result"]
    for seed in (11, 12):
        game = _import(api, part, seats=HUMANS, seed=seed, reproducible=True)
        dealt = game["history"][k]
        assert dealt["source"] == "chance"
        own = dataclasses.replace(rec, steps=rec.steps[:k], seed=seed, result=None)
        assert dealt["step"] == own.final_state().sample_chance().text(states[0].cat)
    secret = _import(api, part, seats=HUMANS)
    assert secret["seed"] is None and _record(api, secret["id"]).json()["seed"] is None
    # a finished reproducible game's record gives its (public) seed: replayed from it,
    # the record's steps lead where the game's generator stands
    done = _import(api, arena_record, seed=11, reproducible=True)
    assert _record(api, done["id"]).json()["seed"] == 11
    assert _record(api, _import(api, arena_record)["id"]).json()["seed"] is None


def test_an_import_is_stored_and_reloaded(
        service: tuple[TestClient, Path], arena_record: dict[str, Any]) -> None:
    api, _ = service
    gid = _import(api, arena_record)["id"]
    kept = api.app.state.service.games.kept  # type: ignore[attr-defined]
    del kept.in_memory[gid]  # read again from the database (replayed)
    assert _record(api, gid).json()["steps"] == arena_record["steps"]


def test_a_live_tables_record_imports_in_live_mode_only(
        service: tuple[TestClient, Path]) -> None:
    from advisor_api import game_views

    api, _ = service
    live = remember(api.post("/v1/games", json={"seats": HUMANS, "mode": "live",
                                                "variable": True}).json())
    gid, me = live["id"], auth(live["id"], 1)
    view = api.get(f"/v1/games/{gid}", headers=me).json()
    while view["decision"]["kind"] == "chance":  # report what the table deals
        r = api.post(f"/v1/games/{gid}/chance", json={"step": view["legal"][0]["text"]},
                     headers=me)
        assert r.status_code == 200, r.text
        view = r.json()
    mine = _record(api, gid, headers=me).json()
    unseen = [i for i, st in enumerate(mine["steps"]) if st["source"] == "unseen"]
    assert unseen and all(mine["steps"][i]["step"] is None for i in unseen)
    game = api.app.state.service.games.kept.in_memory[gid]  # type: ignore[attr-defined]
    whole = game_views.game_record(game).to_json(game.state.cat)
    assert whole["steps"][unseen[0]]["step"].endswith(" ?")  # nobody saw the tile
    _refused(service, {"record": whole}, f"record.steps[{unseen[0]}]", "dealt unseen")
    again = _import(api, whole, mode="live")
    assert again["steps"] == len(whole["steps"])
