"""Bots by name: the spec strings of the arena, the CLI, the service's AI seats and the
recipe (``"mcts:time=0.25,c=0.6"``), parsed and built in one place."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields, replace

from search.bots import Bot, GreedyBot, MCTSBot, PolicyBot, RandomBot
from search.evaluator import Weights
from search.mcts import SearchConfig
from search.openspiel_bots import make_openspiel_bot
from search.specialists import SpecialistBot

# Evaluator weights a spec may override, e.g. ``mcts:time=0.25,round_unit=1.5``.
WEIGHT_NAMES = frozenset(f.name for f in fields(Weights))


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
            strength = float(opts["strength"]) if "strength" in opts else None
            if strength is not None and not (math.isfinite(strength) and strength >= 0):
                raise ValueError(f"strength: a number >= 0, got {opts['strength']!r}")
            return SpecialistBot(name, seed, strength=strength,
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
    return make_openspiel_bot(name, opts, seed)


__all__ = ["WEIGHT_NAMES", "make_bot", "parse_spec"]
