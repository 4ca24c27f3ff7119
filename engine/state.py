"""The game state: small slotted records, copied on write.

A :class:`State` and its :class:`PlayerState` records hold only immutable values
(ints, bit masks, tuples). ``clone()`` copies the slot references and nothing else, so it
is O(1); the rules code copies a player record the first time a step changes it
(:meth:`State.player_mut`) and rebuilds a tuple when it changes one of its entries.
The one thing written into a record that states may share is its cache of the face-up
totals (``_measures``), stored with the fields it was computed from as its key, so a
stale entry is recomputed rather than read: sharing it changes no value.

Sets of cards and books are Python ints used as bit masks (bit ``i`` = card ``i``):
immutable, hashable and fast to copy.
"""

from __future__ import annotations

from typing import Any

from engine.catalogue import Catalogue
from engine.primitives import (  # noqa: F401 - re-exported for the rules modules
    ACTIONS,
    DEAD,
    HIDDEN,
    NOBODY,
    OVER,
    PHASE_NAMES,
    PLANNING,
    SETUP,
    bits,
    replace_at,
)
from engine.tables import tables


class PlayerState:
    """One player's board, hand and markers. Treat as immutable outside the rules code."""

    __slots__ = (
        "cash", "hand", "slots", "used", "tiles", "reserved", "plus1_on", "resting",
        "track", "diamond", "ink", "books", "flipped", "markers", "markers_total",
        "tile", "tile_options", "ended", "_measures",
    )
    FIELDS = (
        "cash", "hand", "slots", "used", "tiles", "reserved", "plus1_on", "resting",
        "track", "diamond", "ink", "books", "flipped", "markers", "markers_total",
        "tile", "tile_options", "ended",
    )

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
        return tuple(getattr(self, k) for k in PlayerState.FIELDS)

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

    def measures(self, cat: Catalogue) -> tuple[int, int, int, int, int]:
        """Face-up totals: coffee, bananas, cotton units, helmets, bookkeeping points."""
        return _measures(cat, self)

    def available_slots(self, cat: Catalogue) -> tuple[int, ...]:
        """The action slots this player may fill (3, plus the 4th and 5th once unlocked)."""
        return _available_slots(cat, self)


# --------------------------------------------------------------------------------------
# A player's board: queries the rules, the search and the service share (also as
# State methods taking the player's seat).
# --------------------------------------------------------------------------------------

def available_slots(s: State, p: PlayerState) -> tuple[int, ...]:
    """Action slots the player may fill (3, plus the 4th and 5th once unlocked)."""
    return _available_slots(s.cat, p)


def _available_slots(cat: Catalogue, p: PlayerState) -> tuple[int, ...]:
    t = tables(cat)
    out = []
    if p.diamond >= cat.diamond_slot:
        out.append(t.extra_left)
    out.extend(t.base_slot_list)
    if p.ink >= cat.bookkeeping_slot:
        out.append(t.extra_right)
    return tuple(out)


def area_cards(p: PlayerState) -> int:
    """Mask of the cards in the action slots."""
    m = 0
    for c in p.slots:
        if c >= 0:
            m |= 1 << c
    return m


def face_up(p: PlayerState) -> int:
    """Mask of face-up (unused) cards and card tiles in the action area."""
    return (area_cards(p) | p.tiles) & ~p.used


def measures(s: State, p: PlayerState) -> tuple[int, int, int, int, int]:
    """Face-up totals: coffee, bananas, cotton units, helmets, bookkeeping points."""
    return _measures(s.cat, p)


def _measures(cat: Catalogue, p: PlayerState) -> tuple[int, int, int, int, int]:
    key = (p.slots, p.used, p.tiles, p.plus1_on)
    cached = p._measures
    if cached is not None and cached[0] == key:
        return cached[1]
    t = tables(cat)
    up = face_up(p)
    totals = [0, 0, 0, 0, 0]
    measure_of, values = t.card_measure, t.card_value
    while up:
        low = up & -up
        c = low.bit_length() - 1
        up ^= low
        m = measure_of[c]
        if m >= 0:
            totals[m] += values[c] + (p.plus1_on == c)
    result = (totals[0], totals[1], totals[2], totals[3], totals[4])
    p._measures = (key, result)  # the key makes a stale entry harmless
    return result


def card_price(s: State, space: int) -> int:
    """Price of the card in a display space: its crate value + the space's modifier, >= 0."""
    price = tables(s.cat).card_crate[s.display[space]] + s.cat.display_modifiers[space]
    return price if price > 0 else 0


def share_count(s: State, player: int, company: int) -> int:
    """Shares held: the last share icon reached on the track plus share icons on cards."""
    p = s.players[player]
    track = s.cat.tracks[s.tracks[company]]
    n = track.shares_at[p.track[company]]
    owned = p.hand | area_cards(p)
    for deck in p.resting:
        for c in deck:
            owned |= 1 << c
    cards = s.cat.cards
    for c in bits(owned):
        if cards[c].share == company:
            n += 1
    return n


# A work item of the rules interpreter: (operation, player, *arguments).
Item = tuple[Any, ...]


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

    __slots__ = (
        "cat", "n", "variable", "phase", "round", "first", "next_first", "turn",
        "players", "bases", "owners", "removed_posts", "values", "display", "stack",
        "discard", "gone", "box", "tile_supply", "book_display", "book_coins",
        "book_supply", "round_coins", "bonus", "tracks", "todo", "pool", "turn_books",
        "revealed", "rng", "_own",
    )

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
        """Everything that defines the position (the catalogue by identity)."""
        return (
            id(self.cat), self.n, self.variable, self.phase, self.round, self.first,
            self.next_first, self.turn, tuple(p.values() for p in self.players), self.bases,
            self.owners, self.removed_posts, self.values, self.display, self.stack,
            self.discard, self.gone, self.box, self.tile_supply, self.book_display,
            self.book_coins, self.book_supply, self.round_coins, self.bonus, self.tracks,
            self.todo, self.pool, self.turn_books, self.revealed, self.rng,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        d = self.decision
        return (f"<State round={self.round} phase={PHASE_NAMES[self.phase]} "
                f"decision={d.kind} player={d.player}>")

    # -- the public API lives in engine.rules; these delegate ------------------------
    @property
    def decision(self) -> Decision:
        from engine.rules import decision

        return decision(self)

    def legal_steps(self) -> list[Any]:
        from engine.rules import legal_steps

        return legal_steps(self)

    def apply(self, step: Any) -> State:
        from engine.rules import apply

        return apply(self, step)

    def sample_chance(self) -> Any:
        from engine.rules import sample_chance

        return sample_chance(self)

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


class Decision:
    """Who decides what next, and the decision's arguments by name.

    ``kind`` is one of :data:`DECISION_KINDS` (a player's decision), ``"chance"`` or
    ``"over"``; ``player`` is -1 for chance and when the game is over. The arguments
    that are not ``None`` say where the decision stands:

    * ``plan``: ``slot``, the action slot filled last in this Planning (-1: none yet;
      the next card goes to a slot right of it);
    * ``goods-buy`` / ``goods-track``: ``units``, the goods units still to use;
    * ``expansion``: ``company``, ``points`` (expansion points left), ``entered`` and
      ``ousted`` (regions entered and the companies whose posts were ousted so far);
    * ``oust-return``: ``company``, whose ousted post goes back to its base;
    * ``bookkeeper-flip`` / ``ink-jar``: ``card``, the bookkeeper card (or tile) being
      used, and for the ink jar ``moved``, the spaces moved so far;
    * ``remove-post``: ``ousted``, the companies whose ousted posts still go home
      after the removal;
    * ``bookkeeping-points``: ``points`` left to spend and ``space``, the book-display
      space taken from last this turn (-1: none; a further book comes from a space
      right of it);
    * ``place-book``: ``books`` acquired this turn and still to place;
    * ``chance``: ``event``, the kind of the chance step due (``deal-track``,
      ``deal-card``, ``deal-book``, ``deal-tile``), and ``target``, the company, display
      space, book space or seat it is dealt to.

    >>> Decision("expansion", 0, company=2, points=3, entered=(), ousted=())
    Decision('expansion', player=0, company=2, points=3, entered=(), ousted=())
    >>> Decision("plan", 1, slot=-1).hidden
    True
    """

    __slots__ = ("kind", "player", "company", "points", "units", "slot", "card", "moved",
                 "entered", "ousted", "space", "books", "event", "target")
    _ARGS = ("company", "points", "units", "slot", "card", "moved", "entered", "ousted", "space",
             "books", "event", "target")

    def __init__(self, kind: str, player: int, *, company: int | None = None,
                 points: int | None = None, units: int | None = None,
                 slot: int | None = None, card: int | None = None,
                 moved: int | None = None,
                 entered: tuple[int, ...] | None = None,
                 ousted: tuple[int, ...] | None = None, space: int | None = None,
                 books: tuple[int, ...] | None = None, event: str | None = None,
                 target: int | None = None) -> None:
        self.kind = kind
        self.player = player
        self.company = company
        self.points = points
        self.units = units
        self.slot = slot
        self.card = card
        self.moved = moved
        self.entered = entered
        self.ousted = ousted
        self.space = space
        self.books = books
        self.event = event
        self.target = target

    @property
    def hidden(self) -> bool:
        """True for decisions other players do not see until the reveal (Planning and
        the starting-tile choice)."""
        return self.kind in HIDDEN_KINDS

    @property
    def is_chance(self) -> bool:
        """True when chance decides (a card, book, tile or track is dealt)."""
        return self.kind == "chance"

    def _key(self) -> tuple[Any, ...]:
        return (self.kind, self.player) + tuple(getattr(self, a) for a in Decision._ARGS)

    def __repr__(self) -> str:
        args = "".join(f", {a}={getattr(self, a)!r}" for a in Decision._ARGS
                       if getattr(self, a) is not None)
        return f"Decision({self.kind!r}, player={self.player}{args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Decision) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


# The kinds of a player's decision, and the ones others do not see until the reveal.
DECISION_KINDS = ("starting-tile", "resting-cards", "plan", "action", "goods-buy",
                  "goods-track", "expansion", "oust-return", "remove-post",
                  "bookkeeper-flip", "ink-jar", "bookkeeping-points", "place-book")
HIDDEN_KINDS = frozenset({"starting-tile", "plan"})
