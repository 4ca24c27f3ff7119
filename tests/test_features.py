"""The learned evaluator's inputs (``search.features``), each feature checked on a
position built by hand where its exact value follows from the rules and the feature's
definition (the comments of ``FEATURES``), so that a one-line change in how one of them
is computed (a wrong card counted, an off-by-one on a track, a used card still counted
face up) fails here (issue 51). The feature order is checked against the shipped model
file, whose weights are read by position.

The position (two players, round 1, action phase, P1 to act), P1's board:

* cash 17; diamond track space 6 (value 8, 4th slot open); ink jar on space 2 (value 6);
* action area: A1 (2 coffee, turned face down: used), B1 (3 coffee), A9 (bookkeeper, 2
  points), B11 (merchant); hand: cof2/1 (2 coffee), C2 (4 bananas, a Mombasa share icon
  on a goods card), D1 and E4 (Mombasa share cards), E2 (Saint-Louis share card), C8
  (merchant); resting decks: cof1/1 + C9 (merchant), ban1/1, exp2/1 (2 helmets);
* company tracks (A1, B1, C1, D1 = tracks 0, 2, 4, 6): marker on 3, 4, 1, 2; share
  values 3, 5, 2, 7; posts left on the bases 15, 5, 15, 3;
* books: A05 and A06 on spaces 1 and 2 (passed), A01 (needs 1 coffee) on space 3, A02
  (1 banana) on 4, B03 (1 bookkeeping point) on 5, A03 (1 cotton) on 6, A04 (1 helmet)
  on 8.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from engine.state import State
from search import features as F
from search.features import FEATURES, INDEX, bucket, ink_walk, player_features, track_icons
from tests.builders import cards, set_books, start, with_area, with_player, with_state

MODEL_FILE = Path(F.__file__).parent / "data" / "value_model.json"


def built() -> State:
    s = start(2, 0)
    s = with_area(s, 0, "A1", "B1", "A9", "B11", used=cards(s, "A1"))
    s = with_player(
        s, 0, cash=17, diamond=6, ink=2, markers=2,
        hand=cards(s, "cof2/1", "C2", "D1", "E4", "E2", "C8"),
        resting=((), (s.cat.card_index("cof1/1"), s.cat.card_index("C9")),
                 (s.cat.card_index("ban1/1"),), (s.cat.card_index("exp2/1"),), ()),
        track=(3, 4, 1, 2))
    s = set_books(s, 0, {1: ["A05"], 2: ["A06"], 3: ["A01"], 4: ["A02"], 5: ["B03"],
                         6: ["A03"], 8: ["A04"]})
    s = with_state(s, values=(3, 5, 2, 7),
                   bases=((5, 5, 5), (3, 2, 0), (5, 5, 5), (1, 1, 1)))
    assert s.tracks == (0, 2, 4, 6) and s.phase_name == "actions"
    assert s.decision.kind == "action" and s.decision.player == 0
    return s


# What the definitions give for P1 of the built position (worked out in the comments).
EXPECTED_P1 = {
    "bias": 1.0,
    "cash": 17.0,
    "diamond_value": 8.0,  # diamond_values[6]
    "bookkeeping_value": 6.0,  # bookkeeping_values[2]
    # Shares per company: track icons (1, 1, 0, 1) + share cards (2, 0, 1, 0); C2's
    # share icon is on a goods card, which the feature does not count ("share cards").
    "share_money": 3 * 3 + 1 * 5 + 1 * 2 + 1 * 7,
    "shares": 6.0,
    "share_room": 3 * 15 + 1 * 5 + 1 * 15 + 1 * 3,
    # Part of the way to the next icon times the share value: track 0 space 3 is 1/3 of
    # the way from space 2 (first with 1 icon) to space 5 (2 icons); track 2 space 4,
    # 2/3; track 4 space 1, 1/2 (0 icons at 0, 1 at 2); track 6 space 2 starts a run.
    "track_progress": 1 / 3 * 3 + 2 / 3 * 5 + 1 / 2 * 2 + 0 * 7,
    # Face up: B1 and the bookkeeper (A1 is used, B11 measures nothing).
    "now_coffee": 3.0, "now_bananas": 0.0, "now_cotton": 0.0, "now_helmets": 0.0,
    "now_bookkeeping": 2.0,
    # Owned (hand, area face up or not, resting decks): coffee A1 2 + B1 3 + cof2/1 2
    # + cof1/1 1; bananas C2 4 + ban1/1 1; helmets exp2/1 2; bookkeeping A9 2.
    "own_coffee": 8.0, "own_bananas": 5.0, "own_cotton": 0.0, "own_helmets": 2.0,
    "own_bookkeeping": 2.0,
    "merchants": 3.0,  # B11 (area), C8 (hand), C9 (resting)
    "cards": 14.0,  # 4 in the area, 6 in hand, 4 resting
    "slots": 4.0,  # 3 + the diamond track's slot
    "book_run_value": 23 - 6,  # books on 3..6, none on 7: the run ends on 6
    "books_ahead": 5.0,  # spaces 3, 4, 5, 6 and 8
    "markers": 2.0,
    "ended": 0.0,
    # A bookkeeper used now: A01's coffee is met face up (B1), A02's banana is not.
    "ink_walk_value": 9 - 6,
    # Owned cards meet A01, A02 (C2 in the hand) and B03 (the bookkeeper's own points),
    # not A03 (no cotton): 18 - 6.
    "meetable_run_value": 18 - 6,
    "diamond_unlock_gap": 0.0,
    "ink_unlock_gap": 3.0,  # the bookkeeping slot opens on space 5
    "resting_units": 1 + 1 + 2,  # merchants measure nothing
    "merchant_now": 1.0,
    # Decks of 0, 1, 1, 2, 0 units above slots B11, A1, B1, A9 and an empty one: the
    # 2-unit deck is taken back first (A9's 2 points then start it again), A1 joins a
    # 1-unit deck (3), B1 the other (1 + 3 = 4), the merchant B11 adds nothing.
    "comeback_units": 4.0,
}
# P2 is untouched: the start of its first round.
EXPECTED_P2 = {
    # 1 share of Cape Town (track 2, space 2: the first icon), worth 5, 5 posts left.
    "cash": 1.0, "shares": 1.0, "share_room": 5.0, "share_money": 5.0, "track_progress": 0.0,
    "own_coffee": 3.0, "own_bananas": 3.0, "own_cotton": 3.0, "own_helmets": 4.0,
    "own_bookkeeping": 2.0, "cards": 10.0, "slots": 3.0, "markers": 3.0,
    "diamond_unlock_gap": 4.0, "ink_unlock_gap": 5.0, "resting_units": 4.0,
    # Decks cot1/2, cof1/2, ban2/2 (1, 1, 2 units), nothing planned: ban2/2 comes back
    # first, then a 1-unit deck is the richest.
    "comeback_units": 1.0,
}


def test_feature_order_is_the_shipped_models() -> None:
    """The model file's weights are read by position: its feature list is FEATURES, in
    order (or their first ones: a feature appended later weighs 0 in it), every bucket
    has one weight per feature of the list, and INDEX names the positions."""
    raw = json.loads(MODEL_FILE.read_text())
    fitted = raw["features"]
    assert fitted == list(FEATURES[:len(fitted)])  # features are only ever appended
    assert all(len(w) == len(fitted) for w in raw["buckets"].values())
    assert len(set(FEATURES)) == len(FEATURES)
    assert [INDEX[name] for name in FEATURES] == list(range(len(FEATURES)))
    assert set(EXPECTED_P1) == set(FEATURES)


def test_every_feature_of_a_built_position() -> None:
    s = built()
    rows = player_features(s)
    assert len(rows) == 2 and all(len(r) == len(FEATURES) for r in rows)
    got = dict(zip(FEATURES, rows[0], strict=True))
    for name, value in EXPECTED_P1.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
    other = dict(zip(FEATURES, rows[1], strict=True))
    for name, value in EXPECTED_P2.items():
        assert other[name] == pytest.approx(value, abs=1e-12), name


def test_a_player_who_has_ended_has_nothing_face_up() -> None:
    """Once a player ends the action phase its area is no longer played: the ``now_*``
    features, the face-up merchants and the ink walk read 0; what it owns does not."""
    s = with_player(built(), 0, ended=True)
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    for name in ("now_coffee", "now_bananas", "now_cotton", "now_helmets",
                 "now_bookkeeping", "merchant_now", "ink_walk_value"):
        assert row[name] == 0.0, name
    assert row["ended"] == 1.0
    for name in ("own_coffee", "cards", "merchants", "book_run_value",
                 "meetable_run_value", "resting_units"):
        assert row[name] == EXPECTED_P1[name], name


def test_comeback_units_once_the_round_is_ended_are_the_richest_deck_now() -> None:
    """After ending, the deck taken back is in the hand and this round's cards rest in
    their decks (rounds-and-planning, "End of your action phase"): nothing moves any
    more before the next round's end."""
    s = with_player(built(), 0, ended=True, slots=(-1,) * 5)
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["comeback_units"] == 2.0  # the decks as they are: 0, 1, 1, 2, 0


def test_comeback_units_see_which_cards_rest_together() -> None:
    """The same two cards planned into other slots: above the decks that stay (1 and
    1 units) they make decks of 3 and 4; one above the deck taken back first starts it
    again, and the best left is 3 (the feature the slot choice needs: docs/search.md,
    "Which plan steps")."""
    s = built()
    a1, b1 = (s.cat.card_index(n) for n in ("A1", "B1"))
    units = []
    for slots in ((-1, a1, b1, -1, -1), (a1, -1, -1, b1, -1)):
        row = player_features(with_player(s, 0, slots=slots))[0]
        units.append(dict(zip(FEATURES, row, strict=True))["comeback_units"])
    assert units == [4.0, 3.0]


@pytest.mark.parametrize("phase", [engine.state.SETUP, engine.state.PLANNING])
def test_face_up_cards_count_while_the_round_is_in_progress(phase: int) -> None:
    """The round is in progress in Planning and the action phase (the cards planned
    are the ones to play): the face-up features read the area then, and 0 in setup."""
    s = with_state(built(), phase=phase)
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    for name in ("now_coffee", "now_bookkeeping", "merchant_now", "ink_walk_value"):
        assert row[name] == (EXPECTED_P1[name] if phase == engine.state.PLANNING else 0.0)
    assert row["own_coffee"] == 8.0 and row["cash"] == 17.0


def test_a_face_down_book_lets_the_ink_jar_pass() -> None:
    """A book turned face down (flipped) no longer asks for its needs. A02 flipped: the
    ink walk passes it and B03 (the bookkeeper's 2 points face up) and stops before A03
    (no cotton face up); A02 and A03 flipped: the owned cards' run reaches space 6."""
    s = built()
    a02, a03 = s.cat.book_index("A02"), s.cat.book_index("A03")
    s = with_player(s, 0, flipped=1 << a02)
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["ink_walk_value"] == 18 - 6
    assert ink_walk(s, s.players[0]) == (3, 18 - 6)
    assert row["meetable_run_value"] == 18 - 6
    s = with_player(s, 0, flipped=(1 << a02) | (1 << a03))
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["meetable_run_value"] == 23 - 6
    assert row["ink_walk_value"] == 23 - 6


@pytest.mark.parametrize(("diamond", "coffee", "met"), [
    (0, ("cof1/1", "cof1/2", "cof2/1"), True),  # 2 + 1 in the 2 other slots
    (0, ("cof1/1", "cof1/2", "ban1/1"), False),  # 1 + 1 < 3
    (0, ("cof1/1", "cof1/2", "cof1/3"), False),  # 3 cards, 2 other slots
    (5, ("cof1/1", "cof1/2", "cof1/3"), True),  # the diamond slot is a 3rd
])
def test_the_meetable_run_counts_the_other_slots(diamond: int, coffee: tuple[str, ...],
                                                 met: bool) -> None:
    """A book's needs are met by the bookkeeper plus the best cards in the other slots
    (2, or 3 with the diamond track's slot open): B09 needs 3 coffee."""
    s = set_books(built(), 0, {3: ["B09"], 4: [], 5: [], 6: [], 8: []})
    s = with_area(s, 0, "A9", hand=cards(s, *coffee), resting=((),) * 5, diamond=diamond)
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["slots"] == (4.0 if diamond else 3.0)
    assert row["meetable_run_value"] == (9 - 6 if met else 0)
    assert row["book_run_value"] == 9 - 6


def test_without_a_bookkeeper_no_run_is_meetable() -> None:
    s = built()
    s = with_area(s, 0, "B1", "B11", hand=cards(s, "cof2/1", "C2"),
                  resting=((),) * 5)
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["own_bookkeeping"] == 0.0
    assert row["meetable_run_value"] == 0.0 and row["ink_walk_value"] == 0.0
    assert row["book_run_value"] == 23 - 6  # the run itself is still there


def test_track_icons_are_read_from_the_track() -> None:
    """(icons held, fraction of the way, icons the next icon adds) on track 0, whose
    icons are at 2 (1 share), 5 (2), 8 (3): the fraction restarts at each icon; past
    the last icon nothing more is to come."""
    row = track_icons(start(2, 0).cat)[0]
    held = start(2, 0).cat.tracks[0].shares_at
    assert held[:9] == (0, 0, 1, 1, 1, 2, 2, 2, 3)
    assert row[0] == (0, 0.0, 1) and row[1] == (0, 0.5, 1)
    assert row[2] == (1, 0.0, 1) and row[3] == (1, pytest.approx(1 / 3), 1)
    assert row[4] == (1, pytest.approx(2 / 3), 1) and row[5] == (2, 0.0, 1)
    assert row[-1] == (held[-1], 0.0, 0)


@pytest.mark.parametrize(("phase", "round_", "expected"),
                         [(0, 0, (2, 1, 0)), (1, 3, (2, 3, 0)), (2, 3, (2, 3, 1)),
                          (2, 7, (2, 7, 1)), (3, 8, (2, 7, 0))])
def test_bucket_is_players_round_and_phase(phase: int, round_: int,
                                           expected: tuple[int, int, int]) -> None:
    """Weights are fitted per (players, round 1-7, 1 in the action phase else 0)."""
    s = with_state(start(2, 0), phase=phase, round=round_)
    assert bucket(s) == expected


def test_swapping_the_seats_swaps_the_rows() -> None:
    """A player's row depends on its own board and the shared board, not on its seat."""
    s = built()
    swapped = with_state(s, players=(s.players[1], s.players[0]))
    a, b = player_features(s), [list(r) for r in player_features(swapped)]
    assert b == [a[1], a[0]]


def test_books_behind_the_jar_and_a_gap_right_after_it() -> None:
    """Books on the spaces the ink jar has passed (1, 2) are not ahead of it; with space
    3 empty the run right after the jar is empty even though books lie further on."""
    s = set_books(built(), 0, {1: ["A05"], 2: ["A06"]})
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["books_ahead"] == 5.0 and row["book_run_value"] == 23 - 6
    s = set_books(s, 0, {3: []})
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["books_ahead"] == 4.0
    assert row["book_run_value"] == 0.0
    assert row["meetable_run_value"] == 0.0 and row["ink_walk_value"] == 0.0


@pytest.mark.parametrize(("needs", "best", "slots", "met"), [
    # The best bookkeeper's points count for a bookkeeping need without a slot of its
    # own: cotton 2 takes both other slots, bookkeeping 2 is the bookkeeper's.
    (((2, 2), (4, 2)), [[], [], [1, 1], [], [2]], 3, True),
    # The other bookkeepers join in the other slots, the second best first.
    (((4, 3),), [[], [], [], [], [2, 2]], 3, True),
    (((4, 5),), [[], [], [], [], [2, 2, 1]], 3, True),
    (((4, 6),), [[], [], [], [], [2, 2, 1]], 3, False),
    # A need met exactly leaves the remaining slots to the next need.
    (((0, 1), (1, 1)), [[1, 1], [1], [], [], [2]], 3, True),
    (((0, 2), (1, 1)), [[1, 1], [1], [], [], [2]], 3, False),
    (((0, 2), (1, 1)), [[1, 1], [1], [], [], [2]], 4, True),
    (((1, 1),), [[], [], [], [], [2]], 3, False),  # nothing to meet bananas with
])
def test_cards_meet_a_books_needs(needs: tuple[tuple[int, int], ...], best: list[list[int]],
                                  slots: int, met: bool) -> None:
    """``_cards_meet``, the rule the meetable run applies book by book: one bookkeeper
    (the best), plus the best cards of each needed measure in the ``slots - 1`` others."""
    assert F._cards_meet(needs, best, slots) is met


def test_the_run_and_the_walks_reach_the_last_space() -> None:
    """Ink on space 10, books on 11 and 12 (the last): the run, the walk and the run the
    owned cards meet all end on space 12 (63 - 48); the slot gaps are 0 once open."""
    s = set_books(built(), 0, {k: [] for k in range(3, 13)} | {11: ["A01"], 12: ["B03"]})
    s = with_player(s, 0, ink=10)
    assert ink_walk(s, s.players[0]) == (2, 63 - 48)
    row = dict(zip(FEATURES, player_features(s)[0], strict=True))
    assert row["book_run_value"] == 63 - 48 and row["books_ahead"] == 2.0
    assert row["meetable_run_value"] == 63 - 48 and row["ink_walk_value"] == 63 - 48
    assert row["ink_unlock_gap"] == 0.0 and row["diamond_unlock_gap"] == 0.0
    assert row["slots"] == 5.0


def test_ink_walk_needs_a_bookkeeper_face_up_in_play() -> None:
    """(books, value) of a bookkeeper used now: (0, 0) with none face up, after ending,
    or outside the round; a bookkeeping tile of 1 point is a bookkeeper too."""
    s = built()
    assert ink_walk(s, s.players[0]) == (1, 9 - 6)  # asked first: nothing cached
    for other in (with_player(s, 0, ended=True), with_state(s, phase=engine.state.SETUP),
                  with_area(s, 0, "B1", "B11")):
        assert ink_walk(other, other.players[0]) == (0, 0)
    tile = with_area(s, 0, "B1", "B11", tiles=cards(s, "T-keeper"))
    assert tile.players[0].measures(tile.cat)[4] == 1
    assert ink_walk(tile, tile.players[0]) == (1, 9 - 6)
    # A01's 1 coffee met exactly by cof1/1.
    exact = with_area(s, 0, "cof1/1", "A9")
    assert ink_walk(exact, exact.players[0]) == (1, 9 - 6)


def test_the_rows_of_the_last_state_are_shared() -> None:
    """A search leaf asks twice (the value model, then the drive): the second asker gets
    the same rows, not a recomputation; another state gets its own."""
    s = built()
    rows = player_features(s)
    assert player_features(s) is rows
    other = with_player(s, 0, cash=18)
    assert player_features(other) is not rows and player_features(other)[0][1] == 18.0
