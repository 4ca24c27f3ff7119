"""The page's Review screen in Chromium at a phone's size (390 x 844) and a laptop's
(1440 x 900).

A finished two-player game (seat 1 a random player, seat 2 random too) is imported
through ``POST /v1/games`` from its record with seat 1 human; the page opens it with
seat 1's link, opens the Review screen (the final panel's button on the laptop, the
header's on the phone), starts a quick review of seat 1 and follows its progress to the
result. Then: a click on a mistake's mark on the chart shows that decision (the chart's
line, the list's mark, the board redrawn before it); j / k and the arrow keys go through
the mistakes and the decisions; the played and the best step are named as the service's
review gives them and outlined on the board where they have a place there. axe-core
finds no serious or critical violation on the Review screen; nothing overflows
sideways. Screenshots (``review-<size>-*.png``) go to ``$MOMBASA_SHOTS`` (default
``test-artifacts/``).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

import engine
from tests.browser import Console, artifacts
from tests.service_process import service_fixture
from tests.test_web_layout import _axe, _overflow

SIZES = {"phone": (390, 844), "laptop": (1440, 900)}
SEATS = [{"kind": "human"}, {"kind": "ai", "bot": "random"}]

service = service_fixture("web-review", {"MOMBASA_WORKERS": "2"})


def shots() -> Path:
    folder = os.environ.get("MOMBASA_SHOTS")
    if not folder:
        return artifacts()
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def random_record(seed: int) -> dict[str, Any]:
    """A finished game of two random players, as a record."""
    s = engine.new_game(players=2, seed=seed)
    rec = engine.GameRecord.new(s, seats=[engine.Seat("human"), engine.Seat("bot", "random")])
    rng = random.Random(seed)
    while not s.is_over():
        d = s.decision
        step = s.sample_chance() if d.is_chance else rng.choice(s.legal_steps())
        rec.append(-1 if d.is_chance else d.player, step, "chance" if d.is_chance else "bot")
        s = s.apply(step)
    out: dict[str, Any] = rec.to_json(s.cat, final=s)
    return out


def imported_game(base: str, seed: int) -> dict[str, Any]:
    r = httpx.post(f"{base}/v1/games", json={"record": random_record(seed), "seats": SEATS},
                   timeout=60)
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    assert game["over"]
    return game


SHOWN = "Number(document.body.dataset.reviewShown ?? -1)"


def _shown(page: Any) -> int:
    shown: int = page.evaluate(SHOWN)
    return shown


def _wait_shown(page: Any, index: int) -> None:
    try:
        page.wait_for_function(f"{SHOWN} === {index}", timeout=15_000)
    except Exception as exc:  # say where the screen is instead: shown, chosen, status
        state = page.evaluate("[document.body.dataset.reviewShown,"
                              " document.body.dataset.reviewIndex,"
                              " document.querySelector('#rv-status')?.textContent]")
        raise AssertionError(f"decision {index} not shown: shown, chosen, status = "
                             f"{state}") from exc


def _job(base: str, game: dict[str, Any]) -> dict[str, Any]:
    """The done review of the game, as the service gives it to seat 1."""
    headers = {"Authorization": f"Bearer {game['tokens']['1']}"}
    jobs = httpx.get(f"{base}/v1/games/{game['id']}/review", headers=headers).json()
    done = [j for j in jobs["reviews"] if j["status"] == "done"]
    assert done, jobs
    job: dict[str, Any] = httpx.get(f"{base}/v1/games/{game['id']}/review/{done[-1]['job']}",
                                    headers=headers).json()
    return job


def _start(page: Any, size: str) -> None:
    """Open the Review screen, start a quick review of seat 1, wait for its result."""
    opener = "#btn-review" if size == "phone" else "#final-review"
    page.click(opener)
    page.wait_for_selector("#review-screen:not([hidden])")
    assert page.input_value("#rv-seat") == "1"
    page.select_option("#rv-depth", "quick")
    page.click("#rv-start")
    page.wait_for_selector("#rv-progress:not([hidden])", timeout=10_000)
    page.screenshot(path=str(shots() / f"review-{size}-1-progress.png"))
    page.wait_for_selector("#rv-body:not([hidden])", timeout=120_000)
    page.wait_for_function(f"{SHOWN} >= 0", timeout=15_000)


def _check_labels(page: Any, decision: dict[str, Any]) -> None:
    """The detail names the decision's played and best steps (notation as given) and
    the board outlines them where they have a place."""
    codes = page.locator("#rv-detail code").all_inner_texts()
    assert codes[0] == decision["played"]
    if decision["best"] != decision["played"]:
        assert codes[1] == decision["best"]
        assert page.locator("#rv-best").inner_text().strip()
    assert page.locator("#rv-played").inner_text().strip()
    where = page.locator("#rv-where").inner_text()
    assert f"Step {decision['index']}" in where


@pytest.mark.parametrize("size", list(SIZES))
def test_review_screen(service: str, browser: Any, axe_source: str, size: str) -> None:
    width, height = SIZES[size]
    game = imported_game(service, seed={"phone": 11, "laptop": 12}[size])
    page = browser.new_page(viewport={"width": width, "height": height},
                            reduced_motion="reduce")
    console = Console(page)
    page.goto(service + game["links"]["1"])
    page.wait_for_function("document.body.dataset.ui === 'over'", timeout=30_000)
    page.screenshot(path=str(shots() / f"review-{size}-0-game.png"))
    _start(page, size)
    job = _job(service, game)
    decisions = sorted(job["review"]["decisions"], key=lambda d: d["index"])
    by_index = {d["index"]: d for d in decisions}
    mistakes = [d for d in decisions if d["class"]]
    assert mistakes, "a random player makes mistakes"
    # the first mistake is shown at first, named as the service's review names it
    _wait_shown(page, mistakes[0]["index"])
    _check_labels(page, mistakes[0])
    page.screenshot(path=str(shots() / f"review-{size}-2-result.png"))
    violations = _axe(page, axe_source)
    assert not violations, violations
    assert _overflow(page) <= 0

    # a click on a mark of the chart: that decision
    # the hardest: the mistake with the nearest other decision (a step or two apart, a
    # pixel or two on a phone's chart): a tap on its dot must still be that decision
    gaps = {d["index"]: min(abs(d["index"] - o["index"]) for o in decisions if o is not d)
            for d in mistakes}
    target = min(mistakes, key=lambda d: (gaps[d["index"]], d["index"]))
    mark = page.locator(f"#rv-chart .rc-mark[data-index='{target['index']}']").first
    mark.scroll_into_view_if_needed()
    # The mark's centre, as a point of the chart's hit area (which takes the clicks):
    # measured together, and clicked by the locator, which waits for the chart to stand
    # still, so a layout settling meanwhile cannot move the point off the mark.
    hit = page.locator("#rv-chart .rc-hit").first
    box, area = mark.bounding_box(), hit.bounding_box()
    assert box is not None and area is not None
    hit.click(position={"x": box["x"] + box["width"] / 2 - area["x"],
                        "y": box["y"] + box["height"] / 2 - area["y"]})
    _wait_shown(page, target["index"])
    _check_labels(page, target)
    current = page.locator("#rv-list button[aria-current=true]")
    assert current.count() == 1 and f"step {target['index']}" in current.inner_text()
    page.screenshot(path=str(shots() / f"review-{size}-3-chart-click.png"))

    # the keyboard: j the next mistake, k back, the arrows the next and previous decision
    page.locator("#rv-status").click()
    for ahead, back, among in (("j", "k", mistakes), ("ArrowRight", "ArrowLeft", decisions)):
        k = among.index(target)
        if k + 1 < len(among):
            page.keyboard.press(ahead)
            _wait_shown(page, among[k + 1]["index"])
            _check_labels(page, among[k + 1])
            page.keyboard.press(back)
            _wait_shown(page, target["index"])
    # the board before the decision: the played step outlined where it has a place
    # (steps.js targets: data-played-places)
    assert by_index[_shown(page)]
    places = int(page.evaluate("document.body.dataset.playedPlaces"))
    outlined = page.locator("#rv-board .rv-played, #rv-players .rv-played").count()
    page.screenshot(path=str(shots() / f"review-{size}-4-keyboard.png"))
    assert outlined >= places
    page.locator("#rv-board").scroll_into_view_if_needed()
    page.screenshot(path=str(shots() / f"review-{size}-5-board.png"))
    # the buttons do what the keys do, and say so
    assert page.get_attribute("#rv-next-mistake", "aria-label") == "Next mistake (j)"
    page.click("#rv-next-mistake")
    later = [d for d in mistakes if d["index"] > target["index"]]
    if later:
        _wait_shown(page, later[0]["index"])
    page.keyboard.press("Escape")
    page.wait_for_selector("#review-screen", state="hidden")
    assert not console.errors, console.errors
    page.close()

