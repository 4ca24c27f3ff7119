"""Rounds, planning and the end of the action phase (rounds-and-planning.txt,
"Planning phase", "Action slots and resting slots", "General action phase", "End of
your action phase"; rulebook.txt, "I. Planning Phase", "6. End your own action phase",
"End of the Game"; rules-decisions.md, "End of own action phase").

Seed 0, two players. After setup P1 (seat 0) has resting decks 2: cof1/1, 3: ban1/1,
4: exp2/1 (slots are numbered 1-5 in the notation, 2-4 being the three base slots) and
holds cof2/1 ban2/1 cot1/1 cot2/1 exp1/1 kpr2/1 one/1.
"""

from __future__ import annotations

import pytest

import engine
from tests.builders import (
    cards,
    do,
    end_turns,
    names,
    plan,
    play_setup,
    start,
    step,
    texts,
    with_player,
)


def test_three_action_slots_at_the_start() -> None:
    """rounds-and-planning.txt, Planning phase: "You start with 3 action slots, so you
    play up to 3 cards." Only slots 2-4 are offered; slots 1 and 5 are still closed."""
    s = play_setup(2, 0)
    slots = {int(t.split()[2]) for t in texts(s) if t.startswith("plan ")}
    assert slots == {2, 3, 4}


def test_one_card_per_slot_and_fewer_cards_allowed() -> None:
    """rounds-and-planning.txt, Planning phase: "one card per slot ... You may always
    play fewer." After a card in slot 4 no further slot is open, and ``ready`` is always
    offered."""
    s = play_setup(2, 0)
    assert "ready" in texts(s)
    s = do(s, "plan cof2/1 4")
    assert texts(s) == {"ready"}
    s = do(s, "ready")
    assert (s.decision.kind, s.decision.player) == ("plan", 1)


def test_planned_cards_leave_the_hand_and_are_revealed_together() -> None:
    """rounds-and-planning.txt, Planning phase: "Place cards face down from your hand ...
    When everyone is done, turn all placed cards face up." The action phase begins with
    the first player once everybody is ready."""
    s = plan(play_setup(2, 0), {0: ["cof2/1", "kpr2/1"], 1: ["cof2/2"]})
    assert s.revealed
    assert s.decision == engine.Decision("action", 0)
    p = s.players[0]
    assert names(s, p.hand & cards(s, "cof2/1", "kpr2/1")) == []
    assert p.slots[1] == s.cat.card_index("cof2/1")
    assert p.slots[2] == s.cat.card_index("kpr2/1")


def test_single_share_cards_cannot_be_planned() -> None:
    """rulebook.txt, Preparation (share cards): "a single share card remains in the hand
    of its player till the final scoring phase. It can never be placed in an action
    slot." D1 in hand is never offered for a slot, and planning it is refused."""
    s = play_setup(2, 0)
    s = with_player(s, 0, hand=s.players[0].hand | cards(s, "D1"))
    assert not any(t.startswith("plan D1 ") for t in texts(s))
    with pytest.raises(engine.IllegalStep):
        s.apply(step(s, "plan D1 2"))


def test_end_takes_one_resting_deck_then_area_cards_move_up() -> None:
    """rounds-and-planning.txt, End of your action phase: "1. Pick up one resting deck
    into your hand. 2. Clean up: turn the cards in your action area face up and move each
    up to the resting deck of its slot." cof2/1 in slot 2 and kpr2/1 in slot 3 (used):
    taking deck 2 (cof1/1) leaves deck 2 = cof2/1 and deck 3 = ban1/1, kpr2/1."""
    s = plan(play_setup(2, 0), {0: ["cof2/1", "kpr2/1"]})
    s = do(s, "keeper kpr2/1", "pounds")
    assert s.players[0].used
    s = do(s, "end 2")  # P2 (nothing planned) ends
    assert s.decision == engine.Decision("action", 0)
    s = do(s, "end 2")
    p = s.players[0]
    c = s.cat.card_index
    assert (p.hand >> c("cof1/1")) & 1
    assert p.resting[1] == (c("cof2/1"),)
    assert p.resting[2] == (c("ban1/1"), c("kpr2/1"))
    assert p.resting[3] == (c("exp2/1"),)
    assert p.slots == (-1,) * len(p.slots)
    assert p.used == 0
    assert s.round == 2  # both players have ended: the next round has begun


def test_end_must_take_a_resting_deck_when_there_is_one() -> None:
    """rounds-and-planning.txt, End of your action phase, 1: "Pick up one resting deck
    into your hand." Only non-empty decks are offered, and exactly one is taken."""
    s = start()
    ends = {t for t in texts(s) if t.startswith("end")}
    assert ends == {"end 2", "end 3", "end 4"}
    s = do(s, "end 3")
    p = s.players[0]
    assert p.resting[1] and not p.resting[2] and p.resting[3]


def test_players_who_ended_are_skipped() -> None:
    """rounds-and-planning.txt, End of your action phase: "You are out of the general
    action phase for this round; the others go on without you." After P1 ends, P2 takes
    every following turn."""
    s = plan(play_setup(2, 0), {1: ["cof2/2", "ban1/2"]})
    s = do(s, "end 2")
    assert s.decision == engine.Decision("action", 1)
    s = do(s, "goods ban1/2", "nobuy", "unit MOM")
    assert s.decision == engine.Decision("action", 1)


def test_round_moves_to_preparation_when_the_last_player_ends() -> None:
    """rounds-and-planning.txt, End of your action phase: "When the last player ends, the
    round moves to Preparation." Then the next round starts with Planning."""
    s = do(start(), "end 2", chance=False)
    assert s.decision == engine.Decision("action", 1)
    s = do(s, "end 2", chance=False)
    assert s.decision.kind == "chance"  # Preparation: the display is refilled
    s = end_turns(s)
    assert s.round == 2
    assert (s.decision.kind, s.decision.player) == ("plan", 0)


def test_game_ends_after_the_action_phase_of_round_7() -> None:
    """rounds-and-planning.txt: "Mombasa lasts 7 rounds ... After the general action
    phase of round 7 comes the final scoring." No Preparation follows round 7."""
    s = start()
    for rnd in range(1, 8):
        assert s.round == rnd
        s = end_turns(s)
        if rnd < 7:
            s = plan(s, {})
    assert s.is_over()
    assert s.round == 7
    assert s.decision.kind == "over"
    assert s.legal_steps() == []
