"""The component catalogue: every printed number of the game, loaded from one data file.

The shipped file ``engine/data/catalogue.json`` is a reconstruction (the printed values
are not available to us); ``MOMBASA_CATALOGUE=/path.json`` or ``load_catalogue(path)``
loads another one. A file is checked where it is read, in one walk: ``parse_catalogue``
reads each section (modules ``header``, ``map``, ``tracks``, ``cards``, ``books``,
``tiles``, ``player``) through the helpers of ``checks``, which raise ``CatalogueError``
naming the JSON path of the first fault, and builds the section's records (``model``)
from the checked values. Everything is indexed by small integers:

* companies 0..3 (MOM, CAP, STL, CAI), goods 0..2 (coffee, bananas, cotton);
* cards: the 44 action cards first, then 10 starting cards per seat (9 common + the
  seat's "1"-expansion card), then the 4 bonus tiles, which behave like cards;
* books 0..71; regions 0..23; tracks 0..7 (A1..D2).

>>> cat = default_catalogue()
>>> cat.companies[0].name
'Mombasa'
>>> len(cat.regions), len(cat.books)
(24, 72)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine.catalogue.books import read_book_display, read_books, read_round_coins
from engine.catalogue.cards import read_cards, read_display
from engine.catalogue.checks import SCHEMA, CatalogueError, as_dict, strip_comments
from engine.catalogue.header import read_companies, read_header
from engine.catalogue.map import read_base, read_map
from engine.catalogue.model import (
    GOODS,
    KIND_BOOKKEEPER,
    KIND_EXPANSION,
    KIND_GOODS,
    KIND_MERCHANT,
    KIND_PLUS1,
    KIND_SHARE,
    MEASURE_BOOKKEEPING,
    MEASURE_EXPANSION,
    MEASURES,
    BonusSpace,
    BonusTile,
    Book,
    CardType,
    Company,
    MajorityLine,
    Region,
    Reward,
    StartingTile,
    Track,
    TrackSpace,
)
from engine.catalogue.player import read_merchants_and_player, read_player_tracks
from engine.catalogue.tiles import (
    read_bonus_markers,
    read_bonus_spaces,
    read_bonus_tiles,
    read_starting_tiles,
)
from engine.catalogue.tracks import read_tracks

DEFAULT_PATH = Path(__file__).parent.parent / "data" / "catalogue.json"


@dataclass(frozen=True, slots=True, eq=False)
class Catalogue:
    """The frozen, validated component catalogue (see docs/catalogue.md)."""

    path: str
    reconstruction: bool
    companies: tuple[Company, ...]
    base_columns: int
    base_spaces: int
    base_coins: tuple[int, ...]  # front to rear
    regions: tuple[Region, ...]
    neighbours: tuple[tuple[tuple[int, int], ...], ...]  # region -> ((region, cost), ...)
    base_neighbours: tuple[tuple[tuple[int, int], ...], ...]  # company -> ((region, cost),)
    tracks: tuple[Track, ...]
    track_cards: tuple[tuple[int, int], ...]
    first_game_tracks: tuple[int, ...]  # company -> track index
    cards: tuple[CardType, ...]
    action_cards: tuple[int, ...]
    seat_cards: tuple[tuple[int, ...], ...]  # seat -> its 10 card indices
    tile_cards: tuple[int, ...]
    letters: str  # letters of the action-card stack, top layer first
    display_columns: tuple[str, ...]
    display_rows: int
    display_modifiers: tuple[int, ...]  # by display space (column * rows + row)
    books: tuple[Book, ...]
    book_columns: tuple[int, ...]
    book_rows: int
    book_space_letter: tuple[str, ...]  # by book space (column * rows + row)
    book_costs: dict[str, int]
    round_coins: dict[int, tuple[int, ...]]
    starting_tiles: tuple[StartingTile, ...]
    first_game_tiles: tuple[int, ...]  # seat -> index into starting_tiles
    markers_per_colour: int
    markers_start: dict[int, int]
    bonus_spaces: tuple[BonusSpace, ...]  # board spaces, then track bonus spaces
    board_bonus_count: int
    track_bonus_at: tuple[tuple[int, int, int], ...]  # (track, position, bonus index)
    bonus_tiles: tuple[BonusTile, ...]
    diamond_values: tuple[int, ...]
    diamond_slot: int
    diamond_end_pounds: int
    bookkeeping_values: tuple[int, ...]
    crossed_a: frozenset[int]
    bookkeeping_slot: int
    bookkeeping_end_pounds: int
    plain_merchant: tuple[int, int]  # steps, pounds
    company_merchant: tuple[int, int, int]  # steps, pounds, mines per extra step
    start_pounds: int
    base_slots: int
    max_slots: int
    # What the values are, not where they came from: a short hash of the file's
    # comment-free content (a value model records the catalogue it was fitted on).
    fingerprint: str

    @staticmethod
    def without_comments(raw: Any) -> Any:
        """A parsed catalogue file as the loader reads it: every comment key (``//...``)
        dropped, at any depth (for tools that compare files value by value).

        >>> Catalogue.without_comments({"//": "note", "books": [{"// why": 1, "letter": "A"}]})
        {'books': [{'letter': 'A'}]}
        """
        return strip_comments(raw)

    @property
    def n_cards(self) -> int:
        return len(self.cards)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Pickled by reference to its file: processes share the loaded catalogue.
        return (_catalogue_from_path, (self.path,))

    def company_index(self, ident: str) -> int:
        for c in self.companies:
            if c.id == ident:
                return c.index
        raise KeyError(f"unknown company {ident!r}")

    def card_index(self, name: str) -> int:
        try:
            return self._card_by_name()[name]
        except KeyError:
            raise KeyError(f"unknown card {name!r}") from None

    def region_index(self, ident: str) -> int:
        for r in self.regions:
            if r.id == ident:
                return r.index
        raise KeyError(f"unknown region {ident!r}")

    def book_index(self, name: str) -> int:
        for b in self.books:
            if b.name == name:
                return b.index
        raise KeyError(f"unknown book {name!r}")

    def _card_by_name(self) -> dict[str, int]:
        return _card_names(self)

    def display_space_name(self, space: int) -> str:
        col, row = divmod(space, self.display_rows)
        return f"{self.display_columns[col]}{row + 1}"

    def display_space_index(self, name: str) -> int:
        col = self.display_columns.index(name[:1])
        row = int(name[1:]) - 1
        if not 0 <= row < self.display_rows:
            raise ValueError(f"no display row {name[1:]!r}")
        return col * self.display_rows + row

    def book_space_name(self, space: int) -> str:
        col, row = divmod(space, self.book_rows)
        return f"{self.book_columns[col]}.{row + 1}"

    def book_space_index(self, name: str) -> int:
        col_s, _, row_s = name.partition(".")
        col = self.book_columns.index(int(col_s))
        row = int(row_s) - 1
        if not 0 <= row < self.book_rows:
            raise ValueError(f"no book-display row {row_s!r}")
        return col * self.book_rows + row


_NAME_CACHE: dict[int, dict[str, int]] = {}


def _card_names(cat: Catalogue) -> dict[str, int]:
    key = id(cat)
    names = _NAME_CACHE.get(key)
    if names is None:
        names = {c.name: c.index for c in cat.cards}
        _NAME_CACHE[key] = names
    return names


def parse_catalogue(raw: dict[str, Any], path: str = "<memory>") -> Catalogue:
    """Check a parsed catalogue file and build the indexed, frozen catalogue, in one walk.

    Sections are read in a fixed order, so a file with several faults always reports
    the same first one; the cross-section checks (borders against regions, starting
    tiles against card codes, bonus spaces against tiles) come after what they need.
    Comments (object keys starting with ``//``, see ``checks.strip_comments``) are
    dropped first, here and nowhere else.
    """
    root = as_dict(strip_comments(raw), "$")
    fingerprint = hashlib.sha256(
        json.dumps(root, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]
    reconstruction = read_header(root)
    companies = read_companies(root)
    base = read_base(root)
    board = read_map(root)
    tracks = read_tracks(root)
    cards = read_cards(root)
    display = read_display(root)
    books = read_books(root)
    book_display = read_book_display(root)
    round_coins = read_round_coins(root)
    starting = read_starting_tiles(root, cards.codes)
    markers = read_bonus_markers(root)
    bonus_tiles = read_bonus_tiles(root, first_card=len(cards.cards))
    bonus = read_bonus_spaces(root, bonus_tiles.tiles, tracks.tracks)
    player_tracks = read_player_tracks(root)
    player = read_merchants_and_player(root)
    return Catalogue(
        path=path,
        reconstruction=reconstruction,
        companies=companies,
        base_columns=base.columns,
        base_spaces=base.spaces,
        base_coins=base.coins,
        regions=board.regions,
        neighbours=board.neighbours,
        base_neighbours=board.base_neighbours,
        tracks=tracks.tracks,
        track_cards=tracks.track_cards,
        first_game_tracks=tracks.first_game_tracks,
        cards=cards.cards + bonus_tiles.cards,
        action_cards=cards.action_cards,
        seat_cards=cards.seat_cards,
        tile_cards=tuple(t.card for t in bonus_tiles.tiles),
        letters=cards.letters,
        display_columns=display.columns,
        display_rows=display.rows,
        display_modifiers=display.modifiers,
        books=books,
        book_columns=book_display.columns,
        book_rows=book_display.rows,
        book_space_letter=book_display.space_letter,
        book_costs=book_display.costs,
        round_coins=round_coins,
        starting_tiles=starting.tiles,
        first_game_tiles=starting.first_game,
        markers_per_colour=markers.per_colour,
        markers_start=markers.start,
        bonus_spaces=bonus.spaces,
        board_bonus_count=bonus.board_count,
        track_bonus_at=bonus.track_bonus_at,
        bonus_tiles=bonus_tiles.tiles,
        diamond_values=player_tracks.diamonds.values,
        diamond_slot=player_tracks.diamonds.slot_unlock,
        diamond_end_pounds=player_tracks.diamonds.end_pounds,
        bookkeeping_values=player_tracks.bookkeeping.values,
        crossed_a=player_tracks.crossed_a,
        bookkeeping_slot=player_tracks.bookkeeping.slot_unlock,
        bookkeeping_end_pounds=player_tracks.bookkeeping.end_pounds,
        plain_merchant=player.plain_merchant,
        company_merchant=player.company_merchant,
        start_pounds=player.start_pounds,
        base_slots=player.slots,
        max_slots=player.max_slots,
        fingerprint=fingerprint,
    )


def validate(raw: dict[str, Any]) -> None:
    """Check a parsed catalogue; raise ``CatalogueError`` (path first) on the first fault.

    The checks are those of ``parse_catalogue`` (the built catalogue is dropped).
    """
    parse_catalogue(raw)


def load_catalogue(
    path: str | os.PathLike[str] | Mapping[str, Any] | None = None,
) -> Catalogue:
    """Load and validate a catalogue (default: ``MOMBASA_CATALOGUE`` or the shipped one):
    a file's path, or its parsed JSON (checked and built, not cached; such a catalogue
    pickles by path, so a search process needs it from a file).

    >>> import json
    >>> raw = json.loads(open(default_catalogue().path).read())
    >>> raw["player"]["start_pounds"] = 7
    >>> load_catalogue(raw).start_pounds
    7
    """
    if path is None:
        return default_catalogue()
    if isinstance(path, Mapping):
        return parse_catalogue(dict(path))
    p = Path(path)
    raw = _read_json(p)
    return _load_cached(str(p.resolve()), p.stat().st_mtime_ns, raw)


def _read_json(p: Path) -> Any:
    """The parsed file; ``CatalogueError`` (not an ``OSError``) when it cannot be read,
    so that every caller reports a file that cannot be used in one way."""
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogueError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise CatalogueError(f"{p}: a directory, not a catalogue file") from None
    except UnicodeDecodeError:
        raise CatalogueError(f"{p}: not JSON: not a UTF-8 text file") from None
    except OSError as exc:
        raise CatalogueError(f"{p}: cannot read it: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"{p}: not valid JSON: {exc}") from None


def _load_cached(key: str, mtime: int, raw: dict[str, Any]) -> Catalogue:
    cached = _BY_PATH.get(key)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    cat = parse_catalogue(raw, key)
    _BY_PATH[key] = (mtime, cat)
    return cat


_BY_PATH: dict[str, tuple[int, Catalogue]] = {}


def _catalogue_from_path(path: str) -> Catalogue:
    default = default_catalogue()
    if path == default.path:
        return default
    return load_catalogue(path)


CATALOGUE_ENV = "MOMBASA_CATALOGUE"  # the variable naming another default catalogue


@cache
def default_catalogue() -> Catalogue:
    """The catalogue named by ``MOMBASA_CATALOGUE``, else the shipped reconstruction.

    A variable naming a file that cannot be used raises ``CatalogueError`` whose message
    starts with ``MOMBASA_CATALOGUE=<value>:`` (a user's setting, not the file's path,
    is what to fix)."""
    env = os.environ.get(CATALOGUE_ENV)
    if not env:
        return parse_catalogue(_read_json(DEFAULT_PATH), str(DEFAULT_PATH))
    p = Path(env)
    try:
        raw = _read_json(p)
        return parse_catalogue(raw, str(p))
    except CatalogueError as exc:
        reason = str(exc).removeprefix(f"{p}: ")
        raise CatalogueError(f"{CATALOGUE_ENV}={env}: {reason}") from None


__all__ = [
    "Book", "BonusSpace", "BonusTile", "CardType", "Catalogue", "CatalogueError", "Company",
    "MajorityLine", "Region", "Reward", "StartingTile", "Track", "TrackSpace",
    "default_catalogue", "load_catalogue", "parse_catalogue", "validate",
    # index constants shared with the rules and their lookups
    "GOODS", "MEASURES", "MEASURE_BOOKKEEPING", "MEASURE_EXPANSION", "KIND_BOOKKEEPER",
    "KIND_EXPANSION", "KIND_GOODS", "KIND_MERCHANT", "KIND_PLUS1", "KIND_SHARE", "SCHEMA",
]
