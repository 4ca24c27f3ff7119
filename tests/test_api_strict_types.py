"""No type coercion in request bodies (issue 52, strict input: "no string-to-bool or
string-to-int coercion"): ``"takebacks": "no"`` was read as false, ``"reproducible":
"yes"`` as true, ``"perspective": true`` as seat 1, ``"multipv": "1"`` as 1. Each is now
a 422 naming the field, and nothing is created or changed; a number where a decimal is
expected (``"time": 1``) is still a number."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.test_api_helpers import client

HUMANS = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("strict-types"), workers=1) as c:
        yield c


@pytest.mark.parametrize(("extra", "field"), [
    ({"takebacks": "no"}, "takebacks"),
    ({"takebacks": 0}, "takebacks"),
    ({"reproducible": "yes"}, "reproducible"),
    ({"variable": 1}, "variable"),
    ({"perspective": True}, "perspective"),
    ({"perspective": "1"}, "perspective"),
    ({"seed": "5"}, "seed"),
    ({"seed": 5.0}, "seed"),
])
def test_a_new_game_takes_no_coerced_value(api: TestClient, extra: dict[str, Any],
                                           field: str) -> None:
    r = api.post("/v1/games", json={"seats": HUMANS, "mode": "live", **extra})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid" and r.json()["field"] == field, r.text


@pytest.mark.parametrize(("extra", "field"), [
    ({"multipv": "1"}, "multipv"),
    ({"jobs": True}, "jobs"),
    ({"seed": "3"}, "seed"),
    ({"limit": {"iterations": "10"}}, "limit.iterations"),
    ({"limit": {"time": "1"}}, "limit.time"),
])
def test_an_analysis_takes_no_coerced_value(api: TestClient, extra: dict[str, Any],
                                            field: str) -> None:
    r = api.post("/v1/analyse", json={"state": {}, **extra})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid" and r.json()["field"] == field, r.text


def test_steps_and_saves_take_no_coerced_value(api: TestClient) -> None:
    created = api.post("/v1/games", json={"seats": HUMANS, "mode": "live", "seed": 4})
    assert created.status_code == 201, created.text
    gid = created.json()["id"]
    before = api.get(f"/v1/games/{gid}").json()
    r = api.post(f"/v1/games/{gid}/steps", json={"seat": "1", "step": "rest"})
    assert r.status_code == 422 and r.json()["field"] == "seat", r.text
    assert api.get(f"/v1/games/{gid}").json() == before
    r = api.post("/v1/catalogues", json={"name": "x", "catalogue": {}, "replace": "true"})
    assert r.status_code == 422 and r.json()["field"] == "replace", r.text


def test_a_whole_number_is_still_a_number_of_seconds(api: TestClient) -> None:
    r = api.post("/v1/analyse", json={"state": {}, "limit": {"time": 1}})
    assert r.status_code == 422 and r.json()["field"] != "limit.time", r.text


def test_a_key_given_twice_is_refused_naming_it(api: TestClient) -> None:
    """``{"seat": 2, "seat": 1}`` acted for seat 1 (the parser keeps the last): a key
    given twice in one object is a 422 naming its path, and nothing changes."""
    created = api.post("/v1/games", json={"seats": HUMANS, "mode": "live", "seed": 6})
    gid = created.json()["id"]
    before = api.get(f"/v1/games/{gid}").json()
    headers = {"content-type": "application/json"}
    r = api.post(f"/v1/games/{gid}/steps", headers=headers,
                 content=b'{"seat": 2, "seat": 1, "step": "rest"}')
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid" and r.json()["field"] == "seat"
    assert api.get(f"/v1/games/{gid}").json() == before
    r = api.post("/v1/analyse", headers=headers,
                 content=b'{"state": {"players": 2, "round": 1, "players": 3}}')
    assert r.status_code == 422 and r.json()["field"] == "state.players", r.text
    r = api.post("/v1/games", headers=headers,
                 content=b'{"seats": [{"kind": "human", "kind": "ai"}, {"kind": "human"}]}')
    assert r.status_code == 422 and r.json()["field"] == "seats[0].kind", r.text
    # the same key in two objects is two keys
    r = api.post("/v1/games", headers=headers,
                 content=b'{"seats": [{"kind": "human"}, {"kind": "human"}], "mode": "live"}')
    assert r.status_code == 201, r.text
