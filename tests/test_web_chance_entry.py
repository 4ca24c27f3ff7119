"""Live mode in a real browser: the cards and books revealed at the table are entered by
clicking their spaces in any order and picking them from a filtered list.

Playwright drives Debian's Chromium (as ``tests/test_web.py`` does) against
``mombasa serve``. A live 2-player game is created through the API; the page then fills
the 12 display spaces and the 12 book spaces of the setup in a shuffled order, one click
on the space and one pick each (Enter in the filter or a click on the entry), and the
service's game view must hold exactly the picked components in the clicked spaces. The
pick list itself: labels tell cards apart by everything printed (a share icon too),
identical books are one entry, typing narrows the list, the keyboard works, a pick
waiting for its space can be changed or cleared, survives a reload, and is cleared with
a message when it no longer fits.
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from tests.browser import Console, artifacts
from tests.service_process import service_fixture
from tests.test_api_helpers import TOKENS, auth, remember

PICKER = "#picker:not([hidden])"
OPTIONS = "#picker-list [role=option]"


service = service_fixture("web-chance", {"MOMBASA_WORKERS": "1"})


@pytest.fixture(scope="module")
def catalogue(service: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{service}/v1/catalogue", timeout=30).json()
    return body


def _live_game(base: str, seed: int) -> str:
    r = httpx.post(f"{base}/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}],
                                              "mode": "live", "seed": seed}, timeout=30)
    assert r.status_code == 201, r.text
    gid: str = remember(r.json())["id"]
    return gid


def _view(base: str, gid: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{base}/v1/games/{gid}", params={"seat": 1},
                                     headers=auth(gid, 1), timeout=30).json()
    return body


def _open(browser: Any, base: str, gid: str) -> tuple[Any, Console]:
    """The page of seat 1 (its link: the seat's token in it)."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    console = Console(page)
    page.goto(f"{base}/#game={gid}&seat=1&token={TOKENS[gid][1]}")
    _idle(page)
    return page, console


def _idle(page: Any) -> None:
    page.wait_for_function("['turn', 'over', 'idle'].includes(document.body.dataset.ui)",
                           timeout=30_000)


def _options(page: Any) -> list[dict[str, Any]]:
    opts: list[dict[str, Any]] = page.eval_on_selector_all(
        OPTIONS, "os => os.map(o => ({names: o.dataset.names.split(' '), label: o.textContent,"
                 " selected: o.getAttribute('aria-selected') === 'true'}))")
    return opts


def _open_space(page: Any, key: str) -> None:
    page.locator(f'[data-target="{key}"]').first.click()
    page.wait_for_selector(PICKER)
    assert page.evaluate("document.activeElement && document.activeElement.id") == \
        "picker-filter", "the filter has the keyboard focus"


def _pending(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.pending || 0)"))


def test_whole_setup_in_any_order(service: str, browser: Any, catalogue: dict[str, Any]
                                  ) -> None:
    """24 spaces in a shuffled order: one click on the space and one pick each."""
    gid = _live_game(service, seed=21)
    page, console = _open(browser, service, gid)
    assert page.evaluate("document.body.dataset.decision") == "chance"
    keys = [f"display:{s['name']}" for s in catalogue["display"]["spaces"]] + \
        [f"bookspace:{s['name']}" for s in catalogue["book_display"]["spaces"]]
    assert len(keys) == 24
    rng = random.Random(5)
    rng.shuffle(keys)
    assert keys[0] != "display:R1"  # the first click is on a space the engine deals later

    space_clicks = picks = 0
    chosen: dict[str, list[str]] = {}
    for i, key in enumerate(keys):
        _open_space(page, key)
        space_clicks += 1
        options = _options(page)
        assert options and options[0]["selected"]
        entry = rng.choice(options)
        if i % 2 == 0:
            # type its name: the entry with that exact name comes first; Enter picks it
            page.keyboard.type(entry["names"][0])
            first = _options(page)[0]
            assert first["names"] == entry["names"] and first["selected"], first
            page.keyboard.press("Enter")
        else:
            # type what is printed on it, then click it in the narrowed list
            words = entry["label"].split(" · ")[0]
            page.keyboard.type(words)
            narrowed = _options(page)
            assert entry["names"] in [o["names"] for o in narrowed]
            assert len(narrowed) <= len(options)
            page.locator(f'{OPTIONS}[data-names="{" ".join(entry["names"])}"]').click()
        picks += 1
        chosen[key] = entry["names"]
        page.wait_for_selector(PICKER, state="hidden")
        _idle(page)
        if i == 0:
            # nothing sent yet: the pick waits on the board, outlined
            assert _pending(page) == 1
            assert page.locator(f'[data-target="{key}"].pending').count() >= 1
            page.mouse.move(1, 1)
            page.screenshot(path=str(artifacts() / "web-chance-pending.png"), full_page=True)
        assert not page.locator("#message.error").is_visible(), page.inner_text("#message")

    page.wait_for_function("document.body.dataset.decision !== 'chance'", timeout=30_000)
    assert _pending(page) == 0
    st = _view(service, gid)["observation"]["state"]
    placed = {**{f"display:{k}": v for k, v in st["display"].items()},
              **{f"bookspace:{k}": v for k, v in st["book_display"].items()}}
    for key, names in chosen.items():
        assert placed[key] in names, (key, placed[key], names)
    assert len(set(placed.values())) == 24
    print(f"whole setup: {space_clicks} space clicks, {picks} picks")
    assert space_clicks == 24 and picks == 24
    assert console.errors == []
    page.close()


def test_labels_tell_components_apart(service: str, browser: Any) -> None:
    """Everything printed is in the label; identical books are one entry ("x2")."""
    gid = _live_game(service, seed=22)
    page, console = _open(browser, service, gid)
    _open_space(page, "display:M2")  # a later space: cards of stack A
    by_name = {o["names"][0]: o["label"] for o in _options(page)}
    # A3 and A7: both "Cotton 2", one with a Saint-Louis share icon
    assert by_name["A3"].startswith("Cotton 2") and by_name["A7"].startswith("Cotton 2")
    assert by_name["A3"] != by_name["A7"]
    assert "Saint-Louis share icon" in by_name["A7"] and "no share icon" in by_name["A3"]
    for label in by_name.values():
        assert "crate" in label and "stack A" in label and " card" in label, label
    page.keyboard.press("Escape")
    page.wait_for_selector(PICKER, state="hidden")

    # two cards that differ only by their share icon get different labels and entries
    result = page.evaluate("""async () => {
        const m = await import('/static/js/chance.js');
        const cat = await (await fetch('/v1/catalogue')).json();
        cat.cards.X = {...cat.cards.A3, name: 'X', share: 'CAP'};
        const slot = {event: 'deal-card', arg: 'R1', key: 'display:R1'};
        return {a: m.cardText(cat, 'A3', 'R1'), b: m.cardText(cat, 'X', 'R1'),
                n: m.entriesFor(cat, slot, ['A3', 'X'], null).length,
                same: m.entriesFor(cat, slot, ['A3', 'A3'], null).length};
    }""")
    assert result["a"] != result["b"] and "Cape Town share icon" in result["b"], result
    assert result["n"] == 2 and result["same"] == 1

    _open_space(page, "bookspace:3.2")  # books with letter A
    books = _options(page)
    merged = [o for o in books if len(o["names"]) > 1]
    assert merged, "identical books are one entry"
    assert all(o["label"].endswith(f"x{len(o['names'])}") for o in merged)
    assert sum(len(o["names"]) for o in books) == 24 > len(books)
    label = books[0]["label"]
    assert label.startswith("Book A · needs ") and "reward" in label, label

    # the filter narrows: "pounds" keeps the books that pay pounds
    page.keyboard.type("pounds")
    pounds = _options(page)
    page.screenshot(path=str(artifacts() / "web-chance-picker.png"))
    assert 0 < len(pounds) < len(books) and all("£" in o["label"] for o in pounds)
    page.keyboard.press("Escape")
    _open_space(page, "display:L1")
    cards = _options(page)
    page.keyboard.type("cot 2")
    cot = _options(page)
    assert 0 < len(cot) < len(cards) and all(o["label"].startswith("Cotton 2") for o in cot)
    page.fill("#picker-filter", "A3")
    assert _options(page)[0]["names"] == ["A3"]
    page.keyboard.press("Escape")
    assert console.errors == []
    page.close()


def test_keyboard_change_clear_and_stale_picks(service: str, browser: Any) -> None:
    """Arrows + Enter pick, a waiting pick can be changed or cleared, it survives a
    reload, and one that no longer fits is cleared with a message."""
    gid = _live_game(service, seed=23)
    view = _view(service, gid)
    while view["legal"][0]["text"].startswith("deal-card"):  # the cards, by the API
        r = httpx.post(f"{service}/v1/games/{gid}/chance",
                       json={"seat": 1, "step": view["legal"][0]["text"]},
                       headers=auth(gid, 1), timeout=30)
        assert r.status_code == 200, r.text
        view = r.json()
    page, console = _open(browser, service, gid)

    # arrows + Enter: the third entry
    _open_space(page, "bookspace:3.1")
    third = _options(page)[2]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert _options(page)[2]["selected"]
    page.keyboard.press("Enter")
    page.wait_for_selector(PICKER, state="hidden")
    cell = page.locator('[data-target="bookspace:3.1"].pending').first
    assert cell.get_attribute("data-pick") in third["names"]

    # change it: the current pick is marked, another one replaces it
    _open_space(page, "bookspace:3.1")
    opts = _options(page)
    assert [o["names"] for o in opts if o["selected"]] == [third["names"]]
    unique = next(o for o in opts if len(o["names"]) == 1 and o["names"] != third["names"])
    page.keyboard.type(unique["names"][0])
    page.keyboard.press("Enter")
    page.wait_for_selector(PICKER, state="hidden")
    assert cell.get_attribute("data-pick") == unique["names"][0]

    # clear it, and pick it again
    _open_space(page, "bookspace:3.1")
    page.click("#picker-clear")
    assert _pending(page) == 0
    assert page.locator('[data-target="bookspace:3.1"].pending').count() == 0
    _open_space(page, "bookspace:3.1")
    page.keyboard.type(unique["names"][0])
    page.keyboard.press("Enter")
    assert _pending(page) == 1

    # it survives a reload
    page.reload()
    _idle(page)
    assert _pending(page) == 1
    assert page.locator('[data-target="bookspace:3.1"].pending').first.get_attribute(
        "data-pick") == unique["names"][0]

    # someone else reports that very book in 2.1: the pick no longer fits
    r = httpx.post(f"{service}/v1/games/{gid}/chance",
                   json={"seat": 1, "step": f"deal-book {unique['names'][0]} 2.1"},
                   headers=auth(gid, 1), timeout=30)
    assert r.status_code == 200, r.text
    # the page follows the change as it happens (the game's event stream), no reload
    # (the message is read as it appears: a later redraw may replace it)
    page.wait_for_function(
        "(() => { const t = document.querySelector('#message').textContent;"
        " return t.includes('cleared') && t.includes('3.1'); })()", timeout=10_000)
    _idle(page)
    assert _pending(page) == 0

    # Escape closes the list
    _open_space(page, "bookspace:2.2")
    page.keyboard.press("Escape")
    page.wait_for_selector(PICKER, state="hidden")
    assert console.errors == []
    page.close()
