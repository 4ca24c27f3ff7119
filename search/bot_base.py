"""What every bot shares: the thinking budget, the bot protocol, and building a whole
move (a player's turn) step by step from observations."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from engine import Move, Observation, State, Step, determinize, observe


@dataclass(frozen=True)
class Budget:
    """Thinking budget for one move: seconds and/or iterations (None: the bot's default)."""

    time: float | None = None
    iterations: int | None = None


class Bot(Protocol):
    name: str

    def choose(self, obs: Observation, budget: Budget | None = None) -> Move: ...


def still_mine(state: State, me: int) -> bool:
    if state.is_over():
        return False
    d = state.decision
    return d.kind != "chance" and d.player == me


def play_out_move(obs: Observation, pick: StepPicker) -> Move:
    """Build a move step by step: each step chosen on the current observation."""
    me = obs.viewer
    rng = random.Random(0)
    state = determinize(obs, rng)
    steps: list[Step] = []
    cur = obs
    while True:
        step = pick(cur, state)
        steps.append(step)
        state = state.apply_unchecked(step)
        if not still_mine(state, me):
            return Move(me, tuple(steps))
        cur = observe(state, me)


class StepPicker(Protocol):
    def __call__(self, obs: Observation, state: State) -> Step: ...
