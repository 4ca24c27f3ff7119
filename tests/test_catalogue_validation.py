"""The shipped catalogue validates, and the validator catches broken catalogues."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.catalogue_check import CatalogueError, validate

Raw = dict[str, Any]

_SHIPPED: Raw = json.loads((Path(engine.__file__).parent / "data" / "catalogue.json").read_text())


@pytest.fixture
def raw() -> Raw:
    return copy.deepcopy(_SHIPPED)


def _region(raw: Raw, rid: str) -> int:
    return next(i for i, r in enumerate(raw["regions"]) if r["id"] == rid)


def _enclaves(raw: Raw) -> dict[str, str]:
    return {r["id"]: r["enclave_of"] for r in raw["regions"] if r["enclave_of"]}


def _track(raw: Raw, tid: str) -> int:
    return next(i for i, t in enumerate(raw["tracks"]) if t["id"] == tid)


def _card(raw: Raw, name: str) -> int:
    return next(i for i, c in enumerate(raw["cards"]["action"]) if c["name"] == name)


# --------------------------------------------------------------------------- shipped file


def test_shipped_catalogue_validates(raw: Raw) -> None:
    validate(raw)


def test_shipped_catalogue_says_it_is_a_reconstruction(raw: Raw) -> None:
    assert raw["reconstruction"] is True
    assert "reconstruction" in raw["note"].lower()


def test_shipped_map_shape(raw: Raw) -> None:
    borders = raw["borders"]
    enclave_borders = [b for b in borders if {b[0], b[1]} & set(_enclaves(raw))]
    assert len(enclave_borders) == 2
    assert 40 <= len(borders) <= 50
    doubles = sum(1 for b in borders if b[2] == 2)
    assert len(borders) // 4 <= doubles <= len(borders) // 2
    for company, edges in raw["base_borders"].items():
        assert 3 <= len(edges) <= 4, company
    assert 20 <= sum(r["mines"] for r in raw["regions"]) <= 25
    assert all(re.fullmatch(r"[A-Z]{3}", r["id"]) for r in raw["regions"])


def test_shipped_map_every_reward_kind_near_every_base(raw: Raw) -> None:
    adjacency: dict[str, set[str]] = {r["id"]: set() for r in raw["regions"]}
    for a, b, _cost in raw["borders"]:
        adjacency[a].add(b)
        adjacency[b].add(a)
    rewards = {r["id"]: r["reward"] for r in raw["regions"]}
    for company, edges in raw["base_borders"].items():
        distance = {region: 1 for region, _cost in edges}
        queue = deque(distance)
        while queue:
            here = queue.popleft()
            for there in adjacency[here]:
                if there not in distance:
                    distance[there] = distance[here] + 1
                    queue.append(there)
        for kind in ("pounds", "diamonds", "track", "bookkeeping"):
            nearest = min(d for rid, d in distance.items() if rewards[rid][kind])
            assert nearest <= 3, (company, kind)


def test_shipped_tracks_and_cards_shape(raw: Raw) -> None:
    for track in raw["tracks"]:
        spaces = track["spaces"]
        assert 19 <= len(spaces) <= 23, track["id"]
        for space in spaces[1:4]:
            assert space["capital"] == 0 and space["special"] is None, track["id"]
        assert 2 <= sum(1 for s in spaces if s["capital"]) <= 3, track["id"]
        assert 2 <= sum(1 for s in spaces if s["special"]) <= 4, track["id"]
        assert track["end_pounds"] == 1
    letters = Counter(c["letter"] for c in raw["cards"]["action"])
    assert letters == {"A": 9, "B": 16, "C": 11, "D": 4, "E": 4}
    shares = Counter(c["company"] for c in raw["cards"]["action"] if c["kind"] == "share")
    assert shares == {"MOM": 2, "CAP": 2, "STL": 2, "CAI": 2}


def test_shipped_books_never_reward_bookkeeping(raw: Raw) -> None:
    assert all("bookkeeping" not in book["reward"] for book in raw["books"])
    kinds = Counter(kind for book in raw["books"] for kind, _amount in book["needs"])
    assert max(kinds.values()) - min(kinds.values()) <= 3


# --------------------------------------------------------------------------- broken files


def _drop_region(raw: Raw) -> None:
    del raw["regions"][_region(raw, "NAM")]


def _third_enclave(raw: Raw) -> None:
    raw["regions"][_region(raw, "NAM")]["enclave_of"] = "LIM"


def _enclave_outside(raw: Raw) -> None:
    enclave = next(iter(_enclaves(raw)))
    region = raw["regions"][_region(raw, enclave)]
    region["polygon"] = [[x + 300, y] for x, y in region["polygon"]]


def _enclave_borders_other(raw: Raw) -> None:
    enclave, surrounding = next(iter(_enclaves(raw).items()))
    other = next(
        b[1] if b[0] == surrounding else b[0]
        for b in raw["borders"]
        if surrounding in b[:2] and enclave not in b[:2]
    )
    raw["borders"].append([enclave, other, 1])


def _unknown_border_region(raw: Raw) -> None:
    raw["borders"][7][1] = "XYZ"


def _reverse_duplicate_border(raw: Raw) -> None:
    a, b, cost = raw["borders"][3]
    raw["borders"].append([b, a, cost])


def _self_border(raw: Raw) -> None:
    raw["borders"][2][1] = raw["borders"][2][0]


def _border_cost_three(raw: Raw) -> None:
    raw["borders"][5][2] = 3


def _disconnected_region(raw: Raw) -> None:
    raw["borders"] = [b for b in raw["borders"] if "NAM" not in b[:2]]


def _base_without_borders(raw: Raw) -> None:
    raw["base_borders"]["CAP"] = []


def _base_to_enclave(raw: Raw) -> None:
    raw["base_borders"]["MOM"].append([next(iter(_enclaves(raw))), 1])


def _decreasing_share(raw: Raw) -> None:
    spaces = raw["tracks"][_track(raw, "A1")]["spaces"]
    spaces[-1]["shares"] = 1


def _start_space_not_empty(raw: Raw) -> None:
    raw["tracks"][_track(raw, "C2")]["spaces"][0]["capital"] = 2


def _extra_marker_on_a1(raw: Raw) -> None:
    raw["tracks"][_track(raw, "A1")]["spaces"][5]["extra_marker"] = True


def _no_extra_marker(raw: Raw) -> None:
    for space in raw["tracks"][_track(raw, "B2")]["spaces"]:
        space["extra_marker"] = False


def _bad_special(raw: Raw) -> None:
    raw["tracks"][_track(raw, "A1")]["spaces"][4]["special"] = {"kind": "camels", "amount": 1}


def _track_card_twice(raw: Raw) -> None:
    raw["track_cards"][3] = ["D1", "A1"]


def _action_43(raw: Raw) -> None:
    raw["cards"]["action"].pop()


def _letter_count(raw: Raw) -> None:
    card = raw["cards"]["action"][_card(raw, "A9")]
    card["letter"], card["name"] = "B", "B17"


def _six_merchants(raw: Raw) -> None:
    raw["cards"]["action"][_card(raw, "B1")] = {
        "name": "B1",
        "letter": "B",
        "kind": "merchant",
        "company": None,
        "crate": 2,
        "share": None,
    }


def _two_plain_merchants(raw: Raw) -> None:
    merchant = next(c for c in raw["cards"]["action"] if c["kind"] == "merchant" and c["company"])
    merchant["company"] = None


def _share_card_in_c(raw: Raw) -> None:
    raw["cards"]["action"][_card(raw, "C1")] = {
        "name": "C1",
        "letter": "C",
        "kind": "share",
        "company": "MOM",
        "crate": 2,
        "share": "MOM",
    }


def _goods_value_five(raw: Raw) -> None:
    raw["cards"]["action"][_card(raw, "A1")]["value"] = 5


def _duplicate_starting_code(raw: Raw) -> None:
    raw["cards"]["starting"][1]["code"] = raw["cards"]["starting"][0]["code"]


def _seat_crate_order(raw: Raw) -> None:
    seats = raw["cards"]["seat_expansion"]
    seats[1]["crate"], seats[2]["crate"] = seats[2]["crate"], seats[1]["crate"]


def _books_71(raw: Raw) -> None:
    raw["books"].pop()


def _book_three_needs(raw: Raw) -> None:
    raw["books"][30]["needs"] = [["coffee", 1], ["bananas", 1], ["cotton", 1]]


def _book_unknown_reward(raw: Raw) -> None:
    raw["books"][0]["reward"] = {"camels": 1}


def _round_coins_short(raw: Raw) -> None:
    raw["round_coins"]["3"] = [2, 1, 2, 1, 2]


def _rear_coin(raw: Raw) -> None:
    raw["base"]["coins"][-1] = 1


def _negative_reward(raw: Raw) -> None:
    raw["regions"][3]["reward"]["pounds"] = -1


def _surrounding_with_reward(raw: Raw) -> None:
    surrounding = next(iter(_enclaves(raw).values()))
    raw["regions"][_region(raw, surrounding)]["reward"]["pounds"] = 1


def _zero_reward_region(raw: Raw) -> None:
    region = raw["regions"][_region(raw, "ATL")]
    region["reward"] = dict.fromkeys(region["reward"], 0)


def _duplicate_region_id(raw: Raw) -> None:
    raw["regions"][1]["id"] = raw["regions"][0]["id"]


def _wrong_schema(raw: Raw) -> None:
    raw["schema"] = "mombasa-catalogue/2"


def _company_order(raw: Raw) -> None:
    raw["companies"][0], raw["companies"][1] = raw["companies"][1], raw["companies"][0]


def _tile_unknown_card(raw: Raw) -> None:
    raw["starting_tiles"][2]["cards"][1] = "mer1"


def _tile_same_card_twice(raw: Raw) -> None:
    cards = raw["starting_tiles"][4]["cards"]
    cards[2] = cards[0]


def _first_game_tile_unknown(raw: Raw) -> None:
    raw["first_game_tiles"][3] = 11


def _missing_buy_space(raw: Raw) -> None:
    raw["bonus_spaces"] = [s for s in raw["bonus_spaces"] if s["kind"] != "buy_card"]


def _majority_lines_order(raw: Raw) -> None:
    space = next(s for s in raw["bonus_spaces"] if s["kind"] == "majority")
    space["lines"][1]["min"] = space["lines"][0]["min"]


def _bonus_tile_space_unknown(raw: Raw) -> None:
    space = next(s for s in raw["bonus_spaces"] if s["kind"] == "bonus_tile")
    space["tile"] = "camel"


def _diamond_values_decrease(raw: Raw) -> None:
    raw["diamond_track"]["values"][5] = 1


def _crossed_a_out_of_range(raw: Raw) -> None:
    raw["bookkeeping_track"]["crossed_a"].append(len(raw["bookkeeping_track"]["values"]))


def _too_many_start_markers(raw: Raw) -> None:
    raw["bonus_markers"]["start"]["2"] = 6


def _book_display_letters(raw: Raw) -> None:
    raw["book_display"]["letters"]["4"] = "A"


def _display_rows(raw: Raw) -> None:
    raw["display"]["modifiers"][2] = [0, -1, 0]


BREAKS: list[tuple[Callable[[Raw], None], str]] = [
    (_drop_region, r"^regions: expected 24 regions, got 23"),
    (_third_enclave, r"^regions: expected 2 enclaves, got 3"),
    (_enclave_outside, r"^regions\[\d+\]\.polygon\[\d+\]: enclave vertex lies outside"),
    (_enclave_borders_other, r"^borders\[\d+\]: enclave '\w+' may border only"),
    (_unknown_border_region, r"^borders\[7\]: unknown region 'XYZ'"),
    (
        _reverse_duplicate_border,
        r"^borders\[\d+\]: duplicate border \w+-\w+ \(already borders\[3\]",
    ),
    (_self_border, r"^borders\[2\]: region '\w+' cannot border itself"),
    (_border_cost_three, r"^borders\[5\]\[2\]: must be <= 2, got 3"),
    (_disconnected_region, r"^regions\[\d+\]: region 'NAM' is not connected"),
    (_base_without_borders, r"^base_borders\.CAP: a base must border at least one region"),
    (_base_to_enclave, r"^base_borders\.MOM\[\d+\]: a base cannot border the enclave"),
    (_decreasing_share, r"^tracks\[0\]\.spaces\[\d+\]\.shares: share icons must not decrease"),
    (_start_space_not_empty, r"^tracks\[5\]\.spaces\[0\]: the start space must be empty"),
    (_extra_marker_on_a1, r"^tracks\[0\]\.spaces\[5\]\.extra_marker: only track B2"),
    (_no_extra_marker, r"^tracks: expected exactly 1 extra_marker space on B2, got 0"),
    (_bad_special, r"^tracks\[0\]\.spaces\[4\]\.special\.kind: unknown special kind 'camels'"),
    (_track_card_twice, r"^track_cards\[3\]\[1\]: track 'A1' is on more than one"),
    (_action_43, r"^cards\.action: expected 44 cards, got 43"),
    (_letter_count, r"^cards\.action: expected 9 cards of letter A, got 8"),
    (_six_merchants, r"^cards\.action: expected 5 diamond merchants among A-C, got 6"),
    (_two_plain_merchants, r"^cards\.action: expected exactly 1 plain diamond merchant, got 2"),
    (_share_card_in_c, r"^cards\.action\[\d+\]\.kind: only D and E cards may be single-share"),
    (_goods_value_five, r"^cards\.action\[0\]\.value: must be <= 4, got 5"),
    (_duplicate_starting_code, r"^cards\.starting\[1\]: duplicate code"),
    (_seat_crate_order, r"^cards\.seat_expansion\[2\]\.crate: later seats need a higher crate"),
    (_books_71, r"^books: expected 72 books, got 71"),
    (_book_three_needs, r"^books\[30\]\.needs: expected 1 to 2 needs, got 3"),
    (_book_unknown_reward, r"^books\[0\]\.reward\.camels: unknown reward key"),
    (_round_coins_short, r"^round_coins\.3: expected 6 entries, got 5"),
    (_rear_coin, r"^base\.coins\[4\]: the rear space must show 2 coin icons, got 1"),
    (_negative_reward, r"^regions\[3\]\.reward\.pounds: must be >= 0, got -1"),
    (_surrounding_with_reward, r"^regions\[\d+\]\.reward: a region surrounding an enclave"),
    (_zero_reward_region, r"^regions\[0\]\.reward: only the 2 regions surrounding an enclave"),
    (_duplicate_region_id, r"^regions\[1\]\.id: duplicate region id"),
    (_wrong_schema, r"^schema: must be 'mombasa-catalogue/1'"),
    (_company_order, r"^companies\[0\]\.id: must be 'MOM', got 'CAP'"),
    (_tile_unknown_card, r"^starting_tiles\[2\]\.cards\[1\]: unknown starting card code 'mer1'"),
    (_tile_same_card_twice, r"^starting_tiles\[4\]\.cards\[2\]: duplicate card code"),
    (_first_game_tile_unknown, r"^first_game_tiles\[3\]: unknown starting tile 11"),
    (_missing_buy_space, r"^bonus_spaces: expected exactly 1 buy_card space, got 0"),
    (_majority_lines_order, r"^bonus_spaces\[\d+\]\.lines\[1\]\.min: line minimums must increase"),
    (_bonus_tile_space_unknown, r"^bonus_spaces\[\d+\]\.tile: unknown bonus tile 'camel'"),
    (_diamond_values_decrease, r"^diamond_track\.values\[5\]: values must not decrease"),
    (_crossed_a_out_of_range, r"^bookkeeping_track\.crossed_a\[\d+\]: must be <= 12, got 13"),
    (_too_many_start_markers, r"^bonus_markers\.start\.2: must be <= 5, got 6"),
    (_book_display_letters, r"^book_display\.letters: expected 4 spaces of letter A, got 6"),
    (_display_rows, r"^display\.modifiers\[2\]: expected 4 rows, got 3"),
]


@pytest.mark.parametrize(
    ("breaker", "match"), BREAKS, ids=[breaker.__name__.lstrip("_") for breaker, _ in BREAKS]
)
def test_broken_catalogue_is_rejected(raw: Raw, breaker: Callable[[Raw], None], match: str) -> None:
    breaker(raw)
    with pytest.raises(CatalogueError, match=match):
        validate(raw)


def test_error_is_a_value_error(raw: Raw) -> None:
    raw["regions"] = "nothing"
    with pytest.raises(ValueError, match=r"^regions: expected a list, got str"):
        validate(raw)


def test_missing_section_is_named(raw: Raw) -> None:
    del raw["bonus_tiles"]
    with pytest.raises(CatalogueError, match=r"^bonus_tiles: missing"):
        validate(raw)


def test_not_an_object() -> None:
    with pytest.raises(CatalogueError, match=r"^\$: expected an object"):
        validate([])  # type: ignore[arg-type]


def test_breaking_does_not_touch_the_shipped_copy(raw: Raw) -> None:
    _drop_region(raw)
    assert len(_SHIPPED["regions"]) == 24


OPTIONAL_FIELDS: list[tuple[Callable[[Raw], None], str]] = [
    (lambda r: r["cards"]["action"][_card(r, "B11")].update(value="x"),
     r"^cards\.action\[\d+\]\.value: expected an integer"),
    (lambda r: r["cards"]["action"][_card(r, "B11")].update(value=-1),
     r"^cards\.action\[\d+\]\.value: must be >= 0, got -1"),
    (lambda r: next(c for c in r["cards"]["action"] if c["kind"] == "goods")
     .update(company="XYZ"), r"^cards\.action\[\d+\]\.company: .*XYZ"),
    (lambda r: r["bonus_tiles"][2].update(value="two"),
     r"^bonus_tiles\[2\]\.value: expected an integer"),
    (lambda r: r["bonus_spaces"][0].update(cost="free"),
     r"^bonus_spaces\[0\]\.cost: expected an integer"),
    (lambda r: r["bonus_spaces"][0].update(bonus_pounds=-3),
     r"^bonus_spaces\[0\]\.bonus_pounds: must be >= 0, got -3"),
    (lambda r: r["bonus_spaces"][2].update(reward={"pounds": "lots"}),
     r"^bonus_spaces\[2\]\.reward\.pounds: expected an integer"),
    (lambda r: r["bonus_spaces"][0].update(lines=[{"min": 1, "company": "NOPE", "steps": 1}]),
     r"^bonus_spaces\[0\]\.lines\[0\]\.company: .*NOPE"),
]


@pytest.mark.parametrize(("breaker", "match"), OPTIONAL_FIELDS,
                         ids=[f"optional-{i}" for i in range(len(OPTIONAL_FIELDS))])
def test_optional_fields_are_checked_when_present(
        raw: Raw, breaker: Callable[[Raw], None], match: str) -> None:
    """Fields a component's kind does not need may be left out, but a value given is
    checked like any other: a clear error with its path, never a bare ValueError."""
    breaker(raw)
    with pytest.raises(CatalogueError, match=match):
        validate(raw)
    with pytest.raises(CatalogueError, match=match):
        engine.catalogue.parse_catalogue(raw)
