"""Goods cards and company tracks (actions.txt, "Use goods cards"; rulebook.txt,
"1. Use 1 or more goods cards of one type" and "Company Shares And Their Value";
rules-decisions.md, "Goods action" and "Company track movement").

Position used throughout: seed 0, two players, round 1, player 0 (P1) to act. Its
display (price = crate + modifier): L1 A8 4, L2 B15 4, L3 B6 6, L4 B7 5, M1 A4 3,
M2 A2 1, M3 A7 3, M4 A3 1, R1 A6 2, R2 A5 1, R3 A9 2, R4 A1 0.
"""

from __future__ import annotations

import pytest

import engine
from tests.builders import (
    cards,
    company,
    do,
    dspace,
    names,
    set_display,
    start,
    step,
    texts,
    with_area,
    with_player,
)


def _goods_state(*area_cards: str, **fields: object) -> engine.State:
    return with_area(start(), 0, *area_cards, **fields)


def test_goods_steps_use_at_least_one_card_of_one_type() -> None:
    """actions.txt, Use goods cards: "Choose any number of face-up goods cards of one
    type"; rulebook.txt: "You must choose at least one card". Every goods step names a
    non-empty set of cards of a single goods type; mixed sets are not offered."""
    s = _goods_state("cof1/1", "cof2/1", "ban2/1", "kpr2/1")
    goods = sorted(t for t in texts(s) if t.startswith("goods"))
    assert goods == ["goods ban2/1", "goods cof1/1", "goods cof1/1+cof2/1", "goods cof2/1"]
    with pytest.raises(engine.IllegalStep):
        s.apply(step(s, "goods cof2/1+ban2/1"))


def test_goods_units_add_up_and_cards_turn_face_down() -> None:
    """actions.txt, Use goods cards: "their units add up to your total unit value ...
    Then turn the cards you used face down." Coffee 1 + coffee 2 = 3 units."""
    s = _goods_state("cof1/1", "cof2/1", "ban2/1")
    s = do(s, "goods cof1/1+cof2/1", "nobuy")
    assert (s.decision.kind, s.decision.player) == ("goods-track", 0)
    s = do(s, "unit MOM", "unit MOM", "unit MOM")
    p = s.players[0]
    assert p.track[company(s, "MOM")] == 3
    assert p.used == cards(s, "cof1/1", "cof2/1")
    assert s.decision == engine.Decision("action", 1)


def test_card_price_is_crate_plus_display_modifier() -> None:
    """actions.txt, Acquire a card: "A card's price is its own red crate value plus the
    red value printed on the board beside its space ... Your total unit value must at
    least match the price." With 2 units only the spaces priced 0..2 are offered."""
    s = _goods_state("cof2/1")
    s = do(s, "goods cof2/1")
    assert (s.decision.kind, s.decision.player) == ("goods-buy", 0)
    cat = s.cat
    expected = {"nobuy"}
    for sp, c in enumerate(s.display):
        price = cat.cards[c].crate + cat.display_modifiers[sp]
        if price <= 2:
            expected.add(f"buy {cat.display_space_name(sp)}")
    assert texts(s) == expected
    assert expected == {"nobuy", "buy M2", "buy M4", "buy R1", "buy R2", "buy R3", "buy R4"}


def test_card_bought_goes_to_hand_and_leaves_display_unfilled() -> None:
    """actions.txt, Acquire a card: "Take the card into your hand ... The display is not
    refilled until the Preparation phase." Price 2 with 2 units: nothing left over."""
    s = _goods_state("cof2/1")
    s = do(s, "goods cof2/1", "buy R1")  # A6: crate 2 + modifier 0
    assert (s.players[0].hand >> s.cat.card_index("A6")) & 1
    assert s.display[dspace(s, "R1")] == -1
    assert s.decision == engine.Decision("action", 1)  # no units left: the turn is over


def test_price_zero_card_still_needs_a_goods_card() -> None:
    """actions.txt, Acquire a card: "You must always use at least one goods card, even
    for a card whose price is 0." A1 on R4 costs 1 - 1 = 0: it is bought only through a
    goods action, with the card's whole unit value left for the tracks."""
    s = _goods_state("cof1/1")
    assert not any(t.startswith("buy ") for t in texts(s))
    s = do(s, "goods cof1/1", "buy R4")
    assert names(s, s.players[0].hand & cards(s, "A1")) == ["A1"]
    assert (s.decision.kind, s.decision.player) == ("goods-track", 0)
    s = do(s, "unit STL")
    assert s.players[0].track[company(s, "STL")] == 1
    assert s.decision == engine.Decision("action", 1)


def test_price_never_drops_below_zero() -> None:
    """actions.txt, Acquire a card: "A price never drops below 0." A crate-0 card on a
    -1 space costs 0, not -1: buying it with 1 unit leaves exactly 1 unit. (The shipped
    action cards all have crates >= 1, so the absent seat 3's crate-0 coffee card stands
    in for such a card.)"""
    s = set_display(_goods_state("cof1/1"), {"R2": "cof1/3"}, clear=True)
    s = do(s, "goods cof1/1", "buy R2")
    assert (s.decision.kind, s.decision.player) == ("goods-track", 0)
    s = do(s, "unit MOM")
    assert s.decision == engine.Decision("action", 1)  # 1 unit, not 2
    assert s.players[0].track[company(s, "MOM")] == 1


def test_at_most_one_card_is_bought() -> None:
    """actions.txt, Use goods cards: "acquire at most 1 card from the card display".
    After a purchase the leftover units only move track markers."""
    s = _goods_state("cof1/1", "cof2/1")
    s = do(s, "goods cof1/1+cof2/1", "buy R4")  # price 0, 3 units left
    assert (s.decision.kind, s.decision.player) == ("goods-track", 0)
    assert all(t.startswith("unit ") for t in texts(s))


def test_leftover_units_split_over_tracks_one_at_a_time() -> None:
    """actions.txt, Advance on company tracks: "Each unit moves one of your track
    markers 1 space forward. Split the units over the tracks as you like."
    4 units: 1 bought M2 (A2: 1 + 0), 3 left: 1 to MOM, 2 to CAP."""
    s = _goods_state("cof2/1", "cof1/1", "A4")  # A4 is coffee 3
    s = do(s, "goods A4+cof1/1", "buy M2")
    before = s.players[0].track
    s = do(s, "unit MOM")
    assert (s.decision.kind, s.decision.player) == ("goods-track", 0)
    s = do(s, "unit CAP")
    assert (s.decision.kind, s.decision.player) == ("goods-track", 0)
    s = do(s, "unit CAP")
    after = s.players[0].track
    assert after[company(s, "MOM")] - before[company(s, "MOM")] == 1
    assert after[company(s, "CAP")] - before[company(s, "CAP")] == 2
    assert s.decision == engine.Decision("action", 1)


def test_capital_call_blocks_when_unaffordable() -> None:
    """rules-decisions.md, Company track movement: "crossing or entering a capital call
    costs its pounds, and a player who cannot pay stops before it". Mombasa track A1,
    space 7 is a 2-pound capital call; with 1 pound the marker on 6 cannot step on."""
    cat = start().cat
    track = cat.tracks[start().tracks[company(start(), "MOM")]]
    assert track.spaces[7].capital == 2
    s = _goods_state("cof1/1", cash=1, track=(6, 0, 0, 2))
    s = do(s, "goods cof1/1", "nobuy")
    assert "unit MOM" not in texts(s)
    assert "unit CAP" in texts(s)


def test_capital_call_costs_its_pounds_when_paid() -> None:
    """actions.txt, Advance on company tracks: "Crossing a capital call costs money".
    With 2 pounds the marker enters A1's space 7 and pays 2 pounds."""
    s = _goods_state("cof1/1", cash=2, track=(6, 0, 0, 2))
    s = do(s, "goods cof1/1", "nobuy", "unit MOM")
    p = s.players[0]
    assert p.track[company(s, "MOM")] == 7
    assert p.cash == 0


def test_units_are_lost_when_every_track_is_blocked() -> None:
    """rules-decisions.md, Company track movement: a player who cannot pay a capital call
    stops before it. With every marker just before an unpaid capital call and nothing
    affordable to buy, the goods action ends with its units unused."""
    s = _goods_state("cof1/1", cash=0, track=(6, 5, 6, 5))
    s = set_display(s, {}, clear=True)
    for c in range(4):
        track = s.cat.tracks[s.tracks[c]]
        assert track.spaces[s.players[0].track[c] + 1].capital > 0
    s = do(s, "goods cof1/1")
    assert s.decision == engine.Decision("action", 1)
    assert s.players[0].track == (6, 5, 6, 5)


@pytest.mark.parametrize(("pos", "shares"), [(1, 0), (2, 1), (4, 1), (5, 2), (7, 2), (8, 3)])
def test_share_icons_count_when_reached_or_passed(pos: int, shares: int) -> None:
    """rulebook.txt, Company Shares And Their Value: "Whenever you reach or pass a space
    with a share icon, you own as many shares of that company as the icon shows."
    Mombasa track A1 has share icons 1, 2, 3 on spaces 2, 5, 8."""
    s = with_player(start(), 0, track=(pos, 0, 0, 0), hand=0, resting=((),) * 5)
    assert engine.score(s)[0].shares[company(s, "MOM")] == shares


def test_track_special_space_pays_on_reaching_it() -> None:
    """actions.txt, Advance on company tracks: "reaching a share icon or special space
    pays off". Mombasa track A1, space 4 pays 2 pounds."""
    s = _goods_state("cof1/1", cash=1, track=(3, 0, 0, 2))
    assert s.cat.tracks[s.tracks[0]].spaces[4].special.pounds == 2
    s = do(s, "goods cof1/1", "nobuy", "unit MOM")
    assert s.players[0].cash == 3


def test_plus_one_tile_adds_one_unit_to_its_goods_card() -> None:
    """actions.txt, Bonus tiles, "+1" goods tile: "lay it on a face-up goods card: that
    card is worth 1 unit more, until both are turned face down. It cannot move or be
    used alone." Laying it is part of a turn, not the turn's action."""
    s = _goods_state("cof1/1", "cof2/1", tiles=cards(start(), "T-plus1"))
    assert {"plus1 cof1/1", "plus1 cof2/1"} <= texts(s)
    s = do(s, "plus1 cof1/1")
    assert s.decision == engine.Decision("action", 0)  # still P1's turn
    assert not any(t.startswith("plus1") for t in texts(s))  # it cannot move
    s = do(s, "goods cof1/1", "nobuy", "unit MOM", "unit MOM")  # 1 + 1 units
    assert s.players[0].track[0] == 2
    assert s.decision == engine.Decision("action", 1)
    p = s.players[0]
    assert p.used & cards(s, "cof1/1", "T-plus1") == cards(s, "cof1/1", "T-plus1")
