"""Compressed answers and validators (issue 54): the page's files (``/``, ``/static``),
``GET /v1/catalogue`` and a game's catalogue carry a strong ETag from their content and
``Cache-Control: no-cache`` (``If-None-Match`` answered 304), bodies of 1 KB and more go
out gzip'ed to a client that accepts it, and the game's event stream still streams,
uncompressed. In Chromium: what the first visit, a second visit and a reload cost
(requests and bytes, ``tests/transfer.py``), written to ``test-artifacts/transfer.txt``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from typing import Any

import httpx
import pytest

import engine
from advisor_api import web
from tests.browser import artifacts
from tests.service_process import service_fixture
from tests.transfer import measure

service = service_fixture("static-caching", {"MOMBASA_WORKERS": "1",
                                             "MOMBASA_EVENTS_HEARTBEAT": "0.5"})


def _tag(data: bytes) -> str:
    return f'"{hashlib.sha256(data).hexdigest()[:32]}"'


@pytest.mark.parametrize("path", ["/", "/static/js/main.js", "/static/style.css",
                                  "/v1/catalogue"])
def test_a_strong_etag_and_304_on_if_none_match(service: str, path: str) -> None:
    plain = httpx.get(service + path, headers={"accept-encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    etag = plain.headers["etag"]
    assert etag == _tag(plain.content) and not etag.startswith("W/")  # the content's hash
    assert plain.headers["cache-control"] == "no-cache"
    again = httpx.get(service + path, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"].replace("-gz", "") == etag
    other = httpx.get(service + path, headers={"if-none-match": '"something-else"',
                                               "accept-encoding": "identity"})
    assert other.status_code == 200 and other.content == plain.content


@pytest.mark.parametrize("path", ["/static/js/board.js", "/v1/catalogue"])
def test_gzip_when_accepted(service: str, path: str) -> None:
    plain = httpx.get(service + path, headers={"accept-encoding": "identity"})
    with httpx.Client() as c:
        r = c.send(c.build_request("GET", service + path,
                                   headers={"accept-encoding": "gzip"}), stream=True)
        raw = b"".join(r.iter_raw())
    assert r.headers["content-encoding"] == "gzip" and "Accept-Encoding" in r.headers["vary"]
    assert gzip.decompress(raw) == plain.content
    assert len(raw) < len(plain.content) / 2, (len(raw), len(plain.content))
    assert r.headers["etag"] == plain.headers["etag"][:-1] + '-gz"'  # another representation
    # the gzip'ed representation's tag revalidates too
    assert httpx.get(service + path, headers={"if-none-match": r.headers["etag"],
                                              "accept-encoding": "gzip"}).status_code == 304


def test_the_catalogue_is_the_same_json(service: str) -> None:
    body = httpx.get(service + "/v1/catalogue").json()
    assert body == json.loads(json.dumps(web.catalogue_json(engine.default_catalogue())))


def test_a_game_catalogue_and_large_api_answers(service: str) -> None:
    r = httpx.post(f"{service}/v1/games", json={"seats": [{"kind": "human"},
                                                           {"kind": "human"}]})
    assert r.status_code == 201, r.text
    created = r.json()
    url = f"{service}/v1/games/{created['id']}/catalogue"
    first = httpx.get(url, headers={"accept-encoding": "identity"})
    assert first.status_code == 200 and first.json()["name"] == "default (reconstruction)"
    assert first.headers["etag"] == _tag(first.content)
    assert httpx.get(url, headers={"if-none-match": first.headers["etag"]}).status_code == 304
    # a seat's view (tens of KB of JSON) is compressed by the middleware
    with httpx.Client() as c:
        req = c.build_request("GET", f"{service}/v1/games/{created['id']}", headers={
            "authorization": f"Bearer {created['tokens']['1']}", "accept-encoding": "gzip"})
        view = c.send(req)
    assert view.status_code == 200 and view.headers["content-encoding"] == "gzip"
    small = httpx.get(f"{service}/v1/health", headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in small.headers  # under 1 KB: as it is


@pytest.mark.parametrize("accept", ["text/event-stream", "*/*"])
def test_the_event_stream_is_not_compressed_nor_held_back(service: str, accept: str) -> None:
    """A client that accepts gzip gets the events uncompressed and at once: a step is
    on the stream within a second (a compressor would keep it in its buffer)."""
    r = httpx.post(f"{service}/v1/games", json={"seats": [{"kind": "human"},
                                                           {"kind": "human"}]})
    created = r.json()
    gid, token = created["id"], created["tokens"]["1"]
    auth = {"authorization": f"Bearer {token}"}
    with httpx.Client(timeout=10) as c, c.stream(
            "GET", f"{service}/v1/games/{gid}/events",
            headers={**auth, "accept": accept, "accept-encoding": "gzip"}) as resp:
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in resp.headers
        lines = resp.iter_lines()
        assert _next_event(lines)["steps"] == created["steps"]  # the state on connect
        sent = time.perf_counter()
        step = httpx.post(f"{service}/v1/games/{gid}/steps", headers=auth,
                          json={"seat": 1, "step": created["legal"][0]["text"]})
        assert step.status_code == 200, step.text
        assert _next_event(lines)["steps"] == created["steps"] + 1
        assert time.perf_counter() - sent < 1.0


def _next_event(lines: Any) -> dict[str, Any]:
    data = ""
    for line in lines:
        if line.startswith("data:"):
            data += line[5:].strip()
        elif line == "" and data:
            out: dict[str, Any] = json.loads(data)
            return out
    raise EOFError("the stream ended")


def test_what_a_visit_costs_in_chromium(service: str, browser: Any) -> None:
    """First visit: every file once, gzip'ed; a second visit and a reload: every file
    revalidated (304, no body), the 45 KB catalogue included."""
    figures = measure(browser, service)
    text = json.dumps({k: vars(v) for k, v in figures.items()}, indent=1)
    (artifacts() / "transfer.txt").write_text(text + "\n")
    print(text)
    first, second, reload = figures["first"], figures["second"], figures["reload"]
    assert first.bytes < 160_000, text
    for later in (second, reload):
        assert later.bytes < 40_000 and later.not_modified >= first.requests - 6, text
