"""Bonus markers, bonus spaces and bonus tiles (actions.txt, "Place a bonus marker",
"Bonus spaces on the board", "Majority bonus spaces", "Bonus tiles"; rounds-and-planning
.txt, "Bonus markers come back"; rules-decisions.md, "Remove-a-card bonus space",
"Buy-a-card bonus space", "First-player space", the four majority rows, "Bonus tiles").

Seed 0, two players: P1 (seat 0) is first player, 1 pound; P2 (seat 1) 1 pound.
"""

from __future__ import annotations

import pytest

import engine
from engine.state import measures
from tests.builders import (
    at_action,
    cards,
    company,
    do,
    dspace,
    end_turns,
    names,
    plan,
    set_base,
    start,
    step,
    texts,
    with_area,
    with_player,
    with_state,
)


def test_first_player_space_not_for_the_current_first_player() -> None:
    """rules-decisions.md, First-player space: "allowed only to a player who is not the
    current first player". actions.txt: "Not if you are first player"."""
    s = start()
    assert s.first == 0
    assert "first" not in texts(s)
    s2 = at_action(s, 1)
    assert "first" in texts(s2)


def test_first_player_space_gives_1_point_and_the_lead_next_round() -> None:
    """rules-decisions.md, First-player space: "reward: first player from the next round
    on, and 1 bookkeeping point; the only way the first player changes". P2 takes it:
    1 point to spend now; P1 still leads this round; P2 plans and acts first next round."""
    s = do(at_action(start(), 1), "first")
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 1)
    assert s.pool == 1
    s = do(s, "pounds")
    assert s.players[1].cash == 2
    assert s.first == 0
    assert s.decision == engine.Decision("action", 0)
    s = end_turns(s)
    assert s.round == 2
    assert s.first == 1
    assert (s.decision.kind, s.decision.player) == ("plan", 1)
    s = plan(s, {})
    assert s.decision == engine.Decision("action", 1)


def test_first_player_does_not_change_otherwise() -> None:
    """rules-decisions.md, First-player space: "the only way the first player changes".
    A round with nobody on that space keeps the same first player."""
    s = end_turns(start())
    assert s.round == 2
    assert s.first == 0
    assert (s.decision.kind, s.decision.player) == ("plan", 0)


def test_buy_a_card_costs_1_pound_plus_full_price() -> None:
    """rules-decisions.md, Buy-a-card bonus space: "pay 1 pound to place, then pay the
    card's full price (crate value + display modifier, floor 0) in pounds". M1 holds A4
    (crate 2 + modifier 1 = 3): 4 pounds in all."""
    s = with_player(start(), 0, cash=5)
    card = s.display[dspace(s, "M1")]
    s = do(s, "buy-card M1")
    p = s.players[0]
    assert p.cash == 1
    assert (p.hand >> card) & 1
    assert s.display[dspace(s, "M1")] == -1
    assert s.bonus[s.cat.bonus_spaces[1].index] == 0
    assert p.markers == s.players[0].markers_total - 1


def test_buy_a_card_needs_the_pounds() -> None:
    """rules-decisions.md, Buy-a-card bonus space: with 3 pounds a card priced 3 cannot
    be bought (3 + 1 > 3); R4 (A1: 1 - 1 = 0) can, for 1 pound."""
    s = with_player(start(), 0, cash=3)
    assert "buy-card M1" not in texts(s)
    assert "buy-card R4" in texts(s)
    s = do(s, "buy-card R4")
    assert s.players[0].cash == 2


def test_remove_a_card_pays_crate_plus_2_and_card_leaves_the_game() -> None:
    """rules-decisions.md, Remove-a-card bonus space: "pounds = the card's red crate
    value + 2; the card leaves the game". kpr2 has crate 2: 4 pounds."""
    s = start()
    kpr = s.cat.card_index("kpr2/1")
    assert s.cat.cards[kpr].crate == 2
    s = do(s, "remove-card kpr2/1")
    p = s.players[0]
    assert p.cash == 1 + 4
    assert not (p.hand >> kpr) & 1
    assert (s.gone >> kpr) & 1
    assert not (s.discard >> kpr) & 1


def test_bonus_space_stays_blocked_until_the_end_of_the_round() -> None:
    """actions.txt, Place a bonus marker: "The space stays blocked until the end of the
    round." rounds-and-planning.txt, Bonus markers come back: "Everyone takes back their
    bonus markers"."""
    s = do(start(), "remove-card one/1")
    s2 = at_action(s, 1)
    assert not any(t.startswith("remove-card") for t in texts(s2))
    s = end_turns(s)
    assert s.bonus == (-1,) * len(s.bonus)
    assert s.players[0].markers == s.players[0].markers_total
    s = plan(s, {})
    assert any(t.startswith("remove-card") for t in texts(s))


def test_no_bonus_space_without_a_bonus_marker() -> None:
    """actions.txt, Place a bonus marker: "Put one of your bonus markers on an empty bonus
    space". With no marker left no bonus-space step is offered."""
    s = with_player(start(), 0, markers=0, cash=10)
    kinds = {st.kind for st in s.legal_steps()}
    assert not kinds & {"first", "buy-card", "remove-card", "majority", "reserve"}


# --------------------------------------------------------------------------- majorities


def _coffee(p0: tuple[str, ...], p1: tuple[str, ...]) -> engine.State:
    s = with_area(start(), 0, *p0)
    return at_action(with_area(s, 1, *p1), 0)


def _lines(s: engine.State, space: str) -> set[int]:
    return {int(t.split()[2]) for t in texts(s) if t.startswith(f"majority {space} ")}


def test_majority_tie_is_enough() -> None:
    """actions.txt, Majority bonus spaces: "You may take a MAX space only if no other
    player has more of that type face up in their action area right now (a tie is
    enough)". Coffee 2 against coffee 2: both may take it."""
    s = _coffee(("cof2/1",), ("cof2/2",))
    assert _lines(s, "coffee") == {1}
    assert _lines(at_action(s, 1), "coffee") == {1}


def test_majority_refused_when_another_player_has_more() -> None:
    """actions.txt, Majority bonus spaces: refused when another player has more face
    up. Coffee 2 against coffee 3 (cof1 + cof2)."""
    s = _coffee(("cof2/1",), ("cof2/2", "cof1/2"))
    assert _lines(s, "coffee") == set()
    assert _lines(at_action(s, 1), "coffee") == {1, 3}


def test_majority_counts_only_face_up_cards_and_does_not_use_them() -> None:
    """actions.txt, Majority bonus spaces: "face up ... right now ... The cards are not
    used up." P2's face-down coffee does not count against P1; P1's card stays up."""
    s = _coffee(("cof2/1",), ("cof2/2", "cof1/2"))
    s = with_area(s, 1, "cof2/2", "cof1/2", used=cards(s, "cof2/2"))
    assert _lines(s, "coffee") == {1}
    s = do(s, "majority coffee 1")
    assert s.players[0].used == 0


def test_lower_majority_line_may_be_chosen() -> None:
    """actions.txt, Majority bonus spaces: "You may always take a lower line than you
    qualify for." Coffee 5: lines 1+, 3+ and 5+ are all offered; 1+ moves Cairo 2."""
    s = _coffee(("A4", "cof2/1"), ())
    assert _lines(s, "coffee") == {1, 3, 5}
    cai = company(s, "CAI")
    before = s.players[0].track[cai]
    s = do(s, "majority coffee 1")
    assert s.players[0].track[cai] == before + 2
    assert s.decision == engine.Decision("action", 1)


@pytest.mark.parametrize(
    ("area", "space", "line", "company_id", "steps", "pool", "pounds", "remove"),
    [
        (("cof1/1",), "coffee", 1, "CAI", 2, 0, 0, 0),
        (("A4",), "coffee", 3, "CAI", 3, 0, 0, 0),
        (("A4", "cof2/1"), "coffee", 5, "CAI", 4, 0, 0, 1),
        (("cot2/1",), "cotton", 2, "STL", 2, 0, 0, 0),
        (("cot2/1", "A3"), "cotton", 4, "STL", 3, 0, 0, 1),
        (("C3", "cot2/1"), "cotton", 6, "STL", 4, 0, 1, 1),
        (("ban2/1",), "bananas", 2, "CAP", 2, 0, 0, 0),
        (("B6",), "bananas", 4, "CAP", 3, 1, 0, 0),
        (("B6", "ban2/1"), "bananas", 6, "CAP", 4, 1, 0, 1),
        (("exp2/1",), "expansion", 2, "MOM", 2, 1, 0, 0),
        (("C4", "exp1/1"), "expansion", 4, "MOM", 3, 1, 0, 0),  # C4 shows 3
        (("C4", "exp2/1", "exp1/1"), "expansion", 6, "MOM", 4, 1, 0, 0),
    ],
)
def test_majority_rewards(area: tuple[str, ...], space: str, line: int, company_id: str,
                          steps: int, pool: int, pounds: int, remove: int) -> None:
    """rules-decisions.md, Coffee / Cotton / Bananas / Expansion majority rows:
    coffee 1+/3+/5+ Cairo 2/3/4, at 5+ remove a post; cotton 2+/4+/6+ Saint-Louis
    2/3/4, at 4+ remove a post, at 6+ also 1 pound; bananas 2+/4+/6+ Cape Town 2/3/4,
    at 4+ also 1 bookkeeping point, at 6+ also remove a post; expansion 2+/4+/6+
    Mombasa 2/3/4, each line 1 bookkeeping point. (Special spaces the marker reaches on
    its track pay on top, as on any track move.)"""
    s = with_area(start(), 0, *area, cash=0, track=(0, 0, 0, 0), diamond=0)
    s = at_action(with_area(s, 1), 0)
    c = company(s, company_id)
    passed = s.cat.tracks[s.tracks[c]].spaces[1:steps + 1]
    s = do(s, f"majority {space} {line}")
    p = s.players[0]
    assert p.track[c] == steps
    assert p.cash == pounds + sum(sp.special.pounds for sp in passed)
    assert s.pool == pool + sum(sp.special.bookkeeping for sp in passed)
    assert p.diamond == sum(sp.special.diamonds for sp in passed)
    pool += sum(sp.special.bookkeeping for sp in passed)
    if remove:
        assert (s.decision.kind, s.decision.player) == ("remove-post", 0)
        s = do(s, "remove-post CAP 1")
    if pool:
        assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)
    else:
        assert s.decision == engine.Decision("action", 1)


def test_remove_a_trading_post_takes_the_foremost_post_out_of_the_game() -> None:
    """rules-decisions.md, "Remove a trading post": "the foremost post of a column of any
    company's base leaves the game (raises that company's share value)". Cape Town
    column 1 with 4 posts: removing its foremost post uncovers 1 coin icon."""
    s = with_area(start(), 0, "A4", "cof2/1")
    s = set_base(at_action(with_area(s, 1), 0), "CAP", (4, 5, 5))
    cap = company(s, "CAP")
    s = do(s, "majority coffee 5")
    assert (s.decision.kind, s.decision.player) == ("remove-post", 0)
    s = do(s, "remove-post CAP 1")
    assert s.bases[cap] == (3, 5, 5)
    assert s.values[cap] == 1
    assert s.removed_posts[cap] == 1


# --------------------------------------------------------------------------- bonus tiles


@pytest.mark.parametrize(("tile", "cost"), [("tile-plus1", 1), ("tile-keeper", 2),
                                            ("tile-merchant", 2), ("tile-expand", 2)])
def test_bonus_tile_is_reserved_now_and_received_in_preparation(tile: str, cost: int) -> None:
    """actions.txt, Bonus tiles: "The four bonus tile spaces cost 1 or 2 pounds and give
    nothing now: they reserve a tile that you receive in the next Preparation phase and
    use in the next round." rounds-and-planning.txt, Bonus markers come back."""
    s = with_player(start(), 0, cash=cost)
    s = do(s, f"reserve {tile}")
    tile_card = s.cat.card_index("T-" + tile.removeprefix("tile-"))
    p = s.players[0]
    assert p.cash == 0
    assert not (p.tiles >> tile_card) & 1
    assert (p.reserved >> tile_card) & 1
    s = end_turns(s)
    assert s.round == 2
    p = s.players[0]
    assert (p.tiles >> tile_card) & 1
    assert p.reserved == 0


def test_bonus_tile_needs_its_cost() -> None:
    """actions.txt, Bonus tiles: the tile spaces cost 1 or 2 pounds. With 1 pound only the
    +1 tile (1 pound) can be reserved."""
    s = with_player(start(), 0, cash=1)
    reserves = {t for t in texts(s) if t.startswith("reserve")}
    assert reserves == {"reserve tile-plus1"}


def test_card_tiles_count_as_cards_and_take_no_slot() -> None:
    """actions.txt, Bonus tiles: "Card tiles count as cards of their type in every way
    but take no action slot." The expansion tile (value 2) with no expansion card in the
    area: an expansion action and the 2+ expansion majority are offered; the bookkeeper
    tile can be used like a bookkeeper."""
    s = with_area(start(), 0, cash=0, tiles=cards(start(), "T-expand", "T-keeper"))
    s = at_action(with_area(s, 1), 0)
    assert all(c == -1 for c in s.players[0].slots)
    assert measures(s, s.players[0])[3] == 2
    assert {"expand MOM", "keeper T-keeper", "majority expansion 2"} <= texts(s)
    s2 = do(s, "expand MOM", "enter LIM 1")  # double line: 2 points
    assert s2.owners[s2.cat.region_index("LIM")] == company(s2, "MOM")


def test_bonus_tiles_go_back_when_their_owner_ends() -> None:
    """actions.txt, Bonus tiles: "The tile goes back beside the board when that round ends
    for you." rounds-and-planning.txt, End of your action phase, 2: "Return any bonus
    tiles beside the board." Unused tiles are lost too."""
    tiles = cards(start(), "T-keeper", "T-plus1")
    s = with_player(start(), 0, tiles=tiles)
    s = with_state(s, tile_supply=s.tile_supply & ~tiles)
    s = do(s, "end 2")
    assert s.players[0].tiles == 0
    assert s.tile_supply & tiles == tiles


def test_plus_one_tile_counts_for_majorities() -> None:
    """rules-decisions.md, +1 goods tile: "that card counts 1 unit more until both are
    turned down"; actions.txt: "that card is worth 1 unit more". Coffee 2 + 1 ties P2's
    coffee 3 for the coffee majority and qualifies for the 3+ line."""
    s = _coffee(("cof2/1",), ("cof2/2", "cof1/2"))
    s = with_player(s, 0, tiles=cards(s, "T-plus1"))
    assert _lines(s, "coffee") == set()
    s = do(s, "plus1 cof2/1")
    assert _lines(s, "coffee") == {1, 3}


def test_plus_one_tile_needs_a_face_up_goods_card() -> None:
    """actions.txt, "+1" goods tile: "lay it on a face-up goods card ... It cannot ...
    be used alone." No goods card face up: no plus1 step."""
    s = with_area(start(), 0, "kpr2/1", tiles=cards(start(), "T-plus1"))
    assert not any(t.startswith("plus1") for t in texts(s))
    with pytest.raises(engine.IllegalStep):
        s.apply(step(s, "plus1 kpr2/1"))
    assert names(s, s.players[0].tiles) == ["T-plus1"]


def test_majority_track_move_stops_before_an_unpaid_capital_call() -> None:
    """rules-decisions.md, Company track movement: "a player who cannot pay stops before
    it". Cairo track D1, space 6 is a 2-pound capital call: the coffee majority's 2 steps
    from space 5 with no money leave the marker on 5."""
    s = with_area(start(), 0, "cof2/1", cash=0, track=(0, 0, 0, 5))
    s = at_action(with_area(s, 1), 0)
    cai = company(s, "CAI")
    assert s.cat.tracks[s.tracks[cai]].spaces[6].capital == 2
    s = do(s, "majority coffee 1")
    assert s.players[0].track[cai] == 5
    assert s.players[0].cash == 0
    assert s.decision == engine.Decision("action", 1)


def test_track_bonus_space_open_once_the_marker_reached_it() -> None:
    """docs/catalogue.md / components.md, company tracks: "a player whose marker has
    reached one may place a bonus marker there like on a board bonus space" (actions.txt,
    Place a bonus marker: "an extra bonus space you have unlocked on a company track").
    Cape Town track B1, space 13 gives 1 bookkeeping point."""
    s = with_player(start(), 0, track=(0, 12, 0, 0))
    assert "track-bonus B1@13" not in texts(s)
    s = with_player(s, 0, track=(0, 13, 0, 0))
    assert "track-bonus B1@13" in texts(s)
    s = do(s, "track-bonus B1@13")
    assert s.pool == 1
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)
