"""Primitive encodings shared by every engine module: phases, seat sentinels, the base
column code, bit-mask iteration and tuple replacement. No engine imports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Phases
SETUP, PLANNING, ACTIONS, OVER = 0, 1, 2, 3
PHASE_NAMES = ("setup", "planning", "actions", "over")

NOBODY = -1  # chance, or no owner
HIDDEN = -2  # a card an observer cannot see (another player's unrevealed plan)

# Base column encoding: number of posts, plus DEAD when the rear space has been emptied
# (an emptied rear space is never covered again).
DEAD = 8


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first.

    >>> list(bits(0b10110))
    [1, 2, 4]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def replace_at(t: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    """A copy of tuple ``t`` with entry ``i`` replaced."""
    return t[:i] + (value,) + t[i + 1 :]


# A work item of the rules interpreter: (operation, player, *arguments).
Item = tuple[Any, ...]
