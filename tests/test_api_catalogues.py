"""Component catalogues over HTTP: check (the validator's path and message), save under a
name, list, get (export), delete; name rules, duplicates, the shipped catalogue
protected, size and body errors; and games created with a stored catalogue: they play
with its values, keep them when the name is replaced or deleted, and replay them after a
restart (even when the catalogue's file is gone: the database holds its text)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from tests.test_api_helpers import auth, client, remember

DEFAULT = "default (reconstruction)"
AI = "mcts:iterations=10"
SHIPPED: dict[str, Any] = json.loads(Path(engine.default_catalogue().path).read_text())


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("catalogues")) as c:
        yield c


def _raw(**changes: Any) -> dict[str, Any]:
    """The shipped catalogue with some values changed: {"player.start_pounds": 5}."""
    raw = copy.deepcopy(SHIPPED)
    for path, value in changes.items():
        *head, last = path.split(".")
        node: Any = raw
        for key in head:
            node = node[int(key)] if key.isdigit() else node[key]
        node[int(last) if last.isdigit() else last] = value
    return raw


def _names(api: TestClient) -> list[str]:
    r = api.get("/v1/catalogues")
    assert r.status_code == 200, r.text
    return [c["name"] for c in r.json()["catalogues"]]


def _save(api: TestClient, name: str, raw: dict[str, Any], **kw: Any) -> dict[str, Any]:
    r = api.post("/v1/catalogues", json={"name": name, "catalogue": raw, **kw})
    assert r.status_code in (200, 201), r.text
    body: dict[str, Any] = r.json()
    return body


# -- check -------------------------------------------------------------------------------------

def test_check_a_valid_catalogue(api: TestClient) -> None:
    r = api.post("/v1/catalogues/check", json={"catalogue": SHIPPED})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["ok"] and body["error"] is None and body["page"] is None
    assert body["summary"]["regions"] == 24 and body["summary"]["books"] == {
        "A": 24, "B": 24, "C": 24}
    # asked for, the catalogue as the page draws it (GET /v1/catalogue's shape)
    raw = _raw(**{"books.12.reward": {"pounds": 9}})
    page = api.post("/v1/catalogues/check", json={"catalogue": raw, "page": True}).json()["page"]
    assert page["schema"] == "mombasa-web-catalogue/1"
    assert list(page["books"].values())[12]["reward"] == {"pounds": 9}


def test_check_names_the_first_fault_by_path(api: TestClient) -> None:
    raw = _raw(**{"books.12.reward.pounds": -1})
    body = api.post("/v1/catalogues/check", json={"catalogue": raw, "page": True}).json()
    assert body == {"ok": False, "summary": None, "page": None, "error": {
        "path": "books[12].reward.pounds", "message": "must be >= 0, got -1"}}
    body = api.post("/v1/catalogues/check", json={"catalogue": {"schema": "x"}}).json()
    assert not body["ok"] and body["error"]["path"] == "schema"
    # comments ("//" keys) are allowed anywhere
    raw = _raw(**{"// books": "my notes", "books.0.// why": "printed so"})
    assert api.post("/v1/catalogues/check", json={"catalogue": raw}).json()["ok"]


def test_check_refuses_what_is_not_an_object(api: TestClient) -> None:
    r = api.post("/v1/catalogues/check", json={"catalogue": [1, 2]})
    assert r.status_code == 422 and r.json()["field"] == "catalogue"
    r = api.post("/v1/catalogues/check", json={"catalogue": SHIPPED, "extra": 1})
    assert r.status_code == 422 and r.json()["field"] == "extra"


# -- save, list, get, delete --------------------------------------------------------------------

def test_save_list_get_delete(api: TestClient, tmp_path: Path) -> None:
    raw = _raw(**{"player.start_pounds": 4, "// player": "checked on my copy"})
    r = api.post("/v1/catalogues", json={"name": "My copy 1", "catalogue": raw})
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["name"] == "My copy 1" and not entry["default"] and entry["games"] == 0
    assert len(entry["sha256"]) == 64 and entry["summary"]["regions"] == 24
    listed = api.get("/v1/catalogues").json()["catalogues"]
    assert listed[0]["name"] == DEFAULT and listed[0]["default"]
    assert listed[0]["summary"]["books"] == {"A": 24, "B": 24, "C": 24}
    assert "My copy 1" in [c["name"] for c in listed]
    # export: the same JSON, comments kept; names compare case-insensitively
    got = api.get("/v1/catalogues/my COPY 1")
    assert got.status_code == 200 and got.headers["content-type"].startswith("application/json")
    assert got.json() == raw
    r = api.delete("/v1/catalogues/My copy 1")
    assert r.status_code == 200 and r.json() == {"name": "My copy 1", "deleted": True, "games": 0}
    assert "My copy 1" not in _names(api)
    assert api.get("/v1/catalogues/My copy 1").status_code == 404
    r = api.delete("/v1/catalogues/My copy 1")
    assert r.status_code == 404 and r.json()["error"] == "not-found"


def test_the_shipped_catalogue_is_listed_exported_and_protected(api: TestClient) -> None:
    assert api.get(f"/v1/catalogues/{DEFAULT}").json() == SHIPPED
    assert api.get("/v1/catalogues/default").json() == SHIPPED
    for name in (DEFAULT, "Default", "DEFAULT (Reconstruction)"):
        r = api.post("/v1/catalogues", json={"name": name, "catalogue": SHIPPED,
                                             "replace": True})
        assert r.status_code == 409 and r.json()["field"] == "name", name
        r = api.delete(f"/v1/catalogues/{name}")
        assert r.status_code == 409 and "cannot be deleted" in r.json()["message"]
    assert _names(api)[0] == DEFAULT


@pytest.mark.parametrize("name, why", [
    ("", "at least 1 character"),
    ("x" * 61, "at most 60 characters"),
    ("-copy", "must begin with a letter or a digit"),
    (" copy", "must begin with a letter or a digit"),
    ("copy ", "must not end with a space"),
    ("a/b", "not '/'"),
    ("tab\there", "not '\\t'"),
    ("copy (2)", "not '('"),
])
def test_name_rules(api: TestClient, name: str, why: str) -> None:
    before = _names(api)
    r = api.post("/v1/catalogues", json={"name": name, "catalogue": SHIPPED})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"] == "name" and why in body["message"], body
    assert _names(api) == before


def test_names_with_letters_digits_space_dash_underscore_dot(api: TestClient) -> None:
    for name in ("Küste_2.0 - final", "9", "x" * 60):
        assert _save(api, name, SHIPPED)["name"] == name
        assert api.delete(f"/v1/catalogues/{name}").status_code == 200


def test_duplicate_names_are_409_unless_replace(api: TestClient) -> None:
    first = _save(api, "dup", _raw(**{"player.start_pounds": 2}))
    r = api.post("/v1/catalogues", json={"name": "DUP", "catalogue": SHIPPED})
    assert r.status_code == 409 and r.json()["field"] == "name"
    assert "exists" in r.json()["message"]
    assert api.get("/v1/catalogues/dup").json()["player"]["start_pounds"] == 2
    r = api.post("/v1/catalogues", json={"name": "Dup", "catalogue": SHIPPED, "replace": True})
    assert r.status_code == 200, r.text
    second = r.json()
    assert second["name"] == "Dup" and second["sha256"] != first["sha256"]
    assert second["created"] == first["created"] and second["updated"] >= first["updated"]
    assert api.get("/v1/catalogues/dup").json() == SHIPPED
    assert _names(api).count("Dup") == 1 and "dup" not in _names(api)
    api.delete("/v1/catalogues/dup")


def test_an_invalid_catalogue_is_422_with_the_path_and_nothing_is_stored(
        api: TestClient) -> None:
    before = _names(api)
    raw = _raw(**{"books.12.reward.pounds": -1})
    r = api.post("/v1/catalogues", json={"name": "broken", "catalogue": raw})
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "catalogue.books[12].reward.pounds"
    assert body["message"] == "catalogue.books[12].reward.pounds: must be >= 0, got -1"
    assert body["errors"][0]["path"] == "books[12].reward.pounds"
    assert _names(api) == before
    assert api.get("/v1/catalogues/broken").status_code == 404
    # a broken replacement leaves the stored one as it was
    _save(api, "keep", SHIPPED)
    r = api.post("/v1/catalogues", json={"name": "keep", "catalogue": raw, "replace": True})
    assert r.status_code == 422 and api.get("/v1/catalogues/keep").json() == SHIPPED
    api.delete("/v1/catalogues/keep")


def test_oversized_bodies_are_413(api: TestClient) -> None:
    raw = _raw(note="x" * 400_000)  # over the tests' 300 kB MOMBASA_MAX_BODY
    for path, body in (("/v1/catalogues/check", {"catalogue": raw}),
                       ("/v1/catalogues", {"name": "huge", "catalogue": raw})):
        r = api.post(path, json=body)
        assert r.status_code == 413 and r.json()["error"] == "too-large", path
    assert "huge" not in _names(api)


def test_invalid_json_bodies_are_422(api: TestClient) -> None:
    for path in ("/v1/catalogues/check", "/v1/catalogues"):
        r = api.post(path, content=b'{"catalogue": {', headers={
            "content-type": "application/json"})
        assert r.status_code == 422 and r.json()["field"] == "body", path
    r = api.post("/v1/catalogues", json={"catalogue": SHIPPED})
    assert r.status_code == 422 and r.json()["field"] == "name"


def test_unknown_catalogue_for_a_game_is_422(api: TestClient) -> None:
    r = api.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}],
                                    "catalogue": "nothing of that name"})
    assert r.status_code == 422 and r.json()["field"] == "catalogue"
    r = api.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}],
                                    "catalogue": DEFAULT})
    assert r.status_code == 201
    cat = api.get(f"/v1/games/{r.json()['id']}/catalogue").json()
    assert cat["name"] == DEFAULT and cat["sha256"] is None
    assert cat["player"]["start_pounds"] == SHIPPED["player"]["start_pounds"]
    assert api.get("/v1/games/nope/catalogue").status_code == 404


# -- games -----------------------------------------------------------------------------------------

def _game(c: TestClient, catalogue: str | None, seed: int) -> dict[str, Any]:
    body: dict[str, Any] = {"seats": [{"kind": "human"}, {"kind": "ai", "bot": AI}],
                            "seed": seed, "reproducible": True}
    if catalogue is not None:
        body["catalogue"] = catalogue
    r = c.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return remember(out)


def _view(c: TestClient, gid: str, wait: float = 20) -> dict[str, Any]:
    r = c.get(f"/v1/games/{gid}", params={"seat": 1, "wait": wait}, headers=auth(gid, 1))
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _cash(view: dict[str, Any]) -> list[int]:
    return [s["cash"] for s in view["score"]]


def _book_reward(c: TestClient, gid: str, book: str = "A01") -> dict[str, Any]:
    r = c.get(f"/v1/games/{gid}/catalogue")
    assert r.status_code == 200, r.text
    reward: dict[str, Any] = r.json()["books"][book]["reward"]
    return reward


def test_a_game_keeps_its_catalogue(tmp_path: Path) -> None:
    rich = _raw(**{"player.start_pounds": 7, "books.0.reward": {"pounds": 9}})
    poor = _raw(**{"player.start_pounds": 3})
    with client(tmp_path) as c:
        entry = _save(c, "rich", rich)
        g = _game(c, "rich", seed=4)
        gid = g["id"]
        assert _cash(g) == [7, 7]  # the score shows the stored catalogue's start pounds
        assert _book_reward(c, gid) == {"pounds": 9}
        cat = c.get(f"/v1/games/{gid}/catalogue").json()
        assert cat["name"] == "rich" and cat["sha256"] == entry["sha256"]
        plain = _game(c, None, seed=4)
        assert _cash(plain) == [SHIPPED["player"]["start_pounds"]] * 2
        # a few moves, the AI's played in the search processes (which load the
        # catalogue from its file)
        for _ in range(3):
            v = _view(c, gid)
            r = c.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": v["legal"][0]["text"]},
                       headers=auth(gid, 1))
            assert r.status_code == 200, r.text
        v = _view(c, gid)
        assert any(h["source"] == "ai" for h in v["history"]) and v["ai"]["error"] is None
        # the name replaced: the running game keeps its values, a new game gets the new ones
        _save(c, "rich", poor, replace=True)
        assert c.get("/v1/catalogues").json()["catalogues"][1]["games"] == 0
        assert _view(c, gid) == v and _book_reward(c, gid) == {"pounds": 9}
        g2 = _game(c, "rich", seed=5)
        assert _cash(g2) == [3, 3] and _book_reward(c, g2["id"]) == SHIPPED["books"][0]["reward"]
        # deleted: the games go on with their own content
        r = c.delete("/v1/catalogues/rich")
        assert r.status_code == 200 and r.json()["games"] == 1
        before = [_view(c, gid), _view(c, g2["id"])]
    files = tmp_path / "catalogues"
    assert len(list(files.glob("*.json"))) == 2  # one per content a game plays with
    with client(tmp_path) as c:
        assert [_view(c, gid), _view(c, g2["id"])] == before
        assert _book_reward(c, gid) == {"pounds": 9}
        assert c.get(f"/v1/games/{gid}/catalogue").json()["player"]["start_pounds"] == 7
        v = before[0]
        r = c.post(f"/v1/games/{gid}/steps", json={"seat": 1, "step": v["legal"][0]["text"]},
                   headers=auth(gid, 1))
        assert r.status_code == 200, r.text
        after = _view(c, gid)
    # the files are a copy of the database's texts: written again when missing
    for f in files.glob("*.json"):
        f.unlink()
    with client(tmp_path) as c:
        assert _view(c, gid) == after
        assert c.get(f"/v1/games/{gid}/catalogue").json()["player"]["start_pounds"] == 7


def test_unused_contents_are_dropped(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        first = _save(c, "scratch", _raw(**{"player.start_pounds": 2}))
        files = tmp_path / "catalogues"
        assert (files / f"{first['sha256']}.json").exists()
        second = _save(c, "scratch", _raw(**{"player.start_pounds": 5}), replace=True)
        assert not (files / f"{first['sha256']}.json").exists()
        c.delete("/v1/catalogues/scratch")
        assert not (files / f"{second['sha256']}.json").exists()
