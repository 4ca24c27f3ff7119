"""Accessibility with a game under way (issue 54), in Chromium at a phone's (390 x 844),
a tablet's (820 x 1180) and a laptop's (1440 x 900) size.

axe-core finds no serious or critical violation on a game in its fourth round or later
(imported from a record) once the game log has scrolled, on every pane of the tab bar;
on a live-table game; on the Components screen's Cards tab; on the Review screen. With
the keyboard: the second Tab reaches "Skip to your board", whose Enter puts the focus
on your own board's first place to play; a hand card chosen with Enter keeps the focus
through the redraw; after a step the focus is on the decision (not the page's body);
a board target keeps the focus when another player's move redraws the board.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser import artifacts
from tests.service_process import service_fixture
from tests.test_web_layout import _axe
from tests.test_web_taps import SIZES, imported, open_page, record_until, settle, steps_now

service = service_fixture("web-a11y-game", {"MOMBASA_WORKERS": "2", "MOMBASA_MAX_BOT_TIME": "2"})


def _scroll_log(page: Any) -> None:
    """The game log scrolled back a little, as a reader does."""
    scrolled = page.evaluate("""() => {
      const log = document.querySelector('#log');
      log.scrollTop = Math.max(0, log.scrollHeight - log.clientHeight - 120);
      return log.scrollHeight > log.clientHeight;
    }""")
    assert scrolled or page.evaluate("document.body.dataset.pane") != "decide"


def _axe_panes(page: Any, size: str, phase: str, source: str) -> None:
    panes = ["map", "displays", "boards", "decide"] if size != "laptop" else [""]
    for pane in panes:
        if pane:
            page.click(f"#panes button[data-pane={pane}]")
        _scroll_log(page)
        name = f"a11y-{size}-{phase}{'-' + pane if pane else ''}.png"
        page.screenshot(path=str(artifacts() / name))
        found = _axe(page, source)
        assert found == [], (size, phase, pane, found)


@pytest.mark.parametrize("size", list(SIZES))
def test_axe_with_a_game_under_way(service: str, browser: Any, axe_source: str,
                                   size: str) -> None:
    """A game in its fourth round (the log long enough to scroll), a live table, the
    Components screen's Cards tab and the Review screen: no serious or critical axe
    violation."""
    game = imported(service, record_until("action", round_at_least=4))
    context, page, console = open_page(browser, service, game, size)
    page.emulate_media(reduced_motion="reduce")
    _axe_panes(page, size, "game", axe_source)
    # the Components screen, Cards tab
    if size != "laptop":
        page.click("#panes button[data-pane=decide]")
    page.click("#btn-catalogue")
    page.wait_for_selector("#cat-tabs [role=tab]")
    page.locator("#cat-tabs [role=tab]", has_text="Cards").click()
    page.wait_for_function("document.querySelector('#cat-section').textContent.length > 50")
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts() / f"a11y-{size}-components-cards.png"))
    assert _axe(page, axe_source) == [], size
    page.click("#cat-close")
    # the Review screen as it opens on a game under way
    page.click("#btn-review")
    page.wait_for_selector("#review-screen:not([hidden])")
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts() / f"a11y-{size}-review.png"))
    assert _axe(page, axe_source) == [], size
    page.click("#rv-close")
    assert console.errors == []
    context.close()

    # a live table (the same game entered at the table so far)
    humans = [{"kind": "human"}, {"kind": "human"}]
    live = imported(service, record_until("action", round_at_least=4), humans, mode="live")
    context, page, console = open_page(browser, service, live, size)
    page.emulate_media(reduced_motion="reduce")
    _axe_panes(page, size, "live", axe_source)
    assert console.errors == []
    context.close()


def _tab_to(page: Any, test: str, limit: int = 60) -> int:
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(f"(el => !!el && ({test}))(document.activeElement)"):
            return n
    pytest.fail(f"Tab never reached {test}")


def test_keyboard_focus_through_a_move(service: str, browser: Any) -> None:
    """The skip link reaches your own board; a hand card chosen by Enter keeps the
    focus; the slot's Enter plays the step and the focus is then on the decision."""
    r = httpx.post(f"{service}/v1/games", json={
        "seats": [{"kind": "human"}, {"kind": "ai", "bot": "random"}], "seed": 6,
        "reproducible": True}, timeout=30)
    game = r.json()
    context, page, console = open_page(browser, service, game, "laptop")
    if page.evaluate("document.body.dataset.decision") == "resting-cards":
        before = steps_now(page)
        page.locator("#decision-buttons button[data-step]").first.click()
        page.wait_for_function(f"Number(document.body.dataset.steps) > {before}")
        settle(page)
    assert page.evaluate("document.body.dataset.decision") == "plan"
    page.reload()  # Tab from the top of the page
    settle(page)
    tabs = _tab_to(page, "el.matches('a.skip[href=\"#players\"]')")
    assert tabs <= 2, tabs
    page.keyboard.press("Enter")
    focused = page.evaluate("document.activeElement.closest('svg.me') ? "
                            "document.activeElement.dataset.target : null")
    assert focused and focused.startswith("hand:1:"), focused
    page.keyboard.press("Enter")  # the card chosen: the page redraws, the focus stays
    page.wait_for_selector(f'[data-target="{focused}"].selected')
    assert page.evaluate("document.activeElement.dataset.target") == focused
    before = steps_now(page)
    _tab_to(page, "el.matches('[data-target^=\"slot:1:\"].legal')")
    page.keyboard.press("Enter")
    page.wait_for_function(f"Number(document.body.dataset.steps) > {before}")
    page.wait_for_function("document.body.dataset.ui !== 'busy'")
    assert page.evaluate("document.activeElement.id") == "decision"
    page.screenshot(path=str(artifacts() / "a11y-keyboard-after-step.png"))
    assert console.errors == []
    context.close()


def test_focus_survives_another_players_move(service: str, browser: Any) -> None:
    """Two human seats: seat 1's page has the focus on a target of its board when seat 2
    plays (through the API); the board is redrawn and the target keeps the focus."""
    r = httpx.post(f"{service}/v1/games", json={
        "seats": [{"kind": "human"}, {"kind": "human"}], "seed": 6, "reproducible": True},
        timeout=30)
    game = r.json()
    tokens = game["tokens"]

    def seat_view(seat: int) -> dict[str, Any]:
        out: dict[str, Any] = httpx.get(
            f"{service}/v1/games/{game['id']}?seat={seat}",
            headers={"Authorization": f"Bearer {tokens[str(seat)]}"}, timeout=30).json()
        return out

    def play(seat: int, step: str) -> None:
        r = httpx.post(f"{service}/v1/games/{game['id']}/steps",
                       headers={"Authorization": f"Bearer {tokens[str(seat)]}"},
                       json={"seat": seat, "step": step}, timeout=30)
        assert r.status_code == 200, r.text

    for _ in range(6):  # the starting cards, up to Planning
        view = seat_view(1)
        if view["decision"]["kind"] == "plan":
            break
        seat = view["decision"]["seat"]
        play(seat, seat_view(seat)["legal"][0]["text"])
    context, page, console = open_page(browser, service, game, "laptop")
    target = page.evaluate("""() => {
      const el = document.querySelector('#players svg.me [data-target^="slot:1:"]');
      el.focus();
      return el.dataset.target;
    }""")
    before = steps_now(page)
    # seat 2 plans a card: the page redraws
    legal = [x["text"] for x in seat_view(2)["legal"]]
    play(2, next((t for t in legal if t.startswith("plan ")), legal[0]))
    page.wait_for_function(f"Number(document.body.dataset.steps) > {before}")
    page.wait_for_timeout(200)
    assert page.evaluate("document.activeElement.dataset.target") == target
    assert console.errors == []
    context.close()

