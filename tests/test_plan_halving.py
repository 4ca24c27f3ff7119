"""``SearchConfig.plan_halving``: sequential halving at the searcher's own Planning
root once the budget is large enough. A step searched little reads below a step searched
deeply, so UCB at a Planning root keeps to the first step it searched (journal,
2026-12-07); halving gives every step still in the same iterations, round after round,
and keeps the better half (by what selection exploits: the mover's mean lead)."""

from __future__ import annotations

import math

from engine import Observation, observe
from search.bot_specs import make_bot
from search.bots import MCTSBot
from search.mcts import MCTS, SearchConfig, SearchResult
from search.pacing import Pacer
from tests.test_plan_slots import _planning_in


def _planning(round_: int = 2) -> Observation:
    s = _planning_in(round_)
    return observe(s, s.decision.player)


def _search(obs: Observation, **knobs: object) -> SearchResult:
    return MCTS(SearchConfig(seed=4, **knobs)).search(obs)  # type: ignore[arg-type]


def _lines(result: SearchResult) -> list[tuple[str, int, list[float]]]:
    return [(ln.step.text(), ln.visits, ln.win) for ln in result.lines]


def test_halving_searches_every_candidate_beyond_its_first_look() -> None:
    obs = _planning()
    ucb = _search(obs, iterations=600)
    halved = _search(obs, iterations=600, plan_halving=100)
    prior = SearchConfig(iterations=1).prior_visits
    assert len(halved.lines) == len(ucb.lines) > 8
    # UCB leaves steps at their first look; halving's first round reaches every step
    assert min(ln.visits for ln in ucb.lines) == prior
    assert min(ln.visits for ln in halved.lines) > prior
    assert halved.lines[0].share < ucb.lines[0].share


def test_halving_ranks_its_finalists_first_by_the_movers_mean_lead() -> None:
    obs = _planning()
    mcts = MCTS(SearchConfig(seed=4, iterations=800, plan_halving=100))
    result = mcts.search(obs)
    me = obs.viewer
    lead = [mcts._mean_lead(result.root.children[ln.step], me) for ln in result.lines]
    # the last round is between two steps; the one it leaves ahead is the choice
    assert lead[0] >= lead[1]
    # the finalists were searched in every round: more than any step dropped first
    dropped_first = min(ln.visits for ln in result.lines)
    assert result.lines[1].visits > dropped_first
    assert result.best == result.lines[0].step


def test_below_the_threshold_the_search_is_plain_ucb() -> None:
    """The first tenth of the budget tells how many iterations it gives; fewer than
    ``plan_halving``: UCB goes on, and the result is UCB's, iteration for iteration."""
    obs = _planning()
    assert _lines(_search(obs, iterations=300, plan_halving=301)) == _lines(
        _search(obs, iterations=300))


def test_halving_is_only_for_the_searchers_plan() -> None:
    s = _planning_in(2)
    while s.decision.kind != "action":
        s = s.apply(s.random_step(__import__("random").Random(0)))
    obs = observe(s, s.decision.player)
    assert _lines(_search(obs, iterations=200, plan_halving=10)) == _lines(
        _search(obs, iterations=200))


def test_halving_keeps_the_iteration_budget_and_the_seed() -> None:
    obs = _planning()
    one = _search(obs, iterations=500, plan_halving=100)
    assert one.iterations == 500
    assert _lines(one) == _lines(_search(obs, iterations=500, plan_halving=100))


def test_chosen_steps_are_never_halved() -> None:
    """``only=`` (the review's question about one step) keeps UCB."""
    obs = _planning()
    steps = MCTS(SearchConfig(iterations=1)).candidates(obs)[:5]
    a = MCTS(SearchConfig(seed=4, iterations=300, plan_halving=10)).search(obs, only=steps)
    b = MCTS(SearchConfig(seed=4, iterations=300)).search(obs, only=steps)
    assert _lines(a) == _lines(b)


class _Ticks(Pacer):
    """A clock that moves a millisecond a call, and may stop the search."""

    def __init__(self, stop_after: float = math.inf) -> None:
        self.t = 0.0
        self.stop_after = stop_after

    def clock(self) -> float:
        self.t += 0.001
        return self.t

    def checkpoint(self) -> bool:
        return self.t < self.stop_after


def test_a_time_budget_halves_when_its_pace_gives_enough_iterations() -> None:
    obs = _planning()
    # this clock gives some hundreds of iterations in 1 s: above 200, below 5,000
    halved = MCTS(SearchConfig(seed=4, time=1.0, plan_halving=200), _Ticks()).search(obs)
    ucb = MCTS(SearchConfig(seed=4, time=1.0, plan_halving=5000), _Ticks()).search(obs)
    prior = SearchConfig(iterations=1).prior_visits
    assert min(ln.visits for ln in halved.lines) > prior
    assert min(ln.visits for ln in ucb.lines) == prior


def test_a_stopped_halving_still_answers() -> None:
    obs = _planning()
    full = MCTS(SearchConfig(seed=4, time=1.0, plan_halving=200), _Ticks()).search(obs)
    result = MCTS(SearchConfig(seed=4, time=1.0, plan_halving=200),
                  _Ticks(stop_after=0.5)).search(obs)
    assert result.lines and 0.3 * full.iterations < result.iterations < 0.7 * full.iterations


def test_the_bot_spec_key_is_halve() -> None:
    bot = make_bot("mcts:iterations=9,halve=2000")
    assert isinstance(bot, MCTSBot) and bot.config.plan_halving == 2000
