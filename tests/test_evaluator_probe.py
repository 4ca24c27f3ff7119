"""The value-model data probes of ``benchmarks/evaluator_probe.py`` (docs/search.md, "The
learned evaluator"), on planted data whose answer is known."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import benchmarks.evaluator_probe as probe
from search.dataset import Dataset
from search.features import FEATURES
from search.value_model import ValueModel

CASH = FEATURES.index("cash")
SHARES = FEATURES.index("shares")
OWN_BOOKKEEPING = FEATURES.index("own_bookkeeping")


def _two_player_rows(games: int, per_game: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Features of seat-paired two-player positions in bucket (2, 3, 1), and game ids."""
    rng = np.random.default_rng(seed)
    rows = games * per_game * 2
    x = rng.normal(size=(rows, len(FEATURES)))
    x[:, 0] = 1.0  # the bias column
    for name in ("diamond_value", "bookkeeping_value"):  # anchored at weight 1: keep 0
        x[:, FEATURES.index(name)] = 0.0
    ids = np.repeat(np.arange(games), per_game * 2)
    return x, ids


def _dataset(x: np.ndarray, y: np.ndarray, ids: np.ndarray) -> Dataset:
    return Dataset(np.tile([2, 3, 1], (len(y), 1)), x, y, ids, np.zeros(len(y)))


def test_the_probes_docstring_examples_hold() -> None:
    result = doctest.testmod(probe)
    assert result.attempted > 0 and result.failed == 0


def test_opponent_probe_finds_money_that_depends_on_the_other_player() -> None:
    """Final money planted as own cash minus 3 x the other's shares: only the fit that
    sees the other's features can explain it."""
    x, ids = _two_player_rows(games=100, per_game=10, seed=1)
    other = x.reshape(-1, 2, x.shape[1])[:, ::-1].reshape(x.shape)
    y = 50 + 4 * x[:, CASH] - 3 * other[:, SHARES]
    y += np.random.default_rng(2).normal(scale=0.5, size=len(y))
    report = probe.opponent_gain(_dataset(x, y, ids))
    assert report["own+other lead"][0] < 1.0  # the noise alone
    assert report["own lead"][0] > 3.0  # the other's shares, unexplained
    assert report["own+other money"][3] == report["own+other money"][0]  # one round


def test_opponent_probe_refuses_rows_that_are_not_seat_pairs() -> None:
    x, ids = _two_player_rows(games=2, per_game=2, seed=3)
    ids[1] = 1  # the first position's two rows now belong to different games
    with pytest.raises(ValueError, match="seat pairs"):
        probe.two_player_pairs(_dataset(x, np.zeros(len(ids)), ids))


def test_skill_probe_separates_the_bot_from_the_route() -> None:
    """Planted: a bookkeeping unit is worth +2, but the bookkeeper bot holds more of
    them and ends 20 pounds worse for its play. Fitted as shipped, the weight of
    own_bookkeeping is pulled toward zero (the sign constraint stops it there); with the
    bot columns beside the features the planted +2 comes back."""
    x, ids = _two_player_rows(games=200, per_game=5, seed=4)
    seats = {g: (["bookkeeper", "mcts:iterations=200"] if g % 2 else
                 ["mcts:iterations=200", "bookkeeper"]) for g in range(200)}
    bots = probe.bot_columns(_dataset(x, np.zeros(len(ids)), ids), seats)
    is_keeper = bots[:, probe.BOT_KINDS.index("bookkeeper")] == 1.0
    x[is_keeper, OWN_BOOKKEEPING] += 3.0
    y = 100 + 2 * x[:, OWN_BOOKKEEPING] - 20 * is_keeper
    y += np.random.default_rng(5).normal(scale=1.0, size=len(y))
    [(bucket, plain, adjusted)] = probe.skill_weights(_dataset(x, y, ids), bots,
                                                      names=("own_bookkeeping",))
    assert bucket == (2, 3, 1)
    assert plain[0] < 0.5
    assert adjusted[0] == pytest.approx(2.0, abs=0.1)


def test_bot_columns_refuse_a_game_with_another_number_of_seats() -> None:
    x, ids = _two_player_rows(games=1, per_game=1, seed=6)
    with pytest.raises(ValueError, match="game has 3 seats"):
        probe.bot_columns(_dataset(x, np.zeros(2), ids), {0: ["greedy"] * 3})


def test_models_probe_reports_the_bias_and_a_lead_error_that_cancels_it() -> None:
    """Planted: final money is 4 x cash; a model that adds 6 pounds to every estimate is
    off by 6 in money (bias +6) and by nothing in the lead, which is what the search
    compares. Only the games held out (every 5th) from ``first_game`` on are scored."""
    x, ids = _two_player_rows(games=50, per_game=4, seed=6)
    y = 4 * x[:, CASH]
    weights = [0.0] * len(FEATURES)
    weights[0], weights[CASH] = 6.0, 4.0
    model = ValueModel({(2, 3, 1): tuple(weights)})
    report = probe.held_out_errors(model, _dataset(x, y, ids), first_game=25)
    assert report["money"][0] == pytest.approx(6.0)
    assert report["bias"][3] == pytest.approx(6.0)
    assert report["lead"][0] == pytest.approx(0.0, abs=1e-9)
    assert set(report["money"]) == {0, 3}


def test_lead_probe_fits_the_lead_the_money_fit_cannot_separate() -> None:
    """Planted: seat 1's lead is 3 x the difference of the seats' shares plus small
    noise, while each player's money also carries a large noise shared by both seats:
    the fit on the lead recovers it to within the lead's own noise."""
    x, ids = _two_player_rows(games=200, per_game=5, seed=7)
    shared = np.repeat(np.random.default_rng(8).normal(scale=30, size=len(ids) // 2), 2)
    y = 100 + 3 * x[:, SHARES] + shared
    y += np.random.default_rng(9).normal(scale=0.5, size=len(y))
    report = probe.lead_fit_errors(_dataset(x, y, ids), ridges=(1.0,))
    assert report[1.0][0] < 1.0
    assert set(report[1.0]) == {0, 3}


def test_models_and_lead_probes_need_a_model_file() -> None:
    with pytest.raises(SystemExit, match="--model"):
        probe.main(["models", "data.npz"])
