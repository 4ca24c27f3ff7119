"""A game's review as a job of the search pool: ``POST /v1/games/{id}/review`` (202),
polled to ``done`` with its progress rising, the result stored with the game (read back
by a restarted service, deleted with the game), cancelled within about a second, the
access rules (a seat reviews its own seat before the end; anyone any seat after it) and
the 422s naming the field. The reviews are the real ones (:mod:`search.review`) at a
tiny budget, on games of random bots."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.test_api_helpers import auth, client, new_game

RANDOM_AI = [{"kind": "ai", "bot": "random"}, {"kind": "ai", "bot": "random"}]
HUMAN_AI = [{"kind": "human"}, {"kind": "ai", "bot": "random"}]


def finished_game(api: TestClient) -> tuple[str, str]:
    """A two-player game of random bots, played to its end: (id, owner token)."""
    r = api.post("/v1/games", json={"seats": RANDOM_AI})
    assert r.status_code == 201, r.text
    gid, owner = r.json()["id"], r.json()["owner_token"]
    deadline = time.monotonic() + 120
    while not api.get(f"/v1/games/{gid}?wait=20").json()["over"]:
        assert time.monotonic() < deadline, "the random game did not finish"
    return gid, owner


def follow(api: TestClient, gid: str, job: str, headers: dict[str, str] | None = None,
           timeout: float = 120) -> tuple[dict[str, Any], list[tuple[str, int, int | None]]]:
    """Poll a job to its end: its last answer and every (status, done, total) seen."""
    seen: list[tuple[str, int, int | None]] = []
    deadline = time.monotonic() + timeout
    while True:
        r = api.get(f"/v1/games/{gid}/review/{job}", headers=headers or {})
        assert r.status_code == 200, r.text
        body = r.json()
        seen.append((body["status"], body["progress"]["done"], body["progress"]["total"]))
        if body["status"] not in ("queued", "running"):
            return body, seen
        assert time.monotonic() < deadline, f"the review did not end: {seen[-3:]}"
        time.sleep(0.05)


def stored_reviews(tmp: Path) -> int:
    with sqlite3.connect(tmp / "games.db") as db:
        return int(db.execute("SELECT COUNT(*) FROM reviews").fetchone()[0])


def test_review_runs_to_done_is_stored_and_deleted_with_the_game(tmp_path: Path) -> None:
    with client(tmp_path) as api:
        gid, owner = finished_game(api)
        r = api.post(f"/v1/games/{gid}/review", json={"budget": {"iterations": 8},
                                                      "seed": 1})
        assert r.status_code == 202, r.text
        job = r.json()
        assert job["status"] in ("queued", "running") and job["seats"] == [1, 2]
        body, seen = follow(api, gid, job["job"])
        assert body["status"] == "done", body
        dones = [d for _, d, _ in seen]
        assert dones == sorted(dones), "progress went back"
        total = body["progress"]["total"]
        assert total and body["progress"]["done"] == total
        review = body["review"]
        assert review["format"] == "mombasa-review/1" and review["seats"] == [1, 2]
        assert len(review["decisions"]) == total
        first = review["decisions"][0]
        assert {"index", "player", "played", "best", "loss_win", "loss_money",
                "class"} <= set(first)
        assert set(review["curves"]) == {"1", "2"}
        # the position before a reviewed decision, as a spectator of the finished game
        pos = api.get(f"/v1/games/{gid}/review/{job['job']}/positions/{first['index']}")
        assert pos.status_code == 200, pos.text
        assert pos.json()["decision"]["seat"] == first["player"]
        assert pos.json()["step"] == first["played"]
        listed = api.get(f"/v1/games/{gid}/review").json()["reviews"]
        assert [(j["job"], j["status"], j["review"]) for j in listed] == [
            (job["job"], "done", None)]
    assert stored_reviews(tmp_path) == 1
    # a new service on the same database reads the review back
    with client(tmp_path) as api:
        again = api.get(f"/v1/games/{gid}/review/{job['job']}")
        assert again.status_code == 200, again.text
        assert again.json()["status"] == "done" and again.json()["review"] == review
        gone = api.delete(f"/v1/games/{gid}", headers={"Authorization": f"Bearer {owner}"})
        assert gone.status_code == 200, gone.text
        assert api.get(f"/v1/games/{gid}/review/{job['job']}").status_code == 404
    assert stored_reviews(tmp_path) == 0


def test_cancel_stops_the_review_within_a_second(tmp_path: Path) -> None:
    with client(tmp_path, max_iterations=100_000) as api:
        gid, owner = finished_game(api)
        headers = {"Authorization": f"Bearer {owner}"}
        r = api.post(f"/v1/games/{gid}/review", json={"budget": {"iterations": 20_000}},
                     headers=headers)
        assert r.status_code == 202, r.text
        job = r.json()["job"]
        deadline = time.monotonic() + 30
        while api.get(f"/v1/games/{gid}/review/{job}").json()["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        began = time.monotonic()
        r = api.delete(f"/v1/games/{gid}/review/{job}", headers=headers)
        assert r.status_code == 200, r.text
        assert r.json() == {"id": gid, "job": job, "status": "cancelled", "deleted": False}
        # the pool has let the search go: nothing in flight within about a second
        while api.get("/v1/health").json()["in_flight"]:
            assert time.monotonic() - began < 1.5, "the review's search went on"
            time.sleep(0.05)
        body = api.get(f"/v1/games/{gid}/review/{job}").json()
        assert body["status"] == "cancelled" and body["review"] is None
        assert api.get(f"/v1/games/{gid}/review/{job}").json()["status"] == "cancelled"
    assert stored_reviews(tmp_path) == 0


def _play_own_steps(api: TestClient, gid: str, steps: int) -> None:
    """Seat 1 (human) takes its first legal step ``steps`` times (the AI answers)."""
    for _ in range(steps):
        v = api.get(f"/v1/games/{gid}?seat=1&wait=20", headers=auth(gid, 1)).json()
        assert v["your_turn"] and not v["over"], v["decision"]
        r = api.post(f"/v1/games/{gid}/steps", headers=auth(gid, 1),
                     json={"seat": 1, "step": v["legal"][0]["text"]})
        assert r.status_code == 200, r.text


def test_a_seat_reviews_its_own_seat_only_before_the_end(tmp_path: Path) -> None:
    with client(tmp_path) as api:
        gid = new_game(api, HUMAN_AI)["id"]
        _play_own_steps(api, gid, 6)
        url = f"/v1/games/{gid}/review"
        other = api.post(url, json={"seats": [2]}, headers=auth(gid, 1))
        assert other.status_code == 403 and other.json()["field"] == "seat", other.text
        assert api.post(url, json={"seats": [1]}).status_code == 401
        seeing = api.post(url, json={"all_seeing": True}, headers=auth(gid, 1))
        assert seeing.status_code == 409 and seeing.json()["field"] == "all_seeing"
        r = api.post(url, json={"budget": {"iterations": 5}}, headers=auth(gid, 1))
        assert r.status_code == 202 and r.json()["seats"] == [1], r.text
        job = r.json()["job"]
        twice = api.post(url, json={"budget": {"iterations": 5}}, headers=auth(gid, 1))
        assert twice.status_code in (202, 409), twice.text  # 409 while the first runs
        body, _ = follow(api, gid, job, auth(gid, 1))
        assert body["status"] == "done", body
        assert {d["player"] for d in body["review"]["decisions"]} <= {1}
        # its seat's review is not for others before the end
        assert api.get(f"{url}/{job}").status_code == 401
        assert api.get(f"{url}/{job}/positions/0").status_code == 401
        assert api.delete(f"{url}/{job}").status_code == 401
        assert api.get(url).json()["reviews"] == []
        assert [j["job"] for j in api.get(url, headers=auth(gid, 1)).json()["reviews"]
                if j["job"] == job] == [job]
        # the token's own review: forgotten on DELETE
        r = api.delete(f"{url}/{job}", headers=auth(gid, 1))
        assert r.status_code == 200 and r.json()["deleted"] is True, r.text
        assert api.get(f"{url}/{job}", headers=auth(gid, 1)).status_code == 404


@pytest.mark.parametrize(("body", "field"), [
    ({"seats": [0]}, "seats[0]"),
    ({"seats": [1, 3]}, "seats[1]"),
    ({"seats": [1, 1]}, "seats"),
    ({"seats": []}, "seats"),
    ({"seats": "1"}, "seats"),
    ({"budget": {}}, "budget"),
    ({"budget": {"iterations": 5, "seconds": 0.1}}, "budget"),
    ({"budget": {"iterations": 0}}, "budget.iterations"),
    ({"budget": {"iterations": 20_001}}, "budget.iterations"),
    ({"budget": {"seconds": 4.0}}, "budget.seconds"),
    ({"budget": {"iterations": "5"}}, "budget.iterations"),
    ({"all_seeing": "yes"}, "all_seeing"),
    ({"depth": 3}, "depth"),
])
def test_bad_requests_are_422_naming_the_field(review_api: tuple[TestClient, str],
                                               body: dict[str, Any], field: str) -> None:
    api, gid = review_api
    r = api.post(f"/v1/games/{gid}/review", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field, r.json()


@pytest.fixture(scope="module")
def review_api(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A service with a finished game (small caps: 20,000 iterations, 3 s)."""
    with client(tmp_path_factory.mktemp("review-422")) as api:
        gid, _ = finished_game(api)
        yield api, gid


def test_admission_is_an_analysis_and_unknown_jobs_are_404(tmp_path: Path) -> None:
    with client(tmp_path, client_analyses=1, max_iterations=100_000) as api:
        gid, owner = finished_game(api)
        headers = {"Authorization": f"Bearer {owner}"}
        first = api.post(f"/v1/games/{gid}/review", json={"budget": {"iterations": 20_000}},
                         headers=headers)
        assert first.status_code == 202, first.text
        second = api.post(f"/v1/games/{gid}/review", json={"budget": {"iterations": 5}})
        assert second.status_code == 429 and second.json()["error"] == "client-limit"
        assert int(second.headers["Retry-After"]) >= 1
        assert api.delete(f"/v1/games/{gid}/review/{first.json()['job']}",
                          headers=headers).json()["status"] == "cancelled"
        assert api.get(f"/v1/games/{gid}/review/nosuchjob").status_code == 404
        assert api.get("/v1/games/nosuchgame/review").status_code == 404
