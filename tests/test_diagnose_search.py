"""The search diagnostics of ``benchmarks/diagnose_search.py``
(benchmarks/strength/search-journal.md, 2026-11-30, "Why more thinking did not play
better"), at tiny budgets."""

from __future__ import annotations

import gc
import random
from dataclasses import replace

import pytest

import engine
import search.collector
import search.mcts as mcts_module
from benchmarks.diagnose_search import (
    ReachCountingMCTS,
    budget,
    collector,
    first_look_pick,
    first_look_spread,
    firstlook,
    optimism,
    plans,
    reach,
)
from search.mcts import MCTS, SearchConfig
from tests.builders import start


def test_a_small_tree_at_the_start_of_a_round_never_reaches_its_end() -> None:
    """30 iterations at the first action of round 1 cannot play out the whole round."""
    search = ReachCountingMCTS(SearchConfig(iterations=30, seed=1))
    s = start(seed=3)
    search.search(engine.observe(s, s.decision.player))
    assert search.leaves == 30
    assert search.at_round_end == 0


def test_reach_reports_both_budgets_as_shares() -> None:
    rows = reach(positions=2, iterations=10)
    assert [r["iterations"] for r in rows] == [10, 40]
    for row in rows:
        assert row["positions"] == 2
        assert 0.0 <= row["mean_share_at_round_end"] <= 1.0
        assert 0.0 <= row["positions_mostly_at_round_end"] <= 1.0


def test_first_look_pick_is_what_one_iteration_without_a_tree_would_pick() -> None:
    """With a budget of one iteration and exploration off, the root's only deep look goes
    to the best first look, which stays the pick."""
    s = start(seed=3)
    obs = engine.observe(s, s.decision.player)
    cfg = SearchConfig(iterations=1, seed=5)
    look = first_look_pick(obs, cfg)
    assert look in s.legal_steps()
    assert MCTS(replace(cfg, c_uct=0.0)).search(obs).best == look


def test_firstlook_reports_three_budgets_as_shares() -> None:
    row = firstlook(positions=2, iterations=8)
    assert row["positions"] == 2
    assert set(row) == {"positions", "first_look_pick_at_2", "first_look_pick_at_8",
                        "first_look_pick_at_32", "changed_2_to_8", "changed_8_to_32"}
    assert all(0.0 <= v <= 1.0 for k, v in row.items() if k != "positions")


def test_budget_reports_both_searches_iterations_and_their_ratio() -> None:
    # 0.05 s leaves room for the root's first look (a few ms) on a loaded CI machine.
    row = budget(positions=2, seconds=0.05, factor=3)
    assert row["positions"] == 2
    assert row["long_seconds"] == pytest.approx(0.15)
    assert 0 < row["short_iterations"] < row["long_iterations"]
    assert row["ratio"] == pytest.approx(row["long_iterations"] / row["short_iterations"])
    assert row["short_per_second"] > 0 and row["long_per_second"] > 0


def test_collector_alternates_the_pause_and_puts_everything_back() -> None:
    callbacks = list(gc.callbacks)
    plain = MCTS.search
    paused, unpaused = collector(games=1, seconds=0.01)
    assert paused["paused"] is True and unpaused["paused"] is False
    assert abs(paused["searches"] - unpaused["searches"]) <= 1 and unpaused["searches"] > 10
    for row in (paused, unpaused):
        assert row["iterations_per_second"] > 0
        assert 0.0 <= row["collection_seconds_per_search_second"] < 1.0
    assert unpaused["generation_0"] > 0  # the collector ran during the unpaused searches
    assert MCTS.search is plain
    assert mcts_module.collector_paused is search.collector.collector_paused
    assert gc.callbacks == callbacks and gc.isenabled()


def test_optimism_reports_the_picks_rating_over_the_first_look_per_budget() -> None:
    rows = optimism(positions=3, iterations=8)
    assert [r["iterations"] for r in rows] == [2, 8, 32]
    for row in rows:
        assert row["positions"] == 3
        assert row["standard_error"] >= 0.0
        assert abs(row["mean_pick_over_first_look"]) < 100.0  # pounds, not a sum


def test_first_look_holds_the_only_candidate_too() -> None:
    """Where there is one candidate the search gives no first look (nothing to choose),
    but ``MCTS.first_look`` still rates it, so the firstlook diagnostic has a pick."""
    s = start(seed=3)
    rng = random.Random(0)
    while not (s.decision.kind != "chance" and len(s.legal_steps()) == 1):
        s = s.apply(s.sample_chance() if s.decision.kind == "chance"
                    else rng.choice(s.legal_steps()))
    obs = engine.observe(s, s.decision.player)
    root = MCTS(SearchConfig(iterations=1, seed=2)).first_look(obs)
    assert list(root.children) == s.legal_steps()
    assert first_look_pick(obs, SearchConfig(iterations=1)) == s.legal_steps()[0]


def _late_planning_observations(count: int) -> list[engine.Observation]:
    """Planning decisions from round 2 on, in a random game (seeded)."""
    s = engine.new_game(players=2, seed=4)
    rng = random.Random(0)
    found: list[engine.Observation] = []
    while len(found) < count:
        d = s.decision
        if d.kind == "plan" and s.round >= 2:
            found.append(engine.observe(s, d.player))
        s = s.apply(s.sample_chance() if d.kind == "chance"
                    else rng.choice(s.legal_steps()))
    return found


def test_spread_sees_the_hidden_plans_and_nothing_once_they_are_fixed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In Planning the other's plan is hidden, so first looks differ between
    determinizations; with every determinization the same one, they cannot."""
    obs_list = _late_planning_observations(3)
    assert first_look_spread(obs_list, 4)["mean_sd_of_first_look_lead"] > 0.0
    real = mcts_module.determinize
    monkeypatch.setattr(mcts_module, "determinize",
                        lambda obs, rng: real(obs, random.Random(0)))
    fixed = first_look_spread(obs_list, 4)
    assert fixed["mean_sd_of_first_look_lead"] == 0.0
    assert fixed["share_off_most_common_pick"] == 0.0


def test_plans_counts_the_cards_each_plan_model_places() -> None:
    """``plans`` counts, per player-round, the free slots and the cards placed by the
    bots and by the two plan models; the model the search uses now places about as
    many as the greedy bot, ``policy_step`` clearly fewer (it skips slots)."""
    out = plans(1, "greedy:eval=learned", samples=5)
    assert out["player_rounds"] == 14  # two players, seven rounds
    assert out["bot"] <= out["free_slots"]
    assert out["plan_step"] <= out["free_slots"]
    assert out["policy_step"] < out["plan_step"] - 0.5
