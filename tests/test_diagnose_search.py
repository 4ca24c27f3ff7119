"""The search diagnostics of ``benchmarks/diagnose_search.py`` (docs/search.md, "Why
more thinking did not play better"), at tiny budgets."""

from __future__ import annotations

import engine
from benchmarks.diagnose_search import ReachCountingMCTS, reach
from search.mcts import SearchConfig
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
