"""The learned evaluator: features, self-play recording, fitting, model files, and the
shipped model's accuracy against the hand formula on games it was not fitted on."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import engine
from engine.catalogue import DEFAULT_PATH as CATALOGUE_FILE
from search.bench.positions import mid_game
from search.bot_specs import make_bot
from search.dataset import Dataset
from search.evaluator import estimate_money, evaluate, money_estimate
from search.features import FEATURES, INDEX, bucket, player_features
from search.mcts import MCTS, SearchConfig
from search.selfplay import generate, play_recorded
from search.training import predict_rows, train
from search.value_model import (
    DEFAULT_PATH,
    ValueModel,
    ValueModelError,
    default_model,
    fit,
    ridge_fit,
)
from tests.random_games import game_states


def test_features_read_the_players_resources() -> None:
    s = mid_game(3, 4, 2)
    rows = player_features(s)
    assert len(rows) == 3
    for p, row in zip(s.players, rows, strict=True):
        assert len(row) == len(FEATURES)
        assert row[INDEX["bias"]] == 1.0
        assert row[INDEX["cash"]] == p.cash
        assert row[INDEX["diamond_value"]] == s.cat.diamond_values[p.diamond]
        assert row[INDEX["bookkeeping_value"]] == s.cat.bookkeeping_values[p.ink]
        assert row[INDEX["ended"]] == float(p.ended)
    assert bucket(s) == (3, s.round, 1 if s.phase == 2 else 0)


def test_unused_units_count_only_while_the_round_is_played() -> None:
    """Face-up cards in the action area count (the ``now_*`` features) while their
    player still acts; once the player ends, the rules move the cards up to the resting
    decks ("clean up your action area"), and the features read 0."""
    now = [INDEX[f"now_{m}"] for m in ("coffee", "bananas", "cotton", "helmets",
                                        "bookkeeping")]
    ended = playing_with_cards = 0
    states = (s for seed in range(3) for s in game_states(2, seed, variable=False))
    for s in states:
        if s.phase_name != "actions":
            continue
        for i, (p, row) in enumerate(zip(s.players, player_features(s), strict=True)):
            if p.ended:
                ended += 1
                assert p.area_cards() == 0 and all(row[k] == 0 for k in now)
            elif any(s.measures(i)):
                playing_with_cards += 1
                assert [row[k] for k in now] == list(s.measures(i))
    assert ended > 0 and playing_with_cards > 0  # both cases were seen


def test_recorded_targets_are_the_final_money_of_each_row_player() -> None:
    """Every row's target is its player's final money as scored: the same game is
    replayed here (same bots, seeds and explorer draws) to its end."""
    specs, seed = ["policy", "random"], 5
    data = play_recorded(specs, seed=seed)
    bots = [make_bot(spec, seed=seed * 7 + i) for i, spec in enumerate(specs)]
    explorer, rng = make_bot("policy", seed=seed), random.Random(seed)
    s = engine.new_game(players=2, seed=seed)
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        bot = explorer if rng.random() < 0.1 else bots[d.player]
        s = engine.apply_move(s, bot.choose(engine.observe(s, d.player)))
    totals = [sc.total for sc in engine.score(s)]
    # one row per player at every decision, in seat order
    assert data.targets.tolist() == [totals[k % 2] for k in range(len(data.targets))]
    assert data.features.shape == (len(data.targets), len(FEATURES))
    assert np.all(data.buckets[:, 0] == 2)
    assert np.all(np.diff(data.buckets[:, 1]) >= 0)  # rounds recorded in order
    assert np.isfinite(data.hand).all()


def test_ridge_fit_recovers_a_known_linear_relation() -> None:
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(500), rng.normal(size=(500, 3)) * [1, 10, 100]])
    true = np.array([5.0, 2.0, -0.5, 0.03])
    w = ridge_fit(x, x @ true, ridge=1e-6)
    assert np.allclose(w, true, atol=1e-3)


def test_fit_and_predict_agree_row_by_row() -> None:
    data = generate("policy", games=8, players=(2,), seed=2)
    model = fit(data, min_rows=10)
    s = mid_game(2, 3, 2)
    direct = model.predict(s)
    row = player_features(s)
    w = np.array(model.weights_for(bucket(s)))
    assert direct == pytest.approx(list(np.array(row) @ w))
    assert predict_rows(model, data).shape == data.targets.shape


def test_training_reports_held_out_errors_of_both_evaluators() -> None:
    data = generate("policy", games=10, players=(2,), seed=3)
    model, report = train(data, min_rows=20, meta={"bot": "policy"})
    assert report.games == 2  # games 0 and 5 of ten are held out
    assert report.learned_mae > 0 and report.hand_mae > 0
    assert set(report.by_round) <= set(range(1, 8))
    assert model.meta["bot"] == "policy" and model.meta["games"] == 10
    assert model.meta["catalogue"] == engine.default_catalogue().fingerprint
    assert "held-out" in report.lines()[0]


def test_model_file_round_trip_and_clear_errors(tmp_path: Path) -> None:
    model = default_model()
    path = tmp_path / "m.json"
    model.save(path)
    again = ValueModel.load(path)
    assert again.weights == model.weights
    raw = json.loads(path.read_text())
    raw["features"][1], raw["features"][2] = raw["features"][2], raw["features"][1]
    with pytest.raises(ValueModelError, match="features: the model was fitted on other"):
        ValueModel.from_json(raw)
    raw = json.loads(path.read_text())
    raw["features"] = raw["features"][:-1]  # a list without its last weights
    with pytest.raises(ValueModelError,
                       match=f"{len(FEATURES)} weights for {len(FEATURES) - 1} features"):
        ValueModel.from_json(raw)
    raw = json.loads(path.read_text())
    key = next(iter(raw["buckets"]))
    raw["buckets"][key] = raw["buckets"][key][:3]
    with pytest.raises(ValueModelError, match=f"buckets.{key}: 3 weights"):
        ValueModel.from_json(raw)
    raw = json.loads(path.read_text())
    raw["buckets"] = {"two/1/0": raw["buckets"][key]}
    with pytest.raises(ValueModelError, match="'two/1/0'"):
        ValueModel.from_json(raw)
    with pytest.raises(ValueModelError, match="format"):
        ValueModel.from_json({"format": "other"})
    path.write_text("{not json")
    with pytest.raises(ValueModelError, match="m.json"):
        ValueModel.load(path)


def test_a_model_fitted_before_a_feature_was_appended_weighs_it_zero(tmp_path: Path
                                                                     ) -> None:
    """Features are only ever appended (search.features): an older model file loads,
    the features it lacks weigh 0, so its estimates are what they were; a residual
    network, whose inputs are the whole row, must match exactly."""
    raw = default_model().to_json()
    n = len(FEATURES) - 1
    old = {**raw, "features": raw["features"][:n],
           "buckets": {k: [*w[:n]] for k, w in raw["buckets"].items()}}
    model = ValueModel.from_json(old)
    assert all(w[n:] == (0.0,) for w in model.weights.values())
    assert all(w[:n] == tuple(raw["buckets"][f"{b[0]}/{b[1]}/{b[2]}"][:n])
               for b, w in model.weights.items())
    s = engine.new_game(players=2, seed=4)
    rows = player_features(s)
    b = bucket(s)
    assert model.predict(s) == pytest.approx(
        [sum(a * x for a, x in zip(model.weights[b][:n], r[:n], strict=True)) for r in rows])
    with pytest.raises(ValueModelError, match="features"):
        ValueModel.from_json({**old, "residual": {"hidden": 1}})


def test_dataset_concat_keeps_games_apart(tmp_path: Path) -> None:
    a = play_recorded(["policy", "policy"], seed=1)
    b = play_recorded(["policy", "policy"], seed=2)
    both = Dataset.concat([a, b])
    assert len(set(both.games.tolist())) == 2
    path = str(tmp_path / "d.npz")
    both.save(path)
    assert np.array_equal(Dataset.load(path).targets, both.targets)


def test_learned_estimate_is_exact_when_the_game_is_over() -> None:
    s = engine.new_game(players=2, seed=9)
    import random

    rng = random.Random(9)
    while not s.is_over():
        s = s.apply(s.sample_chance() if s.decision.kind == "chance"
                    else rng.choice(s.legal_steps()))
    totals = [float(sc.total) for sc in engine.score(s)]
    assert money_estimate(s, evaluator="learned") == totals
    utilities, money = evaluate(s, evaluator="learned")
    assert money == totals and sum(utilities) == pytest.approx(1.0)


def test_tempo_goes_to_the_player_whose_action_turn_is_pending() -> None:
    """Rules: in the action phase the players take turns, one action each. The search's
    tempo correction adds its pounds to the estimate of the player about to act, to no
    one else, and to no one outside an action turn (planning, game over)."""
    from search.evaluator import TEMPO

    s = mid_game(3, 4, 3)
    assert s.decision.kind == "action"
    _, plain = evaluate(s, evaluator="learned")
    _, shifted = evaluate(s, evaluator="learned", tempo=2.5)
    assert [b - a for a, b in zip(plain, shifted, strict=True)] == pytest.approx(
        [2.5 if i == s.decision.player else 0.0 for i in range(3)])
    planning = engine.new_game(players=2, seed=1)
    while planning.decision.kind != "plan":
        planning = planning.apply(planning.sample_chance()
                                  if planning.decision.kind == "chance"
                                  else planning.legal_steps()[0])
    assert evaluate(planning, evaluator="learned", tempo=2.5) == evaluate(
        planning, evaluator="learned")
    assert SearchConfig(iterations=1).tempo == TEMPO > 0
    assert make_bot("mcts:iterations=5,tempo=0").config.tempo == 0.0  # type: ignore[attr-defined]


def test_unknown_evaluator_is_refused() -> None:
    s = mid_game(2, 3, 2)
    with pytest.raises(ValueError, match="evaluator"):
        money_estimate(s, evaluator="oracle")
    with pytest.raises(ValueError, match="evaluator"):
        SearchConfig(iterations=5, evaluator="oracle")
    with pytest.raises(ValueError, match="eval"):
        make_bot("greedy:eval=oracle")


def test_search_with_the_learned_evaluator_reports_its_money() -> None:
    s = mid_game(2, 4, 2)
    obs = engine.observe(s, s.decision.player)
    result = MCTS(SearchConfig(iterations=60, seed=1, evaluator="learned",
                               tree="round")).search(obs)
    assert result.lines and all(len(ln.money) == 2 for ln in result.lines)


def test_shipped_model_was_fitted_on_the_shipped_catalogue() -> None:
    """A change to the catalogue's values needs a refit (docs/search.md, the recipe):
    the model records the fingerprint of the catalogue its games were played with."""
    shipped = engine.load_catalogue(CATALOGUE_FILE)
    assert ValueModel.load(DEFAULT_PATH).meta.get("catalogue") == shipped.fingerprint


def test_catalogue_fingerprint_follows_the_values_not_the_comments() -> None:
    raw = json.loads(CATALOGUE_FILE.read_text())
    base = engine.load_catalogue(raw).fingerprint
    raw["// a note"] = "comments do not count"
    assert engine.load_catalogue(raw).fingerprint == base
    raw["bookkeeping_track"]["values"][-1] += 1
    assert engine.load_catalogue(raw).fingerprint != base


def test_shipped_model_beats_the_hand_formula_on_unseen_games() -> None:
    """Fresh greedy games (seeds not used in training): the learned estimate of each
    player's final money is closer than the formula's, summed over all positions."""
    learned_err = hand_err = 0.0
    model = default_model()
    for g in range(6):
        bots = [make_bot("greedy", seed=424_242 + 2 * g + i) for i in range(2)]
        s = engine.new_game(players=2, seed=515_151 + g)
        seen = []
        while not s.is_over():
            d = s.decision
            if d.kind == "chance":
                s = s.apply(s.sample_chance())
                continue
            seen.append((model.predict(s), estimate_money(s)))
            s = engine.apply_move(s, bots[d.player].choose(engine.observe(s, d.player)))
        totals = [sc.total for sc in engine.score(s)]
        for learned, hand in seen:
            learned_err += sum(abs(a - t) for a, t in zip(learned, totals, strict=True))
            hand_err += sum(abs(a - t) for a, t in zip(hand, totals, strict=True))
    assert learned_err < hand_err


def test_cli_train_value_plays_fits_and_writes_a_loadable_model(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from advisor_api.cli import app

    runner = CliRunner()
    out, data = tmp_path / "model.json", tmp_path / "games.npz"
    result = runner.invoke(app, ["train-value", "--out", str(out), "--bot", "policy",
                                 "--games", "10", "--players", "2", "--seed", "1",
                                 "--min-rows", "20", "--save-data", str(data)])
    assert result.exit_code == 0, result.output
    assert "held-out: 2 games" in result.output and "model written" in result.output
    model = ValueModel.load(out)
    assert model.meta["bot"] == "policy" and model.meta["games"] == 10
    # Refit from the saved games alone (no new games).
    again = tmp_path / "again.json"
    result = runner.invoke(app, ["train-value", "--out", str(again), "--games", "0",
                                 "--min-rows", "20", "--data", str(data)])
    assert result.exit_code == 0, result.output
    assert ValueModel.load(again).weights == model.weights


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "2,5"], "--players"),
    (["--players", "two"], "--players"),
    (["--bot", "alphazero"], "--bot"),
    (["--games", "0"], "nothing to fit"),
    (["--data", "/nonexistent.npz"], "--data"),
    (["--games", "1", "--players", "2", "--bot", "random"], "too few games"),
    (["--games", "6", "--players", "2", "--bot", "random"], "no bucket has 200 rows"),
])
def test_cli_train_value_refuses_bad_options(tmp_path: Path, args: list[str],
                                             message: str) -> None:
    from typer.testing import CliRunner

    from advisor_api.cli import app

    out = tmp_path / "model.json"
    result = CliRunner().invoke(app, ["train-value", "--out", str(out), *args])
    assert result.exit_code != 0
    assert message in result.output
    assert not out.exists()


def test_environment_variable_selects_the_model_file(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.json"
    model = default_model()
    scaled = ValueModel({k: tuple(2 * x for x in w) for k, w in model.weights.items()})
    scaled.save(path)
    s = mid_game(2, 3, 2)
    monkeypatch.setenv("MOMBASA_VALUE_MODEL", str(path))
    default_model.cache_clear()
    try:
        assert default_model().predict(s) == pytest.approx([2 * x for x in model.predict(s)])
    finally:
        monkeypatch.delenv("MOMBASA_VALUE_MODEL")
        default_model.cache_clear()


def test_a_model_fitted_on_other_catalogue_values_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """An owner's own catalogue with our model: the log says so and how to refit."""
    model = default_model()
    other = tmp_path / "other.json"
    ValueModel(dict(model.weights), {**model.meta, "catalogue": "0123456789abcdef"}).save(other)
    monkeypatch.setenv("MOMBASA_VALUE_MODEL", str(other))
    default_model.cache_clear()
    try:
        with caplog.at_level("WARNING", logger="search.value_model"):
            default_model()
        assert "fitted on catalogue 0123456789abcdef" in caplog.text
        assert engine.default_catalogue().fingerprint in caplog.text
        assert "train_recipe" in caplog.text
        caplog.clear()
        monkeypatch.delenv("MOMBASA_VALUE_MODEL")
        default_model.cache_clear()
        with caplog.at_level("WARNING", logger="search.value_model"):
            default_model()
        assert caplog.text == ""
    finally:
        default_model.cache_clear()


def test_bot_specs_choose_the_evaluator() -> None:
    """The MCTS bot searches the round tree with the learned evaluator unless told
    otherwise; the greedy baseline keeps the hand formula unless told otherwise."""
    from search.bots import GreedyBot, MCTSBot

    mcts = make_bot("mcts:iterations=5")
    assert isinstance(mcts, MCTSBot)
    assert (mcts.config.evaluator, mcts.config.tree) == ("learned", "round")
    assert make_bot("mcts:iterations=5,eval=hand,tree=move").config.evaluator == "hand"  # type: ignore[attr-defined]
    greedy = make_bot("greedy")
    assert isinstance(greedy, GreedyBot) and greedy.evaluator == "hand"
    assert make_bot("greedy:eval=learned").evaluator == "learned"  # type: ignore[attr-defined]


def test_nearest_bucket_fallback_is_not_saved(tmp_path: Path) -> None:
    """Predicting for an unfitted bucket borrows the nearest one without adding it to
    the fitted weights that go into the file."""
    model = default_model()
    only_two = ValueModel({k: w for k, w in model.weights.items() if k[0] == 2})
    s = mid_game(3, 4, 2)
    assert only_two.weights_for(bucket(s)) == only_two.weights[(2, s.round, 1)]
    assert len(only_two.predict(s)) == 3
    path = tmp_path / "m.json"
    only_two.save(path)
    assert set(ValueModel.load(path).weights) == set(only_two.weights)


def test_tempo_bias_tool_pairs_every_action_decision_with_the_final_lead() -> None:
    """``benchmarks/tempo_bias.py`` (the measurement behind ``TEMPO``): one error per
    action decision, filed under the player about to act, in a round 1-7."""
    from benchmarks.tempo_bias import lead_errors

    errors = lead_errors(games=1, bot="greedy", evaluator="hand")
    assert errors[0] and errors[1]
    assert all(1 <= rnd <= 7 for who in (0, 1) for rnd, _ in errors[who])


def test_tempo_bias_tool_compares_the_player_to_act_with_the_one_who_just_moved() -> None:
    """Rules: in the action phase the players take turns, one action each. The by-role
    table of ``benchmarks/tempo_bias.py`` files one row per action decision that follows
    another player's, with the third player's error only when there is one."""
    from benchmarks.tempo_bias import role_errors

    two = role_errors(games=1, players=2, bot="greedy", evaluator="hand")
    three = role_errors(games=1, players=3, bot="greedy", evaluator="hand")
    assert two and three
    assert all(1 <= rnd <= 7 and other is None for rnd, _, _, other in two)
    assert all(other is not None for _, _, _, other in three)


def test_progress_tool_files_each_decision_under_the_used_card_difference() -> None:
    """``benchmarks/tempo_bias.py --progress`` (the estimate's error by action cards
    used this round): one row per action decision; the fitted slope recovers a planted
    one."""
    from benchmarks.tempo_bias import played_games, progress_errors, progress_slope

    played = list(played_games(1, 2, "greedy", "hand"))
    rows = progress_errors(played)
    assert len(rows) == sum(len(seen) for seen, _ in played)
    assert all(-20 <= diff <= 20 and who in (0, 1) for diff, who, _ in rows)
    planted = [(d, w, 5.0 - 2.0 * d + (1.5 if w == 0 else 0.0))
               for d in range(-3, 4) for w in (0, 1)]
    a, b, c = progress_slope(planted)
    assert (round(a, 6), round(b, 6), round(c, 6)) == (5.0, -2.0, 1.5)
