"""The web page's server side (``advisor_api/web.py``): ``GET /v1/catalogue``, the page at
``/`` and its files at ``/static`` (nothing fetched from elsewhere), and the layout of
the company bases around the map. The page itself is tested in a browser in
``tests/test_web.py``."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import engine
from advisor_api import web
from advisor_api.web import STATIC, base_layout, catalogue_json
from tests.test_api_helpers import client


@pytest.fixture(scope="module")
def page_app() -> Iterator[TestClient]:
    """Only the web part (no search pool): enough for the read-only routes."""
    app = FastAPI()
    web.install(app)
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="module")
def body(page_app: TestClient) -> dict[str, Any]:
    r = page_app.get("/v1/catalogue")
    assert r.status_code == 200
    out: dict[str, Any] = r.json()
    return out


def test_catalogue_names_everything_the_notation_uses(body: dict[str, Any]) -> None:
    cat = engine.default_catalogue()
    assert body["schema"] == "mombasa-web-catalogue/1"
    assert [c["id"] for c in body["companies"]] == [c.id for c in cat.companies]
    assert [r["id"] for r in body["regions"]] == [r.id for r in cat.regions]
    assert set(body["cards"]) == {c.name for c in cat.cards}
    assert set(body["books"]) == {b.name for b in cat.books}
    assert [s["name"] for s in body["display"]["spaces"]] == [
        cat.display_space_name(i) for i in range(len(cat.display_modifiers))]
    assert [s["name"] for s in body["book_display"]["spaces"]] == [
        cat.book_space_name(i) for i in range(len(cat.book_space_letter))]
    assert [b["id"] for b in body["bonus_spaces"]] == [b.id for b in cat.bonus_spaces]
    assert set(body["tracks"]) == {t.id for t in cat.tracks}
    for region in body["regions"]:
        assert len(region["polygon"]) >= 3 and len(region["centre"]) == 2
    track_bonus = [b for b in body["bonus_spaces"] if b["kind"] == "track"]
    assert track_bonus and all(
        body["tracks"][b["track"]]["spaces"][b["position"]]["bonus"] is not None
        for b in track_bonus)
    # a region's reward in context ("steps on the expanding company's track")
    fez = next(r for r in body["regions"] if r["id"] == "FEZ")
    assert fez["reward"] == {"track": 2, "track_company": None}


def test_every_legal_step_names_known_things(body: dict[str, Any]) -> None:
    """Cards, books, spaces, regions and companies in the steps of random games are all
    in the catalogue the page draws (so every step has something to click)."""
    known = (set(body["cards"]) | set(body["books"]) | {r["id"] for r in body["regions"]}
             | {c["id"] for c in body["companies"]} | {b["id"] for b in body["bonus_spaces"]}
             | {s["name"] for s in body["display"]["spaces"]}
             | {s["name"] for s in body["book_display"]["spaces"]} | set(body["tracks"]))
    for seed in range(3):
        s = engine.new_game(players=2 + seed, seed=seed, variable=seed == 1)
        rng = random.Random(seed)
        while not s.is_over():
            steps = [s.sample_chance()] if s.decision.kind == "chance" else s.legal_steps()
            for st in steps:
                kind, *args = st.text(s.cat).split()
                for arg in args:
                    for part in arg.split("+"):
                        if kind in ("tile", "deal-tile", "majority") or part.isdigit() \
                                or part == "-" or part.startswith("P"):
                            continue
                        assert part in known, (kind, part)
            s = s.apply(rng.choice(steps))


def _inside(p: tuple[float, float], poly: list[list[float]]) -> bool:
    x, y = p
    hit = False
    j = len(poly) - 1
    for i in range(len(poly)):
        (xi, yi), (xj, yj) = poly[i], poly[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            hit = not hit
        j = i
    return hit


def test_bases_sit_in_the_sea_near_their_regions(body: dict[str, Any]) -> None:
    layout = body["base_layout"]
    rects = list(layout.values())
    for cid, b in layout.items():
        x0, y0, x1, y1 = b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]
        for region in body["regions"]:
            for px, py in region["polygon"]:
                assert not (x0 <= px <= x1 and y0 <= py <= y1), (cid, region["id"])
            for fx in (0.0, 0.25, 0.5, 0.75, 1.0):
                for fy in (0.0, 0.25, 0.5, 0.75, 1.0):
                    assert not _inside((x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)),
                                       region["polygon"]), (cid, region["id"])
        for other in rects:
            if other is b:
                continue
            apart = (x1 <= other["x"] or other["x"] + other["width"] <= x0
                     or y1 <= other["y"] or other["y"] + other["height"] <= y0)
            assert apart, cid
        # near the regions it borders (the map is 1000 units across)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        far = []
        for rid, _ in body["base_borders"][cid]:
            region = next(r for r in body["regions"] if r["id"] == rid)
            rx, ry = region["centre"]
            far.append(((cx - rx) ** 2 + (cy - ry) ** 2) ** 0.5)
        assert max(far) < 500 and sum(far) / len(far) < 320, (cid, far)
    assert base_layout(engine.default_catalogue()) == layout
    assert catalogue_json(engine.default_catalogue()) is catalogue_json(
        engine.default_catalogue())  # computed once


def test_page_and_static_files(page_app: TestClient) -> None:
    r = page_app.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<svg id="board"' in r.text
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', r.text):
        assert page_app.get(asset).status_code == 200, asset
    assert page_app.get("/static/js/main.js").headers["content-type"].startswith(
        ("text/javascript", "application/javascript"))
    assert page_app.get("/static/missing.js").status_code == 404


def test_nothing_is_fetched_from_elsewhere() -> None:
    """No CDN, web font or other outside address in the page's files (the SVG namespace
    is a name, not a request)."""
    files = [p for p in STATIC.rglob("*") if p.is_file()]
    assert {p.suffix for p in files} >= {".html", ".css", ".js", ".svg"}
    for path in files:
        text = path.read_text(encoding="utf-8")
        urls = set(re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", text))
        urls -= {"http://www.w3.org/2000/svg"}
        assert not urls, (path.name, urls)
        assert "@import" not in text and "@font-face" not in text, path.name


def test_the_service_serves_the_page(tmp_path: Path) -> None:
    """``create_app`` includes the web part: ``/`` is the page, ``/docs`` still works."""
    with client(tmp_path) as c:
        r = c.get("/", follow_redirects=False)
        assert r.status_code == 200 and "Mombasa" in r.text
        assert c.get("/docs").status_code == 200
        assert c.get("/v1/catalogue").json()["schema"] == "mombasa-web-catalogue/1"
        missing = c.get("/v1/nothing")
        assert missing.status_code == 404 and missing.json()["error"] == "not-found"
