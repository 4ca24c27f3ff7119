"""What one player knows, and full states consistent with it.

Hidden in Mombasa (rules-decisions.md, "Hidden information"): the cards other players
placed in Planning until all reveal, the starting tiles others were dealt or chose
until the reveal, and the order of the action-card stack and of the book supplies. The
engine draws stack cards and books at random when they are revealed, so the state holds
those supplies as sets (their contents are public: every card and book not seen
elsewhere) and the hidden part is the random generator's state. Hands are deducible
from public play (starting hand, resting decks, purchases), so an observation includes
them, as perfect memory would.

>>> import engine, random
>>> s = engine.new_game(players=2, seed=3)
>>> obs = observe(s, 0)
>>> d = determinize(obs, random.Random(1))
>>> observe(d, 0) == obs
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.state import HIDDEN, State, bits
from engine.tables import tables


@dataclass(frozen=True)
class Observation:
    """A redacted state: unknown cards are ``HIDDEN`` (-2), the RNG state is 0.
    ``viewer`` is the seat's index; the repr names it P1-P4."""

    viewer: int
    state: State

    def __repr__(self) -> str:
        return f"Observation(viewer=P{self.viewer + 1}, state={self.state!r})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Observation) and self.viewer == other.viewer
                and self.state == other.state)

    def __hash__(self) -> int:
        return hash((self.viewer, self.state))

    @property
    def decision(self) -> object:
        return self.state.decision


def observe(s: State, viewer: int) -> Observation:
    """What ``viewer`` (0-based seat) knows of ``s``."""
    if not 0 <= viewer < s.n:
        raise ValueError(f"viewer: no seat {viewer + 1} in a {s.n}-player game")
    if viewer in s.decision.deciders:
        # A simultaneous decision (Planning, the starting tile) is the viewer's own from
        # the moment it begins: the viewer sees the position with itself deciding.
        s = s.decide_as(viewer)
    o = s.clone()
    o.rng = 0
    if not s.revealed:
        for i in range(s.n):
            if i == viewer:
                continue
            p = o.player_mut(i)
            hidden = 0
            slots = list(p.slots)
            for k, c in enumerate(slots):
                if c >= 0:
                    hidden |= 1 << c
                    slots[k] = HIDDEN
            p.slots = tuple(slots)
            p.hand |= hidden
            if p.tile_options:
                p.tile_options = (HIDDEN,) * len(p.tile_options)
                if p.tile >= 0:
                    p.tile = HIDDEN
    o._own = 0
    return Observation(viewer, o)


def determinize(obs: Observation, rng: random.Random) -> State:
    """A complete state consistent with the observation, hidden parts sampled at random.

    Another player's face-down plan is drawn from the cards that player holds (never
    single-share cards), one card per occupied slot; unknown starting tiles from the
    tiles nobody is known to hold; the chance generator is seeded from ``rng``.
    """
    s = obs.state.clone()
    t = tables(s.cat)
    s.rng = rng.getrandbits(64)
    known_tiles = {x for p in s.players for x in p.tile_options if x >= 0}
    free_tiles = [i for i in range(len(s.cat.starting_tiles)) if i not in known_tiles]
    rng.shuffle(free_tiles)
    for i in range(s.n):
        p0 = s.players[i]
        if HIDDEN not in p0.slots and HIDDEN not in p0.tile_options:
            continue
        p = s.player_mut(i)
        if HIDDEN in p.slots:
            pool = sorted(bits(p.hand & ~t.share_mask))
            chosen = rng.sample(pool, sum(1 for c in p.slots if c == HIDDEN))
            it = iter(chosen)
            slots = []
            for c in p.slots:
                if c == HIDDEN:
                    card = next(it)
                    p.hand &= ~(1 << card)
                    slots.append(card)
                else:
                    slots.append(c)
            p.slots = tuple(slots)
        if HIDDEN in p.tile_options:
            options = tuple(free_tiles.pop() for _ in p.tile_options)
            p.tile_options = options
            if p.tile == HIDDEN:
                p.tile = rng.choice(options)
    s._own = 0
    return s
