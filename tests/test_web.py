"""The web page in a real browser: Playwright drives Debian's Chromium against
``mombasa serve`` (the real CLI in a subprocess, on a free port, with a temporary
database).

A whole game against an AI seat (``mcts:iterations=10``) at each of a phone's
(390 x 844), a tablet's (820 x 1180) and a laptop's (1440 x 900) size, created through
the page's form and played to the end by touch taps (phone, tablet) or clicks (laptop)
on the page's own controls, as a player at that screen would: the board's targets (in
the pane of the tab bar that shows them on the narrow sizes, the zoomed board dragged
when a target lies outside its window), the decision's buttons, the chooser, a
suggestion line. Mostly the steps that end a decision soonest; rounds 2 and 3 try a kind
of step not tried yet at every decision, round 1 and 3 plan cards. Before every tap
nothing overflows sideways and the target is wholly in view and on top where it is
tapped. On the way: an illegal tap shows the service's 409 reason on the pane open, the
round summary before round 2, the suggestions for a mid-game position (with a mouse,
hovering a line highlights it; a tap plays it); at the end the final score table shown
equals ``GET /v1/games/{id}/score``. The page must log no console errors.

Screenshots of every phase at every size (``test-artifacts/game-<size>-<phase>.png``;
the test's time, taps and decisions in ``game-<size>.txt``) go to ``test-artifacts/``
(a folder git ignores: the test writes its ``.gitignore``). Chromium comes from Debian
(``scripts/ensure-chromium.sh``, run by ``make test``), never from a browser download.
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.browser import Console, Finger, artifacts, player_page
from tests.service_process import service_fixture

AI = "mcts:iterations=10"
# The browser reports every HTTP error answer of a fetch() on the console; the one the
# test provokes on purpose (an illegal click, answered 409 with its reason) is expected.
CONFLICT_LOG = "the server responded with a status of 409 (Conflict)"
# Steps that end a decision soonest, so that the game is short.
PREFERRED = ("end", "ready", "nobuy", "stop", "pounds", "halt", "noflip", "rest", "tile")


service = service_fixture("web", {"MOMBASA_WORKERS": "2", "MOMBASA_MAX_BOT_TIME": "2"})


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


def _choose(steps: list[str], busy: bool, tried: set[str]) -> str:
    """The step that ends the decision soonest; with ``busy`` (to see more of the table)
    one of a kind not ``tried`` yet (buying nothing when buying was tried: the units go
    on the tracks), else one that does something; never the end of a phase early."""
    kind = [s.split()[0] for s in steps]
    if busy:
        doing = [s for s, k in zip(steps, kind, strict=True) if k not in ENDING]
        fresh = [s for s, k in zip(steps, kind, strict=True)
                 if k not in tried and k not in ("end", "ready", "remove-card")]
        # a new kind that does something, else a new way out (nothing bought), else any
        # that does something
        pick = next(iter([s for s in fresh if s in doing] + fresh + doing), None)
        if pick:
            tried.add(pick.split()[0])
            return pick
    for preferred in PREFERRED:
        if preferred in kind:
            return steps[kind.index(preferred)]
    return steps[0]


def _steps(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.steps)"))


# -- a player at a screen: taps (phone, tablet) or clicks (laptop) on what is shown ------

SIZES = {"phone": (390, 844), "tablet": (820, 1180), "laptop": (1440, 900)}
# The pane of the narrow screens' tab bar that shows each kind of board target.
PANE_OF = {"hand": "boards", "slot": "boards", "card": "boards", "deck": "boards",
           "bk": "boards", "region": "map", "base": "map", "col": "map",
           "display": "displays", "bonus": "displays", "line": "displays",
           "bookspace": "displays", "company": "displays"}
# Steps played by a button of the decision panel (steps.js BUTTON_KINDS).
BUTTON_KINDS = {"ready", "nobuy", "stop", "reward-order", "noflip", "ink", "halt", "pounds",
                "tile", "rest"}
ENDING = ("end", "ready", "remove-card", "stop", "nobuy", "pounds", "halt", "noflip")
# A point of the element that a tap there reaches (nothing over it, not clipped), and
# whether the element lies wholly in the visible part of the screen: the viewport, the
# board's window for a board target, the scrolling box of the players' boards.
POINT_JS = """el => {
  if (!el.isConnected) return {connected: false};
  const r = el.getBoundingClientRect();
  let [left, top, right, bottom] = [0, 0, innerWidth, innerHeight];
  const clip = el.closest('#board, #players');
  if (clip) {
    const c = clip.getBoundingClientRect();
    [left, top, right, bottom] = [Math.max(left, c.left), Math.max(top, c.top),
                                  Math.min(right, c.right), Math.min(bottom, c.bottom)];
  }
  const inside = r.width > 0 && r.left >= left - 1 && r.top >= top - 1
    && r.right <= right + 1 && r.bottom <= bottom + 1;
  const box = [r.left, r.top, r.right, r.bottom].map(Math.round);
  for (const fy of [0.5, 0.35, 0.65, 0.2, 0.8]) {
    for (const fx of [0.5, 0.35, 0.65, 0.2, 0.8]) {
      const x = r.left + r.width * fx;
      const y = r.top + r.height * fy;
      if (x < left || y < top || x >= right || y >= bottom) continue;
      const hit = document.elementFromPoint(x, y);
      if (hit && (hit === el || el.contains(hit))) return {x, y, inside, box, connected: true};
    }
  }
  return {x: null, y: null, inside, box, connected: true};
}"""
# How far a board target is from the middle of the board's window (px), and whether it
# lies wholly inside it.
OFF_BOARD_JS = """el => {
  if (!el.isConnected) return null;
  const r = el.getBoundingClientRect();
  const b = document.querySelector('#board').getBoundingClientRect();
  return {fits: r.left >= b.left && r.right <= b.right && r.top >= b.top
            && r.bottom <= b.bottom,
          dx: b.left + b.width / 2 - (r.left + r.width / 2),
          dy: b.top + b.height / 2 - (r.top + r.height / 2),
          board: [b.left, b.top, b.right, b.bottom]};
}"""


def _target(step: str, seat: int = 1) -> str:
    """The board target a player taps for ``step`` (its first: a plan's hand card)."""
    kind, *args = step.split()
    a = args[0] if args else ""
    b = args[1] if len(args) > 1 else ""
    keys = {"plan": f"hand:{seat}:{a}", "goods": f"card:{seat}:{a.split('+')[0]}",
            "expand": f"base:{a}", "unit": f"base:{a}", "keeper": f"card:{seat}:{a}",
            "merchant": f"card:{seat}:{a}", "plus1": f"card:{seat}:{a}",
            "end": f"deck:{seat}:{a}", "first": "bonus:first", "buy-card": f"display:{a}",
            "buy": f"display:{a}", "remove-card": f"hand:{seat}:{a}",
            "majority": f"line:{a}:{b}", "reserve": f"bonus:{a}",
            "track-bonus": f"bonus:{a}", "enter": f"region:{a}",
            "remove-post": f"col:{a}:{b}", "flip": f"bk:{seat}:{a}",
            "take": f"bookspace:{a}", "place": f"bk:{seat}:{b}"}
    return keys[kind]


class Table:
    """The page as a player at one screen size uses it: the pane of the tab bar that
    shows what is played (phone and tablet), a touch tap there (a click on a laptop),
    the zoomed board dragged when the target lies outside its window; before every tap,
    nothing overflows sideways and the target is wholly in view and on top where tapped.
    Screenshots: ``test-artifacts/game-<size>-<name>.png``."""

    def __init__(self, page: Any, size: str, finger: Finger) -> None:
        self.page = page
        self.size = size
        self.narrow = size != "laptop"
        self.finger = finger  # touch (phone, tablet) or a mouse
        self.shots: list[str] = []
        self.taps = 0
        self.remeasured = 0  # targets a redraw replaced or moved before the tap

    def shot(self, name: str) -> None:
        # as the player sees it once the log's new moves have appeared (not mid-fade)
        self.page.wait_for_function(
            "document.getAnimations().every(a => a.playState !== 'running'"
            " || a.effect.getComputedTiming().iterations === Infinity)", timeout=5000)
        path = artifacts() / f"game-{self.size}-{name}.png"
        self.page.screenshot(path=str(path))
        self.shots.append(path.name)

    def no_overflow(self) -> None:
        wide = self.page.evaluate("document.documentElement.scrollWidth - innerWidth")
        assert wide <= 0, (self.size, "overflows sideways by", wide)

    def pane(self, name: str) -> None:
        """Open a pane of the tab bar (narrow sizes; a laptop shows everything)."""
        if not self.narrow or self.page.evaluate("document.body.dataset.pane") == name:
            return
        self.tap(self.page.locator(f"#panes button[data-pane={name}]"))
        self.page.wait_for_function(f"document.body.dataset.pane === {name!r}")

    def _drag(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """One finger across the board (touch), in small moves."""
        self.finger.drag(x0, y0, x1, y1)

    def _into_view(self, loc: Any) -> bool:
        """As a player would: the page (or the players' boards) scrolled to the target,
        the zoomed board dragged until the target is in its window. False when a redraw
        replaced the element meanwhile (measure the new one)."""
        where = loc.evaluate("el => el.isConnected ? (el.closest('#board') ? 'board' : 'page')"
                             " : null")
        if where is None:
            return False
        if where == "page":
            loc.evaluate("el => el.scrollIntoView({block: 'nearest', inline: 'nearest'})")
            return True
        self.page.evaluate("window.scrollTo(0, 0)")
        for _ in range(6):
            off = loc.evaluate(OFF_BOARD_JS)
            if off is None:
                return False
            if off["fits"]:
                return True
            assert self.finger.touch, (self.size, "a target off the whole board", off)
            left, top, right, bottom = off["board"]
            x0, y0 = (left + right) / 2, (top + bottom) / 2
            x1 = min(max(x0 + off["dx"] * 1.1, left + 2), right - 2)
            y1 = min(max(y0 + off["dy"] * 1.1, top + 2), bottom - 2)
            self._drag(x0, y0, x1, y1)
        return True

    def tap(self, loc: Any, shot: str | None = None) -> None:
        loc = loc.first
        point: dict[str, Any] = {}
        for _ in range(8):  # the page redraws as the game goes on: measure the new one
            try:
                loc.wait_for(state="visible")
                if not self._into_view(loc):
                    continue
                self.no_overflow()
                point = loc.evaluate(POINT_JS)
            except PlaywrightError as exc:  # replaced by a redraw meanwhile
                if "not attached" not in str(exc):
                    raise
                continue
            if point["connected"] and point["inside"] and point["x"] is not None:
                break
            # moved by a redraw between the scroll and the measure: bring it back
            self.remeasured += 1
            self.page.wait_for_timeout(100)
        what = loc.evaluate("el => el.dataset.target || el.dataset.step || el.id || "
                            "el.textContent.trim().slice(0, 40)")
        assert point["inside"], (self.size, what, "not wholly in view", point)
        assert point["x"] is not None, (self.size, what, "covered where it shows", point)
        if shot:
            self.shot(shot)
        self.finger.tap(point["x"], point["y"])
        self.taps += 1

    def target(self, key: str) -> Any:
        """A board target by its key: the one the decision marks legal when there are
        several (a card drawn twice)."""
        if self.narrow:
            self.pane(PANE_OF[key.split(":")[0]])
        legal = self.page.locator(f'[data-target="{key}"].legal')
        return legal if legal.count() else self.page.locator(f'[data-target="{key}"]')

    def _played(self, step: str, before: int, or_else: str = "") -> None:
        """Wait until the step count grows (or a refusal shows, or ``or_else``)."""
        try:
            self.page.wait_for_function(
                f"Number(document.body.dataset.steps) > {before}"
                " || !!document.querySelector('#message.error:not([hidden])')" + or_else)
        except PlaywrightError:
            self.shot("FAILED")
            raise AssertionError(f"{self.size}: {step} was not played") from None

    def play(self, step: str, shot: str | None = None) -> None:
        """Play one legal step through the page's own controls; wait for the service."""
        page = self.page
        before = _steps(page)
        kind = step.split()[0]
        if kind in BUTTON_KINDS or step == "end -":
            self.pane("decide")
            self.tap(page.locator(f'#decision-buttons button[data-step="{step}"]'), shot)
        elif kind == "plan":
            card, slot = step.split()[1:3]
            self.tap(self.target(f"hand:1:{card}"), shot)
            page.wait_for_selector(f'[data-target="hand:1:{card}"].selected')
            self.tap(self.target(f"slot:1:{slot}"))
        else:
            if kind == "return":  # the ousted post's company is the decision's
                key = page.eval_on_selector(
                    f'.legal[data-target^="col:"][data-target$=":{step.split()[1]}"]',
                    "el => el.dataset.target")
            else:
                key = _target(step)
            self.tap(self.target(key), shot)
            # a target with several steps: the chooser asks which
            self._played(step, before, " || !document.querySelector('#chooser').hidden")
            if page.locator("#chooser").is_visible():
                self.tap(page.locator(f'#chooser button[data-step="{step}"]'))
        self._played(step, before)
        assert not page.locator("#message.error:not([hidden])").count(), (
            step, page.inner_text("#message"))


def _create_game(table: Table, base: str) -> str:
    """A game against a quick AI through the new-game dialog, by taps."""
    page = table.page
    page.goto(base + "/")
    page.wait_for_selector("dialog#new-game[open]")
    page.select_option("#ng-players", "2")
    page.select_option("tr[data-seat='1'] .ng-kind", "human")
    page.select_option("tr[data-seat='2'] .ng-kind", "ai")
    page.select_option("tr[data-seat='2'] .ng-bot", "custom")
    table.tap(page.locator("tr[data-seat='2'] .ng-custom"))
    page.fill("tr[data-seat='2'] .ng-custom", AI)
    table.tap(page.locator("#ng-seed"))
    page.fill("#ng-seed", "2")
    table.tap(page.locator("label:has(input[name=setup][value=first])"))
    table.tap(page.locator("label:has(input[name=mode][value=play])"))
    table.shot("dialog")
    table.tap(page.locator("#ng-start"))
    _settle(page)
    match = re.search(r"game=([0-9a-f]+)", page.url)
    assert match, page.url
    return match.group(1)


def _illegal_tap(table: Table) -> None:
    """Seat 1 is the first player of round 1: the first-player space is not for it. The
    service's reason shows on whichever pane is open."""
    page = table.page
    table.tap(table.target("bonus:first"))
    page.wait_for_selector("#message.error")
    text = page.inner_text("#message")
    assert "Not allowed now" in text and "'first'" in text, text
    assert _settle(page) == "turn"
    table.tap(page.locator("#message .dismiss"), shot="refused")
    page.wait_for_selector("#message", state="hidden")


def _suggestions(table: Table) -> None:
    """Ranked lines for the position (a highlight on the board on hover, with a mouse),
    and one tap plays one."""
    page = table.page
    table.pane("decide")
    page.select_option("#suggest-time", "0.5")
    page.select_option("#suggest-lines", "3")
    table.tap(page.locator("#btn-suggest"))
    page.wait_for_selector("#suggestions[data-final='1'] li[data-rank]", timeout=30_000)
    lines = page.locator("#suggestions li[data-rank]")
    ranks = [lines.nth(i).get_attribute("data-rank") for i in range(lines.count())]
    assert ranks == [str(i + 1) for i in range(len(ranks))] and 1 <= len(ranks) <= 3, ranks
    for i in range(lines.count()):
        text = lines.nth(i).inner_text()
        assert re.search(r"Win chance \d+%", text), text
        assert "Projected final money: P1 £" in text and "P2 £" in text, text
    if not table.narrow:
        lines.nth(0).hover()
        page.wait_for_selector(".hint")
    before = _steps(page)
    table.tap(lines.nth(0), shot="suggestions")
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


@pytest.mark.parametrize("size", list(SIZES))
def test_play_a_game_against_the_ai(service: str, browser: Any, size: str) -> None:
    """A whole game against the AI at a phone's, a tablet's and a laptop's size, played
    by taps (phone, tablet: a touch screen) or clicks (laptop) on the page's own
    controls: the board's targets in the pane that shows them, the decision's buttons,
    the chooser, a suggestion line. Screenshots of every phase at every size."""
    started = time.monotonic()
    touch = size != "laptop"
    context, page, console, finger = player_page(browser, *SIZES[size], touch)
    table = Table(page, size, finger)
    gid = _create_game(table, service)

    met: dict[str, int] = {}  # decision kinds met (how often)
    tried: set[str] = set()
    illegal_done = suggested = summary_seen = False
    for _ in range(400):
        if _settle(page) == "over":
            break
        table.no_overflow()
        decision = page.evaluate("document.body.dataset.decision")
        game_round = int(page.evaluate("document.body.dataset.round"))
        if game_round == 2 and not summary_seen:
            # round 1 summed up, in the side panel (the Decide pane), before Planning
            table.pane("decide")
            page.wait_for_selector("#round-summary[data-round='1']")
            assert "Round 1 summary" in page.inner_text("#round-summary")
            page.locator("#round-summary").scroll_into_view_if_needed()
            table.shot("round-summary")
            summary_seen = True
        if decision == "action" and not illegal_done:
            _illegal_tap(table)
            illegal_done = True
        if decision == "action" and game_round >= 3 and not suggested:
            _suggestions(table)
            suggested = True
            continue
        steps = _legal(page)
        assert steps, "my turn without legal steps"
        first = decision not in met
        if first and table.narrow and decision in ("plan", "action"):
            table.pane("decide")  # what to do, the last moves of the AI, the suggestions
            table.shot(f"{decision}-decide")
        busy = game_round in (2, 3) or (decision == "plan" and game_round == 1)
        table.play(_choose(steps, busy, tried), shot=decision if first else None)
        met[decision] = met.get(decision, 0) + 1
    else:
        pytest.fail("the game did not end")
    assert illegal_done and suggested and summary_seen

    table.pane("decide")
    page.wait_for_selector("#final-score")
    page.emulate_media(reduced_motion="reduce")  # the log's last moves fully shown
    if not touch:
        page.mouse.move(1, 1)
    page.locator("#final").scroll_into_view_if_needed()
    table.no_overflow()
    table.shot("final")
    assert_final_score_shown(page, service, gid)
    # the decisions met, and the main ones among them
    main = {"plan", "action", "goods-buy", "goods-track", "expansion"}
    assert main <= set(met) and len(met) >= 8, met

    expected = [e for e in console.errors if CONFLICT_LOG in e]
    assert len(expected) == 1, console.errors  # the illegal tap's 409, and only that
    assert [e for e in console.errors if CONFLICT_LOG not in e] == []
    summary = (f"{time.monotonic() - started:.1f} s, {table.taps} taps "
               f"({table.remeasured} re-measured after a redraw)\ndecisions {met}\n"
               f"screenshots {table.shots}\n")
    print(size, summary)
    (artifacts() / f"game-{size}.txt").write_text(summary)
    context.close()


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
