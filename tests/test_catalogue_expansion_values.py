"""Rulebook: an expansion card shows "a number of expansion points (1, 2 or 3)".

The shipped catalogue keeps to it, and the validator refuses a catalogue that does not,
naming the card and the field.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.catalogue import load_catalogue, parse_catalogue
from engine.catalogue_check import CatalogueError, validate

_SHIPPED: dict[str, Any] = json.loads(
    (Path(engine.__file__).parent / "data" / "catalogue.json").read_text())


@pytest.fixture
def raw() -> dict[str, Any]:
    return copy.deepcopy(_SHIPPED)


def _index(raw: dict[str, Any], name: str) -> int:
    return next(i for i, c in enumerate(raw["cards"]["action"]) if c["name"] == name)


def test_every_shipped_expansion_card_shows_1_2_or_3_points() -> None:
    """Rulebook: "a number of expansion points (1, 2 or 3)" on every expansion card."""
    cards = [*_SHIPPED["cards"]["starting"], *_SHIPPED["cards"]["seat_expansion"],
             *_SHIPPED["cards"]["action"]]
    values = {c.get("name", c.get("code", c.get("seat"))): c["value"]
              for c in cards if c["kind"] == "expansion"}
    assert values and set(values.values()) <= {1, 2, 3}
    assert (values["C4"], values["C5"]) == (3, 3)


def test_the_built_catalogue_has_c4_and_c5_at_3_points() -> None:
    cat = engine.default_catalogue()
    for name in ("C4", "C5"):
        card = cat.cards[cat.card_index(name)]
        assert (card.kind, card.value) == ("expansion", 3)


@pytest.mark.parametrize("value", [4, 0, 5])
def test_rulebook_expansion_card_shows_1_2_or_3_points_a_4_is_refused(
        raw: dict[str, Any], value: int) -> None:
    """Rulebook: an expansion card shows "a number of expansion points (1, 2 or 3)"; a
    catalogue copy whose C4 shows another number is refused, naming card and field."""
    i = _index(raw, "C4")
    raw["cards"]["action"][i]["value"] = value
    message = (f"cards.action[{i}].value: an expansion card shows 1, 2 or 3 points, "
               f"got {value} (card C4)")
    with pytest.raises(CatalogueError) as err:
        validate(raw)
    assert str(err.value) == message
    with pytest.raises(CatalogueError) as err:
        parse_catalogue(raw)
    assert str(err.value) == message


def test_a_catalogue_file_with_a_4_point_expansion_card_does_not_load(
        raw: dict[str, Any], tmp_path: Path) -> None:
    raw["cards"]["action"][_index(raw, "C5")]["value"] = 4
    path = tmp_path / "catalogue.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(CatalogueError, match=r"an expansion card shows 1, 2 or 3 points, "
                                             r"got 4 \(card C5\)"):
        load_catalogue(path)


def test_starting_and_seat_expansion_cards_are_held_to_it_too(raw: dict[str, Any]) -> None:
    starting = raw["cards"]["starting"]
    i = next(k for k, c in enumerate(starting) if c["kind"] == "expansion")
    starting[i]["value"] = 4
    with pytest.raises(CatalogueError, match=rf"^cards\.starting\[{i}\]\.value: an expansion "
                                             rf"card shows 1, 2 or 3 points, got 4 \(card "):
        validate(raw)


def test_goods_cards_may_still_show_4(raw: dict[str, Any]) -> None:
    """The rule is about expansion cards: C1-C3 are goods cards worth 4."""
    assert {c["value"] for c in raw["cards"]["action"]
            if c["kind"] == "goods" and c["letter"] == "C"} == {4}
    validate(raw)
