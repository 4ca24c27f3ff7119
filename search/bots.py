"""Bots: one interface, ``choose(observation, budget) -> Move``.

A bot sees only its observation. A move is the player's whole turn (all its steps until
someone else, or chance, decides). Bots are described by a spec string such as
``random``, ``greedy``, ``mcts:time=0.25`` or ``mcts:iterations=400,c=0.6,horizon=game``
(see :func:`make_bot`).

>>> import engine
>>> s = engine.new_game(players=2, seed=4)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> bot = make_bot("random", seed=1)
>>> move = bot.choose(engine.observe(s, 0))
>>> move.player, move.steps[0].kind
(0, 'rest')
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Protocol

from engine import (
    Move,
    Observation,
    State,
    Step,
    apply_unchecked,
    determinize,
    legal_steps,
    observe,
)
from search.candidates import candidate_steps
from search.evaluator import DEFAULT_WEIGHTS, EVALUATORS, Weights, money_estimate
from search.mcts import MCTS, SearchConfig, SearchResult, subtree
from search.policy import policy_step

# Evaluator weights a spec may override, e.g. ``mcts:time=0.25,round_unit=1.5``.
WEIGHT_NAMES = frozenset(f.name for f in fields(Weights))


@dataclass(frozen=True)
class Budget:
    """Thinking budget for one move: seconds and/or iterations (None: the bot's default)."""

    time: float | None = None
    iterations: int | None = None


class Bot(Protocol):
    name: str

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move: ...


def _still_mine(state: State, me: int) -> bool:
    if state.is_over():
        return False
    d = state.decision
    return d.kind != "chance" and d.player == me


def _play_out_move(obs: Observation, pick: StepPicker) -> Move:
    """Build a move step by step: each step chosen on the current observation."""
    me = obs.viewer
    rng = random.Random(0)
    state = determinize(obs, rng)
    steps: list[Step] = []
    cur = obs
    while True:
        step = pick(cur, state)
        steps.append(step)
        state = apply_unchecked(state, step)
        if not _still_mine(state, me):
            return Move(me, tuple(steps))
        cur = observe(state, me)


class StepPicker(Protocol):
    def __call__(self, obs: Observation, state: State) -> Step: ...


class RandomBot:
    """Uniformly random legal steps."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        return _play_out_move(obs, lambda o, s: self.rng.choice(legal_steps(s)))


class PolicyBot:
    """The rollout heuristic, one step at a time (fast, weak)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "policy"
        self.rng = random.Random(seed)

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        return _play_out_move(obs, lambda o, s: policy_step(s, self.rng))


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
        legal = candidate_steps(state, legal_steps(state))
        if len(legal) == 1:
            return legal[0]
        best, best_value = legal[0], -1e18
        for step in legal:
            total = 0.0
            for k in range(self.samples):
                rng = random.Random(k)
                s = apply_unchecked(state, step)
                guard = 0
                while _still_mine(s, me) and guard < 60:
                    s = apply_unchecked(s, policy_step(s, rng, solvers=True))
                    guard += 1
                total += self._value(s, me)
            value = total / self.samples + self.rng.random() * 1e-6
            if value > best_value:
                best, best_value = step, value
        return best

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        return _play_out_move(obs, self._pick)


class MCTSBot:
    """ISMCTS on every step of its move, reusing the tree from one step to the next."""

    def __init__(self, config: SearchConfig, name: str = "mcts") -> None:
        self.name = name
        self.config = config
        self.last: SearchResult | None = None
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
        while True:
            legal = legal_steps(state)
            if len(legal) == 1:
                step = legal[0]
                root = subtree(root, [step]) if root is not None else None
            else:
                cfg = self._config(budget, share, self.config.seed + self.searches)
                self.searches += 1
                result = MCTS(cfg).search(cur, root=root)
                self.last = result
                step = result.best if result.lines else legal[0]
                root = subtree(result.root, [step])
                share = max(0.1, share * 0.5)
            steps.append(step)
            state = apply_unchecked(state, step)
            if not _still_mine(state, me):
                return Move(me, tuple(steps))
            cur = observe(state, me)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:time=0.25,c=0.6"`` -> ``("mcts", {"time": "0.25", "c": "0.6"})``."""
    name, _, rest = spec.partition(":")
    opts: dict[str, str] = {}
    if rest:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key:
                raise ValueError(f"bot spec {spec!r}: expected key=value, got {part!r}")
            opts[key.strip()] = value.strip()
    return name.strip(), opts


def make_bot(spec: str, seed: int = 0) -> Bot:
    """Build a bot from its spec string.

    ``random``; ``policy``; ``greedy[:samples=N]``;
    ``bookkeeper``, ``diamonds``, ``shares`` ``[:eval=learned|hand][,strength=X]``
    (route specialists, :mod:`search.specialists`);
    ``mcts[:time=S][,iterations=N][,c=C][,tree=round|move][,eval=learned|hand]
    [,horizon=turn|move|cycle|round|game][,noise=X][,tempo=P][,widen=W][,prior=K]
    [,node_priors=1]``
    (see ``docs/search.md``);
    ``openspiel-mcts`` / ``openspiel-ismcts`` ``[:time=S|sims=N]`` (needs the
    ``openspiel`` extra).
    """
    name, opts = parse_spec(spec)
    allowed = {"random": set(), "policy": set(), "greedy": {"samples", "eval"},
               "bookkeeper": {"eval", "strength"}, "diamonds": {"eval", "strength"},
               "shares": {"eval", "strength"},
               "mcts": {"time", "iterations", "c", "horizon", "widen", "prior", "tree",
                        "node_priors", "eval", "noise", "tempo",
                        *WEIGHT_NAMES},
               "openspiel-mcts": {"time", "sims"}, "openspiel-ismcts": {"time", "sims"}}
    if name not in allowed:
        raise ValueError(f"unknown bot {name!r}: one of {', '.join(sorted(allowed))}")
    unknown = set(opts) - allowed[name]
    if unknown:
        raise ValueError(f"bot {name!r}: unknown setting {sorted(unknown)[0]!r} "
                         f"(settings: {', '.join(sorted(allowed[name])) or 'none'})")
    try:
        if name == "random":
            return RandomBot(seed)
        if name == "policy":
            return PolicyBot(seed)
        if name in ("bookkeeper", "diamonds", "shares"):
            from search.specialists import SpecialistBot

            return SpecialistBot(name, seed, strength=float(opts.get("strength", 1.0)),
                                 evaluator=opts.get("eval", "learned"))
        if name == "greedy":
            return GreedyBot(seed, samples=int(opts.get("samples", 1)),
                             evaluator=opts.get("eval", "hand"))
        if name == "mcts":
            # Every setting the spec leaves out is SearchConfig's default: the dataclass
            # is the one source of the search settings (the advisor uses it too).
            knobs: dict[str, tuple[str, Callable[[str], object]]] = {
                "c": ("c_uct", float), "horizon": ("horizon", str),
                "widen": ("widen_c", float), "prior": ("prior_visits", int),
                "tree": ("tree", str), "eval": ("evaluator", str),
                "noise": ("rollout_noise", float), "tempo": ("tempo", float),
                "node_priors": ("node_priors", lambda v: v in ("1", "true")),
                "time": ("time", float), "iterations": ("iterations", int)}
            kwargs = {knobs[k][0]: knobs[k][1](v) for k, v in opts.items() if k in knobs}
            if "time" not in kwargs and "iterations" not in kwargs:
                kwargs["time"] = 0.25  # the bot's budget when the spec gives none
            if WEIGHT_NAMES & set(opts):
                kwargs["weights"] = replace(SearchConfig.weights,  # the default weights
                                            **{k: float(v) for k, v in opts.items()
                                               if k in WEIGHT_NAMES})
            cfg = SearchConfig(seed=seed, **kwargs)  # type: ignore[arg-type]
            return MCTSBot(cfg, name=spec)
    except ValueError as exc:
        raise ValueError(f"bot spec {spec!r}: {exc}") from None
    from search.openspiel_bots import make_openspiel_bot

    return make_openspiel_bot(name, opts, seed)


__all__ = ["Bot", "Budget", "GreedyBot", "MCTSBot", "PolicyBot", "RandomBot", "make_bot",
           "parse_spec"]
