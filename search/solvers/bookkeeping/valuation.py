"""How a player values the bookkeeping track: the :class:`TrackValuation` heuristic and
its default for a player, whether the player's cards can plausibly meet a book's needs
(:func:`meetable`), the scaled value of a book's reward and the value of a whole track
(:func:`track_value`: the spaces the ink jar can plausibly reach, in integer
milli-units)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from engine import ROUNDS, Catalogue, Reward, State, tables
from search.solvers.common import SCALE, Valuation, acting_player, default_valuation

DECAY = 0.85  # plausibility factor per space beyond the next one
REWARD_SHARE = 0.5  # share of a book's reward counted for a reachable space
UNLOCK_PER_ROUND = 1.0  # value of the 5th action slot per round still to come
MEASURE_BOOKKEEPING = 4


@dataclass(frozen=True, slots=True)
class TrackValuation:
    """How a player values the bookkeeping track and pounds.

    * ``step[k]``: value of the ink jar getting from space k-1 to space k (the score
      step of the track, plus the 5th-slot unlock on its space);
    * a space ``d`` spaces beyond the next one counts ``decay ** d`` of its value (it is
      less plausible to get there); ``reward_share`` of a reachable book's reward counts;
    * ``cards[m]``: values of the player's cards of each measure (coffee, bananas,
      cotton, helmets, bookkeeping points), largest first; ``slots``: cards face up at
      once. A book is *meetable* when one bookkeeper plus cards filling the other slots
      can meet all its needs (see :func:`meetable`);
    * ``rewards``: values of reward units (pounds, diamond steps, track steps per
      company, removed posts); ``pound``: a pound taken now.

    >>> tv = TrackValuation(step=(0.0, 1.0, 1.0), cards=((2,), (), (), (), (2,)))
    >>> tv.decay
    0.85
    """

    pound: float = 1.0
    step: tuple[float, ...] = ()
    decay: float = DECAY
    reward_share: float = REWARD_SHARE
    cards: tuple[tuple[int, ...], ...] = ((), (), (), (), ())
    slots: int = 3
    rewards: Valuation = field(default_factory=Valuation)


def _owned_cards(s: State, player: int) -> int:
    """The player's cards (:meth:`PlayerState.owned_cards`) and its card tiles."""
    p = s.players[player]
    return p.owned_cards() | p.tiles


def default_track_valuation(s: State, player: int | None = None) -> TrackValuation:
    """The default track valuation of ``player`` (default: the player deciding now):
    score steps of the bookkeeping track plus 1 pound per round still to come for
    reaching the 5th-slot space, decay 0.85 per space, half of a book's reward, the
    player's cards (hand, action area and its tiles, resting decks) and available slots,
    reward units as in :func:`default_valuation`."""
    if player is None:
        player = acting_player(s)
    cat = s.cat
    p = s.players[player]
    t = tables(cat)
    values: list[list[int]] = [[], [], [], [], []]
    owned = _owned_cards(s, player)
    while owned:
        low = owned & -owned
        c = low.bit_length() - 1
        owned ^= low
        m = t.card_measure[c]
        if m >= 0:
            values[m].append(t.card_value[c])
    rounds_left = max(0, ROUNDS - max(s.round, 1))
    bk = cat.bookkeeping_values
    step = [0.0] + [float(bk[k] - bk[k - 1]) for k in range(1, len(bk))]
    if p.ink < cat.bookkeeping_slot < len(step):
        step[cat.bookkeeping_slot] += UNLOCK_PER_ROUND * rounds_left
    return TrackValuation(
        pound=1.0, step=tuple(step), decay=DECAY, reward_share=REWARD_SHARE,
        cards=tuple(tuple(sorted(v, reverse=True)) for v in values),
        slots=len(p.available_slots(s.cat)), rewards=default_valuation(s, player))


def meetable(needs: tuple[tuple[int, int], ...], tv: TrackValuation) -> bool:
    """Whether the player's cards can plausibly meet a book's needs: one bookkeeper (its
    own points count for a bookkeeping need) plus, in the other slots, the largest
    cards of each needed measure.

    >>> tv = TrackValuation(cards=((3, 1), (), (), (), (2,)), slots=3)
    >>> meetable(((0, 4),), tv), meetable(((0, 5),), tv), meetable(((4, 2),), tv)
    (True, False, True)
    """
    keepers = tv.cards[MEASURE_BOOKKEEPING]
    if not keepers:
        return False
    free = tv.slots - 1
    for m, amount in needs:
        values = tv.cards[m]
        if m == MEASURE_BOOKKEEPING:
            amount -= values[0]
            values = values[1:]
        used = 0
        for v in values:
            if amount <= 0:
                break
            amount -= v
            used += 1
        if amount > 0:
            return False
        free -= used
    return free >= 0


# --------------------------------------------------------------------------------------
# The track value (integer milli-units)
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Weights:
    pound: int
    space: tuple[int, ...]  # value of reaching each space, from this ink position
    reward: tuple[int, ...]  # weight (milli) of a reachable book's reward value
    meet: tuple[bool, ...]  # per book
    book_value: tuple[int, ...]  # per book: scaled value of its reward
    can_move: bool


@lru_cache(maxsize=4096)
def _weights(tv: TrackValuation, cat: Catalogue, ink: int) -> _Weights:
    n = len(cat.bookkeeping_values)
    space = [0] * n
    reward = [0] * n
    for k in range(ink + 1, n):
        f = tv.decay ** (k - ink - 1)
        space[k] = int(round(SCALE * (tv.step[k] if k < len(tv.step) else 0.0) * f))
        reward[k] = int(round(SCALE * tv.reward_share * f))
    return _Weights(
        pound=int(round(SCALE * tv.pound)), space=tuple(space), reward=tuple(reward),
        meet=tuple(not b.needs or meetable(b.needs, tv) for b in cat.books),
        book_value=tuple(reward_value(b.reward, tv.rewards) for b in cat.books),
        can_move=bool(tv.cards[MEASURE_BOOKKEEPING]))


def reward_value(r: Reward, v: Valuation) -> int:
    """Scaled value of a book's reward under the reward weights of ``v``."""
    w = v.scaled()
    track = w.track[r.track_company] * r.track_steps if r.track_company >= 0 else 0
    return (w.pound * r.pounds + w.diamond * r.diamonds + w.bookkeeping * r.bookkeeping
            + track + w.remove_post * r.remove_posts)


def _contribution(w: _Weights, k: int, book: int) -> int:
    return (w.reward[k] * w.book_value[book]) // SCALE


def track_value(cat: Catalogue, books: tuple[tuple[int, ...], ...], flipped: int, ink: int,
                tv: TrackValuation) -> int:
    """The scaled value of a bookkeeping track (stacks ``books``, face-down mask
    ``flipped``, ink jar on ``ink``) under ``tv``: the sum over the spaces the ink jar
    can plausibly reach, in order from the jar, of the space's value and the share of
    its top book's reward (none for a face-down book)."""
    w = _weights(tv, cat, ink)
    if not w.can_move:
        return 0
    total = 0
    for k in range(ink + 1, len(books)):
        stack = books[k]
        if not stack:
            break
        top = stack[-1]
        if (flipped >> top) & 1:
            total += w.space[k]
            continue
        if not w.meet[top]:
            break
        total += w.space[k] + _contribution(w, k, top)
    return total
