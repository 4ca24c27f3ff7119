"""Mombasa rules engine: a copy-on-write state, steps with a notation, chance events,
observations and determinization, and exact scoring.

>>> import engine, random
>>> s = engine.new_game(players=2, seed=1)
>>> while s.decision.kind == "chance":      # setup: the display and books are drawn
...     s = s.apply(s.sample_chance())
>>> s.decision
Decision('resting-cards', player=0)
>>> steps = s.legal_steps()
>>> steps[0].text(s.cat)
'rest cof1/1 ban1/1 exp1/1'
>>> s = s.apply(engine.Step.parse("rest ban1/1 cof1/1 exp2/1", s.cat))
>>> s.decision.player
1
"""

from engine.catalogue import Catalogue, CatalogueError, default_catalogue, load_catalogue
from engine.moves import apply_move, group_moves
from engine.observation import Observation, determinize, observe
from engine.rules import (
    IllegalStep,
    apply,
    apply_unchecked,
    chance_outcomes,
    decision,
    legal_steps,
    random_step,
    sample_chance,
)
from engine.scoring import Score, score, winners
from engine.serialize import (
    StateFormatError,
    observation_from_json,
    observation_to_json,
    state_from_json,
    state_to_json,
)
from engine.setup import new_game
from engine.state import Decision, State
from engine.steps import Move, NotationError, Step

__all__ = [
    "Catalogue", "CatalogueError", "Decision", "IllegalStep", "Move", "NotationError",
    "Observation", "Score", "State", "StateFormatError", "Step", "apply", "apply_unchecked",
    "chance_outcomes",
    "apply_move", "decision", "default_catalogue", "determinize", "group_moves", "legal_steps",
    "load_catalogue", "new_game", "observation_from_json",
    "observation_to_json", "observe", "random_step", "sample_chance", "score",
    "state_from_json", "state_to_json", "winners",
]
