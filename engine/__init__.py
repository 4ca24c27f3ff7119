"""Mombasa rules engine: a copy-on-write state, steps with a notation, chance events,
observations and determinization, and exact scoring.

>>> import engine, random
>>> s = engine.new_game(players=2, seed=1)
>>> while s.decision.kind == "chance":      # setup: the display and books are drawn
...     s = s.apply(s.sample_chance())
>>> s.decision
Decision('resting-cards', P1)
>>> steps = s.legal_steps()
>>> steps[0].text(s.cat)
'rest cof1/1 ban1/1 exp1/1'
>>> s = s.apply(engine.Step.parse("rest ban1/1 cof1/1 exp2/1", s.cat))
>>> s.decision.player
1
"""

from engine.catalogue import (
    MEASURES,
    Catalogue,
    CatalogueError,
    Reward,
    Track,
    default_catalogue,
    load_catalogue,
)
from engine.invariants import check_invariants
from engine.moves import apply_move, group_moves, playable_prefix
from engine.observation import Observation, determinize, observe
from engine.primitives import HIDDEN, bits
from engine.record import GameRecord, RecordError, Seat, hidden_steps
from engine.rules import ROUNDS, IllegalStep
from engine.scoring import Score, score, winners
from engine.serialize import (
    StateFormatError,
    observation_from_json,
    observation_to_json,
    state_from_json,
    state_to_json,
)
from engine.setup import new_game
from engine.state import Decision, PlayerState, State
from engine.steps import KINDS as STEP_KINDS
from engine.steps import Move, NotationError, Step
from engine.tables import Tables, tables

__all__ = [
    # the game: positions, decisions, steps and their notation
    # (a position's moves are its methods: s.decision, s.legal_steps(), s.apply(step),
    # s.apply_unchecked(step), s.sample_chance(), s.chance_outcomes(), s.random_step(rng))
    "new_game", "State", "PlayerState", "Decision", "Step", "Move", "STEP_KINDS",
    "apply_move", "group_moves", "playable_prefix", "IllegalStep", "NotationError",
    # chance, hidden information, scoring
    "Observation", "observe", "determinize", "HIDDEN", "Score", "score", "winners",
    "ROUNDS",
    # the component catalogue and its derived lookups
    "Catalogue", "CatalogueError", "Reward", "Track", "MEASURES", "default_catalogue",
    "load_catalogue", "Tables", "tables", "bits",
    # saved states and checks
    "StateFormatError", "state_to_json", "state_from_json", "observation_to_json",
    "observation_from_json", "check_invariants",
    # game records (format mombasa-game/1) and what a seat may see of a game
    "GameRecord", "Seat", "RecordError", "hidden_steps",
]
