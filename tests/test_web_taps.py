"""Taps on the page's board (issue 54): every tap on a visible part of a legal target
plays it, and the board does not move under the finger between two taps.

Games are imported (``POST /v1/games`` with a record) at seat 1's decision of a kind:
books to take with bookkeeping points, goods to move on the company tracks, a card to
buy. At a phone's (390 x 844, touch), a tablet's (820 x 1180, touch) and a laptop's
(1440 x 900, a mouse; the board zoomed in with its + button) size, the board is dragged
so that the target is cut by the edge of the board's window, then tapped a few pixels
inside that edge: the step is played, and the board's window is where it was at the
tap (two units of goods: two taps at the same place, no move between them). The tab
bar marks the pane that holds the decision, and a new decision whose targets the pane
shown does not hold brings its pane up. A scripted round against the AI counts the taps
and the pane switches it takes (``test-artifacts/taps-<size>.txt``); screenshots
``taps-<size>-*.png``.
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

import engine
from tests.browser import Finger, artifacts, player_page, sized_page
from tests.service_process import service_fixture
from tests.test_web import Table, _choose, _create_game, _legal, _settle

SIZES = {"phone": (390, 844), "tablet": (820, 1180), "laptop": (1440, 900)}
SEATS = [{"kind": "human"}, {"kind": "ai", "bot": "random"}]

service = service_fixture("web-taps", {"MOMBASA_WORKERS": "2", "MOMBASA_MAX_BOT_TIME": "2"})


def record_until(kind: str, seed: int = 0, round_at_least: int = 2,
                 test: Any = None) -> dict[str, Any]:
    """A record of two random players up to seat 1's first decision of ``kind`` from
    round ``round_at_least`` on (and passing ``test(state)``, when given)."""
    for attempt in range(seed, seed + 40):
        s = engine.new_game(players=2, seed=attempt)
        rec = engine.GameRecord.new(s, seats=[engine.Seat("human"), engine.Seat("bot", "random")])
        rng = random.Random(attempt)
        while not s.is_over():
            d = s.decision
            if (not d.is_chance and d.player == 0 and d.kind == kind
                    and s.round >= round_at_least and (test is None or test(s))):
                out: dict[str, Any] = rec.to_json(s.cat)
                return out
            step = s.sample_chance() if d.is_chance else rng.choice(s.legal_steps())
            rec.append(-1 if d.is_chance else d.player, step, "chance" if d.is_chance else "bot")
            s = s.apply(step)
    raise AssertionError(f"no game reached {kind}")


def imported(base: str, record: dict[str, Any], seats: list[dict[str, Any]] | None = None,
             mode: str = "play") -> dict[str, Any]:
    """The game of ``record`` at its last position, created through the service."""
    r = httpx.post(f"{base}/v1/games", json={"record": record, "seats": seats or SEATS,
                                             "mode": mode}, timeout=60)
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    return game


def open_page(browser: Any, base: str, game: dict[str, Any], size: str,
              seat: int = 1) -> tuple[Any, Any, Any]:
    """The seat's page at ``size`` (touch on the narrow sizes): (context, page, console)."""
    context, page, console = sized_page(browser, *SIZES[size], size != "laptop")
    page.goto(base + game["links"][str(seat)])
    settle(page)
    return context, page, console


def settle(page: Any, timeout: float = 30) -> None:
    page.wait_for_function("['turn', 'over'].includes(document.body.dataset.ui)",
                           timeout=timeout * 1000)


def steps_now(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.steps)"))


VIEWBOX = "document.querySelector('#board').getAttribute('viewBox')"
# The board's window and a legal target's box (px), by the target's key.
RECTS_JS = """key => {
  const b = document.querySelector('#board').getBoundingClientRect();
  const el = [...document.querySelectorAll(`#board .legal[data-target="${key}"]`)]
    .sort((p, q) => q.getBoundingClientRect().width - p.getBoundingClientRect().width)[0];
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return {board: [b.left, b.top, b.right, b.bottom], target: [r.left, r.top, r.right, r.bottom]};
}"""
# What a tap at (x, y) reaches: the chain of targets under it.
HIT_JS = """([x, y]) => {
  const out = [];
  let el = document.elementFromPoint(x, y);
  el = el && el.closest('[data-target]');
  while (el) { out.push(el.dataset.target); el = el.parentElement.closest('[data-target]'); }
  return out;
}"""
# The board's viewBox when a click reaches it (kept for the test to compare).
WATCH_JS = """() => {
  window.__clickBoxes = [];
  document.querySelector('#board').addEventListener('click',
    () => window.__clickBoxes.push(document.querySelector('#board').getAttribute('viewBox')),
    true);
}"""


def cut_by_the_edge(page: Any, finger: Finger, key: str) -> tuple[float, float]:
    """Drag the board until the target ``key`` is cut by the right edge of the board's
    window (a third of it or so showing); a point 10 px inside that edge, on the target,
    where a tap reaches it."""
    for _ in range(4):
        rects = page.evaluate(RECTS_JS, key)
        assert rects, key
        left, top, right, bottom = rects["board"]
        tl, tt, tr, tb = rects["target"]
        width = tr - tl
        if tl < right - 12 < tr and tr > right + 4 and tt > top + 4 and tb < bottom - 4:
            break
        # the target's left third at the window's right edge, its middle at mid height
        dx = (right - width / 3) - tl
        dy = (top + bottom) / 2 - (tt + tb) / 2
        x0, y0 = (left + right) / 2, top + (bottom - top) * 0.3
        finger.drag(x0, y0, x0 + dx, y0 + dy)
        page.wait_for_timeout(150)
    rects = page.evaluate(RECTS_JS, key)
    left, top, right, bottom = rects["board"]
    tl, tt, tr, tb = rects["target"]
    assert tl < right - 12 < tr and tr > right + 4, ("not cut by the edge", key, rects)
    point = (right - 10, (tt + tb) / 2)
    assert key in page.evaluate(HIT_JS, list(point)), (key, point, rects)
    return point


def zoom_in(page: Any, size: str) -> None:
    """The laptop shows the whole board: zoomed in, a target can be cut by its edge."""
    if size == "laptop":
        page.click("#zoom-in")
        page.click("#zoom-in")


def played(page: Any, before: int) -> None:
    """Wait until the step count grows (no refusal shown) and the page is ready."""
    page.wait_for_function(f"Number(document.body.dataset.steps) > {before}"
                           " || !!document.querySelector('#message.error:not([hidden])')")
    assert not page.locator("#message.error:not([hidden])").count(), page.inner_text("#message")
    settle(page)


def history_step(base: str, gid: str, index: int) -> str:
    view = httpx.get(f"{base}/v1/games/{gid}/record", timeout=30).json()
    step: str = view["steps"][index]["step"]
    return step


CASES = {
    # kind: (its pane, the prefix of its targets' keys, its steps' first word)
    "bookkeeping-points": ("displays", "bookspace", "take"),
    "goods-buy": ("displays", "display", "buy"),
    "goods-track": ("displays", "company", "unit"),
}


def _targets_of(page: Any, prefix: str) -> list[str]:
    keys: list[str] = page.evaluate(
        f"[...new Set([...document.querySelectorAll('#board .legal[data-target^=\"{prefix}:\"]')]"
        ".map(n => n.dataset.target))]")
    return keys


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("kind", list(CASES))
def test_a_tap_on_the_visible_edge_of_a_target_plays_it(
        service: str, browser: Any, size: str, kind: str) -> None:
    """The target cut by the window's edge is played by a tap on what shows of it; the
    board stays where it was (goods: two units, two taps at the same place)."""
    pane, prefix, verb = CASES[kind]

    def enough(s: Any) -> bool:
        if kind == "goods-track":
            return (s.decision.units or 0) >= 2
        texts = [t.text(s.cat) for t in s.legal_steps()]
        return sum(1 for t in texts if t.startswith(verb + " ")) >= 3

    game = imported(service, record_until(kind, test=enough))
    context, page, console = open_page(browser, service, game, size)
    finger = Finger(context, page, size != "laptop")
    if size != "laptop" and page.evaluate("document.body.dataset.pane") != pane:
        page.click(f"#panes button[data-pane={pane}]")
    zoom_in(page, size)
    keys = _targets_of(page, prefix)
    assert keys, (kind, prefix)
    key = keys[len(keys) // 2]
    point = cut_by_the_edge(page, finger, key)
    page.evaluate(WATCH_JS)
    box = page.evaluate(VIEWBOX)
    page.screenshot(path=str(artifacts() / f"taps-{size}-{kind}.png"))
    before = steps_now(page)
    finger.tap(*point)
    played(page, before)
    assert page.evaluate("window.__clickBoxes") == [box], "the board moved under the finger"
    step = history_step(service, game["id"], before)
    assert step.startswith(verb + " "), step
    assert step.split()[1] == key.split(":")[1], (step, key)
    if kind == "goods-track" and page.evaluate("document.body.dataset.decision") == kind:
        # the second unit: the board has not moved; the same place plays the same row
        assert page.evaluate(VIEWBOX) == box, "the board moved between two taps"
        before = steps_now(page)
        finger.tap(*point)
        played(page, before)
        assert history_step(service, game["id"], before) == step
        assert page.evaluate("window.__clickBoxes") == [box, box]
    assert console.errors == []
    context.close()


class CountingTable(Table):
    """test_web's player at a screen, counting the tab bar's taps and the drags too."""

    def __init__(self, page: Any, size: str, finger: Finger) -> None:
        super().__init__(page, size, finger)
        self.pane_taps = 0
        self.drags = 0

    def pane(self, name: str) -> None:
        if self.narrow and self.page.evaluate("document.body.dataset.pane") != name:
            self.pane_taps += 1
        super().pane(name)

    def _drag(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.drags += 1
        super()._drag(x0, y0, x1, y1)


@pytest.mark.parametrize("size", list(SIZES))
def test_taps_and_pane_switches_per_round(service: str, browser: Any, size: str) -> None:
    """Rounds 1 and 2 against the AI played as test_web plays a game (a new kind of step
    tried at each decision of round 2): the taps, the tab bar's share of them and the
    drags of each round, written to ``test-artifacts/taps-<size>.txt``."""
    touch = size != "laptop"
    context, page, console, finger = player_page(browser, *SIZES[size], touch)
    table = CountingTable(page, size, finger)
    _create_game(table, service)
    tried: set[str] = set()
    counts: dict[int, list[int]] = {}
    for _ in range(200):
        _settle(page)
        game_round = int(page.evaluate("document.body.dataset.round"))
        if game_round >= 3:
            break
        before = (table.taps, table.pane_taps, table.drags)
        decision = page.evaluate("document.body.dataset.decision")
        table.play(_choose(_legal(page), game_round == 2 or decision == "plan", tried))
        row = counts.setdefault(game_round, [0, 0, 0])
        for k, (now, then) in enumerate(zip((table.taps, table.pane_taps, table.drags), before,
                                            strict=True)):
            row[k] += now - then
    assert set(counts) >= {1, 2}, counts
    lines = [f"round {r}: {t} taps, {p} of them pane switches, {d} drags"
             for r, (t, p, d) in sorted(counts.items())]
    print(size, lines)
    (artifacts() / f"taps-{size}.txt").write_text("\n".join(lines) + "\n")
    assert console.errors == []
    context.close()
