"""Final scoring (rulebook.txt, "End of the Game" and "Company Shares And Their Value";
rules-decisions.md, "Final scoring": cash + per company (shares from track + share
icons on owned cards, including resting decks and single-share cards) x share value +
diamond value passed + bookkeeping value passed; ties share the victory).
"""

from __future__ import annotations

import random

import engine
from engine.state import DEAD
from tests.builders import cards, company, set_base, start, with_player, with_state


def _scored_position() -> engine.State:
    """P1: 7 pounds; Mombasa track 5 (2 shares) + D1 in hand + B5 in a resting deck (both
    Mombasa share icons) = 4 shares; diamond marker on 4; ink jar on 3. Mombasa base
    (DEAD, 3, 5): share value 5 + 1 = 6."""
    s = start()
    p = s.players[0]
    resting = list(p.resting)
    resting[2] = resting[2] + (s.cat.card_index("B5"),)
    s = with_player(s, 0, cash=7, track=(5, 0, 0, 0), diamond=4, ink=3,
                    hand=p.hand | cards(s, "D1"), resting=tuple(resting))
    return set_base(s, "MOM", (DEAD, 3, 5))


def test_breakdown_categories() -> None:
    """rulebook.txt, End of the Game: "the cash ... the number of uncovered coin icons in
    Mombasa's company base multiplied by the total number of shares ... the last value
    his diamond marker has passed ... the last value his ink jar marker has passed"."""
    s = _scored_position()
    sc = engine.score(s)[0]
    mom = company(s, "MOM")
    assert sc.cash == 7
    assert sc.shares[mom] == 2 + 1 + 1
    assert sc.share_values[mom] == 6
    assert sc.companies[mom] == 24
    assert sc.diamonds == s.cat.diamond_values[4]
    assert sc.bookkeeping == s.cat.bookkeeping_values[3]


def test_total_is_the_sum_of_the_categories() -> None:
    """rulebook.txt, End of the Game: "add up the scores of the 7 categories for each
    player"."""
    s = _scored_position()
    for sc in engine.score(s):
        assert sc.total == sc.cash + sum(sc.companies) + sc.diamonds + sc.bookkeeping
        assert sc.companies == tuple(n * v for n, v in
                                     zip(sc.shares, sc.share_values, strict=True))


def test_share_cards_count_wherever_the_player_holds_them() -> None:
    """rules-decisions.md, Final scoring: share icons "on owned cards, including resting
    decks and single-share cards" (rulebook.txt: "each player returns all his inactive
    cards to his hand"). B15 (Cape Town icon) in the action area counts too."""
    s = _scored_position()
    s = with_player(s, 0, slots=(-1, s.cat.card_index("B15"), -1, -1, -1))
    assert engine.score(s)[0].shares[company(s, "CAP")] == 1


def test_ties_share_the_victory() -> None:
    """rulebook.txt, End of the Game: "In the case of a tie, the victory is shared."
    Two players with identical boards both win."""
    s = start()
    s = with_player(s, 0, cash=5, track=(0, 0, 0, 0), diamond=0, ink=0)
    s = with_player(s, 1, cash=5, track=(0, 0, 0, 0), diamond=0, ink=0)
    assert engine.score(s)[0].total == engine.score(s)[1].total
    assert engine.winners(s) == [0, 1]
    s = with_player(s, 1, cash=6)
    assert engine.winners(s) == [1]


def test_markers_that_scored_nothing_are_ignored() -> None:
    """rulebook.txt, End of the Game: "Any marker that has not advanced far enough to
    score is ignored. Also book tiles ... are not worth anything now." A fresh player
    scores only cash and the shares of its starting bonus."""
    s = start()
    s = with_state(s, values=(3, 3, 3, 3))
    sc = engine.score(s)[0]
    assert (sc.diamonds, sc.bookkeeping) == (0, 0)
    assert sc.total == sc.cash + sum(sc.companies)


def test_random_game_final_score_is_consistent() -> None:
    """rulebook.txt, End of the Game: a whole game (seeded random legal steps) ends after
    round 7 and every player's total is the sum of the categories, with share values
    equal to the uncovered coin icons of each base."""
    s = engine.new_game(players=3, seed=11)
    rng = random.Random(5)
    while not s.is_over():
        s = s.apply(s.random_step(rng))
    assert s.round == 7
    coins = s.cat.base_coins
    for c, cols in enumerate(s.bases):
        uncovered = 0
        for code in cols:
            posts = code & 7
            covered = coins[len(coins) - 1 - posts:len(coins) - 1] if code & DEAD \
                else coins[len(coins) - posts:] if posts else ()
            uncovered += sum(coins) - sum(covered)
        assert s.values[c] == uncovered
    for sc in engine.score(s):
        assert sc.total == sc.cash + sum(sc.companies) + sc.diamonds + sc.bookkeeping
    best = max(sc.total for sc in engine.score(s))
    assert engine.winners(s) == [sc.player for sc in engine.score(s) if sc.total == best]
