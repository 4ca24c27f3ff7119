"""Step and move notation: text and JSON round trips, grouping into moves, bad input.

Every legal step of many random positions must satisfy
``Step.parse(step.text(cat), cat) == step`` and
``Step.from_json(step.to_json(cat), cat) == step`` (also through ``json.dumps``); moves
built by :func:`engine.group_moves` from a game's history round-trip the same way and
replay the game; text that does not name a step raises :class:`engine.NotationError`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import (
    Move,
    NotationError,
    Step,
    apply_move,
    group_moves,
)
from engine.state import OVER, State
from engine.steps import KINDS
from tests.random_games import MAX_STEPS, PROPERTY, SEEDS, policy

CAT = engine.default_catalogue()


def play(players: int, seed: int, variable: bool, biased: bool
         ) -> Iterator[tuple[State, Step]]:
    """(state, step taken) for every step of one random game."""
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rng = random.Random(seed)
    for _ in range(MAX_STEPS):
        if s.phase == OVER:
            return
        step = policy(s, rng, biased)
        yield s, step
        s = s.apply_unchecked(step)
    raise AssertionError(f"{players}p seed={seed}: the game does not end")


def check_step(step: Step) -> None:
    text = step.text(CAT)
    assert Step.parse(text, CAT) == step, text
    assert Step.parse(text) == step, text  # the default catalogue
    assert Step.parse(f"  {text.replace(' ', '   ')} ", CAT) == step, "spacing matters"
    js = step.to_json(CAT)
    assert js["kind"] == step.kind
    assert set(js) == {"kind"} | {name for name, _ in KINDS[step.kind]}
    assert Step.from_json(js, CAT) == step, js
    wire = json.dumps(js)
    assert Step.from_json(json.loads(wire), CAT) == step, wire
    assert json.loads(wire) == js


# -- steps ------------------------------------------------------------------------------

@settings(PROPERTY, max_examples=25)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans(),
       biased=st.booleans())
def test_every_legal_step_round_trips(seed: int, players: int, variable: bool,
                                      biased: bool) -> None:
    for s, _ in play(players, seed, variable, biased):
        for step in s.legal_steps():
            check_step(step)


def test_round_trips_cover_every_step_kind() -> None:
    seen: set[str] = set()
    for seed in range(30):
        for s, _ in play(2 + seed % 3, seed, seed % 2 == 0, True):
            for step in s.legal_steps():
                if step.kind not in seen:
                    check_step(step)
                    seen.add(step.kind)
    missing = set(KINDS) - seen
    # Track-bonus spaces and reward-order decisions are rare in random games; every
    # other kind shows up.
    assert missing <= {"track-bonus", "remove-post", "reward-order"}, missing
    for first in (0, 1):
        check_step(Step("reward-order", first))
    for index in (b.index for b in CAT.bonus_spaces if b.kind == "track"):
        check_step(Step("track-bonus", index))
    for c in range(len(CAT.companies)):
        for col in range(CAT.base_columns):
            check_step(Step("remove-post", c, col))


def test_canonical_examples() -> None:
    assert Step("unit", CAT.company_index("CAI")).text(CAT) == "unit CAI"
    assert Step("end", -1).text(CAT) == "end -"
    assert Step("end", 2).text(CAT) == "end 3"
    assert Step.parse("end -", CAT) == Step("end", -1)
    assert Step("ready").to_json(CAT) == {"kind": "ready"}
    assert Step.from_json({"kind": "end", "deck": "-"}, CAT) == Step("end", -1)
    assert Step.from_json({"kind": "end", "deck": 2}, CAT) == Step("end", 1)


# -- moves ------------------------------------------------------------------------------

def _history(players: int, seed: int, variable: bool, biased: bool
             ) -> tuple[State, list[tuple[int, Step]], State]:
    start = engine.new_game(players=players, seed=seed, variable=variable)
    history: list[tuple[int, Step]] = []
    end = start
    for s, step in play(players, seed, variable, biased):
        history.append((s.decision.player, step))
        end = s.apply_unchecked(step)
    return start, history, end


@settings(PROPERTY, max_examples=25)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans(),
       biased=st.booleans())
def test_grouped_moves_cover_the_history(seed: int, players: int, variable: bool,
                                         biased: bool) -> None:
    _, history, _ = _history(players, seed, variable, biased)
    moves = group_moves(history)
    assert [st for m in moves for st in m.steps] == [st for _, st in history]
    flat = [(m.player, st) for m in moves for st in m.steps]
    assert flat == history
    for a, b in zip(moves, moves[1:], strict=False):
        assert a.player != b.player or a.player < 0, "one decider's steps split in two"
    for m in moves:
        assert m.steps
        if m.player < 0:
            assert len(m.steps) == 1, "every chance event is a move of its own"


@settings(PROPERTY, max_examples=25)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans(),
       biased=st.booleans())
def test_player_moves_round_trip(seed: int, players: int, variable: bool,
                                 biased: bool) -> None:
    _, history, _ = _history(players, seed, variable, biased)
    for m in group_moves(history):
        if m.player < 0:
            continue
        assert Move.parse(m.player, m.text(CAT), CAT) == m
        js = m.to_json(CAT)
        assert js["player"] == m.player + 1
        assert Move.from_json(js, CAT) == m
        assert Move.from_json(json.loads(json.dumps(js)), CAT) == m


@pytest.mark.parametrize("players", [2, 3, 4])
def test_chance_moves_round_trip(players: int) -> None:
    """group_moves makes every chance event a move of player -1: it must survive the
    text and JSON forms like any other move."""
    _, history, _ = _history(players, 7, True, False)
    chance = [m for m in group_moves(history) if m.player < 0]
    assert chance
    for m in chance:
        assert Move.parse(m.player, m.text(CAT), CAT) == m
        assert Move.from_json(json.loads(json.dumps(m.to_json(CAT))), CAT) == m


@pytest.mark.parametrize(("players", "variable"), [(2, False), (3, True), (4, False)])
def test_moves_replay_the_game(players: int, variable: bool) -> None:
    """apply_move over the grouped moves (chance moves included) reproduces the game."""
    start, history, end = _history(players, 11, variable, True)
    s = start
    for m in group_moves(history):
        s = apply_move(s, m)
    assert s == end


@pytest.mark.parametrize(("players", "variable"), [(2, False), (3, True), (4, True)])
def test_player_moves_replay_the_game(players: int, variable: bool) -> None:
    """apply_move with complete turns for the players' moves reproduces the game."""
    start, history, end = _history(players, 12, variable, True)
    s = start
    for m in group_moves(history):
        s = apply_move(s, m, complete=m.player >= 0)
    assert s == end


def test_move_text_examples() -> None:
    m = Move.parse(0, "rest cof1/1 ban1/1 exp1/1;  ready ;", CAT)
    assert m.player == 0 and len(m.steps) == 2
    assert m.text(CAT) == "rest cof1/1 ban1/1 exp1/1; ready"
    assert m.to_json(CAT) == {"player": 1, "steps": [
        {"kind": "rest", "card1": "cof1/1", "card2": "ban1/1", "card3": "exp1/1"},
        {"kind": "ready"}]}


# -- bad input --------------------------------------------------------------------------

BAD_TEXT = [
    "",
    "   ",
    "fly",
    "READY",
    "unit",
    "unit XYZ",
    "unit cai",
    "unit CAI CAP",
    "ready now",
    "plan nosuchcard 1",
    "plan cof1/1",
    "plan cof1/1 x",
    "plan cof1/1 1.0",
    "goods cof1/1+nosuch",
    "goods ",
    "enter NOPE 1",
    "buy Z9",
    "buy L0",
    "buy L9",
    "take 9.9",
    "take 2.0",
    "majority coffee 99",
    "majority nowhere 1",
    "place Z99 3",
    "tile 999",
    "end x",
    "deal-tile X1 3",
    "deal-tile Pone 3",
    "deal-track MOM Z9",
    "track-bonus Z9@1",
]


@pytest.mark.parametrize("text", BAD_TEXT)
def test_bad_text_raises_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        Step.parse(text, CAT)


# Numbers outside the catalogue's ranges (slots 1..5, columns 1..3, decks 1..5 or "-",
# seats P1..P4, bookkeeping spaces 1..12) read as steps that do not exist; "end 0" even
# reads as "end -" (take no resting deck).
OUT_OF_RANGE = [
    "end 0",
    "end -1",
    "end 6",
    "plan cof1/1 0",
    "plan cof1/1 9",
    "enter KAS 0",
    "enter KAS 4",
    "return 0",
    "remove-post CAI 0",
    "deal-tile P0 1",
    "deal-tile P9 1",
    "place A01 -1",
    "place A01 99",
    "flip -3",
]


def test_out_of_range_numbers_raise_notation_error() -> None:
    accepted = []
    for text in OUT_OF_RANGE:
        try:
            step = Step.parse(text, CAT)
        except NotationError:
            continue
        accepted.append(f"{text!r} -> {step} (written {step.text(CAT)!r})")
    assert not accepted, "out-of-range numbers accepted:\n" + "\n".join(accepted)


BAD_JSON: list[Any] = [
    None,
    "ready",
    [],
    {},
    {"kind": "fly"},
    {"kind": "unit"},
    {"kind": "unit", "company": "XYZ"},
    {"kind": "unit", "company": 3},
    {"kind": "unit", "company": "CAI", "extra": 1},
    {"kind": "goods", "cards": "cof1/1"},
    {"kind": "goods", "cards": [1, 2]},
    {"kind": "goods", "cards": ["cof1/1", "nosuch"]},
    {"kind": "plan", "card": "cof1/1", "slot": "x"},
    {"kind": "end", "deck": "x"},
]


@pytest.mark.parametrize("obj", BAD_JSON, ids=[json.dumps(o) for o in BAD_JSON])
def test_bad_json_raises_notation_error(obj: Any) -> None:
    with pytest.raises(NotationError):
        Step.from_json(obj, CAT)


@pytest.mark.parametrize("text", ["", " ; ;", "ready; fly", "unit CAI; unit"])
def test_bad_move_text_raises_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        Move.parse(0, text, CAT)


@pytest.mark.parametrize("obj", [
    None, [], {"player": 1}, {"steps": [{"kind": "ready"}]},
    {"player": 1, "steps": []}, {"player": 1, "steps": "ready"},
    {"player": "1", "steps": [{"kind": "ready"}]},
    {"player": 1, "steps": [{"kind": "fly"}]},
], ids=["null", "list", "no-steps", "no-player", "empty-steps", "steps-string",
        "player-string", "bad-step"])
def test_bad_move_json_raises_notation_error(obj: Any) -> None:
    with pytest.raises(NotationError):
        Move.from_json(obj, CAT)


def test_notation_error_is_a_value_error() -> None:
    assert issubclass(NotationError, ValueError)


@pytest.mark.parametrize("text", ["plan cof1/1 +1", "end 0_1", "end \u0663", "enter KAS -1"])
def test_only_plain_decimal_numbers_parse(text: str) -> None:
    """Numbers in the notation are plain ASCII digits, as Step.text writes them."""
    with pytest.raises(engine.NotationError, match="plain number"):
        engine.Step.parse(text)
