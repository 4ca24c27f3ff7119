"""Game setup (rulebook.txt, "Setup" steps 3-14 and "Setup of subsequent games").

The first-game setup deals the card and book displays by chance events; each player then
puts the 3 cards of the starting tile into the resting slots (a decision) and receives
the tile's starting bonus.
"""

from __future__ import annotations

import pytest

import engine
from tests.builders import play_setup, resolve_chance, texts


def test_card_display_first_column_shows_a_then_b_cards() -> None:
    """rulebook.txt, Setup 5: "First fill the 4 spaces of the right column from top to
    bottom ..., then ... the middle column and finally ... the left column. ... the card
    in the top space of the left column should be a card of letter A, while the 3 cards
    below it should show letter B." The chance events deal R1..R4, M1..M4, L1..L4."""
    s = engine.new_game(players=2, seed=3)
    order = []
    while s.decision.kind == "chance" and s.legal_steps()[0].kind == "deal-card":
        outcome = s.sample_chance()
        order.append(s.cat.display_space_name(outcome.b))
        s = s.apply(outcome)
    assert order == ["R1", "R2", "R3", "R4", "M1", "M2", "M3", "M4",
                     "L1", "L2", "L3", "L4"]
    letters = {sp: s.cat.cards[s.display[s.cat.display_space_index(sp)]].letter
               for sp in order}
    assert [letters[sp] for sp in ("L1", "L2", "L3", "L4")] == ["A", "B", "B", "B"]
    assert all(letters[sp] == "A" for sp in order[:8])


def test_book_display_holds_4_books_of_each_letter() -> None:
    """rulebook.txt, Setup 8: "fill the 12 spaces of the book display by revealing 4
    tiles of each letter and placing each face up onto a book space of its letter"."""
    s = resolve_chance(engine.new_game(players=2, seed=0))
    for k, b in enumerate(s.book_display):
        assert b >= 0
        assert s.cat.books[b].letter == s.cat.book_space_letter[k]
    assert sorted(s.cat.books[b].letter for b in s.book_display) == ["A"] * 4 + ["B"] * 4 + \
        ["C"] * 4


@pytest.mark.parametrize(("players", "markers"), [(2, 3), (3, 2), (4, 2)])
def test_players_start_with_1_pound_and_their_bonus_markers(players: int, markers: int) -> None:
    """rulebook.txt, Setup 10: "1 pound from the bank" and "2 players: Each player
    receives 3 bonus markers. 3- or 4-players: Each player receives 2 bonus markers."
    Setup 12: each hand is 10 cards with the seat's "1"-expansion card; Setup 14.3: 3 of
    them go to the resting slots."""
    s = play_setup(players, 0)
    for seat, p in enumerate(s.players):
        assert p.cash == 1
        assert p.markers == markers
        assert p.hand.bit_count() == 7
        assert [len(d) for d in p.resting] == [0, 1, 1, 1, 0]
        one = s.cat.card_index(f"one/{seat + 1}")
        assert (p.hand >> one) & 1 or any(one in d for d in p.resting)


def test_resting_cards_are_the_starting_tile_cards_in_any_order() -> None:
    """rulebook.txt, Setup 14.3: "From his starting hand, he finds the 3 cards indicated
    by the 3 icons in the left corner of his starting tile. He places these cards face up
    ..., each card in one of the 3 colored resting slots (in any order)." First game,
    seat 1 has tile 1 (cof1, ban1, exp2): the 6 orders are offered."""
    s = engine.new_game(players=2, seed=0)
    s = resolve_chance(s)
    assert s.decision == engine.Decision("resting-cards", 0)
    assert len(s.legal_steps()) == 6
    s = s.apply(engine.Step.parse("rest exp2/1 cof1/1 ban1/1", s.cat))
    c = s.cat.card_index
    assert s.players[0].resting[1:4] == ((c("exp2/1"),), (c("cof1/1"),), (c("ban1/1"),))


def test_starting_bonus_is_received() -> None:
    """rulebook.txt, Setup 14.4: "He receives his starting bonus." First game: tile 1
    (seat 1) moves Cairo 2, tile 3 (seat 2; ``first_game_tiles``, docs/catalogue.md) moves
    Cape Town 2."""
    s = play_setup(2, 0)
    assert s.players[0].track == (0, 0, 0, 2)
    assert s.players[1].track == (0, 2, 0, 0)
    assert s.players[0].ink == 0 and s.players[0].diamond == 0


def test_variable_setup_deals_two_tiles_and_each_player_keeps_one() -> None:
    """rulebook.txt, Setup of subsequent games, 13: "Shuffle the 10 starting tiles and
    deal each player 2 face-down tiles ... Each player looks at his 2 tiles, secretly
    chooses one of them". Step 2: each company gets a track of a different card."""
    s = resolve_chance(engine.new_game(players=3, seed=4, variable=True))
    assert s.decision == engine.Decision("starting-tile", 0, seats=(0, 1, 2))
    dealt = [p.tile_options for p in s.players]
    assert all(len(d) == 2 for d in dealt)
    assert len({t for d in dealt for t in d}) == 6
    assert len(texts(s)) == 2
    assert len({t // 2 for t in s.tracks}) == 4
