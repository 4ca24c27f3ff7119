"""The game state: small slotted records, copied on write.

A :class:`State` and its :class:`PlayerState` records hold only immutable values
(ints, bit masks, tuples). ``clone()`` copies the slot references and nothing else, so it
is O(1); the rules code copies a player record the first time a step changes it
(:meth:`State.player_mut`) and rebuilds a tuple when it changes one of its entries.
The one thing written into a record that states may share is its cache of the face-up
totals (``_measures``), stored with the fields it was computed from as its key, so a
stale entry is recomputed rather than read: sharing it changes no value. A state also
remembers its decision and legal steps once they are asked for (``_decision``,
``_legal``): a state handed out by the rules never changes, and ``clone()`` starts
without them.

Sets of cards and books are Python ints used as bit masks (bit ``i`` = card ``i``):
immutable, hashable and fast to copy.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any

from engine.catalogue import Catalogue
from engine.decision import Decision
from engine.player_board import (  # noqa: F401 - re-exported
    area_cards,
    available_slots,
    card_price,
    face_up,
    measures,
    owned_cards,
    player_measures,
    player_slots,
    share_count,
)
from engine.primitives import (  # noqa: F401 - re-exported (older imports, tests)
    ACTIONS,
    DEAD,
    HIDDEN,
    NOBODY,
    OVER,
    PHASE_NAMES,
    PLANNING,
    SETUP,
    Item,
    bits,
    replace_at,
)
from engine.rules import (
    apply,
    apply_unchecked,
    chance_outcomes,
    decide_as,
    decision,
    legal_steps,
    random_step,
    reward_order_asked,
    sample_chance,
)
from engine.steps import Step

if TYPE_CHECKING:
    import random


class PlayerState:
    """One player's board, hand and markers. Treat as immutable outside the rules code."""

    # The record's value, in one list: equality, hashing and the state format follow it.
    # copy() writes the same names out by hand because it is on the hot path; a test
    # (tests/test_state_fields.py) holds it to this list.
    FIELDS = (
        "cash", "hand", "slots", "used", "tiles", "reserved", "plus1_on", "resting",
        "track", "diamond", "ink", "books", "flipped", "markers", "markers_total",
        "tile", "tile_options", "ended",
    )
    __slots__ = FIELDS + ("_measures",)

    cash: int
    hand: int  # mask of cards in hand
    slots: tuple[int, ...]  # card in each action slot (0..max_slots-1), -1 empty
    used: int  # mask of action-area cards and tiles turned face down
    tiles: int  # mask of bonus tiles in the action area (the +1 tile: beside the board)
    reserved: int  # mask of bonus tiles reserved this round
    plus1_on: int  # goods card carrying the +1 tile, -1 when not laid
    resting: tuple[tuple[int, ...], ...]  # resting deck above each slot, oldest first
    track: tuple[int, ...]  # marker position on each company's track
    diamond: int
    ink: int  # bookkeeping-track space of the ink jar (0 = starting tile)
    books: tuple[tuple[int, ...], ...]  # book stack on each bookkeeping space, top last
    flipped: int  # mask of books turned face down
    markers: int  # bonus markers in front of the player
    markers_total: int
    tile: int  # chosen starting tile (index), -1 before the choice
    tile_options: tuple[int, ...]  # starting tiles dealt (variable setup)
    ended: bool  # has ended the action phase this round
    # Cache of rules.measures: (key of the action area, totals); not part of the value.
    _measures: tuple[tuple[Any, ...], tuple[int, int, int, int, int]] | None

    def copy(self) -> PlayerState:
        p = PlayerState.__new__(PlayerState)
        p.cash = self.cash
        p.hand = self.hand
        p.slots = self.slots
        p.used = self.used
        p.tiles = self.tiles
        p.reserved = self.reserved
        p.plus1_on = self.plus1_on
        p.resting = self.resting
        p.track = self.track
        p.diamond = self.diamond
        p.ink = self.ink
        p.books = self.books
        p.flipped = self.flipped
        p.markers = self.markers
        p.markers_total = self.markers_total
        p.tile = self.tile
        p.tile_options = self.tile_options
        p.ended = self.ended
        p._measures = None
        return p

    def values(self) -> tuple[Any, ...]:
        """The record's value: its :attr:`FIELDS`, in order."""
        return _player_values(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayerState) and self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return f"PlayerState(cash={self.cash}, track={self.track}, diamond={self.diamond})"

    # -- queries of this board (the catalogue gives the cards' values) -------------------
    def face_up(self) -> int:
        """Mask of the face-up cards and card tiles in the action area."""
        return face_up(self)

    def area_cards(self) -> int:
        """Mask of the cards in the action slots (face up or down)."""
        return area_cards(self)

    def owned_cards(self) -> int:
        """Mask of the cards this player owns: hand, action slots and resting decks."""
        return owned_cards(self)

    def measures(self, cat: Catalogue) -> tuple[int, int, int, int, int]:
        """Face-up totals: coffee, bananas, cotton units, helmets, bookkeeping points."""
        return player_measures(cat, self)

    def available_slots(self, cat: Catalogue) -> tuple[int, ...]:
        """The action slots this player may fill (3, plus the 4th and 5th once unlocked)."""
        return player_slots(cat, self)




class State:
    """A complete game position. Use :func:`engine.new_game` to make one.

    >>> import engine
    >>> s = engine.new_game(players=2, seed=7)
    >>> s.decision.kind
    'chance'
    >>> s2 = s.apply(s.sample_chance())
    >>> s2 is not s and s.decision.kind == 'chance'
    True
    """

    # The position, in one list: key(), equality and hashing follow it. clone() writes the
    # same names out by hand because it is the hottest path in search; a test
    # (tests/test_state_fields.py) holds it to this list.
    FIELDS = (
        "cat", "n", "variable", "phase", "round", "first", "next_first", "turn",
        "players", "bases", "owners", "removed_posts", "values", "display", "stack",
        "discard", "gone", "box", "tile_supply", "book_display", "book_coins",
        "book_supply", "round_coins", "bonus", "tracks", "todo", "pool", "turn_books",
        "revealed", "rng",
    )
    __slots__ = FIELDS + ("_own", "_legal", "_decision")

    cat: Catalogue
    n: int
    variable: bool
    phase: int
    round: int
    first: int
    next_first: int
    turn: int
    players: tuple[PlayerState, ...]
    bases: tuple[tuple[int, ...], ...]  # company -> column codes (posts + DEAD flag)
    owners: tuple[int, ...]  # region -> company with a post there, -1 none
    removed_posts: tuple[int, ...]  # company -> posts out of the game
    values: tuple[int, ...]  # company -> share value (uncovered coin icons)
    display: tuple[int, ...]  # display space -> card, -1 empty
    stack: int  # mask: action-card stack (order drawn at random by chance events)
    discard: int  # mask: action-card discard pile
    gone: int  # mask: cards removed from the game
    box: int  # mask: cards not in this game (absent seats)
    tile_supply: int  # mask: bonus tiles beside the board
    book_display: tuple[int, ...]  # book space -> book, -1 empty
    book_coins: tuple[int, ...]  # book space -> coins lying under it
    book_supply: int  # mask of books face down in the supplies
    round_coins: tuple[int, ...]  # coins on round-track spaces 2..7
    bonus: tuple[int, ...]  # bonus space -> seat whose marker is there, -1 free
    tracks: tuple[int, ...]  # company -> track index (A1..D2)
    todo: tuple[Item, ...]  # pending work; the first item says who decides what
    pool: int  # bookkeeping points received this turn, spent at its end
    turn_books: tuple[int, ...]  # books taken this turn, to be placed
    revealed: bool  # planned cards turned face up (or starting tiles revealed)
    rng: int  # state of the chance generator
    _own: int  # bit i set: players[i] is a private copy of this state (writable)
    # The legal steps, once asked for (a handed-out state never changes, so they hold);
    # apply() checks a step against them instead of listing them again.
    _legal: tuple[Step, ...] | None
    _decision: Decision | None  # likewise the decision, once asked for

    def clone(self) -> State:
        """An O(1) copy sharing every (immutable) part with this state."""
        s = State.__new__(State)
        s.cat = self.cat
        s.n = self.n
        s.variable = self.variable
        s.phase = self.phase
        s.round = self.round
        s.first = self.first
        s.next_first = self.next_first
        s.turn = self.turn
        s.players = self.players
        s.bases = self.bases
        s.owners = self.owners
        s.removed_posts = self.removed_posts
        s.values = self.values
        s.display = self.display
        s.stack = self.stack
        s.discard = self.discard
        s.gone = self.gone
        s.box = self.box
        s.tile_supply = self.tile_supply
        s.book_display = self.book_display
        s.book_coins = self.book_coins
        s.book_supply = self.book_supply
        s.round_coins = self.round_coins
        s.bonus = self.bonus
        s.tracks = self.tracks
        s.todo = self.todo
        s.pool = self.pool
        s.turn_books = self.turn_books
        s.revealed = self.revealed
        s.rng = self.rng
        s._own = 0
        s._legal = None
        s._decision = None
        return s

    def player_mut(self, i: int) -> PlayerState:
        """Player ``i``'s record, copied first if this state does not own it yet."""
        if not self._own >> i & 1:
            p = self.players[i].copy()
            self.players = replace_at(self.players, i, p)
            self._own |= 1 << i
            return p
        return self.players[i]

    # -- comparison --------------------------------------------------------------
    def key(self) -> tuple[Any, ...]:
        """Everything that defines the position: :attr:`FIELDS`, the catalogue by identity."""
        # Players compare by value (PlayerState.__eq__); the catalogue by identity, since
        # comparing two catalogues field by field would cost more than the rest together.
        return (id(self.cat),) + _position_values(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        d = self.decision
        who = f" P{d.player + 1}" if d.player >= 0 else ""
        return (f"<State round={self.round} phase={PHASE_NAMES[self.phase]} "
                f"decision={d.kind}{who}>")

    # -- the game's moves: the one spelling of the rules' entry points -----------------
    # (the rules live in engine.rules; these delegate, so every caller writes
    # ``s.apply(step)``, ``s.decision``, ``s.legal_steps()``...)
    @property
    def decision(self) -> Decision:
        """Who decides next, with the decision's arguments (see :class:`Decision`)."""
        d = self._decision  # built once per state: the search asks at every node
        return d if d is not None else decision(self)

    def legal_steps(self, player: int | None = None) -> list[Step]:
        """Every legal step at this decision (chance outcomes at a chance event); with
        ``player``, that seat's steps at a simultaneous decision (Planning, the starting
        tile), which any seat still deciding may take first."""
        return legal_steps(self, player)

    def apply(self, step: Step, player: int | None = None) -> State:
        """The state after ``step`` (checked; raises ``IllegalStep``); with ``player``,
        the step is that seat's (see :meth:`legal_steps`)."""
        return apply(self, step, player)

    def decide_as(self, player: int) -> State:
        """This position with seat ``player`` taking its simultaneous decision first
        (``decision.player == player``); raises ``IllegalStep`` if it has none now."""
        return decide_as(self, player)

    def apply_unchecked(self, step: Step) -> State:
        """The state after ``step``, known to be legal (taken from :meth:`legal_steps`):
        no check, for the search's hot loops."""
        return apply_unchecked(self, step)

    def sample_chance(self) -> Step:
        """A chance outcome drawn with the state's own generator."""
        return sample_chance(self)

    def chance_outcomes(self) -> list[tuple[Step, float]]:
        """The outcomes of the pending chance event with their probabilities (uniform);
        raises ``IllegalStep`` where no chance event is due."""
        return chance_outcomes(self)

    def random_step(self, rng: random.Random) -> Step:
        """A uniformly random legal step (a chance outcome from the state's own
        generator at a chance event)."""
        return random_step(self, rng)

    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def phase_name(self) -> str:
        """``"setup"``, ``"planning"``, ``"actions"`` or ``"over"``."""
        return PHASE_NAMES[self.phase]

    def posts(self, company: int) -> tuple[int, ...]:
        """Trading posts left in each column of ``company``'s base, in column order.

        >>> import engine
        >>> engine.new_game(players=2, seed=1).posts(0)
        (5, 5, 5)
        """
        return tuple(code & 7 for code in self.bases[company])

    # -- a player's board, by seat (0-based) --------------------------------------------
    def face_up(self, player: int) -> int:
        """Mask of the face-up cards and card tiles in ``player``'s action area."""
        return face_up(self.players[player])

    def area_cards(self, player: int) -> int:
        """Mask of the cards in ``player``'s action slots (face up or down)."""
        return area_cards(self.players[player])

    def measures(self, player: int) -> tuple[int, int, int, int, int]:
        """``player``'s face-up totals: coffee, bananas, cotton units, helmets,
        bookkeeping points (what book needs and goods actions count).

        >>> import engine
        >>> engine.new_game(players=2, seed=1).measures(0)
        (0, 0, 0, 0, 0)
        """
        return measures(self, self.players[player])

    def available_slots(self, player: int) -> tuple[int, ...]:
        """The action slots ``player`` may fill: the 3 base slots, plus the 4th and 5th
        once the diamond and bookkeeping tracks unlock them."""
        return available_slots(self, self.players[player])

    def card_price(self, space: int) -> int:
        """Price of the card in display ``space``: crate value + the space's modifier,
        never below 0."""
        return card_price(self, space)

    def share_count(self, player: int, company: int) -> int:
        """Shares ``player`` holds in ``company``: the last share icon reached on its
        track plus the share icons on the player's cards."""
        return share_count(self, player, company)

    def reward_order_asked(self, player: int, company: int, pounds: int,
                           track_steps: int) -> bool:
        """Whether an expansion's rewards of ``pounds`` and ``track_steps`` on
        ``company``'s track (totals over the regions entered) ask ``player`` for their
        order (decision ``reward-order``): only where the steps meet a capital call that
        the pounds would pay. Planners use it to know that the step comes.

        >>> import engine
        >>> engine.new_game(players=2, seed=0).reward_order_asked(0, 0, 0, 3)
        False
        """
        return reward_order_asked(self, player, company, pounds, track_steps)


_player_values = attrgetter(*PlayerState.FIELDS)
_position_values = attrgetter(*State.FIELDS[1:])
