"""Rules at their edges, where a one-line change in ``engine/rules`` survived the rules
tests (issue 51, the mutation run of docs/testing.md): a book's need met exactly, books
behind the ink jar, and the +1 tile once used.

Books used (shipped catalogue): B04 needs 2 coffee; A01 1 coffee; A02 1 banana.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine.rules import run_automatic
from engine.tables import tables
from tests.builders import at_action, do, set_books, start, texts, with_area


def _keeper(*area_cards: str, books: dict[int, list[str]], **fields: object
            ) -> engine.State:
    s = with_area(start(), 0, *area_cards, **fields)
    return at_action(set_books(s, 0, books), 0)


def test_a_need_met_exactly_lets_the_ink_jar_in() -> None:
    """actions.txt, Moving the ink jar, 2: "you must meet each of its needs": 2 coffee
    face up meet B04's 2 coffee (not only more than 2)."""
    s = do(_keeper("kpr2/1", "cof2/1", books={1: ["B04"]}, cash=1), "keeper kpr2/1")
    assert (s.decision.kind, s.decision.player) == ("ink-jar", 0)
    assert texts(s) == {"ink", "halt"}
    s = do(s, "ink")
    assert s.players[0].ink == 1


def test_only_books_ahead_of_the_ink_jar_can_be_flipped() -> None:
    """actions.txt, Moving the ink jar, 1: the flip is for a book on the way ahead; the
    books on the spaces the jar has passed (1) or stands on (2) are not offered."""
    s = _keeper("kpr2/1", books={1: ["A01"], 2: ["A02"], 3: ["B04"], 5: ["A01"]},
                cash=5, ink=2)
    s = do(s, "keeper kpr2/1")
    assert (s.decision.kind, s.decision.player) == ("bookkeeper-flip", 0)
    assert texts(s) == {"noflip", "flip 3", "flip 5"}


def test_the_plus1_tile_once_used_offers_nothing() -> None:
    """rulebook, bonus tiles: the +1 tile is laid on a goods card once; turned face down
    (used) it offers no more "plus1" steps, while face up it offers one per goods card."""
    s = start()
    plus1 = 1 << tables(s.cat).plus1_card
    up = at_action(with_area(s, 0, "cof2/1", "ban2/1", tiles=plus1), 0)
    assert {t for t in texts(up) if t.startswith("plus1")} == {"plus1 cof2/1",
                                                               "plus1 ban2/1"}
    used = at_action(with_area(s, 0, "cof2/1", "ban2/1", tiles=plus1, used=plus1), 0)
    assert not any(t.startswith("plus1") for t in texts(used))


def test_illegal_steps_say_why() -> None:
    """The refusals name the decision and the reason: a step of a kind not asked for
    lists the legal kinds; a majority refused says who has more (coffee 2 against 3,
    while the bananas majority is open)."""
    s = at_action(with_area(with_area(start(), 0, "cof2/1", "ban2/1"), 1, "cof2/2",
                            "cof1/2"), 0)
    with pytest.raises(engine.IllegalStep) as err:
        s.apply(engine.Step("ready"))
    kinds = sorted({x.kind for x in s.legal_steps()})
    assert str(err.value).endswith(f"legal step kinds here: {', '.join(kinds)}")
    majority = engine.Step.parse("majority coffee 1", s.cat)
    assert majority not in s.legal_steps()
    with pytest.raises(engine.IllegalStep) as err:
        s.apply(majority)
    assert str(err.value).endswith(
        "another player has more of that type face up, or your total is below the line")


def test_nothing_is_due_at_a_player_decision_or_after_the_end() -> None:
    s = start()
    with pytest.raises(engine.IllegalStep, match="^no chance event is due$"):
        s.chance_outcomes()
    rng = random.Random(2)
    while not s.is_over():
        s = s.apply_unchecked(s.random_step(rng))
    with pytest.raises(engine.IllegalStep, match="^no chance event is due$"):
        s.chance_outcomes()
    with pytest.raises(engine.IllegalStep, match="^the game is over$"):
        s.apply(engine.Step("end"))


def test_turns_pass_clockwise_among_three() -> None:
    """rulebook, Action phase: play goes clockwise: P1, P2, P3, skipping those who
    have ended."""
    s = start(3, 0)
    assert s.decision.player == 0
    s = do(s, next(t for t in texts(s) if t.startswith("end")))
    assert (s.decision.kind, s.decision.player) == ("action", 1)
    s = do(s, next(t for t in texts(s) if t.startswith("end")))
    assert (s.decision.kind, s.decision.player) == ("action", 2)


def test_an_ousted_post_returns_to_a_column_with_room() -> None:
    """An ousted post goes back to its company's base, on a column with room
    (engine.rules.expansion): a column holds 5 posts, one whose rear space is gone
    (DEAD) only 4. Cape Town's columns hold 4 (room), 5 (full) and 4 of 4 (dead)."""
    from engine.rules.expansion import _return_columns
    from engine.state import DEAD
    from tests.builders import company, set_base

    s = start()
    cap = company(s, "CAP")
    s = set_base(s, "CAP", (4, 5, 4 | DEAD))
    assert _return_columns(s, cap) == [0]
    s = set_base(s, "CAP", (3, 5, 3 | DEAD))
    assert _return_columns(s, cap) == [0, 2]


def test_a_share_card_is_never_planned() -> None:
    """rulebook, Planning: single-share cards never go into a slot; the refusal says so."""
    from tests.builders import cards, play_setup, with_player

    s = play_setup(2, 0)
    planner = s.decision.player
    s = with_player(s, planner, hand=s.players[planner].hand | cards(s, "D1"))
    with pytest.raises(engine.IllegalStep) as err:
        s.apply(engine.Step.parse("plan D1 1", s.cat))
    assert str(err.value).endswith("single-share cards are never placed in a slot")


def test_an_empty_book_pile_skips_only_its_refill() -> None:
    """rulebook.txt, the bookkeeper action, 2: "Fill each empty space of the book display
    with a face-up book tile that you draw from the book supply of the appropriate
    letter"; with that letter's supply empty the space stays empty (docs/rules.md,
    forced outcomes: a chance event with nothing to draw) and the refill is skipped: only
    it, never the work queued after it. Checked at every refill with work behind it in
    seeded games (caught: the skip dropping two entries)."""
    found = 0
    for seed in range(40):
        s = engine.new_game(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not s.is_over() and found < 20:
            if s.todo[0][0] == "c_book" and len(s.todo) >= 2:
                letter = s.cat.book_space_letter[s.todo[0][2]]
                empty = s.clone()
                empty.book_supply &= ~tables(s.cat).letter_books[letter]
                skipped = empty.clone()
                skipped.todo = skipped.todo[1:]
                run_automatic(empty)
                run_automatic(skipped)
                assert empty.todo == skipped.todo and empty == skipped
                found += 1
            s = s.apply_unchecked(s.random_step(rng))
    assert found == 20
