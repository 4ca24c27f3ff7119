"""The catalogue screen in a real browser (Playwright, Debian's Chromium, against
``mombasa serve`` as in ``tests/test_web.py``).

Open the "Components" screen; change one book's reward pounds to an invalid value: the
validator's error shows next to that field (and at the top); fix it: the book is drawn
with the new reward; save the catalogue under a name; export it (the file has the
value); import a file with a fault: the screen goes to the field and shows the error.
Then start a new game choosing the saved catalogue: the page loads the game's
catalogue, and the game's catalogue (GET) has the edited value. No console errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx

import engine
from tests.browser import Console, artifacts
from tests.service_process import service_fixture

NAME = "table copy"
FIELD = '[data-path="books[0].reward.pounds"]'
ERROR = '.cat-error[data-error-for="books[0].reward.pounds"]'


service = service_fixture("web-catalogue", {"MOMBASA_WORKERS": "1", "MOMBASA_MAX_BOT_TIME": "2"})


def _valid(page: Any) -> None:
    page.wait_for_selector("#cat-status[data-state=valid] .good", timeout=15_000)


def test_edit_save_and_play_with_a_catalogue(service: str, browser: Any,
                                             tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    console = Console(page)
    page.goto(service + "/")
    page.wait_for_selector("#new-game[open]")
    page.click("#ng-cancel")

    # the screen opens on the shipped catalogue, valid
    page.click("#btn-catalogue")
    _valid(page)
    assert "24 regions" in page.inner_text("#cat-status")
    assert page.locator("#cat-section .cat-item").count() >= 24  # the regions, drawn
    page.click('#cat-tabs [data-section="books"]')
    assert page.locator("#cat-section [id^=cat-item-books-] .cat-fig svg").count() == 72

    # an invalid value: the validator's message next to the field, and at the top
    page.fill(FIELD, "-1")
    error = page.wait_for_selector(ERROR, timeout=15_000)
    assert error.inner_text().endswith("must be >= 0, got -1")
    next_to = page.evaluate(f"""() => {{
        const note = document.querySelector('{ERROR}');
        return note.previousElementSibling.contains(document.querySelector('{FIELD}'));
    }}""")
    assert next_to, "the error is not next to its field"
    assert page.get_attribute(FIELD, "aria-invalid") == "true"
    assert "books[0].reward.pounds: must be >= 0, got -1" in page.inner_text("#cat-status")
    assert "has-error" in (page.get_attribute('#cat-tabs [data-section="books"]', "class") or "")
    page.screenshot(path=str(artifacts() / "catalogue-error.png"))

    # fixed: no error, and the book is drawn with its new reward
    page.fill(FIELD, "6")
    _valid(page)
    assert page.locator(ERROR).count() == 0
    drawing = page.inner_html("#cat-item-books-0 .cat-fig svg")
    assert ">6<" in drawing

    # saved under a name
    page.fill("#cat-name", NAME)
    page.click("#cat-save")
    page.wait_for_selector("#cat-message.info", timeout=15_000)
    assert f"Saved as “{NAME}”" in page.inner_text("#cat-message")
    stored = httpx.get(f"{service}/v1/catalogues/{NAME}").json()
    assert stored["books"][0]["reward"]["pounds"] == 6

    # exported: the file has the edited value
    with page.expect_download() as dl:
        page.click("#cat-export")
    exported = json.loads(Path(dl.value.path()).read_text())
    assert exported["books"][0]["reward"] == {"pounds": 6}

    # imported with a fault: the screen goes to its field and shows the error there
    bad = copy.deepcopy(json.loads(Path(engine.default_catalogue().path).read_text()))
    bad["regions"][3]["mines"] = -2
    path = tmp_path / "broken copy.json"
    path.write_text(json.dumps(bad))
    page.set_input_files("#cat-import", str(path))
    page.wait_for_selector('.cat-error[data-error-for="regions[3].mines"]', timeout=15_000)
    assert page.get_attribute('#cat-tabs [data-section="map"]', "aria-selected") == "true"
    assert page.input_value("#cat-name") == "broken copy"
    assert "not saved" in page.inner_text("#cat-status")
    # a file that is not JSON: said so, the catalogue shown stays
    path.write_text('{"schema": ')
    page.set_input_files("#cat-import", str(path))
    page.wait_for_selector("#cat-message.error")
    assert "is not JSON" in page.inner_text("#cat-message")

    # a new game with the saved catalogue
    page.click("#cat-close")
    page.click("#btn-new")
    page.wait_for_selector(f"#ng-catalogue option[value='{NAME}']", state="attached")
    page.select_option("tr[data-seat='2'] .ng-bot", "random")
    page.select_option("#ng-catalogue", NAME)
    with page.expect_response(lambda r: "/v1/games/" in r.url
                              and r.url.endswith("/catalogue")) as loaded:
        page.click("#ng-start")
    assert loaded.value.ok and loaded.value.json()["name"] == NAME
    page.wait_for_function("location.hash.includes('game=')")
    gid = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('game')")
    cat = httpx.get(f"{service}/v1/games/{gid}/catalogue").json()
    assert cat["name"] == NAME
    assert cat["books"]["A01"]["reward"] == {"pounds": 6}
    page.wait_for_function("['turn', 'over'].includes(document.body.dataset.ui)",
                           timeout=30_000)
    assert console.errors == []
    page.close()
