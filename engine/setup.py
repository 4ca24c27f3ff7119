"""A new game: the table before the first chance event (rulebook, "Setup")."""

from __future__ import annotations

from engine.catalogue import Catalogue, default_catalogue
from engine.rules import run_automatic
from engine.state import NOBODY, SETUP, Item, PlayerState, State
from engine.tables import tables

SEED_MIX = 0x5DEECE66D


def new_game(
    players: int = 2,
    seed: int = 0,
    variable: bool = False,
    catalogue: Catalogue | None = None,
) -> State:
    """A new game of 2-4 players.

    ``variable=False`` is the first-game setup (tracks A1 B1 C1 D1, fixed starting
    tiles); ``variable=True`` deals the track cards and two starting tiles per player
    (chance events) and lets each player choose a tile (hidden decisions).
    The returned state begins with the setup's chance events (display and book draws).

    >>> s = new_game(players=3, seed=1)
    >>> s.decision.kind, s.n
    ('chance', 3)
    """
    if not isinstance(players, int) or not 2 <= players <= 4:
        raise ValueError(f"players: must be 2, 3 or 4, got {players!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed: must be a non-negative integer, got {seed!r}")
    cat = catalogue or default_catalogue()
    t = tables(cat)
    s = State.__new__(State)
    s._legal = None
    s._decision = None
    s.cat = cat
    s.n = players
    s.variable = bool(variable)
    s.phase = SETUP
    s.round = 0
    s.first = 0
    s.next_first = NOBODY
    s.turn = 0
    s.players = tuple(_new_player(cat, seat, players) for seat in range(players))
    full = cat.base_spaces
    s.bases = tuple((full,) * cat.base_columns for _ in cat.companies)
    s.owners = (NOBODY,) * len(cat.regions)
    s.removed_posts = (0,) * len(cat.companies)
    s.values = tuple(t.column_value[full] * cat.base_columns for _ in cat.companies)
    s.display = (-1,) * t.n_display
    s.stack = sum(1 << c for c in cat.action_cards)
    s.discard = 0
    s.gone = 0
    s.box = sum(1 << c for seat in range(players, len(cat.seat_cards))
                for c in cat.seat_cards[seat])
    s.tile_supply = t.tile_mask
    s.book_display = (-1,) * t.n_book_spaces
    s.book_coins = (0,) * t.n_book_spaces
    s.book_supply = (1 << len(cat.books)) - 1
    s.round_coins = cat.round_coins[players]
    s.bonus = (NOBODY,) * len(cat.bonus_spaces)
    s.tracks = (-1,) * len(cat.companies) if variable else cat.first_game_tracks
    s.pool = 0
    s.turn_books = ()
    s.revealed = False
    s.rng = (seed * SEED_MIX + 0x2545F4914F6CDD1D) & ((1 << 64) - 1)
    s._own = 0

    todo: list[Item] = []
    if variable:
        todo.extend(("c_track", NOBODY, c) for c in range(len(cat.companies)))
    todo.extend(("c_card", NOBODY, sp) for sp in t.display_fill_order)
    todo.extend(("c_book", NOBODY, sp) for sp in range(t.n_book_spaces))
    if variable:
        for _ in range(2):
            todo.extend(("c_tile", NOBODY, seat) for seat in range(players))
        todo.extend(("tile", seat) for seat in range(players))
    todo.append(("setup_tiles",))
    s.todo = tuple(todo)
    run_automatic(s)
    s._own = 0
    return s


def _new_player(cat: Catalogue, seat: int, players: int) -> PlayerState:
    p = PlayerState.__new__(PlayerState)
    p._measures = None
    p.cash = cat.start_pounds
    p.hand = sum(1 << c for c in cat.seat_cards[seat])
    p.slots = (-1,) * cat.max_slots
    p.used = 0
    p.tiles = 0
    p.reserved = 0
    p.plus1_on = -1
    p.resting = ((),) * cat.max_slots
    p.track = (0,) * len(cat.companies)
    p.diamond = 0
    p.ink = 0
    p.books = ((),) * len(cat.bookkeeping_values)
    p.flipped = 0
    p.markers = cat.markers_start[players]
    p.markers_total = p.markers
    p.tile = -1
    p.tile_options = ()
    p.ended = False
    return p
