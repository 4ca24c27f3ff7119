"""Route specialists (search/specialists.py), the long-plan features and the anchored fit.

Rules cited: "Where you stop, take that book's reward"; "the total value of that card
type must reach the number shown. Needs are checked book by book, not added up, and the
cards are not used up" (actions.txt, Moving the ink jar); final money adds "the last
value your ink jar marker has passed on your bookkeeping track" (rulebook).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import engine
from engine import apply_move, new_game, observe, score
from search.bot_specs import make_bot
from search.dataset import Dataset
from search.features import FEATURES, INDEX, ink_walk, player_features
from search.specialists import DEFAULT_STRENGTH, ROUTES, SpecialistBot
from search.value_model import ANCHORED, fit


def _play(specs: list[str], seed: int) -> engine.State:
    s = new_game(players=len(specs), seed=seed)
    bots = [make_bot(spec, seed=seed * 7 + i) for i, spec in enumerate(specs)]
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        s = apply_move(s, bots[d.player].choose(observe(s, d.player)))
    return s


def test_specs_build_each_route_and_refuse_unknown_settings() -> None:
    for route in ROUTES:
        bot = make_bot(f"{route}:eval=hand,strength=2")
        assert isinstance(bot, SpecialistBot)
        assert bot.route == route and bot.strength == 2.0 and bot.evaluator == "hand"
    with pytest.raises(ValueError, match="unknown setting 'depth'"):
        make_bot("bookkeeper:depth=3")
    with pytest.raises(ValueError, match="route"):
        SpecialistBot("cash")
    for bad in ("nan", "-1", "inf"):
        with pytest.raises(ValueError, match="strength: a number >= 0"):
            make_bot(f"diamonds:strength={bad}")


def test_each_route_has_its_measured_default_strength() -> None:
    """Without ``strength=`` a specialist pushes its route as hard as measured best
    (docs/catalogue.md: the diamond specialist at 0.5, the others at 1.0)."""
    assert DEFAULT_STRENGTH == {"bookkeeper": 1.0, "diamonds": 0.5, "shares": 1.0}
    for route in ROUTES:
        bot = make_bot(route)
        assert isinstance(bot, SpecialistBot) and bot.strength == DEFAULT_STRENGTH[route]
        assert bot.evaluator == "learned"  # the specialists judge with the learned model


def test_bookkeeper_moves_its_ink_jar_further_than_greedy() -> None:
    """The bookkeeper specialist plays its route: over three games its ink jar gets
    further than the greedy bot's, and the score's bookkeeping category is the value
    its ink jar passed."""
    mine = theirs = 0
    for seed in (1, 4, 5):
        s = _play(["bookkeeper", "greedy"], seed)
        p = s.players[0]
        assert score(s)[0].bookkeeping == s.cat.bookkeeping_values[p.ink]
        mine += p.ink
        theirs += s.players[1].ink
    assert mine >= 6 and mine > theirs


def test_diamond_specialist_climbs_the_diamond_track() -> None:
    s = _play(["diamonds:eval=hand", "greedy"], 3)
    assert score(s)[0].diamonds > 0


def test_ink_walk_follows_the_needs_book_by_book() -> None:
    """ink_walk: with a face-up bookkeeper the jar walks while each next book's needs
    are met by the face-up cards; outside the action phase it is (0, 0)."""
    rng = random.Random(0)
    seen_walk = 0
    for seed in range(6):
        s = new_game(players=2, seed=seed)
        while not s.is_over():
            for p in s.players:
                books, value = ink_walk(s, p)
                assert books >= 0 and value >= 0
                if s.phase not in (1, 2):
                    assert (books, value) == (0, 0)
                bk = s.cat.bookkeeping_values
                assert value == bk[p.ink + books] - bk[p.ink]
                seen_walk += books > 0
            s = s.apply(s.legal_steps()[rng.randrange(len(s.legal_steps()))]
                        if s.decision.kind != "chance" else s.sample_chance())
    assert seen_walk > 0  # the walk is not always empty in random play


def test_new_features_are_named_and_finite() -> None:
    s = _play(["greedy", "greedy"], 4)
    rows = player_features(s)
    for row in rows:
        assert len(row) == len(FEATURES)
        assert all(np.isfinite(row))
    for name in ("ink_walk_value", "meetable_run_value", "diamond_unlock_gap",
                 "ink_unlock_gap", "resting_units", "merchant_now"):
        assert name in INDEX


def test_anchored_fit_keeps_diamond_and_bookkeeping_weights_at_one() -> None:
    """Passed diamond and bookkeeping values are final money (markers never move back):
    the fit may not weigh them otherwise, even when the data says nothing about them."""
    rng = np.random.default_rng(0)
    n = 400
    x = rng.normal(size=(n, len(FEATURES)))
    x[:, 0] = 1.0
    x[:, INDEX["bookkeeping_value"]] = 0.0  # never varies, as in data where no one books
    y = 3.0 * x[:, INDEX["cash"]] + x[:, INDEX["diamond_value"]] + 50.0
    data = Dataset(np.tile(np.array([2, 3, 1], dtype=np.int16), (n, 1)), x, y,
                   np.arange(n, dtype=np.int32), y.copy())
    w = fit(data, ridge=1e-6, min_rows=10).weights[(2, 3, 1)]
    for name in ANCHORED:
        assert w[INDEX[name]] == 1.0
    assert w[INDEX["cash"]] == pytest.approx(3.0, abs=1e-3)
    assert w[0] == pytest.approx(50.0, abs=1e-3)


def test_residual_network_round_trips_and_bad_shapes_name_the_field() -> None:
    """The optional non-linear correction: fitted by ``train(hidden=...)``, saved with
    the model, read back equal; a file with a wrong shape is refused, naming it."""
    from search.selfplay import generate
    from search.training import train
    from search.value_model import ValueModel, ValueModelError

    data = generate("policy", games=6, players=(2,), seed=2)
    model, report = train(data, min_rows=20, hidden=8, epochs=2)
    assert model.residual is not None and report.linear_mae > 0
    raw = model.to_json()
    again = ValueModel.from_json(raw)
    s = new_game(players=2, seed=1)
    assert again.predict(s) == pytest.approx(model.predict(s))
    raw["residual"]["w2"] = raw["residual"]["w2"][:-1]
    with pytest.raises(ValueModelError, match="residual.w1|residual.w2"):
        ValueModel.from_json(raw)


def test_arena_counts_route_actions_per_bot() -> None:
    """The arena reports how often each bot used the bookkeeper and merchant actions
    (the issue's "uses the bookkeeper action in most games" is read from it)."""
    from search.arena import run_arena

    report = run_arena(["bookkeeper", "greedy"], games=2, seed=1)
    keeper = report.bots["bookkeeper"]
    assert keeper.keeper_games >= 1 and keeper.keeper_uses >= keeper.keeper_games
    raw = keeper.to_json()["routes"]
    assert isinstance(raw, dict)
    assert raw["games_with_keeper_action"] == keeper.keeper_games
    per_seat = [r.keepers for r in report.games]
    assert sum(sum(k) for k in per_seat) == sum(b.keeper_uses for b in report.bots.values())


def test_sign_constrained_fit_never_prices_a_resource_below_zero() -> None:
    """A resource held mostly by a weaker bot must not get a negative price: the fit
    keeps NOT_NEGATIVE weights >= 0 (and the slot-unlock gaps <= 0), refitting the rest."""
    from search.value_model import NOT_NEGATIVE, NOT_POSITIVE

    rng = np.random.default_rng(1)
    n = 2000
    x = rng.normal(size=(n, len(FEATURES)))
    x[:, 0] = 1.0
    walk = INDEX["ink_walk_value"]
    # The data-generating "bot" that walks its ink jar loses a pound per pound walked.
    y = 2.0 * x[:, INDEX["cash"]] - 1.0 * x[:, walk] + 1.0 * x[:, INDEX["ink_unlock_gap"]]
    data = Dataset(np.tile(np.array([2, 2, 1], dtype=np.int16), (n, 1)), x, y,
                   np.arange(n, dtype=np.int32), y.copy())
    w = fit(data, ridge=1e-6, min_rows=10).weights[(2, 2, 1)]
    assert w[walk] == 0.0 and w[INDEX["ink_unlock_gap"]] == 0.0
    assert w[INDEX["cash"]] == pytest.approx(2.0, abs=0.15)
    assert all(w[INDEX[name]] >= 0 for name in NOT_NEGATIVE)
    assert all(w[INDEX[name]] <= 0 for name in NOT_POSITIVE)
