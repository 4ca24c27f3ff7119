"""Headers that decide who is asking and what the body is come once (issue 52, strict
input: "repeated Origin, Content-Type, Host or Authorization headers refused with 400").

Two ``Origin`` headers (the service's own and another site's) passed the cross-site
check, which read the first; two ``Content-Type`` headers were read differently by the
JSON guard and the body parser. Such a request is now refused before anything reads
them, and changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.test_api_helpers import client

EVIL = "https://evil.example"
SELF = "http://testserver"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("single-headers"), workers=1) as c:
        yield c


def _names(api: TestClient) -> set[str]:
    return {e["name"] for e in api.get("/v1/catalogues").json()["catalogues"]}


GAME = {"seats": [{"kind": "human"}, {"kind": "human"}], "mode": "live", "seed": 3}


@pytest.mark.parametrize(("name", "values"), [
    ("origin", (SELF, EVIL)),
    ("origin", (EVIL, SELF)),
    ("content-type", ("application/json", "application/x-www-form-urlencoded")),
    ("content-type", ("application/json", "application/json")),
    ("authorization", ("Bearer a", "Bearer b")),
    ("host", ("testserver", "evil.example")),
])
def test_a_repeated_header_is_refused_and_changes_nothing(
        api: TestClient, name: str, values: tuple[str, str]) -> None:
    before = _names(api)
    headers = [(name, v) for v in values]
    if name != "content-type":
        headers.append(("content-type", "application/json"))
    body = {"name": "repeated", "catalogue": api.get("/v1/catalogues/default").json()}
    r = api.post("/v1/catalogues", content=json.dumps(body).encode(), headers=headers)
    assert r.status_code == 400, r.text
    answer = r.json()
    assert answer["error"] == "repeated-header" and answer["field"] == f"headers.{name}"
    assert "2 times" in answer["message"] and EVIL not in answer["message"]
    assert _names(api) == before


def test_a_repeated_header_is_refused_on_a_read_too(api: TestClient) -> None:
    r = api.get("/v1/health", headers=[("host", "testserver"), ("host", "testserver")])
    assert r.status_code == 400 and r.json()["field"] == "headers.host"


def test_single_headers_and_other_repeated_headers_are_fine(api: TestClient) -> None:
    r = api.post("/v1/games", json=GAME, headers=[("origin", SELF), ("accept", "a/b"),
                                                  ("accept", "application/json")])
    assert r.status_code == 201, r.text


def test_the_errors_table_lists_the_answer() -> None:
    """docs/api.md's error table names the answer (its status and code)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    assert "| 400 | `repeated-header` |" in text
