"""Playing levels: eight bots from a beginner (level 1) to the full search (level 8), as
the bot spec ``level:N`` (:func:`search.bot_specs.make_bot`).

Levels 1-5 are *casual players* (:class:`CasualBot`): a one-turn look (each candidate
step followed by the rest of the turn as the rollout policy plays it, judged by an
evaluator, as the greedy bot does) spoiled by a documented mixture of the mistakes
beginners make, each less frequent as the level rises (:data:`LEVELS`,
``docs/levels.md``):

* **slips**: with probability ``slip`` a step is a uniformly random legal step;
* **careless plans**: with probability ``careless_plan`` a whole Planning is made
  carelessly: random cards into random free slots (gaps left), stopping after each card
  with chance 1/3;
* **short sight**: the long plans are ignored: no bookkeeper action and no books bought
  (the ink jar never moves), and no solver at expansions (the route is entered step by
  step as it looks best now);
* **misjudging**: a candidate's value is read with Gaussian noise of ``misjudge`` pounds,
  by the hand formula (levels 1-3) or the learned evaluator (levels 4-5).

Levels 6-8 are the shipped search (:class:`search.mcts.SearchConfig`'s defaults, the
advisor's configuration) at fixed iteration budgets, so a level plays the same on a
busy machine as on an idle one and a seeded game replays: 30, 300 and 3,000 iterations a
search (levels 6-8; the last about 1 s on this 2-core machine). Level 5 is the greedy
bot's one-turn look with the learned evaluator and no mistakes. A level is fixed:
the installation's ``MOMBASA_SEARCH`` settings do not change it (its rating was
measured on these definitions).

:func:`ratings` reads the rating ladder measured over the levels and the named bots
(``search/data/ladder.json``, made by ``python -m benchmarks.ladder``).

>>> import engine
>>> s = engine.new_game(players=2, seed=4)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> bot = make_level(1, seed=1)
>>> bot.name, bot.choose(engine.observe(s, 0)).steps[0].kind
('level:1', 'rest')
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine import Observation, State, Step
from search.bot_base import Bot, still_mine
from search.bots import GreedyBot, MCTSBot
from search.candidates import candidate_steps
from search.mcts import Bound, SearchConfig
from search.pacing import REAL_TIME, Pacer
from search.policy import policy_step

LADDER_PATH = Path(__file__).parent / "data" / "ladder.json"
# Steps of the bookkeeping route a short-sighted player never takes while it has another
# choice: the bookkeeper action (the ink jar's only mover) and buying books.
LONG_PLAN_KINDS = frozenset({"keeper", "take"})
_STOP_PLANNING = 1 / 3  # a careless plan's chance of stopping after each card


@dataclass(frozen=True)
class Casual:
    """The mistakes of a casual player (levels 1-5): see the module's docstring."""

    slip: float  # chance a step is a uniformly random legal step
    careless_plan: float  # chance a Planning phase's plan is made carelessly
    short_sighted: bool  # no bookkeeping route, no solvers
    misjudge: float  # pounds of noise (standard deviation) on each candidate's value
    evaluator: str  # the evaluator of the one-turn look: "hand" or "learned"


@dataclass(frozen=True)
class Level:
    """One playing level: a casual mixture or an iteration budget of the search."""

    number: int
    name: str
    summary: str
    casual: Casual | None = None
    iterations: int | None = None  # the search's budget a search (levels 6-8)


LEVELS: tuple[Level, ...] = (
    Level(1, "beginner", "a random step in 1 of 10, careless plans 3 times in 4, "
          "no bookkeeping, misjudges by 2 pounds", Casual(0.10, 0.75, True, 2.0, "hand")),
    Level(2, "novice", "a random step in 1 of 20, careless plans 2 times in 5, "
          "no bookkeeping, misjudges by 1 pound", Casual(0.05, 0.4, True, 1.0, "hand")),
    Level(3, "casual", "a random step in 1 of 33, careless plans 1 time in 5; sees the "
          "bookkeeping route", Casual(0.03, 0.2, False, 0.0, "hand")),
    Level(4, "club", "a random step in 1 of 67, careless plans 1 time in 10, judged by "
          "the learned evaluator", Casual(0.015, 0.1, False, 0.0, "learned")),
    Level(5, "strong club", "one turn ahead with the learned evaluator, no slips "
          "(the greedy bot)", Casual(0.0, 0.0, False, 0.0, "learned")),
    Level(6, "expert", "the search at 30 iterations", iterations=30),
    Level(7, "master", "the search at 300 iterations", iterations=300),
    Level(8, "full search", "the search at 3,000 iterations (about 1 s)", iterations=3000),
)
LEVEL_NUMBERS = Bound(1, len(LEVELS), integer=True)


def level(number: int) -> Level:
    """Level ``number`` (1..8); a ``ValueError`` names the setting otherwise.

    >>> level(8).iterations
    3000
    >>> level(0)
    Traceback (most recent call last):
    ...
    ValueError: level: expected an integer in [1, 8], got 0
    """
    LEVEL_NUMBERS.check("level", number)
    return LEVELS[number - 1]


class CasualBot(GreedyBot):
    """A one-turn look with a casual player's mistakes (:class:`Casual`).

    ``tally`` counts, per step decided (more than one legal step), which part of the
    mixture chose it: ``slip``, ``careless-plan`` or ``look``."""

    def __init__(self, mix: Casual, seed: int = 0, name: str = "casual") -> None:
        super().__init__(seed, evaluator=mix.evaluator)
        self.name = name
        self.mix = mix
        self.tally: Counter[str] = Counter()
        self._careless = False

    def _pick(self, obs: Observation, state: State) -> Step:
        d = state.decision
        legal = state.legal_steps()
        if len(legal) == 1:
            return legal[0]
        if d.kind == "plan":
            if d.slot == -1:  # a new plan: careless or not, for all its steps
                self._careless = self.rng.random() < self.mix.careless_plan
            if self._careless:
                self.tally["careless-plan"] += 1
                return self._careless_step(legal)
        if self.rng.random() < self.mix.slip:
            self.tally["slip"] += 1
            return self.rng.choice(legal)
        self.tally["look"] += 1
        if self.mix.short_sighted:
            candidates = [s for s in legal if s.kind not in LONG_PLAN_KINDS] or legal
        else:
            candidates = candidate_steps(state, legal)
        return max(candidates, key=lambda step: self._judge(state, obs.viewer, step))

    def _careless_step(self, legal: list[Step]) -> Step:
        """A random card into a random free slot, or (1 in 3, or nothing to plan) ready."""
        plans = [s for s in legal if s.kind == "plan"]
        ready = [s for s in legal if s.kind == "ready"]
        if ready and (not plans or self.rng.random() < _STOP_PLANNING):
            return ready[0]
        return self.rng.choice(plans or legal)

    def _judge(self, state: State, me: int, step: Step) -> float:
        """The step, the rest of the turn by the policy (the solvers only for a player
        who sees the long plans), the evaluator, the misjudgement."""
        rng = random.Random(0)
        s = state.apply_unchecked(step)
        solvers = not self.mix.short_sighted
        for _ in range(60):
            if not still_mine(s, me):
                break
            s = s.apply_unchecked(policy_step(s, rng, solvers=solvers))
        noise = self.rng.gauss(0.0, self.mix.misjudge) if self.mix.misjudge else 0.0
        return self._value(s, me) + noise + self.rng.random() * 1e-6


def make_level(number: int, seed: int = 0, pacer: Pacer = REAL_TIME) -> Bot:
    """The bot of level ``number`` (``pacer``: the pace of a search level's searches,
    :mod:`search.pacing`)."""
    lv = level(number)
    name = f"level:{number}"
    if lv.casual is not None:
        return CasualBot(lv.casual, seed, name=name)
    assert lv.iterations is not None
    return MCTSBot(SearchConfig(iterations=lv.iterations, seed=seed), name=name, pacer=pacer)


@cache
def _ladder(path: Path = LADDER_PATH) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("ratings"), dict):
        raise ValueError(f"{path}: not a rating ladder (no 'ratings')")
    return data


def ladder() -> dict[str, Any]:
    """The measured rating ladder as stored (``search/data/ladder.json``): ``ratings``
    by player (each ``rating``, ``ci95`` and ``games``), the ``anchor``, the ``command``
    that made it and the ``commit`` it was measured at."""
    return _ladder()


def ratings() -> dict[int, dict[str, Any]]:
    """Each level's measured rating: ``{N: {"rating", "ci95", "games", "score"}}``."""
    stored = ladder()["ratings"]
    return {lv.number: stored[f"level:{lv.number}"] for lv in LEVELS
            if f"level:{lv.number}" in stored}


def describe() -> list[dict[str, Any]]:
    """Every level for a client: ``level``, ``spec``, ``name``, ``summary``, and its
    ``rating`` and ``ci95`` (None where the ladder has none)."""
    rated = ratings()
    out = []
    for lv in LEVELS:
        r = rated.get(lv.number, {})
        out.append({"level": lv.number, "spec": f"level:{lv.number}", "name": lv.name,
                    "summary": lv.summary, "rating": r.get("rating"), "ci95": r.get("ci95")})
    return out


__all__ = ["LEVELS", "LEVEL_NUMBERS", "LONG_PLAN_KINDS", "Casual", "CasualBot", "Level",
           "describe", "ladder", "level", "make_level", "ratings"]
