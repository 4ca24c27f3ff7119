"""Bookkeepers, books and bookkeeping points (actions.txt, "Use a bookkeeper", "Books
and bookkeeping points", "Placing books", "Moving the ink jar"; rulebook.txt,
"3. Use 1 bookkeeper card"; rules-decisions.md, "Bookkeeping points").

Books used (shipped catalogue; needs are totals of face-up cards):
A01 coffee 1 -> 1 pound; A06 coffee 2 -> 1 diamond step; B01 cotton 2 -> 2 pounds;
C11 coffee 6 -> 6 pounds. Book display at seed 0: columns 2 and 3 hold A-books, 4 and
5 B-books, 6 and 7 C-books. Bookkeeping spaces 9-12 show a crossed-out A.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from tests.builders import (
    at_action,
    book,
    bspace,
    cards,
    do,
    resolve_chance,
    set_books,
    start,
    step,
    texts,
    with_area,
    with_state,
)


def _keeper(*area_cards: str, books: dict[int, list[str]] | None = None,
            **fields: object) -> engine.State:
    s = with_area(start(), 0, *area_cards, **fields)
    if books:
        s = set_books(s, 0, books)
    return at_action(s, 0)


def test_needs_are_checked_book_by_book_and_reward_only_where_stopped() -> None:
    """actions.txt, Moving the ink jar, 2: "To enter a book you must meet each of its
    needs with the cards face up in your action area ... Needs are checked book by book,
    not added up, and the cards are not used up." 3: "Where you stop, take that book's
    reward - only that one." Coffee 2 face up enters A01 (coffee 1) and A06 (coffee 2);
    stopping on A06 pays its diamond step, not A01's pound; the coffee card stays up."""
    s = _keeper("kpr2/1", "cof2/1", books={1: ["A01"], 2: ["A06"]}, cash=1, diamond=0)
    s = do(s, "keeper kpr2/1")
    assert (s.decision.kind, s.decision.player) == ("ink-jar", 0)
    assert texts(s) == {"ink", "halt"}
    s = do(s, "ink", "ink")  # space 3 is empty: the jar stops on A06 by itself
    p = s.players[0]
    assert p.ink == 2
    assert p.diamond == 1
    assert p.cash == 1
    assert p.used == cards(s, "kpr2/1")  # cof2/1 not used up
    # 4. Then the bookkeeper's points are spent.
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)
    assert s.pool == 2


def test_stopping_early_takes_the_reward_of_that_book() -> None:
    """actions.txt, Moving the ink jar, 3: "Where you stop, take that book's reward".
    Halting on A01 pays its 1 pound."""
    s = _keeper("kpr2/1", "cof2/1", books={1: ["A01"], 2: ["A06"]}, cash=1, diamond=0)
    s = do(s, "keeper kpr2/1", "ink", "halt")
    p = s.players[0]
    assert (p.ink, p.cash, p.diamond) == (1, 2, 0)


def test_needs_use_only_face_up_cards() -> None:
    """actions.txt, Moving the ink jar, 2: needs are met "with the cards face up in your
    action area". A coffee card already turned face down does not count (rulebook.txt:
    "Once flipped, they are not valid for the requirements any more"): the jar cannot
    move and, not moving, gets no reward; the bookkeeper's points are still spent."""
    s = _keeper("kpr2/1", "cof2/1", books={1: ["A01"]}, cash=1)
    s = with_area(s, 0, "kpr2/1", "cof2/1", used=cards(s, "cof2/1"))
    s = do(s, "keeper kpr2/1")
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)
    assert s.players[0].ink == 0
    assert s.players[0].cash == 1
    assert s.pool == 2


def test_ink_jar_cannot_enter_an_empty_space() -> None:
    """actions.txt, Moving the ink jar, 2: "You cannot enter an empty space." A book on
    space 2 is out of reach while space 1 is empty."""
    s = _keeper("kpr2/1", "cof2/1", books={2: ["A01"]}, cash=1)
    s = do(s, "keeper kpr2/1")
    assert s.players[0].ink == 0
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)


def test_flipping_a_book_costs_2_pounds_and_removes_needs_and_reward() -> None:
    """actions.txt, Moving the ink jar, 1: "you may pay 2 pounds to turn one book on your
    track face down. A face-down book has no needs and no reward." C11 needs coffee 6;
    flipped, the jar enters it with no coffee at all, and stopping on it pays nothing."""
    s = _keeper("kpr2/1", books={1: ["C11"]}, cash=3)
    s = do(s, "keeper kpr2/1")
    assert (s.decision.kind, s.decision.player) == ("bookkeeper-flip", 0)
    assert texts(s) == {"noflip", "flip 1"}
    s = do(s, "flip 1")
    assert s.players[0].cash == 1
    assert (s.players[0].flipped >> book(s, "C11")) & 1
    assert "ink" in texts(s)
    s = do(s, "ink")
    assert s.players[0].ink == 1
    assert s.players[0].cash == 1  # C11's 6 pounds are not paid
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)


def test_flip_is_optional_and_needs_2_pounds() -> None:
    """actions.txt, Moving the ink jar, 1: flipping is optional ("you may pay 2
    pounds"); without 2 pounds no flip is offered."""
    s = do(_keeper("kpr2/1", books={1: ["C11"]}, cash=3), "keeper kpr2/1", "noflip")
    assert s.players[0].cash == 3
    assert s.players[0].ink == 0  # C11's needs not met
    poor = do(_keeper("kpr2/1", books={1: ["C11"]}, cash=1), "keeper kpr2/1")
    assert (poor.decision.kind, poor.decision.player) == ("bookkeeping-points", 0)
    assert poor.players[0].cash == 1


def test_flip_with_exactly_2_pounds() -> None:
    """actions.txt, Moving the ink jar, 1: "you may pay 2 pounds": a player with exactly
    2 pounds may flip (the price is affordable at the price, not only above it), and
    pays them all."""
    s = do(_keeper("kpr2/1", books={1: ["C11"]}, cash=2), "keeper kpr2/1")
    assert (s.decision.kind, s.decision.player) == ("bookkeeper-flip", 0)
    assert texts(s) == {"noflip", "flip 1"}
    s = do(s, "flip 1")
    assert s.players[0].cash == 0


def _spending(pool_card: str = "kpr2/1", **fields: Any) -> engine.State:
    """P1 at the bookkeeping-points decision after a bookkeeper that moved nothing."""
    s = _keeper(pool_card, **fields)
    s = do(s, f"keeper {pool_card}")
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)
    return s


def _takes(s: engine.State) -> set[str]:
    return {t.split()[1] for t in texts(s) if t.startswith("take ")}


def test_a_and_b_books_cost_1_point_c_books_2() -> None:
    """actions.txt / rules-decisions.md, Bookkeeping points: "A or B book 1 point, C book
    2 points". With 1 point (the bookkeeper tile) no C-book can be taken; with 2 points
    (kpr2) every book can."""
    one = _spending("T-keeper", tiles=cards(start(), "T-keeper"))
    assert one.pool == 1
    letters = {one.cat.book_space_letter[bspace(one, sp)] for sp in _takes(one)}
    assert letters == {"A", "B"}
    two = _spending("kpr2/1")
    letters2 = {two.cat.book_space_letter[bspace(two, sp)] for sp in _takes(two)}
    assert letters2 == {"A", "B", "C"}


def test_a_c_book_uses_up_2_points() -> None:
    """rules-decisions.md, Bookkeeping points: a C book costs 2 points. With 2 points,
    taking the C-book on 6.1 ends the spending and the book is placed."""
    s = _spending("kpr2/1")
    c_book = s.book_display[bspace(s, "6.1")]
    s = do(s, "take 6.1")
    assert (s.decision.kind, s.decision.player) == ("place-book", 0)
    assert s.pool == 0
    s = do(s, f"place {s.cat.books[c_book].name} 1")
    assert s.players[0].books[1] == (c_book,)
    assert s.decision == engine.Decision("action", 1)


def test_a_point_can_be_taken_as_a_pound() -> None:
    """actions.txt / rules-decisions.md, Bookkeeping points: "1 pound 1 point"."""
    s = _spending("kpr2/1", cash=1)
    s = do(s, "pounds")
    assert s.players[0].cash == 3
    assert s.decision == engine.Decision("action", 1)


def test_points_can_be_split_between_a_book_and_pounds() -> None:
    """actions.txt, Books and bookkeeping points: "Split them as you like". 2 points: an
    A-book (1) and a pound (1)."""
    s = _spending("kpr2/1", cash=1)
    a_book = s.book_display[bspace(s, "2.1")]
    s = do(s, "take 2.1", "pounds")
    assert s.players[0].cash == 2
    assert (s.decision.kind, s.decision.player) == ("place-book", 0)
    s = do(s, f"place {s.cat.books[a_book].name} 1")
    assert s.players[0].books[1] == (a_book,)


def test_coin_under_a_book_comes_with_it() -> None:
    """actions.txt, Books and bookkeeping points: "A coin lying under a book in the
    display comes with it"."""
    s = _spending("kpr2/1", cash=1)
    coins = list(s.book_coins)
    coins[bspace(s, "2.1")] = 1
    s = with_state(s, book_coins=tuple(coins))
    s = do(s, "take 2.1")
    assert s.players[0].cash == 2
    assert s.book_coins[bspace(s, "2.1")] == 0


def test_book_display_is_refilled_from_the_matching_letter() -> None:
    """actions.txt, Placing books, 2: "Refill the display from the face-down pile of the
    matching letter." After an A-book and a B-book are taken, the chance events draw an
    A-book for 2.1 and a B-book for 4.1."""
    s = _spending("kpr2/1")
    taken = [s.book_display[bspace(s, "2.1")], s.book_display[bspace(s, "4.1")]]
    s = do(s, "take 2.1", "take 4.1")
    for b in taken:
        s = do(s, f"place {s.cat.books[b].name} {1 + taken.index(b)}", chance=False)
    draws = []
    while s.decision.kind == "chance":
        outcomes = s.legal_steps()
        space = outcomes[0].b
        assert {o.b for o in outcomes} == {space}
        letters = {s.cat.books[o.a].letter for o in outcomes}
        draws.append((s.cat.book_space_name(space), letters))
        s = s.apply(s.sample_chance())
    assert draws == [("2.1", {"A"}), ("4.1", {"B"})]
    assert s.decision == engine.Decision("action", 1)


def test_points_received_in_one_turn_are_pooled() -> None:
    """rules-decisions.md, Bookkeeping points: "several rewards received in one turn are
    pooled". Cairo enters SAH (1 point) and SIW (1 point): the 2 pooled points buy a
    C-book, which neither reward could buy alone."""
    s = at_action(with_area(start(), 0, "exp2/1", "one/1"), 0)
    s = do(s, "expand CAI", "enter HOG 1", "enter SAH 1", "enter SIW 1")
    assert s.pool == 2
    assert "6.1" in _takes(s)
    s = do(s, "take 6.1")
    assert (s.decision.kind, s.decision.player) == ("place-book", 0)


def test_a_book_may_not_go_on_an_empty_crossed_out_a_space() -> None:
    """actions.txt, Placing books, 1: "an A-book may not go on an empty space showing a
    crossed-out A". Spaces 9-12 show one; an A-book is offered spaces 1-8 only, a
    B-book all twelve."""
    s = _spending("kpr2/1")
    assert s.cat.crossed_a == frozenset({9, 10, 11, 12})
    a_book = s.cat.books[s.book_display[bspace(s, "2.1")]].name
    b_book = s.cat.books[s.book_display[bspace(s, "4.1")]].name
    a = do(s, "take 2.1", "pounds")
    assert {int(t.split()[2]) for t in texts(a)} == set(range(1, 9))
    assert all(t.startswith(f"place {a_book} ") for t in texts(a))
    b = do(s, "take 4.1", "pounds")
    assert {int(t.split()[2]) for t in texts(b)} == set(range(1, 13))
    assert all(t.startswith(f"place {b_book} ") for t in texts(b))


def test_no_a_book_can_be_taken_when_it_could_not_be_placed() -> None:
    """actions.txt, Placing books, 1: an A-book may not go on an empty crossed-out-A
    space nor cover a B- or C-book. With spaces 1-8 topped by B-books and 9-12 empty
    crossed-out-A spaces, no A-book is offered; B- and C-books are."""
    s = _spending("kpr2/1")
    shown = set(s.book_display)
    spare = [b.name for b in s.cat.books if b.letter == "B" and b.index not in shown][:8]
    s = set_books(s, 0, {k + 1: [name] for k, name in enumerate(spare)})
    letters = {s.cat.book_space_letter[bspace(s, sp)] for sp in _takes(s)}
    assert letters == {"B", "C"}


def test_a_book_may_not_cover_a_b_or_c_book() -> None:
    """actions.txt, Placing books, 1: "you may cover a book with a new one, but never
    cover a B- or C-book with an A-book". Track: 1 B01, 2 C11, 3 A01. An A-book may go on
    A01 (3) but not on B01 (1) nor C11 (2); a B-book may cover any of them."""
    s = _spending("kpr2/1")
    s = set_books(s, 0, {1: ["B01"], 2: ["C11"], 3: ["A01"]})
    a = do(s, "take 2.1", "pounds")
    spaces = {int(t.split()[2]) for t in texts(a)}
    assert 3 in spaces
    assert not spaces & {1, 2}
    b = do(s, "take 4.1", "pounds")
    assert {1, 2, 3} <= {int(t.split()[2]) for t in texts(b)}


def test_a_placed_book_stays_and_can_be_covered() -> None:
    """actions.txt, Placing books, 1: "a placed book cannot be removed (only flipped);
    you may cover a book with a new one". A B-book placed on A01 lies on top of it."""
    s = set_books(_spending("kpr2/1"), 0, {1: ["A01"]})
    b_book = s.book_display[bspace(s, "4.1")]
    s = do(s, "take 4.1", "pounds", f"place {s.cat.books[b_book].name} 1")
    assert s.players[0].books[1] == (book(s, "A01"), b_book)


@pytest.mark.parametrize("ink", [0, 11])
def test_bookkeeper_points_spent_after_moving(ink: int) -> None:
    """actions.txt, Moving the ink jar, 4: "Then spend the bookkeeping points of the
    bookkeeper card and turn it face down." The card is face down afterwards."""
    s = _spending("kpr2/1", ink=ink)
    s = do(s, "pounds")
    assert s.players[0].used == cards(s, "kpr2/1")
    assert s.decision == engine.Decision("action", 1)


def test_illegal_take_leaves_state_untouched() -> None:
    """steps notation: a C-book with 1 point is refused with IllegalStep (actions.txt,
    bookkeeping point costs) and the state is unchanged."""
    s = _spending("T-keeper", tiles=cards(start(), "T-keeper"))
    before = s.key()
    with pytest.raises(engine.IllegalStep):
        s.apply(step(s, "take 6.1"))
    assert s.key() == before
    assert resolve_chance(s) is s


def test_book_display_space_stays_empty_when_its_pile_runs_out() -> None:
    """actions.txt, Placing books, 2: "If a pile runs out, its spaces stay empty." With
    no A-book left face down, book space 2.1 stays empty after its book is taken."""
    s = _spending("kpr2/1")
    a_books = sum(1 << b.index for b in s.cat.books if b.letter == "A")
    s = with_state(s, book_supply=s.book_supply & ~a_books)
    a_book = s.book_display[bspace(s, "2.1")]
    s = do(s, "take 2.1", "pounds", f"place {s.cat.books[a_book].name} 1", chance=False)
    assert s.decision == engine.Decision("action", 1)
    assert s.book_display[bspace(s, "2.1")] == -1


def test_card_tiles_count_for_book_needs() -> None:
    """rules-decisions.md, Bonus tiles: "card tiles count as cards of their type
    everywhere (majorities, book needs)". A04 needs 1 helmet: the expansion tile (2)
    alone meets it."""
    s = _keeper("kpr2/1", books={1: ["A04"]}, cash=0,
                tiles=cards(start(), "T-expand"))
    assert s.cat.books[book(s, "A04")].needs == ((3, 1),)
    s = do(s, "keeper kpr2/1")
    assert (s.decision.kind, s.decision.player) == ("ink-jar", 0)
    s = do(s, "ink")
    assert s.players[0].ink == 1


def test_a_book_may_go_on_any_space_even_behind_the_ink_jar() -> None:
    """actions.txt, Placing books, 1: "Put each new book on a space of your bookkeeping
    track. Any space is allowed, but: an A-book may not go on an empty space showing a
    crossed-out A; ... never cover a B- or C-book with an A-book." rulebook.txt: "you may
    place each book onto any space of the track". With the ink jar on space 11 and a
    B-book on space 12, an A-book (here with a coin under it) can still be taken and
    placed on an A-book behind the jar (space 1 holds A01), or on an empty space that
    shows no crossed-out A (spaces 2-8 are empty)."""
    s = _spending("kpr2/1", ink=11, cash=0)
    s = set_books(s, 0, {1: ["A01"], 9: ["B01"], 10: ["B02"], 11: ["B03"], 12: ["B04"]})
    coins = list(s.book_coins)
    coins[bspace(s, "2.1")] = 1
    s = with_state(s, book_coins=tuple(coins))
    assert "2.1" in _takes(s)
    s = do(s, "take 2.1", "pounds")
    assert s.players[0].cash == 1 + 1
    spaces = {int(t.split()[2]) for t in texts(s)}
    assert {1, 2, 8} <= spaces
    assert 12 not in spaces
