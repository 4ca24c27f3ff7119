"""The web page in a real browser: Playwright drives Debian's Chromium against
``mombasa serve`` (the real CLI in a subprocess, on a free port, with a temporary
database).

One game against an AI seat (``mcts:iterations=10``) is created through the page's form
and played to the end by clicks only (mostly the steps that end a decision soonest;
round 2 uses every card and marker, round 3 plans its cards). On the way: an illegal
click shows the service's 409 reason, the suggestions panel lists ranked lines for a
mid-game position (hovering a line highlights it, one click plays it), and at the end
the final score table shown equals ``GET /v1/games/{id}/score``. The page must log no
console errors.

Screenshots of the start, a mid-game position and the final table are saved to
``test-artifacts/`` (a folder git ignores: the test writes its ``.gitignore``). Chromium
comes from Debian (``scripts/ensure-chromium.sh``, run by ``make test``), never from a
browser download.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright import sync_api

from tests.service_process import serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
AI = "mcts:iterations=10"
# The browser reports every HTTP error answer of a fetch() on the console; the one the
# test provokes on purpose (an illegal click, answered 409 with its reason) is expected.
CONFLICT_LOG = "the server responded with a status of 409 (Conflict)"
# Steps that end a decision soonest, so that the game is short.
PREFERRED = ("end", "ready", "nobuy", "stop", "pounds", "halt", "noflip", "rest", "tile")



@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``mombasa serve`` on a free port with a temporary database; yields its URL."""
    tmp = tmp_path_factory.mktemp("web")
    env = {"MOMBASA_WORKERS": "2", "MOMBASA_MAX_BOT_TIME": "2"}
    with serving(tmp / "games.db", tmp / "serve.log", env) as (_, base):
        yield base


def chromium() -> Iterator[Any]:
    """A headless Chromium for one test module (the browser tests share it)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


class Console:
    """Console messages of type error and uncaught page errors."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))


def _settle(page: Any, timeout: float = 30) -> str:
    """Wait until it is the player's turn or the game is over; the page's state."""
    page.wait_for_function(
        "['turn', 'over'].includes(document.body.dataset.ui)", timeout=timeout * 1000)
    ui: str = page.evaluate("document.body.dataset.ui")
    return ui


def _legal(page: Any) -> list[str]:
    steps: list[str] = page.eval_on_selector_all(
        "#legal-steps button[data-step]", "bs => bs.map(b => b.dataset.step)")
    return steps


def _choose(steps: list[str], busy: bool) -> str:
    """The step that ends the decision soonest; with ``busy`` (one round of the game, to
    see more of the table) the first one that does something."""
    if busy:
        for step in steps:
            if step.split()[0] not in ("end", "ready", "remove-card", "stop", "nobuy",
                                       "pounds", "halt", "noflip"):
                return step
    for kind in PREFERRED:
        for step in steps:
            if step.split()[0] == kind:
                return step
    return steps[0]


def _steps(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.steps)"))


def _create_game(page: Any, base: str) -> str:
    page.goto(base + "/")
    page.wait_for_selector("dialog#new-game[open]")
    page.select_option("#ng-players", "2")
    page.select_option("tr[data-seat='1'] .ng-kind", "human")
    page.select_option("tr[data-seat='2'] .ng-kind", "ai")
    page.select_option("tr[data-seat='2'] .ng-bot", "custom")
    page.fill("tr[data-seat='2'] .ng-custom", AI)
    page.fill("#ng-seed", "11")
    page.check("input[name=setup][value=first]")
    page.check("input[name=mode][value=play]")
    page.click("#ng-start")
    _settle(page)
    match = re.search(r"game=([0-9a-f]+)", page.url)
    assert match, page.url
    return match.group(1)


def _illegal_click(page: Any) -> None:
    """Seat 1 is the first player of round 1: the first-player space is not for it."""
    page.locator('[data-target="bonus:first"]').click()
    page.wait_for_selector("#message.error")
    text = page.inner_text("#message")
    assert "Not allowed now" in text and "'first'" in text, text
    assert _settle(page) == "turn"


def _suggestions(page: Any) -> None:
    """Ranked lines for the position, a highlight on hover, and one click plays one."""
    page.select_option("#suggest-time", "0.5")
    page.select_option("#suggest-lines", "3")
    page.click("#btn-suggest")
    page.wait_for_selector("#suggestions[data-final='1'] li[data-rank]", timeout=30_000)
    lines = page.locator("#suggestions li[data-rank]")
    ranks = [lines.nth(i).get_attribute("data-rank") for i in range(lines.count())]
    assert ranks == [str(i + 1) for i in range(len(ranks))] and 1 <= len(ranks) <= 3, ranks
    for i in range(lines.count()):
        text = lines.nth(i).inner_text()
        assert re.search(r"Win chance \d+%", text), text
        assert "Projected final money: P1 £" in text and "P2 £" in text, text
    lines.nth(0).hover()
    page.wait_for_selector(".hint")
    page.screenshot(path=str(ARTIFACTS / "web-mid-game.png"), full_page=True)
    before = _steps(page)
    lines.nth(0).click()
    page.wait_for_function(f"Number(document.body.dataset.steps) > {before}")
    page.wait_for_function("document.body.dataset.ui !== 'busy'")
    assert not page.locator("#message.error").is_visible(), page.inner_text("#message")


def _final_table(page: Any) -> dict[int, dict[str, str]]:
    cells = page.eval_on_selector_all(
        "#final-score td[data-key]",
        "ts => ts.map(t => [Number(t.dataset.player), t.dataset.key, t.innerText.trim()])")
    out: dict[int, dict[str, str]] = {}
    for player, key, text in cells:
        out.setdefault(player, {})[key] = text
    return out


def assert_final_score_shown(page: Any, service: str, gid: str) -> dict[int, dict[str, str]]:
    """The page's final score table and winners equal the service's final score; the
    table as shown."""
    shown = _final_table(page)
    score = httpx.get(f"{service}/v1/games/{gid}/score", timeout=30).json()
    assert score["final"]
    for sc in score["score"]:
        row = shown[sc["player"]]
        assert int(row["total"]) == sc["total"], (row, sc)
        assert int(row["cash"]) == sc["cash"]
        assert int(row["diamonds"]) == sc["diamonds"]
        assert int(row["bookkeeping"]) == sc["bookkeeping"]
        for cid, part in sc["companies"].items():
            assert _pounds(row[cid]) == part["pounds"], (cid, row[cid], part)
    winners = page.inner_text("#final .winners")
    for w in score["winners"]:
        assert f"P{w}" in winners
    return shown


def _pounds(text: str) -> int:
    """``"2×4 = 8"`` or ``"0"`` -> pounds."""
    return int(text.rsplit("=", 1)[-1].strip())


def _artifacts() -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    ignore = ARTIFACTS / ".gitignore"  # the folder ignores itself
    if not ignore.exists():
        ignore.write_text("*\n")


def test_play_a_game_against_the_ai(service: str, browser: Any) -> None:
    _artifacts()
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    console = Console(page)
    gid = _create_game(page, service)
    page.mouse.move(1, 1)
    page.screenshot(path=str(ARTIFACTS / "web-start.png"), full_page=True)

    illegal_done = suggested = False
    for _ in range(400):
        if _settle(page) == "over":
            break
        decision = page.evaluate("document.body.dataset.decision")
        game_round = int(page.evaluate("document.body.dataset.round"))
        if decision == "action" and not illegal_done:
            _illegal_click(page)
            illegal_done = True
        if decision == "action" and game_round >= 3 and not suggested:
            _suggestions(page)
            suggested = True
            continue
        steps = _legal(page)
        assert steps, "my turn without legal steps"
        before = _steps(page)
        choice = _choose(steps, busy=game_round == 2 or (game_round == 3
                                                         and decision == "plan"))
        page.locator(f'#legal-steps button[data-step="{choice}"]').click()
        page.wait_for_function(f"Number(document.body.dataset.steps) > {before}")
    else:
        pytest.fail("the game did not end")
    assert illegal_done and suggested

    page.wait_for_selector("#final-score")
    page.emulate_media(reduced_motion="reduce")  # the log's last moves fully shown
    page.mouse.move(1, 1)
    page.screenshot(path=str(ARTIFACTS / "web-final.png"), full_page=True)
    assert_final_score_shown(page, service, gid)

    expected = [e for e in console.errors if CONFLICT_LOG in e]
    assert len(expected) == 1, console.errors  # the illegal click's 409, and only that
    assert [e for e in console.errors if CONFLICT_LOG not in e] == []
    page.close()


def test_page_and_assets_are_served(service: str) -> None:
    """``/`` is the page (with its scripts from /static), ``/docs`` still works."""
    page = httpx.get(f"{service}/", timeout=10)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
        assert httpx.get(f"{service}{asset}", timeout=10).status_code == 200, asset
    assert httpx.get(f"{service}/static/js/board.js", timeout=10).status_code == 200
    assert httpx.get(f"{service}/docs", timeout=10).status_code == 200
    assert httpx.get(f"{service}/static/nothing.js", timeout=10).status_code == 404


def test_invite_links_and_the_spectators_page(service: str, browser: Any) -> None:
    """A play game of two human seats: **Invite** gives seat 2's link (its token) and the
    spectators'; seat 2's page, opened from its link in another browser, follows seat
    1's move and plays; the spectators' page shows the game with nothing to click and
    no undo."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    console = Console(page)
    page.goto(service + "/")
    page.wait_for_selector("dialog#new-game[open]")
    page.select_option("#ng-players", "2")
    for seat in (1, 2):
        page.select_option(f"tr[data-seat='{seat}'] .ng-kind", "human")
    page.check("input[name=mode][value=play]")
    page.click("#ng-start")
    assert _settle(page) == "turn"
    assert re.search(r"#game=[0-9a-f]+&seat=1&token=[\w-]+$", page.url), page.url
    assert page.locator("#btn-undo").is_hidden()  # two humans: no takebacks
    page.click("#btn-invite")
    page.wait_for_selector("#message .invite-link")
    lines = page.eval_on_selector_all("#message .invite-link", "ls => ls.map(l => l.textContent)")
    links = dict(line.split(": ", 1) for line in lines)
    assert set(links) == {"P2", "Spectators"}, lines
    assert "&seat=2&token=" in links["P2"] and "token=" not in links["Spectators"]

    other = browser.new_page(viewport={"width": 1600, "height": 1000})
    other_console = Console(other)
    other.goto(links["P2"])
    other.wait_for_function("document.body.dataset.ui === 'idle'", timeout=30_000)
    assert "P1" in other.inner_text("#status")
    watcher = browser.new_page(viewport={"width": 1600, "height": 1000})
    watcher_console = Console(watcher)
    watcher.goto(links["Spectators"])
    watcher.wait_for_function("document.body.dataset.ui === 'idle'", timeout=30_000)
    assert "spectator" in watcher.inner_text("#status")
    assert watcher.locator("#btn-undo").is_hidden() and not _legal(watcher)
    # seat 1 plays its first step; seat 2's page (polling) gets its turn
    watched = _steps(watcher)
    first = _legal(page)[0]
    page.locator(f'#legal-steps button[data-step="{first}"]').click()
    assert _settle(other) == "turn"
    assert _legal(other)
    watcher.wait_for_function(f"Number(document.body.dataset.steps) > {watched}",
                              timeout=30_000)  # the spectators' page follows the game
    assert not _legal(watcher)
    for c in (console, other_console, watcher_console):
        assert c.errors == []
    for p in (page, other, watcher):
        p.close()
