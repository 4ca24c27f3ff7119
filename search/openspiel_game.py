"""Mombasa as an OpenSpiel Python game: ``pyspiel.load_game("python_mombasa")``.

The adapter wraps the rules engine without changing it, so OpenSpiel's algorithms
(``MCTSBot``, ``ISMCTSBot``, ...) can play the real game as a yardstick.

* Dynamics sequential, chance explicit (every chance event of the engine is a chance
  node whose outcomes, all equally likely, come from :meth:`engine.State.chance_outcomes`),
  information imperfect, utility constant-sum, reward terminal: at the end each of the
  ``k`` winners gets ``1/k``, the others 0 (returns always sum to 1).
* Parameters: ``players`` (2-4, default 2) and ``seed`` (default 0; it seeds the
  engine's own chance generator, which explicit chance nodes never consult).
* Action ids are the step itself, ``kind << 21 | a << 14 | b << 7 | c`` (``-1`` stored
  as 127; see :func:`step_to_action`), so the same step has the same id in every
  determinization of an information state, as ISMCTS needs. The card mask of a
  ``goods`` step is rewritten as a mask over the decider's action slots so it fits.
* Information-state and observation strings are the viewer's
  :func:`engine.observe` (which includes everything that player has seen), hashed:
  equal strings mean equal observations, within one process.
* ``resample_from_infostate`` deals the hidden parts again with
  :func:`engine.determinize`; cloning shares the (immutable) engine state.

>>> import pyspiel
>>> import search.openspiel_game
>>> game = pyspiel.load_game("python_mombasa", {"players": 2})
>>> state = game.new_initial_state()
>>> state.is_chance_node()
True
>>> while state.is_chance_node():
...     state.apply_action(state.chance_outcomes()[0][0])
>>> state.current_player(), state.action_to_string(state.legal_actions()[0])
(0, 'rest cof1/1 ban1/1 exp2/1')
"""

from __future__ import annotations

import random
from typing import Any

import pyspiel

import engine
from engine import (
    STEP_KINDS,
    Observation,
    State,
    Step,
    determinize,
    observe,
    winners,
)

SHORT_NAME = "python_mombasa"
KIND_NAMES: tuple[str, ...] = tuple(STEP_KINDS)
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(KIND_NAMES)}
KIND_SHIFT = 21
ARG_BITS = 7
ARG_MASK = (1 << ARG_BITS) - 1
NO_ARG = ARG_MASK  # how an absent (-1) argument is stored
_KIND_BASE: dict[str, int] = {k: i << KIND_SHIFT for i, k in enumerate(KIND_NAMES)}
NUM_DISTINCT_ACTIONS = len(KIND_NAMES) << KIND_SHIFT  # every id is below this (< 2**31)
# Chance outcomes are steps too (deal-card, deal-book, ...), encoded the same way.
MAX_CHANCE_OUTCOMES = NUM_DISTINCT_ACTIONS
# A practical bound: random and "busy" random 4-player games take 220-450 steps
# (chance events included); nothing in OpenSpiel's search depends on it.
MAX_GAME_LENGTH = 3000
CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Mombasa",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification={"players": 2, "seed": 0},
)


# --------------------------------------------------------------------------------------
# Steps <-> action ids
# --------------------------------------------------------------------------------------

def _decider(state: State) -> int:
    return state.decision.player


def _cards_to_slots(state: State, cards: int) -> int:
    """A card mask of the decider's action-area cards -> a mask of their slots."""
    slots = state.players[_decider(state)].slots
    out = 0
    for k, card in enumerate(slots):
        if card >= 0 and cards >> card & 1:
            out |= 1 << k
            cards &= ~(1 << card)
    if cards:
        raise ValueError(f"goods: cards {cards:#x} are not in the decider's action slots")
    return out


def _slots_to_cards(state: State, slot_mask: int) -> int:
    slots = state.players[_decider(state)].slots
    out = 0
    for k, card in enumerate(slots):
        if slot_mask >> k & 1:
            if card < 0:
                raise ValueError(f"goods: action slot {k + 1} is empty")
            out |= 1 << card
    if slot_mask >> len(slots):
        raise ValueError(f"goods: slot mask {slot_mask:#x} names slots that do not exist")
    return out


def _pack(value: int) -> int:
    if value == -1:
        return NO_ARG
    if not 0 <= value < NO_ARG:
        raise ValueError(f"step argument {value} does not fit in {ARG_BITS} bits")
    return value


def _unpack(value: int) -> int:
    return -1 if value == NO_ARG else value


def step_to_action(state: State, step: Step) -> int:
    """The OpenSpiel action id of ``step`` at ``state`` (the state names the decider,
    whose slots a ``goods`` mask refers to).

    >>> import engine
    >>> s = engine.new_game(players=2, seed=1)
    >>> step = s.legal_steps()[0]
    >>> action_to_step(s, step_to_action(s, step)) == step
    True
    """
    a = step.a
    if step.kind == "goods":
        a = _cards_to_slots(state, a)
    return (KIND_INDEX[step.kind] << KIND_SHIFT | _pack(a) << 2 * ARG_BITS
            | _pack(step.b) << ARG_BITS | _pack(step.c))


def action_to_step(state: State, action: int) -> Step:
    """The step an action id stands for at ``state`` (inverse of :func:`step_to_action`).

    >>> import engine
    >>> s = engine.new_game(players=2, seed=1)
    >>> action_to_step(s, (KIND_INDEX["deal-card"] << 21) | (5 << 14) | (11 << 7) | 127)
    Step(kind='deal-card', a=5, b=11, c=-1)
    """
    kind_index = action >> KIND_SHIFT
    if action < 0 or kind_index >= len(KIND_NAMES):
        raise ValueError(f"action {action} is not a Mombasa action id")
    kind = KIND_NAMES[kind_index]
    a = _unpack(action >> 2 * ARG_BITS & ARG_MASK)
    b = _unpack(action >> ARG_BITS & ARG_MASK)
    c = _unpack(action & ARG_MASK)
    if kind == "goods":
        a = _slots_to_cards(state, a)
    return Step(kind, a, b, c)


# --------------------------------------------------------------------------------------
# The game and its states
# --------------------------------------------------------------------------------------

class _Core:
    """An engine state plus lazily computed, state-determined caches. Immutable in use:
    applying an action makes a new core, so clones may share one core's caches."""

    __slots__ = ("state", "actions", "steps", "outcomes", "info")

    def __init__(self, state: State) -> None:
        self.state = state
        self.actions: list[int] | None = None  # sorted legal ids (decision nodes)
        self.steps: dict[int, Step] | None = None  # id -> step (decision or chance)
        self.outcomes: list[tuple[int, float]] | None = None  # chance nodes
        self.info: dict[int, str] = {}  # viewer -> information-state string

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        # The engine state is immutable by convention: its O(1) clone shares every part.
        twin = _Core(self.state.clone())
        twin.actions, twin.steps, twin.outcomes, twin.info = (
            self.actions, self.steps, self.outcomes, self.info)
        return twin


class MombasaGame(pyspiel.Game):
    """The OpenSpiel game object. Use ``pyspiel.load_game("python_mombasa", params)``.

    >>> game = MombasaGame({"players": 3, "seed": 5})
    >>> game.num_players(), game.get_parameters()["seed"]
    (3, 5)
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = set(params) - {"players", "seed"}
        if unknown:
            raise ValueError(f"{SHORT_NAME}: unknown parameter {sorted(unknown)[0]!r}")
        players = int(params.get("players", 2))
        seed = int(params.get("seed", 0))
        if not 2 <= players <= 4:
            raise ValueError(f"{SHORT_NAME}: players must be 2, 3 or 4, got {players}")
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_DISTINCT_ACTIONS,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(GAME_TYPE, info, {"players": players, "seed": seed})
        # Built once: every new_initial_state (and so every OpenSpiel clone, which starts
        # from one) shares it.
        self._initial = engine.new_game(players=players, seed=seed)

    def new_initial_state(self) -> MombasaState:
        """The game before its first chance event."""
        return MombasaState(self, self._initial)

    def state_from_engine(self, state: State) -> MombasaState:
        """An OpenSpiel state wrapping an engine state (its history is not replayed)."""
        if state.n != self.num_players():
            raise ValueError(f"a {state.n}-player state in a {self.num_players()}-player game")
        return MombasaState(self, state)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> MombasaObserver:
        """Observers give strings only (information state = observation, see module)."""
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters not supported: {params}")
        return MombasaObserver()


class MombasaState(pyspiel.State):
    """An OpenSpiel state over an engine :class:`~engine.State`.

    >>> import pyspiel
    >>> game = pyspiel.load_game("python_mombasa")
    >>> s = game.new_initial_state()
    >>> c = s.clone()
    >>> c.apply_action(c.chance_outcomes()[0][0])
    >>> s.engine_state.decision.kind, len(s.history()), len(c.history())
    ('chance', 0, 1)
    """

    def __init__(self, game: MombasaGame, state: State) -> None:
        super().__init__(game)
        self._core = _Core(state)

    # -- the engine side ---------------------------------------------------------------
    @property
    def engine_state(self) -> State:
        """The wrapped engine state (do not mutate it)."""
        return self._core.state

    def observation(self, player: int) -> Observation:
        """What ``player`` knows here (:func:`engine.observe`)."""
        return observe(self._core.state, player)

    def to_step(self, action: int) -> Step:
        """The engine step of a legal action id at this state."""
        steps = self._core.steps
        if steps is not None and action in steps:
            return steps[action]
        return action_to_step(self._core.state, action)

    def _fill(self) -> None:
        core = self._core
        s = core.state
        if s.is_over():
            core.actions, core.steps, core.outcomes = [], {}, []
            return
        if s.decision.kind == "chance":
            outcomes = s.chance_outcomes()
            ids = [step_to_action(s, st) for st, _ in outcomes]
            core.steps = dict(zip(ids, (st for st, _ in outcomes), strict=True))
            core.outcomes = [(a, p) for a, (_, p) in zip(ids, outcomes, strict=True)]
            core.actions = []
            return
        # step_to_action inlined (hot path): engine steps' arguments are all in -1..126,
        # and -1 & ARG_MASK is NO_ARG.
        base = _KIND_BASE
        steps: dict[int, Step] = {}
        for st in s.legal_steps():
            kind, a, b, c = st
            if kind == "goods":
                a = _cards_to_slots(s, a)
            steps[base[kind] | (a & ARG_MASK) << 14 | (b & ARG_MASK) << 7 | (c & ARG_MASK)] = st
        core.steps = steps
        core.actions = sorted(steps)
        core.outcomes = []

    # -- the OpenSpiel API ---------------------------------------------------------------
    def current_player(self) -> int:
        s = self._core.state
        if s.is_over():
            return TERMINAL
        d = s.decision
        return CHANCE if d.kind == "chance" else d.player

    def _legal_actions(self, player: int) -> list[int]:
        if self._core.actions is None:
            self._fill()
        assert self._core.actions is not None
        return self._core.actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._core.outcomes is None:
            self._fill()
        assert self._core.outcomes is not None
        return self._core.outcomes

    def _apply_action(self, action: int) -> None:
        s = self._core.state
        self._core = _Core(s.apply_unchecked(self.to_step(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        step = self.to_step(action)
        return step.text(self._core.state.cat)

    def is_terminal(self) -> bool:
        return self._core.state.is_over()

    def returns(self) -> list[float]:
        s = self._core.state
        if not s.is_over():
            return [0.0] * s.n
        best = winners(s)
        share = 1.0 / len(best)
        return [share if i in best else 0.0 for i in range(s.n)]

    def information_state_string(self, player: int | None = None) -> str:
        """The viewer's observation, hashed (plus readable decision context)."""
        if player is None:
            player = self.current_player()
        if not 0 <= player < self._core.state.n:
            raise ValueError(f"information_state_string: no player {player}")
        info = self._core.info
        text = info.get(player)
        if text is None:
            s = self._core.state
            o = observe(s, player).state
            d = s.decision
            digest = hash(o.key()) & 0xFFFF_FFFF_FFFF_FFFF
            text = f"P{player + 1} r{s.round} {d.kind} P{d.player + 1} {digest:016x}"
            info[player] = text
        return text

    def observation_string(self, player: int | None = None) -> str:
        """Same as the information state: an observation includes what was seen."""
        return self.information_state_string(player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MombasaState:
        """A state consistent with what ``player_id`` knows, hidden parts dealt again;
        the deal is seeded from ``probability_sampler()`` (a number in [0, 1))."""
        seed = int(float(probability_sampler()) * (1 << 53))
        return self.resample_with_rng(player_id, random.Random(seed))

    def resample_with_rng(self, player_id: int, rng: random.Random) -> MombasaState:
        """:meth:`resample_from_infostate` with an explicit random generator."""
        d = determinize(observe(self._core.state, player_id), rng)
        new: MombasaState = self.get_game().new_initial_state()
        new._core = _Core(d)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> MombasaState:
        clone: MombasaState = self.clone()
        return clone

    def __str__(self) -> str:
        s = self._core.state
        d = s.decision
        return f"Mombasa round {s.round}, {d.kind} P{d.player + 1}, cash " + " ".join(
            str(p.cash) for p in s.players)


class MombasaObserver:
    """OpenSpiel's observer interface, strings only (no tensor)."""

    def __init__(self) -> None:
        self.tensor = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: MombasaState, player: int) -> None:
        """No tensor to fill."""

    def string_from(self, state: MombasaState, player: int) -> str:
        return state.information_state_string(player)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, MombasaGame)


__all__ = [
    "GAME_TYPE", "MAX_CHANCE_OUTCOMES", "NUM_DISTINCT_ACTIONS", "MombasaGame",
    "MombasaObserver", "MombasaState", "action_to_step", "step_to_action",
]
