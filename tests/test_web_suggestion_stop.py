"""A suggestion played by a tap or click plays nothing past what the player has seen
(issue 54), at 390 x 844 (phone, touch), 820 x 1180 (tablet, touch) and 1440 x 900
(laptop), in Chromium against a real ``mombasa serve``.

As the first player at round 1's Planning (the AI seat has planned already), the
search's lines go on past the reveal: "plan ...; Planning done; Expand ...". The rules:
"The Planning phase is carried out by all players simultaneously ... As soon as all
players are finished placing their cards in their action area, turn all cards face
up." (rulebook, I. Planning Phase). So a tap on such a line commits the plan and
``ready`` only: the plans are revealed, no step after the reveal is played (the page
before this issue sent every step while it was the player's turn, the expansion
included), the page says what was revealed ("Plans revealed: P2 (AI): ..."), and new
suggestions are asked for the action.

On the way, the suggestion list itself: axe-core finds no serious or critical violation
in it once lines have streamed (it found ``list`` and ``label-content-name-mismatch``
before), and a focused line keeps the focus while the stream redraws the lines.
Screenshots: ``test-artifacts/suggestion-stop-<size>-<lines|played>.png``.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.browser import Console, artifacts
from tests.service_process import service_fixture

SIZES = {"phone": (390, 844), "tablet": (820, 1180), "laptop": (1440, 900)}
AI = "mcts:iterations=10"

service = service_fixture("web-suggestion-stop", {"MOMBASA_WORKERS": "2"})

# axe-core on the suggestions panel only (the rest of the page is another test's).
AXE_JS = """async () => (await axe.run('#suggest', {resultTypes: ['violations']}))
  .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)"""


def _game_at_planning(base: str, seed: int) -> dict[str, Any]:
    """Seat 1 (first player) against an AI seat, at round 1's Planning with the AI's
    plan made: seat 1 plans last, so its ``ready`` reveals the plans."""
    r = httpx.post(f"{base}/v1/games", json={
        "seats": [{"kind": "human"}, {"kind": "ai", "bot": AI}], "seed": seed,
        "reproducible": True}, timeout=30)
    assert r.status_code == 201, r.text
    created: dict[str, Any] = r.json()
    headers = {"authorization": f"Bearer {created['tokens']['1']}"}
    r = httpx.post(f"{base}/v1/games/{created['id']}/steps", headers=headers, timeout=30,
                   json={"seat": 1, "step": created["legal"][0]["text"]})
    assert r.status_code == 200, r.text
    deadline = time.time() + 30
    while True:
        view = httpx.get(f"{base}/v1/games/{created['id']}", params={"wait": 10},
                         headers=headers, timeout=30).json()
        if view["decision"].get("seats") == [1]:
            break
        assert time.time() < deadline, view["decision"]
    return created


def _view(base: str, created: dict[str, Any]) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {created['tokens']['1']}"}
    body: dict[str, Any] = httpx.get(f"{base}/v1/games/{created['id']}", headers=headers,
                                     timeout=30).json()
    return body


def _wait(page: Any, condition: str) -> None:
    """Wait up to 30 s for ``condition``; a timeout says where the page stood."""
    try:
        page.wait_for_function(condition, timeout=30_000)
    except Exception as exc:
        where = page.evaluate("""() => ({ui: document.body.dataset.ui, steps:
          document.body.dataset.steps, decision: document.body.dataset.decision,
          status: document.querySelector('#suggest-status').textContent,
          lines: [...document.querySelectorAll('#suggestions li')].map(l => l.dataset.move),
          message: document.querySelector('#message').textContent})""")
        raise AssertionError(f"{condition}: {where}") from exc


def _press(page: Any, selector: str, touch: bool) -> None:
    loc = page.locator(selector).first
    loc.scroll_into_view_if_needed()
    if touch:
        loc.tap()
    else:
        loc.click()


def _stream_lines(page: Any, touch: bool) -> None:
    """Ask for 3 lines of 2 s; focus the first interim line and keep it focused through
    the redraws up to the final lines."""
    if touch:
        _press(page, "#panes button[data-pane=decide]", touch)
        page.wait_for_function("document.body.dataset.pane === 'decide'")
    page.select_option("#suggest-time", "2")
    page.select_option("#suggest-lines", "3")
    _press(page, "#btn-suggest", touch)
    page.wait_for_selector("#suggestions[data-final='0'] li[data-rank]", timeout=30_000)
    page.focus("#suggestions li[data-rank='1']")
    redraws = page.evaluate("""() => new Promise(done => {
      let n = 0;
      const list = document.querySelector('#suggestions');
      const seen = new MutationObserver(() => { n += 1; });
      seen.observe(list, {subtree: true, childList: true, characterData: true});
      const check = () => list.dataset.final === '1' ? (seen.disconnect(), done(n))
        : setTimeout(check, 50);
      check();
    })""")
    assert redraws > 0  # the stream redrew the lines while one was focused
    focused = page.evaluate("document.activeElement.closest('#suggestions li') !== null")
    assert focused, page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    page.evaluate("document.activeElement.blur()")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_planning_suggestion_stops_at_the_reveal(service: str, browser: Any,
                                                   axe_source: str, size: str) -> None:
    width, height = SIZES[size]
    touch = size != "laptop"
    created = _game_at_planning(service, seed=54)
    context = browser.new_context(viewport={"width": width, "height": height},
                                  has_touch=touch, is_mobile=touch)
    page = context.new_page()
    console = Console(page)
    try:
        page.goto(service + created["links"]["1"])
        _wait(page, "document.body.dataset.ui === 'turn' && "
                    "document.body.dataset.decision === 'plan'")
        _stream_lines(page, touch)
        page.add_script_tag(content=axe_source)
        assert page.evaluate(AXE_JS) == []
        page.screenshot(path=str(artifacts() / f"suggestion-stop-{size}-lines.png"))
        lines = page.eval_on_selector_all(
            "#suggestions li[data-rank]",
            "ls => ls.map(l => [l.dataset.rank, l.dataset.move, Number(l.dataset.playable)])")
        # a line that goes on past the reveal (the search expects the action after it)
        past = [(rank, move.split("; "), k) for rank, move, k in lines
                if len(move.split("; ")) > k]
        assert past, lines
        rank, steps, k = past[0]
        assert steps[k - 1] == "ready" and "ready" not in steps[:k - 1], steps
        text = page.inner_text(f"#suggestions li[data-rank='{rank}']")
        assert "Not played by a click, decided once the plans are revealed" in text, text
        before = _view(service, created)["steps"]
        _press(page, f"#suggestions li[data-rank='{rank}']", touch)
        page.wait_for_selector("#message.info", timeout=30_000)
        told = page.inner_text("#message")
        assert "Plans revealed: P2 (AI):" in told and f"Played {k} of the line's " \
            f"{len(steps)} steps" in told, told
        view = _view(service, created)
        played = [h["step"] for h in view["history"][before:] if h["player"] == "P1"]
        assert played == steps[:k], (played, steps)  # the plan and ready, nothing after
        assert view["decision"]["kind"] == "action" and view["decision"]["seat"] == 1
        assert all(h["step"] for h in view["history"] if h["player"] == "P2")  # seen now
        # asked afresh: suggestions for the action, from the position with P2's plan
        _wait(page, """() => {
          const li = document.querySelector('#suggestions li[data-rank]');
          return li && !/^(plan|ready)/.test(li.dataset.move);
        }""")
        page.screenshot(path=str(artifacts() / f"suggestion-stop-{size}-played.png"))
        assert console.errors == []
    finally:
        context.close()
