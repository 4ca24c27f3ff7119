"""Rulebook scenarios: short stretches of play, each checking one example or special
case of the rules texts (cited per test), played through Planning and the action phase
with the engine's notation. Seed 0, two players unless said otherwise: P1 (seat 0) is
first player; after setup P1's resting decks are 2: cof1/1, 3: ban1/1, 4: exp2/1 and
P2's are 2: ban1/2, 3: cot1/2, 4: cof2/2.
"""

from __future__ import annotations

import pytest

import engine
from engine.state import DEAD
from tests.builders import (
    at_action,
    cards,
    company,
    do,
    dspace,
    end_turns,
    names,
    plan,
    play_setup,
    region,
    set_base,
    set_books,
    set_display,
    set_owner,
    start,
    texts,
    with_area,
    with_player,
    with_state,
)

# --------------------------------------------------------------------------- resting decks


def test_bookkeeper_in_a_resting_deck_cannot_be_used() -> None:
    """rulebook.txt, II. General Action Phase, example: "Blue may not perform the 'Use 1
    bookkeeper card' action as he has not placed a bookkeeper in his action area. (The
    bookkeeper of his middle resting deck does not count, of course, as it is
    inactive)." rounds-and-planning.txt: "Cards in resting decks are inactive."
    P1 plays kpr2/1 in round 1 and keeps it in resting deck 2; in round 2 there is no
    keeper step for it."""
    s = plan(play_setup(2, 0), {0: ["kpr2/1"]})
    assert "keeper kpr2/1" in texts(s)
    s = do(s, "end 3")  # P1 takes ban1/1 back; kpr2/1 goes up to resting deck 2
    s = end_turns(s)
    kpr = s.cat.card_index("kpr2/1")
    assert kpr in s.players[0].resting[1]
    s = plan(s, {0: ["ban1/1"]})
    assert s.decision == engine.Decision("action", 0)
    assert not any(st.kind == "keeper" for st in s.legal_steps())
    assert "keeper kpr2/1" not in texts(s)


# --------------------------------------------------------------------------- majorities


def test_majority_tie_is_enough_for_both_players() -> None:
    """actions.txt, Majority bonus spaces: "You may take a MAX space only if no other
    player has more of that type face up in their action area right now (a tie is
    enough)." rulebook.txt: "if you currently have the majority or at least the shared
    majority". P1 and P2 both plan cotton 2: either may take the cotton space; once
    P1 has it, it is blocked for P2."""
    s = plan(play_setup(2, 0), {0: ["cot2/1"], 1: ["cot2/2"]})
    assert "majority cotton 2" in texts(s)
    # P2, tied with P1's face-up cotton, may take it as well on a turn of its own.
    assert "majority cotton 2" in texts(at_action(s, 1))
    p2_first = do(s, "goods cot2/1", "nobuy", "unit CAP", "unit CAP")
    assert p2_first.players[0].used  # P1's cotton is now face down: P2 leads alone
    assert "majority cotton 2" in texts(p2_first)
    s = do(s, "majority cotton 2")
    stl = company(s, "STL")
    assert s.players[0].track[stl] == 2
    assert s.decision == engine.Decision("action", 1)
    assert not any(t.startswith("majority cotton") for t in texts(s))


def test_lower_majority_line_may_be_chosen() -> None:
    """rulebook.txt, Majority Bonus Spaces: "you can always choose the reward of a lesser
    total value than you actually have (for example, even if you have 6 units of cotton
    in your action area, you still may take the '4+' cotton reward instead of the '6+'
    cotton reward)." P1 plans C3 (cotton 4) and cot2/1: 6 cotton. The 4+ line moves
    Saint-Louis 3 and removes a trading post, without the 6+ pound."""
    s = play_setup(2, 0)
    s = with_player(s, 0, hand=s.players[0].hand | cards(s, "C3"))
    s = plan(s, {0: ["C3", "cot2/1"]})
    assert {t for t in texts(s) if t.startswith("majority cotton")} == {
        "majority cotton 2", "majority cotton 4", "majority cotton 6"}
    cash = s.players[0].cash
    s = do(s, "majority cotton 4")
    stl = company(s, "STL")
    assert s.players[0].track[stl] == 3
    assert (s.decision.kind, s.decision.player) == ("remove-post", 0)
    s = do(s, "remove-post CAI 2")
    assert s.removed_posts[company(s, "CAI")] == 1
    assert s.players[0].cash == cash
    assert s.players[0].used == 0  # the cards are not used up
    assert s.decision == engine.Decision("action", 1)


# --------------------------------------------------------------------------- expansion


def test_ousted_post_into_a_column_whose_rear_space_is_empty() -> None:
    """rulebook.txt, Use all expansion cards, 2: "Once a column's final space (the 5th
    space on the rear end of a column) is empty, that space cannot be covered again.
    Thus, when you return a trading post to an entirely empty column, it must be placed
    onto the space in front of the final space." Cape Town: column 1 empty (rear space
    emptied), columns 2 and 3 full: share value 5. A Cape Town post ousted from OGA goes
    to column 1 on the space in front of the rear: it covers 1 coin icon (value 4), not
    the rear's 2 (value 3)."""
    s = with_area(start(), 0, "exp2/1")
    s = set_owner(s, {"OGA": "CAP"})
    s = set_base(s, "CAP", (DEAD, 5, 5))
    cap = company(s, "CAP")
    assert s.values[cap] == 5
    s = do(s, "expand MOM", "enter OGA 1")
    assert (s.decision.kind, s.decision.player) == ("oust-return", 0)
    assert texts(s) == {"return 1"}
    s = do(s, "return 1")
    assert s.bases[cap] == (1 | DEAD, 5, 5)
    assert s.values[cap] == 4
    assert s.owners[region(s, "OGA")] == company(s, "MOM")
    # The column can never again take 5 posts: 4 in front of the dead rear space.
    s2 = set_base(s, "CAP", (4 | DEAD, 5, 5))
    s2 = set_owner(at_action(with_area(s2, 0, "exp1/1"), 0), {"PWA": "CAP"})
    s2 = do(s2, "expand MOM")
    assert "PWA" not in {t.split()[1] for t in texts(s2) if t.startswith("enter")}


def test_enclave_needs_its_surrounding_region_first() -> None:
    """actions.txt, Use expansion cards, notes: "The two enclave regions lie entirely
    inside another region: enter the surrounding region first. Those two surrounding
    regions are the only ones with no reward." Cape Town with 4 points: LUL (inside KAS)
    is out of reach until KAS has been entered; KAS pays nothing, LUL and BEN pay their
    track steps."""
    cat = start().cat
    enclaves = {r.id: cat.regions[r.enclave_of].id for r in cat.regions if r.enclave_of >= 0}
    assert enclaves == {"MAR": "DAR", "LUL": "KAS"}
    assert {r.id for r in cat.regions if r.reward.is_empty()} == {"DAR", "KAS"}
    s = with_area(start(), 0, "exp2/1", "exp1/1", "one/1", track=(0, 0, 0, 0), diamond=0)
    s = do(s, "expand CAP")

    def targets(st: engine.State) -> set[str]:
        return {t.split()[1] for t in texts(st) if t.startswith("enter")}

    assert "LUL" not in targets(s)
    s = do(s, "enter BEN 1")  # double line from the base: 2 points
    assert "KAS" in targets(s)
    assert "LUL" not in targets(s)
    s = do(s, "enter KAS 2")
    assert "LUL" in targets(s)
    s = do(s, "enter LUL 3")
    assert {cat.regions[r].id for r, o in enumerate(s.owners) if o >= 0} == {"BEN", "KAS", "LUL"}
    p = s.players[0]
    assert p.track[company(s, "CAP")] == 2 + 0 + 3
    assert s.decision == engine.Decision("action", 1)


def test_enclave_mar_inside_dar() -> None:
    """actions.txt, Use expansion cards, notes (enclaves): Cairo, holding NUB, may not
    jump into MAR; after entering DAR it may."""
    s = with_area(start(), 0, "exp2/1", "exp1/1", "one/1")
    s = set_owner(s, {"NUB": "CAI"})
    s = do(s, "expand CAI")
    assert not any(t.startswith("enter MAR") for t in texts(s))
    s = do(s, "enter DAR 1")
    assert "enter MAR 1" in texts(s)


def test_single_too_weak_expansion_card_forfeits_the_action() -> None:
    """rulebook.txt, Further Notes: "If you only have one expansion card in your action
    area and its expansion points are not sufficient to enter any region you want, you
    must forfeit the action entirely and flip the card face down." actions.txt: "you
    forfeit the action and turn the card down." P1's only expansion card is worth 1;
    every region next to Mombasa costs 2 (OGA, PWA, ZAM hold other posts, LIM is a
    double line): no post moves, no reward, the card is face down, the turn is over."""
    s = plan(play_setup(2, 0), {0: ["exp1/1", "cof2/1"]})
    s = set_owner(s, {"OGA": "CAP", "PWA": "STL", "ZAM": "CAI"})
    before = s
    s = do(s, "expand MOM")
    p = s.players[0]
    assert p.used == cards(s, "exp1/1")
    assert s.owners == before.owners
    assert s.bases == before.bases
    assert (p.cash, p.track, p.diamond) == (before.players[0].cash,
                                           before.players[0].track,
                                           before.players[0].diamond)
    assert s.pool == 0
    assert s.decision == engine.Decision("action", 1)
    s = do(s, "end 2")
    assert not any(t.startswith("expand") for t in texts(s))


# --------------------------------------------------------------------------- preparation


def _to_preparation(s: engine.State) -> engine.State:
    """Both players end (P1 then P2), stopping at Preparation's first chance event."""
    s = do(s, "end 2", chance=False)
    s = do(s, "end 2", chance=False)
    assert s.decision.kind == "chance"
    return s


def test_display_refill_order_in_preparation() -> None:
    """rounds-and-planning.txt, Refill the card display: "1. Discard any cards still in
    the right column. 2. Slide the cards in each row to the right: two cards fill the
    right and middle spaces, one card goes to the right space. 3. Refill the empty spaces
    from the action card stack: right column top to bottom, then middle, then left."
    Rows before: 1 = A8 A4 A6, 2 = B15 - -, 3 = - A7 A9, 4 empty. After discarding A6
    and A9 and sliding: 1 = - A8 A4, 2 = - - B15, 3 = - - A7, 4 empty. The chance events
    then fill R4, M2, M3, M4, L1, L2, L3, L4 in that order."""
    s = set_display(start(), {"M2": None, "R2": None, "L3": None,
                              "L4": None, "M4": None, "R4": None})
    c = s.cat.card_index
    assert s.display[dspace(s, "L1")] == c("A8") and s.display[dspace(s, "R1")] == c("A6")
    assert s.display[dspace(s, "R3")] == c("A9")
    s = _to_preparation(s)
    assert names(s, s.discard) == ["A6", "A9"]
    for sp, name in {"M1": "A8", "R1": "A4", "R2": "B15", "R3": "A7"}.items():
        assert s.display[dspace(s, sp)] == c(name), sp
    order = []
    while s.decision.kind == "chance":
        outcome = s.sample_chance()
        assert outcome.kind == "deal-card"
        order.append(s.cat.display_space_name(outcome.b))
        s = s.apply(outcome)
    assert order == ["R4", "M2", "M3", "M4", "L1", "L2", "L3", "L4"]
    assert -1 not in s.display
    assert s.round == 2
    assert (s.decision.kind, s.decision.player) == ("plan", 0)


def test_display_spaces_stay_empty_when_the_stack_runs_out() -> None:
    """rounds-and-planning.txt, Refill the card display: "If the stack runs out, the
    remaining spaces stay empty." With 2 cards left, R4 and M2 are filled; the rest
    stay empty."""
    s = set_display(start(), {"M2": None, "R2": None, "L3": None,
                              "L4": None, "M4": None, "R4": None})
    s = with_state(s, stack=cards(s, "C1", "C2"))
    s = _to_preparation(s)
    s = end_turns(s)
    assert s.round == 2
    filled = {s.cat.display_space_name(k) for k, card in enumerate(s.display) if card >= 0}
    assert filled == {"M1", "R1", "R2", "R3", "R4", "M2"}
    assert {s.display[dspace(s, "R4")], s.display[dspace(s, "M2")]} == {
        s.cat.card_index("C1"), s.cat.card_index("C2")}
    assert s.stack == 0


def test_share_cards_come_last_from_the_stack() -> None:
    """rounds-and-planning.txt, Refill the card display: "The last 8 cards of the stack
    are the share cards (D and E)." With C1 and D1 left, the first draw can only be C1."""
    s = set_display(start(), {"R4": None, "M4": None})
    s = with_state(s, stack=cards(s, "C1", "D1"))
    s = _to_preparation(s)
    first = s.legal_steps()
    assert [names(s, 1 << o.a) for o in first] == [["C1"]]


@pytest.mark.parametrize(("players", "stacks"), [
    (2, (1, 1, 1, 1, 1, 1)),
    (3, (2, 1, 2, 1, 2, 1)),
    (4, (2, 2, 2, 2, 2, 2)),
])
def test_coin_stacks_on_the_round_track(players: int, stacks: tuple[int, ...]) -> None:
    """rulebook.txt, Setup 7: "2 players: ... one of them onto each of the 6 spaces of the
    round track. 3 players: ... a stack of 2 coins each onto the spaces 2, 4 and 6 ...
    1 coin each onto the spaces 3, 5 and 7. 4 players: ... a stack of 2 coins onto each
    of the 6 spaces"."""
    s = engine.new_game(players=players, seed=0)
    assert s.round_coins == stacks
    assert s.book_coins == (0,) * len(s.book_coins)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_coin_stacks_move_to_the_book_display_in_preparation(players: int) -> None:
    """rounds-and-planning.txt, Coins to the book display: "Take the coins from the
    leftmost stack on the round track (spaces 2 to 7) and move them down to the book
    display, under the column with the same number: one coin goes to the first row, a
    second to the second row." After round 1 the stack of space 2 lies under column 2,
    after round 2 the stack of space 3 under column 3."""
    s = play_setup(players, 0)
    stacks = s.round_coins
    s = end_turns(plan(s, {}))
    assert s.round == 2
    coins = {s.cat.book_space_name(k): n for k, n in enumerate(s.book_coins) if n}
    expected = {"2.1": 1} if stacks[0] == 1 else {"2.1": 1, "2.2": 1}
    assert coins == expected
    assert s.round_coins == (0,) + stacks[1:]
    s = end_turns(plan(s, {}))
    assert s.round == 3
    coins = {s.cat.book_space_name(k): n for k, n in enumerate(s.book_coins) if n}
    expected.update({"3.1": 1} if stacks[1] == 1 else {"3.1": 1, "3.2": 1})
    assert coins == expected
    assert s.round_coins == (0, 0) + stacks[2:]


def test_coin_moved_to_the_book_display_goes_with_its_book() -> None:
    """rounds-and-planning.txt, Coins to the book display: "Whoever later takes the book
    above a coin takes the coin too." Round 2: P1's bookkeeper takes book 2.1 and the
    coin under it."""
    s = end_turns(start())
    s = plan(s, {0: ["kpr2/1"]})
    cash = s.players[0].cash
    s = do(s, "keeper kpr2/1", "take 2.1", "pounds")
    assert s.players[0].cash == cash + 1 + 1  # the coin and 1 point as a pound


# --------------------------------------------------------------------------- track ends


def test_ink_jar_at_the_end_every_bookkeeping_point_pays_2_pounds() -> None:
    """actions.txt, End of the bookkeeping track: "When your ink jar reaches the book on
    the last space it stays there; from then on every bookkeeping point you receive pays
    2 pounds instead, and can be used no other way." rules-decisions.md: "Ink jar at the
    last space". kpr2 (2 points) pays 4 pounds; no book can be taken."""
    s = plan(play_setup(2, 0), {0: ["kpr2/1"]})
    last = len(s.cat.bookkeeping_values) - 1
    s = with_player(s, 0, ink=last, cash=0)
    s = do(s, "keeper kpr2/1")
    assert s.players[0].cash == 4
    assert s.players[0].ink == last
    assert s.decision == engine.Decision("action", 1)
    # Region rewards too: Cairo into SIW (1 pound + 1 point) pays 1 + 2.
    s2 = at_action(with_area(s, 0, "one/1", cash=0), 0)
    s2 = do(s2, "expand CAI", "enter SIW 1")
    assert s2.players[0].cash == 3
    assert s2.decision == engine.Decision("action", 1)


def test_ink_jar_reaching_the_last_space_pays_the_bookkeeper_points_double() -> None:
    """actions.txt, End of the bookkeeping track ("When your ink jar reaches the book on
    the last space ... from then on every bookkeeping point you receive pays 2 pounds")
    and Moving the ink jar, 4 ("Then spend the bookkeeping points of the bookkeeper
    card"): the jar enters the last book (A01: 1 pound) and then kpr2's 2 points pay 4."""
    s = plan(play_setup(2, 0), {0: ["kpr2/1", "cof2/1"]})
    last = len(s.cat.bookkeeping_values) - 1
    s = set_books(with_player(s, 0, ink=last - 1, cash=0), 0, {last: ["A01"]})
    s = do(s, "keeper kpr2/1", "ink")
    p = s.players[0]
    assert p.ink == last
    assert p.cash == 1 + 4
    assert s.decision == engine.Decision("action", 1)


def test_diamond_marker_at_the_end_every_step_pays_2_pounds() -> None:
    """actions.txt, End of the diamond track: "When your diamond marker reaches the last
    space it stays there; from then on each diamond step you would take pays 2 pounds
    instead." The plain merchant: 2 pounds + 1 step = 4 pounds."""
    s = play_setup(2, 0)
    s = with_player(s, 0, hand=s.players[0].hand | cards(s, "B11", "B12"))
    s = plan(s, {0: ["B11", "B12"]})
    last = len(s.cat.diamond_values) - 1
    s = with_player(s, 0, diamond=last, cash=0)
    s = do(s, "merchant B11")
    assert s.players[0].cash == 4
    assert s.players[0].diamond == last
    # The Mombasa merchant with 2 mines (ASH, NAM: 1 each): 1 pound + 3 steps x 2.
    s = set_owner(s, {"ASH": "MOM", "NAM": "MOM"})
    s = do(s, "end 2", "merchant B12")
    assert s.players[0].cash == 4 + 1 + 6


def test_diamond_marker_reaching_the_end_pays_only_the_extra_steps() -> None:
    """actions.txt, End of the diamond track: a company merchant's 2 steps from the
    second-to-last space: 1 step to the last space, 1 step paid as 2 pounds (+1 pound)."""
    s = at_action(with_area(start(), 0, "B16", cash=0), 0)
    last = len(s.cat.diamond_values) - 1
    s = with_player(s, 0, diamond=last - 1)
    s = do(s, "merchant B16")
    assert s.players[0].diamond == last
    assert s.players[0].cash == 1 + 2


# --------------------------------------------------------------------------- extra slots


@pytest.mark.parametrize(("merchant", "diamond_after"), [("B11", 4), ("B16", 5)])
def test_fourth_slot_opens_from_the_next_planning_phase(merchant: str,
                                                        diamond_after: int) -> None:
    """rounds-and-planning.txt, Additional action slots: "the left one opens when your
    diamond marker reaches or passes the marked space of your diamond track ... From the
    next Planning phase on, you may play one more card for each open slot". From diamond
    space 3, P1 reaches the marked space 4 (plain merchant B11, 1 step) or passes it (Cape
    Town merchant B16, 2 steps) in round 1; the left slot (1) is closed in round 1's
    Planning and open in round 2's."""
    cat = start().cat
    assert cat.diamond_slot == 4
    s = play_setup(2, 0)
    s = with_player(s, 0, diamond=3, hand=s.players[0].hand | cards(s, merchant))
    slots = {int(t.split()[2]) for t in texts(s) if t.startswith("plan ")}
    assert slots == {2, 3, 4}
    s = plan(s, {0: [merchant]})
    s = do(s, f"merchant {merchant}")
    assert s.players[0].diamond == diamond_after
    s = end_turns(s)
    assert (s.decision.kind, s.decision.player) == ("plan", 0)
    slots = {int(t.split()[2]) for t in texts(s) if t.startswith("plan ")}
    assert slots == {1, 2, 3, 4}
    s = plan(s, {0: ["cot1/1", "cot2/1", "exp1/1", "one/1"]})
    assert sum(c >= 0 for c in s.players[0].slots) == 4


def test_fifth_slot_opens_from_the_next_planning_phase() -> None:
    """rounds-and-planning.txt, Additional action slots: "the right one opens when your
    ink jar reaches or passes the book on the marked space of your bookkeeping track ...
    From the next Planning phase on, you may play one more card for each open slot - up
    to 5." The ink jar moves from space 4 onto A01 on the marked space 5 in round 1; in
    round 2 slots 1-5 are open (the diamond slot too, opened already), so 5 cards fit."""
    cat = start().cat
    assert cat.bookkeeping_slot == 5
    s = play_setup(2, 0)
    s = set_books(with_player(s, 0, ink=4, diamond=4), 0, {5: ["A01"]})
    slots = {int(t.split()[2]) for t in texts(s) if t.startswith("plan ")}
    assert slots == {1, 2, 3, 4}
    s = plan(s, {0: [None, "kpr2/1", "cof2/1"]})
    s = do(s, "keeper kpr2/1", "ink", "pounds")
    assert s.players[0].ink == 5
    s = end_turns(s, deck=1)
    assert (s.decision.kind, s.decision.player) == ("plan", 0)
    slots = {int(t.split()[2]) for t in texts(s) if t.startswith("plan ")}
    assert slots == {1, 2, 3, 4, 5}
    s = plan(s, {0: ["cof1/1", "ban2/1", "cot1/1", "cot2/1", "exp1/1"]})
    assert sum(c >= 0 for c in s.players[0].slots) == 5
