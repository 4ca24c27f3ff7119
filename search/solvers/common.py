"""Shared parts of the solvers: the error type, valuations, the exact simulation of the
rewards a player collects, and the LRU cache.

Values are computed in integer *milli-units* (``SCALE`` = 1000 per pound) so that the
CP-SAT models and the hand-written searches optimise exactly the same numbers; a
valuation's weights are therefore used to 0.001.

>>> import engine
>>> from search.bench.positions import mid_game
>>> s = mid_game(players=3, seed=2, round_=3)
>>> v = default_valuation(s)
>>> v.pound
1.0
>>> len(v.share), len(v.track)
(4, 4)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Generic, TypeVar

from engine import ROUNDS, Catalogue, PlayerState, State, Tables, Track, tables

SCALE = 1000  # milli-units per pound: every value is an integer multiple of 0.001

# Default-valuation knobs (documented in docs/solvers.md).
GROWTH_PER_ROUND = 0.1  # share weight = shares x (1 + 0.1 x rounds left after this one)
TRACK_LOOKAHEAD = 4  # track weight: share icons gained over the next 4 spaces, per step
DIAMOND_LOOKAHEAD = 3  # diamond weight: mean value increment over the next 3 spaces
BOOKKEEPING_POINT = 1.5  # a bookkeeping point (a book or a pound later in the turn)


class SolverError(ValueError):
    """Input a solver cannot work on: an unknown company, negative points, or a state
    that is not at a decision where the solver applies."""


def _round3(x: float) -> float:
    return round(x * SCALE) / SCALE


@dataclass(frozen=True, slots=True)
class Valuation:
    """What one unit of each reward is worth to the acting player, in pounds.

    * ``pound``: a pound of cash (net of capital calls);
    * ``diamond``: one step on the diamond track;
    * ``track[c]``: one step on company ``c``'s track (region rewards move the
      expanding company; book rewards name their company);
    * ``bookkeeping``: one bookkeeping point added to the turn's pool;
    * ``share[c]``: one pound of company ``c``'s share value (one coin icon uncovered in
      its base), e.g. the player's shares in ``c`` times an expected growth factor;
    * ``remove_post``: one "remove a trading post" reward (a track space can pay one).

    Weights are used to 0.001 (see ``SCALE``).

    >>> Valuation(share=(2.0, 0.0, 0.0, 1.0)).scaled().share
    (2000, 0, 0, 1000)
    """

    pound: float = 1.0
    diamond: float = 1.0
    track: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    bookkeeping: float = BOOKKEEPING_POINT
    share: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    remove_post: float = 0.0

    def scaled(self) -> ScaledValuation:
        """The weights as integers (milli-units)."""
        return _scaled(self)


@dataclass(frozen=True, slots=True)
class ScaledValuation:
    """:class:`Valuation` weights in milli-units (integers)."""

    pound: int
    diamond: int
    track: tuple[int, ...]
    bookkeeping: int
    share: tuple[int, ...]
    remove_post: int


@lru_cache(maxsize=4096)
def _scaled(v: Valuation) -> ScaledValuation:
    def sc(x: float) -> int:
        return int(round(x * SCALE))

    if len(v.track) != 4 or len(v.share) != 4:
        raise SolverError("Valuation.track and Valuation.share need one weight per company (4)")
    return ScaledValuation(sc(v.pound), sc(v.diamond), tuple(sc(x) for x in v.track),
                           sc(v.bookkeeping), tuple(sc(x) for x in v.share),
                           sc(v.remove_post))


def growth_factor(s: State) -> float:
    """Expected growth of a share holding: 1 + 0.1 per round still to come."""
    return 1.0 + GROWTH_PER_ROUND * max(0, ROUNDS - max(s.round, 1))


def diamond_weight(cat: Catalogue, diamond: int) -> float:
    """Mean value gained per diamond step over the next ``DIAMOND_LOOKAHEAD`` spaces
    (the end-of-track pounds are not included: the simulation pays them as pounds)."""
    values = cat.diamond_values
    last = len(values) - 1
    if diamond >= last:
        return 0.0
    ahead = min(DIAMOND_LOOKAHEAD, last - diamond)
    return (values[diamond + ahead] - values[diamond]) / ahead


def track_weight(s: State, player: int, company: int) -> float:
    """Expected share value gained per step on a company track: share icons gained over
    the next ``TRACK_LOOKAHEAD`` spaces per step, times (share value + 1) x growth."""
    track = s.cat.tracks[s.tracks[company]]
    pos = s.players[player].track[company]
    if pos >= track.last:
        return 0.0
    ahead = min(TRACK_LOOKAHEAD, track.last - pos)
    gain = (track.shares_at[pos + ahead] - track.shares_at[pos]) / ahead
    return gain * (s.values[company] + 1) * growth_factor(s)


def acting_player(s: State) -> int:
    """The player deciding now (raises :class:`SolverError` at chance / game over)."""
    d = s.decision
    if d.kind == "over":
        raise SolverError("the game is over: there is no decision to solve")
    if d.kind == "chance":
        raise SolverError(f"the state is at a chance event ({d.event}), not a player decision")
    return d.player


def default_valuation(s: State, player: int | None = None) -> Valuation:
    """The default valuation of ``player`` (default: the player deciding now).

    * share[c] = shares held in c x (1 + 0.1 x rounds after this one);
    * diamond = the mean increment of the diamond track over the next 3 spaces;
    * track[c] = share icons gained per step over the next 4 spaces x (share value of c
      + 1) x the growth factor;
    * bookkeeping = 1.5 (2.0 when the ink jar is on the last space: 2 pounds each);
    * remove_post = the best share gain one removal gives now under ``share``;
    * pound = 1. Every weight is rounded to 0.001.
    """
    if player is None:
        player = acting_player(s)
    cat = s.cat
    p = s.players[player]
    g = growth_factor(s)
    share = tuple(_round3(s.share_count(player, c) * g) for c in range(4))
    track = tuple(_round3(track_weight(s, player, c)) for c in range(4))
    book = 2.0 if p.ink >= len(cat.bookkeeping_values) - 1 else BOOKKEEPING_POINT
    colval = tables(cat).column_value
    best_removal = 0.0
    for c in range(4):
        for code in s.bases[c]:
            if posts_in(code):
                best_removal = max(best_removal, share[c] * (colval[after_take(code)]
                                                             - colval[code]))
    return Valuation(pound=1.0, diamond=_round3(diamond_weight(cat, p.diamond)), track=track,
                     bookkeeping=book, share=share, remove_post=_round3(best_removal))


# --------------------------------------------------------------------------------------
# Base columns
# --------------------------------------------------------------------------------------

# A column's code is the engine's (Tables.posts_in / after_take / after_return / room).
after_take = Tables.after_take
after_return = Tables.after_return
posts_in = Tables.posts_in


def room(cat: Catalogue, code: int) -> int:
    """How many returning posts a column can still take."""
    return tables(cat).room(code)


def column_gain_table(cat: Catalogue, code: int, *, take: bool) -> list[int]:
    """Share-value change (coin icons) of a column after taking (``take``) or returning
    ``x`` posts, for every possible ``x`` (index)."""
    colval = tables(cat).column_value
    out = [0]
    c = code
    limit = posts_in(code) if take else room(cat, code)
    for _ in range(limit):
        c = after_take(c) if take else after_return(c)
        out.append(colval[c] - colval[code])
    return out


# --------------------------------------------------------------------------------------
# Rewards
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Rewards:
    """What the player actually receives (net effects, as the engine applies them).

    ``pounds`` is the change of cash (region pounds, diamond/track end pounds, special
    track spaces, minus capital calls); ``diamonds`` and ``track`` are steps moved;
    ``bookkeeping`` is the change of the turn's pool; ``remove_posts`` the remove-a-post
    rewards collected on the way.
    """

    pounds: int = 0
    diamonds: int = 0
    track: int = 0
    bookkeeping: int = 0
    remove_posts: int = 0

    def value(self, w: ScaledValuation, company: int) -> int:
        """Scaled value of these rewards (track steps on ``company``)."""
        return (w.pound * self.pounds + w.diamond * self.diamonds
                + (w.track[company] * self.track if company >= 0 else 0)
                + w.bookkeeping * self.bookkeeping + w.remove_post * self.remove_posts)


def simulate_rewards(cat: Catalogue, track: Track, p: PlayerState, company: int,
                     pounds: int, diamonds: int, bookkeeping: int, steps: int,
                     track_first: bool = False) -> Rewards:
    """Exactly what the engine's ``_reward`` + ``_track_step`` do with a reward of
    ``pounds``, ``diamonds``, ``bookkeeping`` points and ``steps`` on ``company``'s
    ``track``: pounds first, diamonds (2 pounds per step beyond the last space), the
    pool, then one track step at a time (a capital call the player cannot pay stops the
    movement; special spaces pay at once; beyond the end each step pays end pounds).
    With ``track_first`` (``reward-order track``) the steps come before the rest."""
    cash = p.cash
    dia = p.diamond
    dlast = len(cat.diamond_values) - 1
    dend = cat.diamond_end_pounds
    pool = bookkeeping
    removes = 0

    def collect() -> None:
        nonlocal cash, dia
        cash += pounds
        for _ in range(diamonds):
            if dia >= dlast:
                cash += dend
            else:
                dia += 1

    if not track_first:
        collect()
    pos = p.track[company]
    last = track.last
    spaces = track.spaces
    for _ in range(steps):
        if pos >= last:
            cash += track.end_pounds
            continue
        space = spaces[pos + 1]
        if space.capital > cash:
            break
        cash -= space.capital
        pos += 1
        sp = space.special
        if sp.pounds:
            cash += sp.pounds
        for _ in range(sp.diamonds):
            if dia >= dlast:
                cash += dend
            else:
                dia += 1
        pool += sp.bookkeeping
        removes += sp.remove_posts
    if track_first:
        collect()
    return Rewards(cash - p.cash, dia - p.diamond, pos - p.track[company], pool, removes)


# --------------------------------------------------------------------------------------
# Cache
# --------------------------------------------------------------------------------------

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """A small least-recently-used cache with hit / miss counters.

    >>> c: LRUCache[str, int] = LRUCache(2)
    >>> c.put("a", 1); c.put("b", 2); c.get("a"); c.put("c", 3)
    1
    >>> c.get("b") is None, len(c)
    (True, 2)
    """

    __slots__ = ("_data", "maxsize", "hits", "misses")

    def __init__(self, maxsize: int = 4096) -> None:
        self._data: OrderedDict[K, V] = OrderedDict()
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | None:
        data = self._data
        value = data.get(key)
        if value is None:
            self.misses += 1
            return None
        data.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: K, value: V) -> None:
        data = self._data
        data[key] = value
        data.move_to_end(key)
        if len(data) > self.maxsize:
            data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._data)

    def info(self) -> dict[str, Any]:
        return {"size": len(self._data), "maxsize": self.maxsize, "hits": self.hits,
                "misses": self.misses}


def company_index(s: State, company: int | str) -> int:
    """A company given as index (0-3) or id (``"MOM"``); :class:`SolverError` if unknown."""
    if isinstance(company, bool):
        raise SolverError(f"unknown company {company!r}")
    if isinstance(company, int):
        if 0 <= company < len(s.cat.companies):
            return company
        raise SolverError(f"unknown company {company!r}: companies are 0..3 or "
                          + ", ".join(c.id for c in s.cat.companies))
    if isinstance(company, str):
        for c in s.cat.companies:
            if company.upper() in (c.id, c.name.upper()):
                return c.index
    raise SolverError(f"unknown company {company!r}: expected one of "
                      + ", ".join(c.id for c in s.cat.companies))
