"""OpenSpiel's ``MCTSBot`` and ``ISMCTSBot`` as arena bots: the yardstick.

Spec strings (see :func:`search.bots.make_bot`): ``openspiel-mcts`` and
``openspiel-ismcts``, each with ``:time=S`` (seconds per decision, default 0.25) or
``:sims=N`` (simulations per search, at least 2).

* ``openspiel-mcts``: OpenSpiel's ``MCTSBot`` (UCT, ``uct_c`` 2, solver on) with its
  ``RandomRolloutEvaluator`` (one uniformly random playout to the end of the game). It
  is a perfect-information search, so it searches one determinization of the
  observation, drawn at the start of each move.
* ``openspiel-ismcts``: OpenSpiel's ``ISMCTSBot`` (same evaluator and ``uct_c``); its
  root is that determinization too, and every simulation starts from a fresh
  resample of the player's information state
  (:meth:`~search.openspiel_game.MombasaState.resample_with_rng`).

A bot only ever gets the observation, never the true state. A move is built step by
step like :class:`search.bots.MCTSBot` does: a search on each step with more than one
legal choice, the chosen action converted back to a step and applied, until someone
else (or chance) decides.

Time budget: OpenSpiel's searches take a number of simulations, not a deadline, so
``time`` is met by choosing that number adaptively. The decision's time is split over
the move's steps as :class:`search.bots.MCTSBot` splits it (60% for the first searched
step, half as much for each next one, at least 10%), so both spend about the same time
per decision. Each step then runs batches of searches: the batch size is the time left
divided by the measured seconds per simulation (a running average over this bot's
searches; the very first batch is a short probe of 4 simulations); another batch
follows while at least 5% of the step's time (and room for 2 simulations) is left.
With one batch the pick is the bot's own (``MCTSBot``: its ``best_child``;
``ISMCTSBot``: most visited, ties at random); with several, the batches' root visit
counts are summed (root-parallel style) and the most visited action is taken. A batch
cannot be interrupted, so a step may overrun its share by the estimate's error.

>>> import engine
>>> s = engine.new_game(players=2, seed=4)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> bot = make_openspiel_bot("openspiel-ismcts", {"sims": "4"}, seed=1)
>>> move = bot.choose(engine.observe(s, 0))
>>> move.player, move.steps[0].kind
(0, 'rest')
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from engine import Move, Observation, Step, determinize
from search.bot_base import Budget, still_mine
from search.extras import require

# The openspiel-* bots are the only users of open-spiel (an optional extra): importing
# this module without it raises search.extras.MissingExtra, naming the extra.
require("pyspiel", "openspiel", "an openspiel-* bot", package="open-spiel")
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from search.openspiel_game import SHORT_NAME, MombasaGame, MombasaState  # noqa: E402

ALGORITHMS = {"openspiel-mcts": "mcts", "openspiel-ismcts": "ismcts"}
DEFAULT_TIME = 0.25
UCT_C = 2.0
MIN_SIMS = 2  # both OpenSpiel searches need a second simulation to expand the root
PROBE_SIMS = 4
MAX_BATCH = 1_000_000
TOP_UP_SHARE = 0.05  # another batch only while this share of the step's time is left
FIRST_SHARE, MIN_SHARE = 0.6, 0.1  # the time split of search.bots.MCTSBot


class OpenSpielBot:
    """An OpenSpiel search playing Mombasa moves from observations.

    ``algorithm`` is ``"mcts"`` or ``"ismcts"``; give ``sims`` (per searched step) or
    ``seconds`` (per decision).

    >>> bot = OpenSpielBot("openspiel-mcts:sims=2", "mcts", sims=2, seed=0)
    >>> bot.simulations
    0
    """

    def __init__(self, name: str, algorithm: str, sims: int | None = None,
                 seconds: float | None = None, seed: int = 0, uct_c: float = UCT_C) -> None:
        if algorithm not in ("mcts", "ismcts"):
            raise ValueError(f"algorithm: 'mcts' or 'ismcts', got {algorithm!r}")
        if sims is not None and seconds is not None:
            raise ValueError("give sims or time, not both")
        if sims is None and seconds is None:
            seconds = DEFAULT_TIME
        if sims is not None and sims < MIN_SIMS:
            raise ValueError(f"sims: must be >= {MIN_SIMS}, got {sims}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"time: must be > 0 seconds, got {seconds}")
        self.name = name
        self.algorithm = algorithm
        self.sims = sims
        self.time = seconds  # per decision
        self.uct_c = uct_c
        self.seed = seed
        self._rng = random.Random(seed)  # determinizations and ISMCTS resamples
        self._np = np.random.RandomState(seed & 0xFFFF_FFFF)  # OpenSpiel's searches
        self._games: dict[int, MombasaGame] = {}
        self._sec_per_sim: float | None = None
        # Statistics: searches run, simulations done, seconds spent in searches.
        self.searches = 0
        self.simulations = 0
        self.search_seconds = 0.0

    # -- one move ----------------------------------------------------------------------
    def choose(self, obs: Observation, budget: Budget | None = None) -> Move:
        """The player's whole move; each step searched on the OpenSpiel adapter."""
        me = obs.viewer
        game = self._game(obs.state.n)
        sims, seconds = self.sims, self.time
        if budget is not None and budget.iterations is not None:
            sims, seconds = max(MIN_SIMS, budget.iterations), None
        elif budget is not None and budget.time is not None:
            sims, seconds = None, budget.time
        state = determinize(obs, self._rng)
        steps: list[Step] = []
        share = FIRST_SHARE
        while True:
            legal = state.legal_steps()
            if len(legal) == 1:
                step = legal[0]
            else:
                root = game.state_from_engine(state)
                if sims is not None:
                    action = self._search(root, sims=sims)
                else:
                    assert seconds is not None
                    action = self._search(root, seconds=seconds * share)
                    share = max(MIN_SHARE, share * 0.5)
                step = root.to_step(action)
            steps.append(step)
            state = state.apply_unchecked(step)
            if not still_mine(state, me):
                return Move(me, tuple(steps))

    # -- searching -----------------------------------------------------------------------
    def _game(self, players: int) -> MombasaGame:
        game = self._games.get(players)
        if game is None:
            game = pyspiel.load_game(SHORT_NAME, {"players": players})
            self._games[players] = game
        return game

    def _batch_size(self, left: float) -> int:
        if self._sec_per_sim is None:
            return PROBE_SIMS
        return min(MAX_BATCH, max(MIN_SIMS, int(left / self._sec_per_sim)))

    def _search(self, root: MombasaState, sims: int | None = None,
                seconds: float | None = None) -> int:
        """One search of ``sims`` simulations, or batches filling ``seconds``; returns
        the chosen action."""
        deadline = time.perf_counter() + seconds if seconds is not None else 0.0
        visits: dict[int, float] = {}
        rewards: dict[int, float] = {}
        pick = -1
        batches = 0
        while True:
            if seconds is None:
                n = sims if sims is not None else MIN_SIMS
            else:
                n = self._batch_size(deadline - time.perf_counter())
            t0 = time.perf_counter()
            pick, done, solved = self._one_search(root, n, visits, rewards)
            elapsed = time.perf_counter() - t0
            per_sim = elapsed / done
            self._sec_per_sim = per_sim if self._sec_per_sim is None else (
                0.5 * self._sec_per_sim + 0.5 * per_sim)
            self.searches += 1
            self.simulations += done
            self.search_seconds += elapsed
            batches += 1
            if seconds is None or solved:
                break
            left = deadline - time.perf_counter()
            if left < max(TOP_UP_SHARE * seconds, MIN_SIMS * self._sec_per_sim):
                break
        if batches == 1:
            return pick
        best = max(visits.values())
        tied = sorted(a for a, v in visits.items() if v == best)
        if len(tied) > 1:
            top = max(rewards[a] for a in tied)
            tied = [a for a in tied if rewards[a] == top]
        return tied[int(self._np.randint(len(tied)))] if len(tied) > 1 else tied[0]

    def _one_search(self, root: MombasaState, sims: int, visits: dict[int, float],
                    rewards: dict[int, float]) -> tuple[int, int, bool]:
        """One OpenSpiel search of at most ``sims`` simulations. Adds its root
        statistics to ``visits`` / ``rewards``; returns the action the bot itself would
        pick, the simulations done (``MCTSBot`` stops early once its solver proves the
        root) and whether the root was proven."""
        game = root.get_game()
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self._np)
        if self.algorithm == "mcts":
            bot = mcts.MCTSBot(game, self.uct_c, sims, evaluator, solve=True,
                               random_state=self._np)
            node = bot.mcts_search(root)
            for child in node.children:
                visits[child.action] = visits.get(child.action, 0.0) + child.explore_count
                rewards[child.action] = rewards.get(child.action, 0.0) + child.total_reward
            return (int(node.best_child().action), max(1, int(node.explore_count)),
                    node.outcome is not None)
        ibot = ismcts.ISMCTSBot(
            game, evaluator, self.uct_c, sims, random_state=self._np,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT)
        ibot.set_resampler(self._resample)
        policy: list[tuple[int, float]] = ibot.run_search(root)
        total = sims - 1  # the first simulation only expands the root
        for action, p in policy:
            visits[action] = visits.get(action, 0.0) + p * total
            rewards[action] = rewards.get(action, 0.0)
        best = max(p for _, p in policy)
        tied = [a for a, p in policy if p == best]
        return int(tied[int(self._np.randint(len(tied)))]), sims, False

    def _resample(self, state: Any, player: int) -> MombasaState:
        resampled: MombasaState = state.resample_with_rng(player, self._rng)
        return resampled


def make_openspiel_bot(name: str, opts: Mapping[str, str], seed: int = 0) -> OpenSpielBot:
    """The bot for ``name`` (``openspiel-mcts`` or ``openspiel-ismcts``) with spec
    settings ``opts``: ``time`` (seconds per decision) or ``sims`` (per search).

    >>> make_openspiel_bot("openspiel-mcts", {"time": "0.1"}).name
    'openspiel-mcts:time=0.1'
    """
    if name not in ALGORITHMS:
        raise ValueError(f"unknown OpenSpiel bot {name!r}: one of {', '.join(ALGORITHMS)}")
    unknown = set(opts) - {"time", "sims"}
    if unknown:
        raise ValueError(f"bot {name!r}: unknown setting {sorted(unknown)[0]!r} "
                         "(settings: sims, time)")
    sims = int(opts["sims"]) if "sims" in opts else None
    seconds = float(opts["time"]) if "time" in opts else None
    spec = name + (":" + ",".join(f"{k}={v}" for k, v in opts.items()) if opts else "")
    return OpenSpielBot(spec, ALGORITHMS[name], sims=sims, seconds=seconds, seed=seed)


__all__ = ["OpenSpielBot", "make_openspiel_bot"]


def simulations_per_second(name: str, obs: Observation, seconds: float,
                           seed: int = 0) -> float:
    """Simulations per second of ``openspiel-mcts`` / ``openspiel-ismcts`` searching the
    first step of the observer's decision for ``seconds`` (for speed comparisons)."""
    algorithm = {"openspiel-mcts": "mcts", "openspiel-ismcts": "ismcts"}[name]
    bot = OpenSpielBot(name, algorithm, seconds=seconds, seed=seed)
    game = bot._game(obs.state.n)
    root = game.state_from_engine(determinize(obs, random.Random(seed)))
    bot._search(root, seconds=seconds)
    return bot.simulations / bot.search_seconds if bot.search_seconds else 0.0
