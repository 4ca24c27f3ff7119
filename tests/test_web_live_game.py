"""A live 3-player game mirrored from seat 2, entered through the page from the first
card revealed to the final score.

Playwright drives Debian's Chromium (as ``tests/test_web.py`` does) against
``mombasa serve``. The game is created in the page's new-game dialog (3 human seats, live
table, "I am seat 2"). What the table reveals is mirrored from a reference game built
here, ``engine.new_game(players=3, seed=REFERENCE_SEED)``: it follows every step the
service records, and at each chance event its ``sample_chance()`` outcomes are what was
revealed. The whole setup (12 display cards, 12 books) is entered by clicking the spaces
in a shuffled order and picking each component from the filtered pick list (picks for
later spaces wait in the page and are sent when due); so is every refill later on.

Then the resting cards of each seat, and at the first Planning the page shows seat 2
(its own seat) first with its planning suggestions streamed while seats 1 and 3 have not
planned yet (checked through the API); seat 2's plan is entered, then the page turns to
seats 1 and 3 as their plans are entered, and every action to the end of the game, all by
clicks on the page's list of legal steps. At the end the page's final score table equals
``GET /v1/games/{id}/score``. The page must log no console errors.

Measured on the 2-core test machine (with a background benchmark running): the setup is
24 space clicks + 24 picks in about 8 s (0.33 s a space); the rounds 252 steps clicked
and 28 refilled spaces picked in about 65 s; the whole test about 80 s (see the printed
lines with ``pytest -s``).
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import engine
from tests.browser import Console, artifacts
from tests.service_process import service_fixture
from tests.test_api_helpers import TOKENS, auth
from tests.test_web import assert_final_score_shown

REFERENCE_SEED = 7  # the reference game whose chance outcomes the table "reveals"
SHUFFLE_SEED = 14  # the order in which the revealed spaces are clicked
PERSPECTIVE = 2  # "I am seat 2"
PLANS_PER_ROUND = 2  # each seat plans up to two cards a round, then is ready
PICKER = "#picker:not([hidden])"
OPTIONS = "#picker-list [role=option]"
CHANCE_KEY = re.compile(r"^(display|bookspace|company):")

# The page's state in one round trip: the ui, the decision, the seat shown, its legal
# steps, the spaces to fill at a live chance event (pulsing or with a waiting pick).
STATE_JS = """async () => {
    const {app} = await import('/static/js/state.js');
    const v = app.view;
    const slots = [...document.querySelectorAll('[data-target].legal, [data-target].pending')]
        .map((n) => n.getAttribute('data-target'));
    return {ui: document.body.dataset.ui, decision: document.body.dataset.decision,
            round: Number(document.body.dataset.round), steps: Number(document.body.dataset.steps),
            seat: v ? v.seat : null, over: !!(v && v.over),
            legal: [...document.querySelectorAll('#legal-steps button[data-step]')]
                .map((b) => b.dataset.step),
            slots: [...new Set(slots)]};
}"""


service = service_fixture("web-live", {"MOMBASA_WORKERS": "1"})


class Mirror:
    """The reference game: follows the service's recorded steps; its own generator says
    what the table reveals next."""

    def __init__(self) -> None:
        self.state = engine.new_game(players=3, seed=REFERENCE_SEED)
        self.applied = 0

    def sync(self, base: str, gid: str) -> None:
        """Apply the steps the service recorded since the last sync (seat 2's view: every
        step is public by then, the chance events come after the reveal)."""
        view = httpx.get(f"{base}/v1/games/{gid}", params={"seat": PERSPECTIVE},
                         headers=auth(gid, PERSPECTIVE), timeout=30).json()
        cat = self.state.cat
        for rec in view["history"][self.applied:]:
            assert rec["step"] is not None, rec  # nothing hidden at a chance event
            step = engine.Step.parse(rec["step"], cat)
            who = rec["player"]
            player = int(who[1:]) - 1 if who and who.startswith("P") else None
            self.state = self.state.apply(step, player)
            self.applied += 1

    def revealed(self) -> dict[str, str]:
        """What the next run of chance events deals: space key -> component (the first
        deal of a space counts, as in the page)."""
        s = self.state
        cat = s.cat
        out: dict[str, str] = {}
        while not s.is_over() and s.decision.kind == "chance":
            step = s.sample_chance()
            kind, *args = step.text(cat).split()
            key = {"deal-card": f"display:{args[-1]}", "deal-book": f"bookspace:{args[-1]}",
                   "deal-track": f"company:{args[0]}"}[kind]
            out.setdefault(key, args[-1] if kind == "deal-track" else args[0])
            s = s.apply(step)
        return out


def _state(page: Any) -> dict[str, Any]:
    st: dict[str, Any] = page.evaluate(STATE_JS)
    return st


def _settled(page: Any, after: int = -1) -> dict[str, Any]:
    """Wait until the page has drawn a view past ``after`` steps and is ready for input."""
    page.wait_for_function(
        f"Number(document.body.dataset.steps) > {after} && "
        "['turn', 'over'].includes(document.body.dataset.ui)", timeout=30_000)
    return _state(page)


def _create_live_game(page: Any, base: str) -> str:
    """Through the new-game dialog: 3 players, all human, live table, I am seat 2."""
    page.goto(base + "/")
    page.wait_for_selector("dialog#new-game[open]")
    page.select_option("#ng-players", "3")
    for seat in (1, 2, 3):
        page.select_option(f"tr[data-seat='{seat}'] .ng-kind", "human")
    page.check("input[name=setup][value=first]")
    page.check("input[name=mode][value=live]")
    page.select_option("#ng-perspective", str(PERSPECTIVE))
    page.click("#ng-start")
    page.wait_for_selector("dialog#new-game", state="hidden")
    page.wait_for_function("['turn', 'over', 'idle'].includes(document.body.dataset.ui)")
    match = re.search(r"game=([0-9a-f]+)&seat=(\d+)&token=([^&]+)", page.url)
    assert match, page.url
    assert int(match.group(2)) == PERSPECTIVE
    TOKENS[match.group(1)] = {PERSPECTIVE: match.group(3)}  # the page's own seat's token
    return match.group(1)


def _pick(page: Any, key: str, name: str, click: bool) -> list[str]:
    """Click space ``key``, type the component's name in the filter, pick its entry
    (Enter, or a click on it); the entry's names (identical copies)."""
    page.locator(f'[data-target="{key}"]').first.click()
    page.wait_for_selector(PICKER)
    page.keyboard.type(name)
    first = page.locator(OPTIONS).first
    names: list[str] = first.get_attribute("data-names").split(" ")
    assert name in names and first.get_attribute("aria-selected") == "true", (key, name, names)
    if click:
        first.click()
    else:
        page.keyboard.press("Enter")
    page.wait_for_selector(PICKER, state="hidden")
    return names


def _enter_reveals(page: Any, mirror: Mirror, base: str, gid: str, rng: random.Random
                   ) -> tuple[int, dict[str, list[str]], int]:
    """One run of chance events: the spaces the page offers, clicked in a shuffled order,
    each picked as the reference game deals it; (space clicks, key -> entry names, the
    most picks waiting at once for their space)."""
    mirror.sync(base, gid)
    revealed = mirror.revealed()
    st = _state(page)
    keys = [k for k in st["slots"] if CHANCE_KEY.match(k)]
    assert keys and set(keys) <= set(revealed), (keys, revealed)
    rng.shuffle(keys)
    chosen: dict[str, list[str]] = {}
    waiting = 0
    for i, key in enumerate(keys):
        chosen[key] = _pick(page, key, revealed[key], click=i % 2 == 1)
        page.wait_for_function("['turn', 'over', 'idle'].includes(document.body.dataset.ui)",
                               timeout=30_000)
        assert not page.locator("#message.error").is_visible(), page.inner_text("#message")
        waiting = max(waiting, int(page.evaluate("Number(document.body.dataset.pending || 0)")))
    return len(keys), chosen, waiting


def _choose(st: dict[str, Any], planned: dict[tuple[int, int], int]) -> str:
    """A simple legal step: at Planning the first card into the first slot offered (up to
    PLANS_PER_ROUND a round), then ready; otherwise the first step listed."""
    legal = st["legal"]
    assert legal, st
    if st["decision"] == "plan":
        key = (st["round"], st["seat"])
        plan = next((t for t in legal if t.startswith("plan ")), None)
        if plan and planned.get(key, 0) < PLANS_PER_ROUND:
            planned[key] = planned.get(key, 0) + 1
            return plan
        return "ready"
    return str(legal[0])


def _click_step(page: Any, st: dict[str, Any], step: str) -> dict[str, Any]:
    page.locator(f'#legal-steps button[data-step="{step}"]').click()
    try:
        return _settled(page, st["steps"])
    except PlaywrightTimeout:
        # Seen timing out on a loaded 2-core machine (the suite beside a long arena
        # run), cause not found: say where, so the next one can be diagnosed.
        pytest.fail(f"no new view within 30 s after {step!r} at "
                    f"{ {k: st.get(k) for k in ('decision', 'seat', 'round', 'steps')} }; "
                    f"page {page.evaluate('JSON.stringify(document.body.dataset)')}, "
                    f"offered {page.locator('#legal-steps').inner_text()[:300]!r}")


def _planning_suggestions(page: Any, base: str, gid: str) -> None:
    """Seat 2's own planning suggestions, streamed while seats 1 and 3 still plan."""
    assert "P2: plan" in page.inner_text("#status")
    page.select_option("#suggest-time", "0.5")
    page.select_option("#suggest-lines", "3")
    page.click("#btn-suggest")
    page.wait_for_selector("#suggestions li[data-rank]", timeout=30_000)
    view = httpx.get(f"{base}/v1/games/{gid}", params={"seat": 1}, headers=auth(gid),
                     timeout=30).json()  # live: any seat's token shows every seat
    assert view["decision"]["kind"] == "plan"
    assert 1 in view["decision"]["seats"] and 3 in view["decision"]["seats"], view["decision"]
    assert view["your_turn"]  # seat 1 still has its planning to do
    assert not [h for h in view["history"] if h["source"] == "report"
                and (h["step"] is None or h["step"].split()[0] in ("plan", "ready"))]
    page.wait_for_selector("#suggestions[data-final='1'] li[data-rank]", timeout=30_000)
    assert "for P2" in page.inner_text("#suggest-status")
    moves = page.eval_on_selector_all("#suggestions li[data-rank]",
                                      "ms => ms.map(m => m.dataset.move)")
    assert 1 <= len(moves) <= 3, moves
    for move in moves:  # seat 2's own starting cards (.../2) into its slots, or ready
        for step in move.split("; "):
            assert step == "ready" or re.fullmatch(r"plan \S+/2 \d", step), move
    page.mouse.move(1, 1)
    page.screenshot(path=str(artifacts() / "web-live-planning.png"), full_page=True)


def test_live_three_player_game_mirrored_from_seat_2(service: str, browser: Any) -> None:
    started = time.perf_counter()
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    console = Console(page)
    gid = _create_live_game(page, service)
    view = httpx.get(f"{service}/v1/games/{gid}", headers=auth(gid), timeout=30).json()
    assert view["mode"] == "live" and view["players"] == 3 and view["perspective"] == 2
    assert [s["kind"] for s in view["seats"]] == ["human"] * 3
    assert view["seat"] == PERSPECTIVE  # views default to the token's seat, here mine
    assert httpx.get(f"{service}/v1/games/{gid}", timeout=30).json()["seat"] is None
    mirror = Mirror()
    rng = random.Random(SHUFFLE_SEED)

    # -- the setup: 12 display cards and 12 books, clicked in a shuffled order ----------
    st = _state(page)
    assert st["decision"] == "chance" and st["seat"] == PERSPECTIVE, st
    deals = Mirror().revealed()  # what the setup deals: 12 display cards and 12 books
    assert sum(k.startswith("display:") for k in deals) == 12
    assert sum(k.startswith("bookspace:") for k in deals) == 12 == len(deals) - 12
    setup_started = time.perf_counter()
    space_clicks, chosen, waiting = _enter_reveals(page, mirror, service, gid, rng)
    st = _settled(page)
    setup_time = time.perf_counter() - setup_started
    assert st["decision"] != "chance", st
    assert space_clicks == len(chosen) == 24  # 12 cards + 12 books, one pick each
    assert waiting > 1  # picks for later spaces waited on the board, sent when due
    state = httpx.get(f"{service}/v1/games/{gid}", headers=auth(gid),
                      timeout=30).json()["observation"]["state"]
    placed = {**{f"display:{k}": v for k, v in state["display"].items()},
              **{f"bookspace:{k}": v for k, v in state["book_display"].items()}}
    for key, names in chosen.items():
        assert placed[key] in names, (key, placed[key], names)
    # measured: 24 space clicks + 24 picks in about 8 s (7.6-8.2 s over three runs)
    print(f"\nsetup entered: {space_clicks} space clicks + {len(chosen)} picks "
          f"in {setup_time:.1f} s")

    # -- the resting cards, each seat in turn ---------------------------------------------
    assert st["decision"] == "resting-cards", st
    rested = []
    while st["decision"] == "resting-cards":
        rested.append(st["seat"])
        st = _click_step(page, st, st["legal"][0])
    assert sorted(rested) == [1, 2, 3], rested

    # -- the first Planning: my seat first, with its suggestions ------------------------
    assert st["decision"] == "plan" and st["seat"] == PERSPECTIVE, st
    _planning_suggestions(page, service, gid)

    # -- every step of every seat, to the end -------------------------------------------
    planned: dict[tuple[int, int], int] = {}
    plan_order: list[int] = []
    entries = reveal_clicks = 0
    batches: list[int] = []
    game_started = time.perf_counter()
    for _ in range(1000):
        if st["over"]:
            break
        if st["decision"] == "chance":
            clicks, _, _ = _enter_reveals(page, mirror, service, gid, rng)
            reveal_clicks += clicks
            batches.append(clicks)
            st = _settled(page)
            continue
        if st["decision"] == "plan" and st["round"] == 1 and \
                (not plan_order or plan_order[-1] != st["seat"]):
            plan_order.append(st["seat"])
        st = _click_step(page, st, _choose(st, planned))
        entries += 1
    else:
        pytest.fail("the game did not end")
    game_time = time.perf_counter() - game_started
    # my own plan first; then the others' as they are entered at the reveal
    assert plan_order == [2, 1, 3], plan_order
    assert batches and max(batches) > 1  # refills of several spaces, in any order
    print(f"rounds 1-7: {entries} steps clicked + {reveal_clicks} revealed spaces picked "
          f"({len(batches)} refills: {batches}) in {game_time:.1f} s")

    # -- the final score: the page's table is the service's -----------------------------
    page.wait_for_selector("#final-score")
    page.emulate_media(reduced_motion="reduce")
    page.mouse.move(1, 1)
    page.screenshot(path=str(artifacts() / "web-live-final.png"), full_page=True)
    shown = assert_final_score_shown(page, service, gid)
    assert sorted(shown) == [1, 2, 3]
    # the service's game is the reference game, step for step
    mirror.sync(service, gid)
    assert mirror.state.is_over()
    assert [s.total for s in engine.score(mirror.state)] == \
        [int(shown[p]["total"]) for p in sorted(shown)]  # = the service's, checked above
    assert console.errors == []
    page.close()
    print(f"whole test: {time.perf_counter() - started:.1f} s")
