"""The evaluator (``search.evaluator``) on positions whose value follows exactly from its
definition: the hand formula term by term (distinct weights, so that a weight used for
another term, a wrong count or a wrong round shows), the learned model as the dot product
of the model file's bucket weights with the feature row, the tempo, the win utilities,
the rounds left, and invariance under relabelling the seats (issue 51).

The position is ``tests/test_features.py``'s (P1's board described there).
"""

from __future__ import annotations

import json
import math
import random

import pytest

import engine
from engine.state import ACTIONS, OVER, PLANNING, SETUP, State
from search.evaluator import (
    DEFAULT_WEIGHTS,
    Weights,
    book_run,
    estimate_money,
    evaluate,
    money_estimate,
    rounds_left,
    terminal_utilities,
    win_utilities,
)
from search.features import bucket, player_features
from tests.builders import cards, play_setup, start, with_area, with_player, with_state
from tests.test_features import MODEL_FILE, built

# Weights all different (and unlike the defaults) so each term is told apart.
W = Weights(share_growth_per_round=1.3, round_unit=0.11, future_unit=0.07, book_run=0.013,
            book_ahead=0.0017, track_progress=0.37, win_scale=4.0)


DIAMOND_VALUE = {3: 3, 4: 5, 6: 8}
# ink space -> (its value, the run's value after it, books ahead beyond the run)
INK = {2: (6, 23 - 6, 5 - 4),  # books on 3-6 and 8
       5: (18, 23 - 18, 2 - 1)}  # 6 then a gap, 8


def expected_p1(w: Weights, round_: int = 1, diamond: int = 6, ink: int = 2) -> float:
    """The hand formula for P1 of the built position, term by term (action phase of
    ``round_``: 7 - round_ + 0.5 rounds left, 7 - round_ future rounds)."""
    left, future = 7 - round_ + 0.5, 7 - round_
    ink_value, run_value, beyond = INK[ink]
    money = 17 + DIAMOND_VALUE[diamond] + ink_value  # cash, diamond and bookkeeping values
    # Shares per company: icons reached + part of the way to the next icon (times the
    # track_progress weight) + share icons on every card owned (here the formula, unlike
    # the learned features, counts C2's icon: Mombasa has D1, E4 and C2), each times the
    # share value projected over the rounds left.
    shares = [1 + w.track_progress / 3 + 3, 1 + w.track_progress * 2 / 3,
              0 + w.track_progress / 2 + 1, 1 + 0]
    values = [3, 5, 2, 7]
    money += sum(n * (v + w.share_growth_per_round * left)
                 for n, v in zip(shares, values, strict=True))
    money += w.round_unit * (3 + 2)  # face up and unused: B1, the bookkeeper A9
    if future:
        # Units owned: coffee 8, bananas 5, helmets 2, bookkeeping 2 = 17 on 8 playable
        # cards; the open slots (3, +1 from diamond space 4, +1 from ink space 5) play
        # that share of them a round.
        slots = 3 + (diamond >= 4) + (ink >= 5)
        money += w.future_unit * 17 * (slots / 8) * future
        # The run after the ink jar, and the books ahead beyond it.
        money += w.book_run * run_value + w.book_ahead * beyond
    return money


def expected_p2(w: Weights) -> float:
    """P2 (untouched, round 1): 1 pound, 1 Cape Town share (track 2, space 2, the
    start of a run: no progress), nothing face up, 15 units on 10 cards with 3 slots."""
    return 1 + 1 * (5 + w.share_growth_per_round * 6.5) + w.future_unit * 15 * (3 / 10) * 6


def test_hand_formula_term_by_term() -> None:
    s = built()
    got = estimate_money(s, W)
    assert got[0] == pytest.approx(expected_p1(W), rel=1e-12)
    assert got[1] == pytest.approx(expected_p2(W), rel=1e-12)
    assert money_estimate(s, W, "hand") == got


@pytest.mark.parametrize(("round_", "diamond", "ink"), [
    (6, 6, 2), (7, 6, 2), (1, 4, 2), (1, 3, 2), (1, 3, 5), (1, 4, 5), (5, 6, 5)])
def test_hand_formula_by_round_and_slots(round_: int, diamond: int, ink: int) -> None:
    """One future round left in round 6, none in 7; the 4th slot opens on diamond
    space 4, the 5th on ink space 5 (each exactly there)."""
    s = with_player(with_state(built(), round=round_), 0, diamond=diamond, ink=ink)
    assert estimate_money(s, W)[0] == pytest.approx(
        expected_p1(W, round_, diamond, ink), rel=1e-12)


def test_few_cards_are_all_played_each_round() -> None:
    """With more slots than playable cards every card is played each round (no more):
    B1 (3 coffee) and C2 (4 bananas) with 4 slots give 7 units a future round."""
    s = with_area(built(), 0, "B1", hand=cards(built(), "C2"), resting=((),) * 5)
    base = with_area(built(), 0, "B1", hand=0, resting=((),) * 5)
    diff = estimate_money(s, W)[0] - estimate_money(base, W)[0]
    # C2 adds 4 units (7 instead of 3, each played) and its Mombasa share icon.
    assert diff == pytest.approx(W.future_unit * (7 - 3) * 6
                                 + 1 * (3 + W.share_growth_per_round * 6.5), rel=1e-12)


@pytest.mark.parametrize("term", ["share_growth_per_round", "round_unit", "future_unit",
                                  "book_run", "book_ahead", "track_progress"])
def test_each_weight_scales_its_own_term(term: str) -> None:
    """Doubling one weight changes the estimate by exactly that term."""
    s = built()
    bigger = Weights(**{**{f: getattr(W, f) for f in W.__dataclass_fields__},
                        term: 2 * getattr(W, term)})
    assert estimate_money(s, bigger)[0] - estimate_money(s, W)[0] == pytest.approx(
        expected_p1(bigger) - expected_p1(W), rel=1e-9, abs=1e-12)
    assert expected_p1(bigger) != expected_p1(W)


def test_after_ending_no_face_up_units_are_left() -> None:
    """A player who has ended has no face-up units left to use this round."""
    s = with_state(built(), round=7)
    ended = with_player(s, 0, ended=True)
    assert estimate_money(ended, W)[0] == pytest.approx(
        expected_p1(W, 7) - W.round_unit * 5, rel=1e-12)


@pytest.mark.parametrize(("phase", "round_", "left"), [
    (SETUP, 0, 7.0), (PLANNING, 1, 7.0), (ACTIONS, 1, 6.5), (PLANNING, 4, 4.0),
    (ACTIONS, 7, 0.5), (OVER, 7, 0.0)])
def test_rounds_left(phase: int, round_: int, left: float) -> None:
    """The current round counts whole in setup and Planning, half in the action phase."""
    assert rounds_left(with_state(start(2, 0), phase=phase, round=round_)) == left


def test_book_run_counts_the_books_right_after_the_ink_jar() -> None:
    books = ((), (), (), (1,), (2,), (), (3,))
    assert book_run(books, 2) == 2
    assert book_run(books, 4) == 0
    assert book_run(books, 5) == 1
    assert book_run(((), (1,), (2,)), 0) == 2  # up to the last space


def test_learned_estimate_is_the_bucket_weights_times_the_features() -> None:
    """The shipped model, read from its file here: the estimate of each player is the
    dot product of its bucket's weights with its feature row (in file order)."""
    raw = json.loads(MODEL_FILE.read_text())
    assert "residual" not in raw  # a linear model: the test below is the whole of it
    for s in (built(), with_state(built(), phase=PLANNING, round=3)):
        n, r, ph = bucket(s)
        w = raw["buckets"][f"{n}/{r}/{ph}"]
        rows = player_features(s)
        # features appended after the model's fit weigh 0 (search.value_model)
        fitted = len(raw["features"])
        expected = [math.fsum(a * b for a, b in zip(w, row[:fitted], strict=True))
                    for row in rows]
        assert money_estimate(s, W, "learned") == pytest.approx(expected, rel=1e-9)


def test_evaluate_adds_the_tempo_to_the_player_about_to_act() -> None:
    s = built()
    money = estimate_money(s, W)
    util, got = evaluate(s, W, "hand", tempo=2.5)
    assert got == pytest.approx([money[0] + 2.5, money[1]])
    scale = W.win_scale * (1 + 6.5)
    e = [math.exp((m - max(got)) / scale) for m in got]
    assert util == pytest.approx([x / sum(e) for x in e], rel=1e-12)
    # P2 to act: the tempo goes to P2.
    s2 = with_state(s, todo=(("act", 1),), turn=1)
    assert s2.decision.player == 1
    assert evaluate(s2, W, "hand", tempo=2.5)[1] == pytest.approx([money[0],
                                                                   money[1] + 2.5])
    # No tempo at a decision that is not an action (Planning).
    planning = play_setup(2, 0)
    assert planning.decision.kind == "plan"
    assert evaluate(planning, W, "hand", tempo=2.5)[1] == estimate_money(planning, W)


def test_win_utilities_are_a_softmax_of_the_money() -> None:
    u = win_utilities([10.0, 14.0, 6.0], 4.0)
    e = [math.exp(-1.0), 1.0, math.exp(-2.0)]
    assert u == pytest.approx([x / sum(e) for x in e], rel=1e-12)
    assert win_utilities([5.0, 5.0], 3.0) == [0.5, 0.5]


def test_a_finished_game_is_scored_exactly() -> None:
    s = start(2, 0)
    rng = random.Random(3)
    while not s.is_over():
        s = s.apply_unchecked(s.random_step(rng))
    totals = [float(sc.total) for sc in engine.score(s)]
    util, money = evaluate(s, W, "hand", tempo=9.0)
    assert money == totals and money_estimate(s, W, "learned") == totals
    assert util == terminal_utilities(s)
    best = max(totals)
    k = totals.count(best)
    assert util == [1 / k if t == best else 0.0 for t in totals]


def test_a_shared_win_is_split() -> None:
    s = start(2, 0)
    rng = random.Random(3)
    while not s.is_over():
        s = s.apply_unchecked(s.random_step(rng))
    totals = [sc.total for sc in engine.score(s)]
    lead = totals[0] - totals[1]
    tied = with_player(s, 1, cash=s.players[1].cash + lead)
    assert [sc.total for sc in engine.score(tied)] == [totals[0]] * 2
    assert terminal_utilities(tied) == [0.5, 0.5]


def _swap(s: State) -> State:
    """The same position with the seats' boards exchanged (no one's decision)."""
    return with_state(s, players=(s.players[1], s.players[0]), phase=PLANNING)


@pytest.mark.parametrize("evaluator", ["hand", "learned"])
def test_relabelling_the_seats_relabels_the_evaluation(evaluator: str) -> None:
    """Nothing depends on a seat's number: swapping the two boards swaps every
    player's money and utility; raising one player's cash raises its own estimate
    (by exactly 1 pound for the hand formula) and leaves the other's unchanged."""
    s = with_state(built(), phase=PLANNING)
    util, money = evaluate(s, W, evaluator)
    util2, money2 = evaluate(_swap(s), W, evaluator)
    assert money2 == pytest.approx(money[::-1], rel=1e-12)
    assert util2 == pytest.approx(util[::-1], rel=1e-12)
    richer = with_player(s, 1, cash=s.players[1].cash + 1)
    m = evaluate(richer, W, evaluator)[1]
    assert m[0] == pytest.approx(money[0], rel=1e-12)
    if evaluator == "hand":
        assert m[1] == pytest.approx(money[1] + 1, rel=1e-12)


def test_the_defaults_are_the_hand_formula_without_tempo() -> None:
    s = built()
    assert money_estimate(s) == estimate_money(s)
    assert evaluate(s) == evaluate(s, DEFAULT_WEIGHTS, "hand", 0.0)
    assert evaluate(s)[1] == estimate_money(s)


def test_evaluate_uses_the_named_evaluator() -> None:
    s = built()
    learned = money_estimate(s, W, "learned")
    assert learned != estimate_money(s, W)
    assert evaluate(s, W, "learned")[1] == learned
    assert evaluate(s, W, "learned", tempo=1.5)[1] == [learned[0] + 1.5, learned[1]]


def test_an_unknown_evaluator_is_named_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"^evaluator: one of hand, learned, got 'hnad'$"):
        money_estimate(built(), W, "hnad")


def test_win_utilities_do_not_overflow_on_large_sums() -> None:
    """The softmax is taken relative to the best: sums of thousands of pounds (a
    reported total, a tempo-laden leaf) give the same utilities as small ones."""
    assert win_utilities([5000.0, 4990.0], 5.0) == pytest.approx(
        win_utilities([10.0, 0.0], 5.0), rel=1e-12)
