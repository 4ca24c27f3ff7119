"""Seats belong to people, and chance is secret (issue 15, items 1-3):

* a seat's view, steps, moves, analysis and undo need its token (401 without one, 403
  with another seat's or a made-up one), and a refused request changes nothing;
* without a token a client gets the spectator's view: no seat's plan or starting tiles;
* undo takes back only the caller's own move, if the game allows takebacks, and in play
  mode never across a reveal; live mode corrects any entry;
* state changes need ``Content-Type: application/json`` (415 for a cross-site form);
* ``DELETE /v1/games/{id}`` and the expiry of idle games;
* in play mode nothing a client receives predicts the cards the service deals next.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from advisor_api.app import create_app
from tests.test_api_helpers import auth, client, new_game, small_settings

HUMANS = [{"kind": "human"}, {"kind": "human"}]
RANDOM_AI = [{"kind": "human"}, {"kind": "ai", "bot": "random"}]
BAD = {"Authorization": "Bearer not-a-token-of-this-game"}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("seats")) as c:
        yield c


_new = new_game


def _view(api: TestClient, gid: str, seat: int | None, wait: float = 10) -> dict[str, Any]:
    """``seat``'s view with its own token; None: the spectator's (no token)."""
    params: dict[str, Any] = {"wait": wait}
    if seat is not None:
        params["seat"] = seat
    r = api.get(f"/v1/games/{gid}", params=params,
                headers=auth(gid, seat) if seat is not None else {})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _step(api: TestClient, gid: str, seat: int, step: Any,
          headers: dict[str, str] | None = None) -> Any:
    return api.post(f"/v1/games/{gid}/steps", json={"seat": seat, "step": step},
                    headers=auth(gid, seat) if headers is None else headers)


def _undo(api: TestClient, gid: str, seat: int | None,
          headers: dict[str, str] | None = None) -> Any:
    return api.post(f"/v1/games/{gid}/undo", json={},
                    headers=auth(gid, seat) if headers is None else headers)


def _deciding(v: dict[str, Any]) -> list[int]:
    d = v["decision"]
    return list(d["seats"] or ([d["seat"]] if d["seat"] else []))


def _play_to(api: TestClient, gid: str, rng: random.Random, until: Any,
             limit: int = 3000) -> dict[str, Any]:
    """Random legal steps of whichever human seat decides, until ``until(spectator
    view)``; the spectator's view then."""
    for _ in range(limit):
        v = _view(api, gid, None)
        if until(v) or v["over"]:
            return v
        seat = next(s for s in _deciding(v) if v["seats"][s - 1]["kind"] == "human")
        mine = _view(api, gid, seat)
        r = _step(api, gid, seat, rng.choice(mine["legal"])["json"])
        assert r.status_code == 200, r.text
    raise AssertionError("not reached")


# -- tokens -------------------------------------------------------------------------------

def test_a_seat_needs_its_own_token(api: TestClient) -> None:
    """Without seat 2's token nobody reads seat 2's view, posts its steps or moves, asks
    its analysis or takes back its moves; each refusal names the header and changes
    nothing."""
    g = _new(api, HUMANS, takebacks=True)
    gid = g["id"]
    assert set(g["tokens"]) == {"1", "2"} and g["tokens"]["1"] != g["tokens"]["2"]
    assert g["links"]["1"] == f"/#game={gid}&seat=1&token={g['tokens']['1']}"
    assert g["links"]["spectator"] == f"/#game={gid}"
    # seat 1 rests, seat 2 is to decide
    assert _step(api, gid, 1, g["legal"][0]["text"]).status_code == 200
    before = _view(api, gid, 2)
    assert before["your_turn"] and "tokens" not in before
    step = before["legal"][0]["text"]
    seat1 = auth(gid, 1)
    for headers, status in [({}, 401), (seat1, 403), (BAD, 403)]:
        r = api.get(f"/v1/games/{gid}", params={"seat": 2}, headers=headers)
        assert r.status_code == status, r.text
        r = _step(api, gid, 2, step, headers)
        assert r.status_code == status, r.text
        if status == 401:
            assert "Authorization: Bearer <token>" in r.json()["message"]
            assert r.headers["WWW-Authenticate"] == "Bearer"
            assert r.json()["error"] == "unauthorized"
        else:
            assert r.json()["error"] == "forbidden"
        r = api.post(f"/v1/games/{gid}/moves", json={"seat": 2, "move": step},
                     headers=headers)
        assert r.status_code == status, r.text
        r = api.get(f"/v1/games/{gid}/analysis", params={"seat": 2, "iterations": 10},
                    headers=headers)
        assert r.status_code == status, r.text
    # seat 1's token cannot take back seat 2's move: its undo is its own
    assert _step(api, gid, 2, step).status_code == 200
    before = _view(api, gid, 2)
    for headers, status in [({}, 401), (BAD, 403)]:
        assert _undo(api, gid, None, headers).status_code == status
    r = _undo(api, gid, 1)
    assert r.status_code == 409 and "only your own move" in r.json()["message"]
    r = api.post(f"/v1/games/{gid}/undo", json={"seat": 2}, headers=seat1)
    assert r.status_code == 403
    assert _view(api, gid, 2) == before  # nothing changed
    # the right token
    assert _undo(api, gid, 2).status_code == 200
    assert _view(api, gid, 2)["steps"] == before["steps"] - 1


def test_a_token_gives_its_own_seat_and_spectators_see_no_secrets(api: TestClient) -> None:
    g = _new(api, HUMANS)
    gid = g["id"]
    r = api.get(f"/v1/games/{gid}", headers=auth(gid, 2))
    assert r.status_code == 200 and r.json()["seat"] == 2  # the token says which seat
    spectator = api.get(f"/v1/games/{gid}").json()
    assert spectator["seat"] is None and not spectator["your_turn"]
    assert spectator["legal"] == [] and not spectator["can_undo"]
    assert spectator["observation"]["viewer"] is None
    assert spectator["observation"]["state"]["rng"] == "0"
    # a spectator may not act: undo, analysis, delete, steps
    assert api.get(f"/v1/games/{gid}/analysis").status_code == 401
    assert _undo(api, gid, None, {}).status_code == 401
    assert api.delete(f"/v1/games/{gid}").status_code == 401
    assert api.get(f"/v1/games/{gid}/score").status_code == 200  # public


def test_spectator_view_hides_every_plan_and_tile(api: TestClient) -> None:
    """Variable setup, two humans: the starting tiles and the plans of both seats stay
    out of the spectator's view (observation and history) until the reveal; what it
    shows of each seat is exactly what the other seat sees of it, and its history shows
    no step that either seat's does not."""
    g = _new(api, HUMANS, variable=True)
    gid = g["id"]
    rng = random.Random(4)
    secrets_seen = {"tile_options": 0, "slots": 0}
    for _ in range(400):
        spec = _view(api, gid, None)
        views = {s: _view(api, gid, s) for s in (1, 2)}
        sp = spec["observation"]["state"]
        for seat in (1, 2):
            seen = sp["player_states"][seat - 1]
            assert seen == views[3 - seat]["observation"]["state"]["player_states"][seat - 1]
            own = views[seat]["observation"]["state"]["player_states"][seat - 1]
            if not sp["revealed"]:
                assert all(c in (None, "hidden") for c in seen["slots"]), seen["slots"]
                assert all(c == "hidden" for c in seen["tile_options"])
                for key in secrets_seen:
                    if any(c not in (None, "hidden") for c in own[key]):
                        secrets_seen[key] += 1  # the seat knows, the spectator does not
        for i, h in enumerate(spec["history"]):
            if h["step"] is not None:
                assert all(v["history"][i]["step"] == h["step"] for v in views.values())
        if secrets_seen["slots"] >= 3 and spec["phase"] == "actions":
            break
        seat = _deciding(spec)[0]
        legal = views[seat]["legal"]
        plan = [x for x in legal if x["text"].startswith("plan ")]
        choice = plan[0] if plan and rng.random() < 0.7 else rng.choice(legal)
        r = _step(api, gid, seat, choice["json"])
        assert r.status_code == 200, r.text
    assert secrets_seen["tile_options"] and secrets_seen["slots"] >= 3, secrets_seen
    # after the reveal the plans are everyone's
    spec = _view(api, gid, None)
    assert any(h["step"] and h["step"].startswith("plan ") for h in spec["history"])


# -- takebacks ----------------------------------------------------------------------------

def test_takebacks_setting(api: TestClient) -> None:
    # two humans: off by default
    g = _new(api, HUMANS)
    assert not g["takebacks"]
    assert _step(api, g["id"], 1, g["legal"][0]["text"]).status_code == 200
    v = _view(api, g["id"], 1)
    assert not v["can_undo"]
    r = _undo(api, g["id"], 1)
    assert r.status_code == 409 and "takebacks are off" in r.json()["message"]
    assert _view(api, g["id"], 1) == v
    # one human: on by default, and off when asked
    solo = _new(api, RANDOM_AI)
    assert solo["takebacks"]
    off = _new(api, RANDOM_AI, takebacks=False)
    assert not off["takebacks"]
    assert _step(api, off["id"], 1, off["legal"][0]["text"]).status_code == 200
    r = _undo(api, off["id"], 1)
    assert r.status_code == 409 and "takebacks are off" in r.json()["message"]
    # two humans who agree
    on = _new(api, HUMANS, takebacks=True)
    assert _step(api, on["id"], 1, on["legal"][0]["text"]).status_code == 200
    assert _view(api, on["id"], 1)["can_undo"]
    assert _undo(api, on["id"], 1).status_code == 200
    assert _view(api, on["id"], 1)["steps"] == on["steps"]


def test_undo_takes_back_your_move_and_the_ai_replies(api: TestClient) -> None:
    g = _new(api, RANDOM_AI)
    gid = g["id"]
    assert _step(api, gid, 1, g["legal"][0]["text"]).status_code == 200
    v = _view(api, gid, 1)
    assert any(h["source"] == "ai" for h in v["history"][g["steps"]:])
    r = _undo(api, gid, 1)
    assert r.status_code == 200 and r.json()["steps"] == g["steps"]
    assert r.json()["seat"] == 1


def test_no_takeback_across_a_reveal_in_play_mode(api: TestClient) -> None:
    """Once cards were dealt after a human's move (bought cards replaced from the stack,
    a new round's display), the move stays: 409, nothing changed."""
    g = _new(api, RANDOM_AI)
    gid = g["id"]
    rng = random.Random(11)

    def dealt_since_my_move(v: dict[str, Any]) -> bool:
        last = max((h["index"] for h in v["history"] if h["source"] == "human"), default=-1)
        return last >= 0 and any(h["source"] == "chance"
                                 for h in v["history"][last + 1:])

    v = _play_to(api, gid, rng, dealt_since_my_move)
    assert dealt_since_my_move(v) and not v["over"]
    mine = _view(api, gid, 1)
    assert not mine["can_undo"]
    r = _undo(api, gid, 1)
    assert r.status_code == 409
    assert r.json()["message"] == ("the cards revealed after your move stay: no takeback "
                                   "across a reveal")
    assert _view(api, gid, 1) == mine


def test_live_mode_corrects_any_entry(api: TestClient) -> None:
    g = _new(api, HUMANS, mode="live")
    gid = g["id"]
    ref = engine.new_game(players=2, seed=31)
    while ref.decision.kind == "chance":
        step = ref.sample_chance()
        ref = ref.apply(step)
        r = api.post(f"/v1/games/{gid}/chance", json={"step": step.to_json()},
                     headers=auth(gid, 2))
        assert r.status_code == 200, r.text
    v1 = _view(api, gid, 1)
    assert _step(api, gid, 1, v1["legal"][0]["text"]).status_code == 200
    v2 = _view(api, gid, 2)
    assert _step(api, gid, 2, v2["legal"][0]["text"]).status_code == 200
    # seat 1's token takes back seat 2's entry, then its own, then the reported deals
    assert _view(api, gid, 1)["can_undo"]
    assert _undo(api, gid, 1).status_code == 200
    assert _view(api, gid, 2)["steps"] == v2["steps"]
    assert _undo(api, gid, 1).status_code == 200
    assert _view(api, gid, 1)["steps"] == v1["steps"]
    r = _undo(api, gid, 2)
    assert r.status_code == 200 and r.json()["steps"] == v1["steps"] - 1
    assert r.json()["history"][-1]["source"] == "report"


# -- JSON only ----------------------------------------------------------------------------

def test_state_changes_need_json(api: TestClient) -> None:
    """A cross-site form posts text/plain, form-urlencoded or multipart: 415 before
    anything runs, nothing changed."""
    g = _new(api, RANDOM_AI)
    gid = g["id"]
    assert _step(api, gid, 1, g["legal"][0]["text"]).status_code == 200
    before = _view(api, gid, 1)
    token = auth(gid, 1)
    for ctype in ("text/plain", "application/x-www-form-urlencoded",
                  "multipart/form-data; boundary=x", None):
        headers = {**token, **({"content-type": ctype} if ctype else {})}
        for path, body in [(f"/v1/games/{gid}/undo", "{}"),
                           (f"/v1/games/{gid}/steps",
                            f'{{"seat": 1, "step": "{before["legal"][0]["text"]}"}}'),
                           ("/v1/games", '{"seats": [{"kind": "human"}, {"kind": "human"}]}'),
                           ("/v1/analyse", "{}")]:
            r = api.post(path, content=body.encode(), headers=headers)
            assert r.status_code == 415, (path, ctype, r.text)
            assert r.json()["error"] == "unsupported-media-type"
            assert "application/json" in r.json()["message"]
    assert _view(api, gid, 1) == before
    r = api.post(f"/v1/games/{gid}/undo", content=b"{}",
                 headers={**token, "content-type": "application/json; charset=utf-8"})
    assert r.status_code == 200
    # undo's body is optional: a request without any body forges nothing, so it passes
    r = api.post(f"/v1/games/{gid}/undo", headers=token)
    assert r.status_code != 415, r.text


# -- deleting, expiring --------------------------------------------------------------------

@pytest.fixture()
def service(tmp_path: Path) -> Iterator[tuple[TestClient, Any]]:
    app = create_app(settings=small_settings(tmp_path, game_ttl_hours=1.0))
    with TestClient(app) as c:
        yield c, app.state.service


def test_delete_a_game(service: tuple[TestClient, Any]) -> None:
    c, svc = service
    g = _new(c, [{"kind": "ai", "bot": "mcts:time=1"}, {"kind": "human"}])
    gid = g["id"]
    game = svc.games.kept.in_memory[gid]
    assert g["ai"]["thinking"] and game.ai_task is not None
    assert c.delete(f"/v1/games/{gid}").status_code == 401
    assert c.delete(f"/v1/games/{gid}", headers=BAD).status_code == 403
    assert c.get(f"/v1/games/{gid}").status_code == 200  # still there
    r = c.delete(f"/v1/games/{gid}", headers=auth(gid, 2))
    assert r.status_code == 200 and r.json() == {"id": gid, "deleted": True}
    assert game.ai_task is None and game.deleted
    for method, path in [("GET", f"/v1/games/{gid}"), ("DELETE", f"/v1/games/{gid}"),
                         ("GET", f"/v1/games/{gid}/score")]:
        assert c.request(method, path, headers=auth(gid, 2)).status_code == 404, path
    assert _step(c, gid, 2, "ready").status_code == 404
    assert svc.store.load(gid) is None
    # live: any seat's token deletes
    live = _new(c, HUMANS, mode="live")
    assert c.delete(f"/v1/games/{live['id']}", headers=auth(live["id"], 2)).status_code == 200
    assert svc.store.load(live["id"]) is None


def test_idle_games_expire(service: tuple[TestClient, Any]) -> None:
    """MOMBASA_GAME_TTL_HOURS=1: a game nobody touched for over an hour is gone when next
    read (404) or at the next sweep; a seat's request keeps a game alive."""
    c, svc = service
    real = time.time
    a, b, kept = (_new(c, HUMANS) for _ in range(3))
    svc.games.clock = lambda: real() + 1800  # half an hour later: seat 1 of `kept` reads
    assert c.get(f"/v1/games/{kept['id']}", headers=auth(kept["id"], 1)).status_code == 200
    assert c.get(f"/v1/games/{a['id']}").status_code == 200  # a spectator: no activity
    svc.games.clock = lambda: real() + 4000  # 1.1 hours after creation
    r = c.get(f"/v1/games/{a['id']}", headers=auth(a["id"], 1))
    assert r.status_code == 404 and "expired" in r.json()["message"]
    assert "MOMBASA_GAME_TTL_HOURS" in r.json()["message"]
    assert svc.store.load(a["id"]) is None
    svc.games.kept.in_memory.clear()  # the sweep also finds games that are only in the database
    gone = c.portal.call(svc.games.sweep)
    assert gone == [b["id"]]
    assert svc.store.load(b["id"]) is None and svc.store.load(kept["id"]) is not None
    assert c.get(f"/v1/games/{kept['id']}", headers=auth(kept["id"], 1)).status_code == 200


# -- secret chance --------------------------------------------------------------------------

DRAWS = 8  # display cards to predict, after the game's creation
M64 = (1 << 64) - 1


def _walk(obj: Any, key: str) -> Iterator[Any]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                yield v
            yield from _walk(v, key)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v, key)


def _full_history(api: TestClient, gid: str) -> list[tuple[int | None, engine.Step]]:
    """Every step so far (seat 1's and seat 2's views together hide nothing)."""
    views = [_view(api, gid, s, wait=0)["history"] for s in (1, 2)]
    out = []
    for h1, h2 in zip(*views, strict=True):
        text = h1["step"] or h2["step"]
        assert text is not None, (h1, h2)
        who = h1["player"]
        out.append((int(who[1:]) - 1 if who.startswith("P") else None,
                    engine.Step.parse(text)))
    return out


def _predictions(start: engine.State, history: list[tuple[int | None, engine.Step]],
                 first: int) -> tuple[list[str], list[str], list[int]]:
    """Replay ``history`` from ``start`` (a candidate generator): at each display card
    dealt from index ``first`` on, what the candidate's own generator would deal, what
    was dealt, and how many outcomes there were."""
    s = start
    guessed, dealt, choices = [], [], []
    for i, (player, step) in enumerate(history):
        if i >= first and step.kind == "deal-card" and len(dealt) < DRAWS:
            guessed.append(s.sample_chance().text(s.cat))
            dealt.append(step.text(s.cat))
            choices.append(len(s.legal_steps()))
        s = s.apply(step, player)
    return guessed, dealt, choices


def _with_rng(value: int) -> engine.State:
    s = engine.new_game(players=2, seed=0)
    s.rng = value & M64
    return s


def _secret_game(api: TestClient, rng: random.Random, **kw: Any
                 ) -> tuple[list[tuple[str, engine.State]], list[dict[str, Any]], str, int]:
    """A play-mode game of two humans; the candidate generators anyone could build from
    what the clients received before the draws (named), every answer, the game id and
    the number of steps at creation."""
    t0 = time.time()
    g = _new(api, HUMANS, **kw)
    t1 = time.time()
    gid = g["id"]
    seen: list[dict[str, Any]] = [g, _view(api, gid, 1), _view(api, gid, 2),
                                  _view(api, gid, None),
                                  api.get(f"/v1/games/{gid}/score").json()]
    numbers = {int(v) for body in seen for key in ("seed", "rng") for v in _walk(body, key)
               if v is not None and str(v).isdigit()}
    as_int = int(gid, 16)
    numbers |= {as_int, as_int & ((1 << 31) - 1), as_int & ((1 << 63) - 1), as_int >> 32}
    cands: list[tuple[str, engine.State]] = []
    for n in sorted(numbers):
        cands += [(f"seed {n}", engine.new_game(players=2, seed=n & M64)),
                  (f"rng {n}", _with_rng(n))]
    for d in range(-2, 3):  # the creation time, in seconds and in milliseconds
        cands.append((f"second {d:+d}", engine.new_game(players=2, seed=int(t0) + d)))
    for d in range(-5, int((t1 - t0) * 1000) + 6):
        cands.append((f"ms {d:+d}", engine.new_game(players=2, seed=int(t0 * 1000) + d)))
    # play on until 8 more display cards were dealt
    start = g["steps"]
    answers = [*seen]

    def dealt(v: dict[str, Any]) -> bool:
        return sum(1 for h in v["history"][start:]
                   if h["step"] and h["step"].startswith("deal-card")) >= DRAWS

    for _ in range(3000):
        v = _view(api, gid, None)
        answers.append(v)
        if dealt(v):
            break
        seat = _deciding(v)[0]
        mine = _view(api, gid, seat)
        answers.append(mine)
        r = _step(api, gid, seat, rng.choice(mine["legal"])["json"])
        assert r.status_code == 200, r.text
        answers.append(r.json())
    assert dealt(v) and not v["over"]
    return cands, answers, gid, start


def test_play_mode_deals_from_a_secret(api: TestClient) -> None:
    """Four games: no predictor built from the answers (a seed field, the observation's
    generator, the game id, the creation time) foretells the next 8 display cards
    better than chance; a reproducible game, as a check of the predictors, is foretold
    8 of 8 from its seed."""
    rng = random.Random(2024)
    hits: dict[str, int] = {}
    expected = variance = 0.0
    for _ in range(4):
        cands, answers, gid, start = _secret_game(api, rng)
        # while the game runs nothing shows the generator
        for body in answers:
            assert body.get("seed") is None and not body.get("reproducible")
            assert all(v == "0" for v in _walk(body, "rng"))
        history = _full_history(api, gid)
        for name, cand in cands:
            guessed, dealt, choices = _predictions(cand, history, start)
            assert len(dealt) == DRAWS
            hits[name] = hits.get(name, 0) + sum(
                a == b for a, b in zip(guessed, dealt, strict=True))
        # the chance baseline: one outcome guessed at random
        expected += sum(1 / k for k in choices)
        variance += sum((1 / k) * (1 - 1 / k) for k in choices)
    bound = expected + 5 * variance ** 0.5 + 1
    best = max(hits.items(), key=lambda kv: kv[1])
    assert best[1] <= bound, (best, expected, bound)
    assert sum(hits.values()) / len(hits) <= expected + 3 * variance ** 0.5, hits
    # the same predictors see through a reproducible game: its seed is in every view
    cands, _, gid, start = _secret_game(api, rng, seed=99, reproducible=True)
    history = _full_history(api, gid)
    guessed, dealt, _ = _predictions(dict(cands)["seed 99"], history, start)
    assert guessed == dealt and len(dealt) == DRAWS


def test_the_seed_is_shown_once_the_game_is_over(api: TestClient) -> None:
    """For replay: the finished game's view names the seed its cards were dealt from."""
    g = _new(api, RANDOM_AI)
    gid = g["id"]
    assert g["seed"] is None and not g["reproducible"]
    v = _play_to(api, gid, random.Random(5), lambda v: v["over"])
    assert v["over"] and isinstance(v["seed"], int)
    s = engine.new_game(players=2, seed=v["seed"])
    for h in _view(api, gid, 1, wait=0)["history"]:
        step = engine.Step.parse(h["step"])
        if h["source"] == "chance":
            assert s.sample_chance() == step, h  # dealt from that seed
        who = h["player"]
        s = s.apply(step, int(who[1:]) - 1 if who.startswith("P") else None)
    assert s.is_over()


def test_a_chosen_seed_must_say_reproducible(api: TestClient) -> None:
    r = api.post("/v1/games", json={"seats": HUMANS, "seed": 7})
    assert r.status_code == 422 and r.json()["field"] == "seed"
    assert "reproducible" in r.json()["message"]
    g = _new(api, HUMANS, seed=7, reproducible=True)
    assert g["seed"] == 7 and g["reproducible"]
    assert _view(api, g["id"], None)["seed"] == 7
    g = _new(api, HUMANS, reproducible=True)  # a public seed of the service's choice
    assert isinstance(g["seed"], int)
    live = _new(api, HUMANS, mode="live", seed=7)  # nothing is dealt: any seed
    assert live["seed"] == 7
