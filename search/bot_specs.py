"""Bots by name: the spec strings of the arena, the CLI, the service's AI seats and the
recipe (``"mcts:time=0.25,c=0.6"``), parsed and built in one place."""

from __future__ import annotations

import os
from dataclasses import fields, replace
from typing import Any

from search.bots import Bot, GreedyBot, MCTSBot, PolicyBot, RandomBot
from search.evaluator import EVALUATORS, Weights
from search.extras import MissingExtra
from search.levels import LEVEL_NUMBERS, make_level
from search.mcts import (
    BOUNDS,
    HORIZONS,
    MAX_ITERATIONS,
    PLAN_SLOTS,
    SELECTS,
    TREES,
    WEIGHT_BOUNDS,
    Bound,
    SearchConfig,
)
from search.pacing import REAL_TIME, Pacer
from search.specialists import SpecialistBot
from search.value_model import default_model

# Evaluator weights a spec may override, e.g. ``mcts:time=0.25,round_unit=1.5``.
WEIGHT_NAMES = frozenset(f.name for f in fields(Weights))


def _ready(evaluator: str) -> str:
    """``evaluator``, once the value model it reads has loaded: a bot is never built
    whose every search would fail on a missing or damaged model file (that raises a
    ``ValueError`` naming the file)."""
    if evaluator == "learned":
        default_model()
    return evaluator


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:time=0.25,c=0.6"`` -> ``("mcts", {"time": "0.25", "c": "0.6"})``.

    Only the syntax: a setting given twice, an empty name, a part without ``=`` are
    refused here; the values are checked by :func:`make_bot`."""
    if not isinstance(spec, str):
        raise ValueError(f"bot spec: expected a string, got {spec!r}")
    name, _, rest = spec.partition(":")
    if not name.strip():
        raise ValueError(f"bot spec {spec!r}: expected a bot name before the settings")
    if name.strip() == "level" and "=" not in rest.partition(",")[0]:
        rest = "level=" + rest  # level:N is level:level=N (search.levels)
    opts: dict[str, str] = {}
    if rest:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"bot spec {spec!r}: expected key=value, got {part!r}")
            if key.strip() in opts:
                raise ValueError(f"bot spec {spec!r}: {key.strip()}: given twice")
            opts[key.strip()] = value.strip()
    return name.strip(), opts


# Spec setting -> (SearchConfig field, how its text is read). Numbers are checked against
# the field's bound (search.mcts.BOUNDS), named by the spec's key.
_MCTS_KNOBS: dict[str, str] = {
    "c": "c_uct", "horizon": "horizon", "widen": "widen_c", "prior": "prior_visits",
    "tree": "tree", "eval": "evaluator", "noise": "rollout_noise", "tempo": "tempo",
    "node_priors": "node_priors", "time": "time", "iterations": "iterations",
    "drive": "book_drive", "select": "select", "model": "value_model", "plan": "plan",
    "plan_c": "plan_c", "halve": "plan_halving"}
_CHOICES: dict[str, tuple[str, ...]] = {"horizon": HORIZONS, "tree": TREES, "plan": PLAN_SLOTS,
                                        "eval": EVALUATORS, "select": SELECTS}
_FLAGS = {"1": True, "true": True, "0": False, "false": False}
# Settings of the other bots.
SAMPLES = Bound(1, 1000, integer=True)  # greedy: rollouts per candidate step
STRENGTH = Bound(0, 100)  # specialists: weight of the route bonus
SIMS = Bound(1, MAX_ITERATIONS, integer=True)  # openspiel: simulations per search


def _number(key: str, text: str, bound: Bound) -> float | int:
    """The value of setting ``key`` read from its text, within ``bound``."""
    value: float | int | None
    try:
        value = int(text) if bound.integer else float(text)
    except ValueError:
        value = None
    if value is None or not bound.admits(value):
        shown = text if value is not None else repr(text)  # got nan / got 'abc'
        raise ValueError(f"{key}: expected {bound.describe()}, got {shown}")
    return value


def _choice(key: str, text: str) -> str:
    if text not in _CHOICES[key]:
        raise ValueError(f"{key}: one of {', '.join(_CHOICES[key])}, got {text!r}")
    return text


def _flag(key: str, text: str) -> bool:
    if text.lower() not in _FLAGS:
        raise ValueError(f"{key}: expected 1, 0, true or false, got {text!r}")
    return _FLAGS[text.lower()]


def _mcts_value(key: str, text: str) -> object:
    if key in _CHOICES:
        return _choice(key, text)
    if key == "node_priors":
        return _flag(key, text)
    if key == "model":  # a value model file, checked when the SearchConfig is built
        return text
    return _number(key, text, BOUNDS[_MCTS_KNOBS[key]])


#: The environment variable holding this installation's search settings, in the mcts
#: spec's syntax without a budget (``MOMBASA_SEARCH="drive=0"``). They replace
#: :class:`SearchConfig`'s defaults for every search this process builds: the AI seats,
#: the advisor's analyses, the arena's mcts bots (a spec's own settings still win).
SETTINGS_ENV = "MOMBASA_SEARCH"


def search_settings(text: str | None = None) -> dict[str, Any]:
    """The :class:`SearchConfig` fields this installation's settings change: ``text``,
    else ``MOMBASA_SEARCH`` (empty or unset: none). Every value is checked as a spec's
    is; a ``ValueError`` names the variable and the setting. The budget is not a
    setting of the installation (each request and bot spec gives its own).

    >>> search_settings("drive=0,c=0.4")
    {'book_drive': 0.0, 'c_uct': 0.4}
    >>> search_settings("iterations=5")
    Traceback (most recent call last):
    ...
    ValueError: MOMBASA_SEARCH: iterations: the budget is given per search, not here
    """
    if text is None:
        text = os.environ.get(SETTINGS_ENV, "")
    if not text.strip():
        return {}
    try:
        _, opts = parse_spec("mcts:" + text)
    except ValueError:
        raise ValueError(f"{SETTINGS_ENV}: expected key=value settings separated by "
                         f"commas, got {text!r}") from None
    try:
        for key in opts:
            if key in ("time", "iterations"):
                raise ValueError(f"{key}: the budget is given per search, not here")
            if key not in _MCTS_KNOBS and key not in WEIGHT_NAMES:
                raise ValueError(f"unknown setting {key!r} (settings: "
                                 f"{', '.join(sorted(set(_MCTS_KNOBS) - {'time', 'iterations'}))}"
                                 f", or an evaluator weight)")
        return _mcts_kwargs(opts, SearchConfig.weights)
    except ValueError as exc:
        raise ValueError(f"{SETTINGS_ENV}: {exc}") from None


def _mcts_kwargs(opts: dict[str, str], weights: Weights) -> dict[str, Any]:
    """The :class:`SearchConfig` fields of an mcts spec's settings (weights start from
    ``weights``)."""
    kwargs: dict[str, Any] = {_MCTS_KNOBS[k]: _mcts_value(k, v) for k, v in opts.items()
                              if k in _MCTS_KNOBS}
    if WEIGHT_NAMES & set(opts):
        kwargs["weights"] = replace(weights, **{k: float(_number(k, v, WEIGHT_BOUNDS[k]))
                                                for k, v in opts.items()
                                                if k in WEIGHT_NAMES})
    return kwargs


def search_config(iterations: int | None = None, time: float | None = None,
                  seed: int = 0) -> SearchConfig:
    """The search configuration of this installation for a budget and seed:
    :class:`SearchConfig`'s defaults with ``MOMBASA_SEARCH``'s settings (the advisor's
    analyses and the AI seats both start here).

    >>> search_config(iterations=100).book_drive == SearchConfig(iterations=1).book_drive
    True
    """
    return SearchConfig(iterations=iterations, time=time, seed=seed, **search_settings())


def _specialist(name: str, opts: dict[str, str], seed: int) -> Bot:
    """A route specialist from its checked settings (``strength``, ``eval``)."""
    strength = None
    if "strength" in opts:
        try:
            strength = float(_number("strength", opts["strength"], STRENGTH))
        except ValueError:  # worded as before: "a number >= 0"
            raise ValueError(f"strength: a number >= 0 (finite, at most 100), "
                             f"got {opts['strength']}") from None
    return SpecialistBot(name, seed, strength=strength,
                         evaluator=_ready(opts.get("eval", "learned")))


def make_bot(spec: str, seed: int = 0, pacer: Pacer = REAL_TIME) -> Bot:
    """Build a bot from its spec string (``pacer``: the pace of an ``mcts`` bot's
    searches, :mod:`search.pacing`; the other bots think briefly and are not paced).

    ``level:N`` (N 1..8, :mod:`search.levels`); ``random``; ``policy``; ``greedy[:samples=N]``;
    ``bookkeeper``, ``diamonds``, ``shares`` ``[:eval=learned|hand][,strength=X]``
    (route specialists, :mod:`search.specialists`);
    ``mcts[:time=S][,iterations=N][,c=C][,tree=round|move][,eval=learned|hand]
    [,horizon=turn|move|cycle|round|game][,noise=X][,tempo=P][,widen=W][,prior=K]
    [,node_priors=1][,drive=D][,select=lead|win|mix][,model=FILE][,plan=all|late|leftmost][,plan_c=C]
    [,halve=N]``
    (see ``docs/search.md``);
    ``openspiel-mcts`` / ``openspiel-ismcts`` ``[:time=S|sims=N]`` (needs the
    ``openspiel`` extra).

    Every setting is checked (a finite number in its range, an integer where one is
    meant, one of the choices): a ``ValueError`` names the spec and the setting.

    >>> make_bot("mcts:c=nan")
    Traceback (most recent call last):
    ...
    ValueError: bot spec 'mcts:c=nan': c: expected a finite number in [0, 10], got nan
    """
    name, opts = parse_spec(spec)
    allowed = {"random": set(), "policy": set(), "greedy": {"samples", "eval"},
               "bookkeeper": {"eval", "strength"}, "diamonds": {"eval", "strength"},
               "shares": {"eval", "strength"}, "level": {"level"},
               "mcts": {*_MCTS_KNOBS, *WEIGHT_NAMES},
               "openspiel-mcts": {"time", "sims"}, "openspiel-ismcts": {"time", "sims"}}
    if name not in allowed:
        raise ValueError(f"unknown bot {name!r}: one of {', '.join(sorted(allowed))}")
    unknown = set(opts) - allowed[name]
    if unknown:
        raise ValueError(f"bot {name!r}: unknown setting {sorted(unknown)[0]!r} "
                         f"(settings: {', '.join(sorted(allowed[name])) or 'none'})")
    try:
        if "eval" in opts:
            _choice("eval", opts["eval"])
        if name == "level":
            return make_level(int(_number("level", opts.get("level", ""), LEVEL_NUMBERS)),
                              seed, pacer)
        if name == "random":
            return RandomBot(seed)
        if name == "policy":
            return PolicyBot(seed)
        if name in ("bookkeeper", "diamonds", "shares"):
            return _specialist(name, opts, seed)
        if name == "greedy":
            samples = int(_number("samples", opts.get("samples", "1"), SAMPLES))
            return GreedyBot(seed, samples=samples, evaluator=_ready(opts.get("eval", "hand")))
        if name == "mcts":
            # Every setting the spec leaves out is the installation's (search_settings),
            # else SearchConfig's default: the one source of the search settings (the
            # advisor uses it too).
            installed = search_settings()
            kwargs = {**installed,
                      **_mcts_kwargs(opts, installed.get("weights", SearchConfig.weights))}
            if "time" not in kwargs and "iterations" not in kwargs:
                kwargs["time"] = 0.25  # the bot's budget when the spec gives none
            cfg = SearchConfig(seed=seed, **kwargs)
            _ready(cfg.evaluator)
            return MCTSBot(cfg, name=spec, pacer=pacer)
        if "time" in opts:
            _number("time", opts["time"], BOUNDS["time"])
        if "sims" in opts:
            _number("sims", opts["sims"], SIMS)
    except ValueError as exc:
        raise ValueError(f"bot spec {spec!r}: {exc}") from None
    try:  # imported here: open-spiel is an optional extra that only these bots need
        from search.openspiel_bots import make_openspiel_bot
    except MissingExtra as exc:
        raise ValueError(f"bot spec {spec!r}: {exc}") from None
    return make_openspiel_bot(name, opts, seed)


__all__ = ["SETTINGS_ENV", "WEIGHT_NAMES", "make_bot", "parse_spec", "search_config",
           "search_settings"]
