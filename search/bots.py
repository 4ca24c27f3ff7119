"""Bots: one interface, ``choose(observation, budget) -> Move``.

A bot sees only its observation. A move is the player's whole turn (all its steps until
someone else, or chance, decides). Bots are described by a spec string such as
``random``, ``greedy``, ``mcts:time=0.25`` or ``mcts:iterations=400,c=0.6,horizon=game``
(see :func:`search.bot_specs.make_bot`).

>>> import engine
>>> s = engine.new_game(players=2, seed=4)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> bot = RandomBot(seed=1)
>>> move = bot.choose(engine.observe(s, 0))
>>> move.player, move.steps[0].kind
(0, 'rest')
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine import (
    Move,
    Observation,
    State,
    Step,
    determinize,
    observe,
)
from search.bot_base import Bot, Budget, play_out_move, still_mine
from search.candidates import candidate_steps
from search.evaluator import DEFAULT_WEIGHTS, EVALUATORS, Weights, money_estimate
from search.mcts import MCTS, SearchConfig, SearchResult, subtree
from search.pacing import REAL_TIME, Pacer
from search.policy import policy_step


class RandomBot:
    """Uniformly random legal steps."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        return play_out_move(obs, lambda o, s: self.rng.choice(s.legal_steps()))


class PolicyBot:
    """The rollout heuristic, one step at a time (fast, weak)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "policy"
        self.rng = random.Random(seed)

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        return play_out_move(obs, lambda o, s: policy_step(s, self.rng))


class GreedyBot:
    """One turn ahead: each candidate step is followed by the rest of the turn played by
    the heuristic policy, and judged by the evaluator (own estimated money minus the best
    opponent's)."""

    def __init__(self, seed: int = 0, weights: Weights = DEFAULT_WEIGHTS,
                 samples: int = 1, evaluator: str = "hand") -> None:
        if evaluator not in EVALUATORS:
            raise ValueError(f"eval: one of {', '.join(EVALUATORS)}, got {evaluator!r}")
        self.name = "greedy"
        self.rng = random.Random(seed)
        self.weights = weights
        self.samples = samples
        self.evaluator = evaluator

    def _value(self, state: State, me: int) -> float:
        money = money_estimate(state, self.weights, self.evaluator)
        others = max(m for i, m in enumerate(money) if i != me)
        return money[me] - others

    def _pick(self, obs: Observation, state: State) -> Step:
        me = obs.viewer
        legal = candidate_steps(state, state.legal_steps())
        if len(legal) == 1:
            return legal[0]
        best, best_value = legal[0], -1e18
        for step in legal:
            total = 0.0
            for k in range(self.samples):
                rng = random.Random(k)
                s = state.apply_unchecked(step)
                guard = 0
                while still_mine(s, me) and guard < 60:
                    s = s.apply_unchecked(policy_step(s, rng, solvers=True))
                    guard += 1
                total += self._value(s, me)
            value = total / self.samples + self.rng.random() * 1e-6
            if value > best_value:
                best, best_value = step, value
        return best

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        return play_out_move(obs, self._pick)


class MCTSBot:
    """ISMCTS on every step of its move, reusing the tree from one step to the next.

    ``pacer``: the clock of its time budget and where its searches may be paused or
    stopped (:mod:`search.pacing`; a stopped search plays the best step found so far,
    and the rest of the move at once)."""

    def __init__(self, config: SearchConfig, name: str = "mcts",
                 pacer: Pacer = REAL_TIME) -> None:
        self.name = name
        self.config = config
        self.pacer = pacer
        self.last: SearchResult | None = None
        # the first search of the last move (from the position the move started at)
        self.first_of_move: SearchResult | None = None
        self.searches = 0

    def _config(self, budget: Budget | None, share: float, seed: int) -> SearchConfig:
        cfg = self.config
        t = budget.time if budget and budget.time is not None else cfg.time
        it = budget.iterations if budget and budget.iterations is not None else cfg.iterations
        return replace(cfg, seed=seed,
                       iterations=max(1, int(it * share)) if it is not None else None,
                       time=t * share if t is not None else None)

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        me = obs.viewer
        state = determinize(obs, random.Random(self.searches))
        steps: list[Step] = []
        cur = obs
        root = None
        share = 0.6
        self.first_of_move = None
        while True:
            legal = state.legal_steps()
            if len(legal) == 1:
                step = legal[0]
                root = subtree(root, [step]) if root is not None else None
            else:
                cfg = self._config(budget, share, self.config.seed + self.searches)
                self.searches += 1
                result = MCTS(cfg, self.pacer).search(cur, root=root)
                self.last = result
                if not steps:
                    self.first_of_move = result
                step = result.best if result.lines else legal[0]
                root = subtree(result.root, [step])
                share = max(0.1, share * 0.5)
            steps.append(step)
            state = state.apply_unchecked(step)
            if not still_mine(state, me):
                return Move(me, tuple(steps))
            cur = observe(state, me)


__all__ = ["Bot", "Budget", "GreedyBot", "MCTSBot", "PolicyBot", "RandomBot"]
