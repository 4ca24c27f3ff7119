"""The component catalogue: every printed number of the game, loaded from one data file.

The shipped file ``engine/data/catalogue.json`` is a reconstruction (the printed values
are not available to us); ``MOMBASA_CATALOGUE=/path.json`` or ``load_catalogue(path)``
loads another one. Everything is indexed by small integers:

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

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine.catalogue_check import CatalogueError, validate

DEFAULT_PATH = Path(__file__).parent / "data" / "catalogue.json"

GOODS = ("coffee", "bananas", "cotton")
# Book needs and majority measures: the three goods, helmets, bookkeeping points.
MEASURES = ("coffee", "bananas", "cotton", "expansion", "bookkeeping")
MEASURE_EXPANSION = 3
MEASURE_BOOKKEEPING = 4

KIND_GOODS = "goods"
KIND_EXPANSION = "expansion"
KIND_BOOKKEEPER = "bookkeeper"
KIND_MERCHANT = "merchant"
KIND_SHARE = "share"
KIND_PLUS1 = "plus1_goods"


@dataclass(frozen=True, slots=True)
class Reward:
    """What a region, book, track space, bonus line or tile pays.

    ``track_company`` is -1 when the steps go to the company in context (a region
    pays steps on the track of the company that expanded into it).
    """

    pounds: int = 0
    diamonds: int = 0
    bookkeeping: int = 0
    track_steps: int = 0
    track_company: int = -1
    remove_posts: int = 0

    def is_empty(self) -> bool:
        return not (
            self.pounds or self.diamonds or self.bookkeeping or self.track_steps
            or self.remove_posts
        )


@dataclass(frozen=True, slots=True)
class Company:
    index: int
    id: str
    name: str
    colour: str
    edge: str


@dataclass(frozen=True, slots=True)
class Region:
    index: int
    id: str
    name: str
    reward: Reward
    mines: int
    enclave_of: int  # -1 when not an enclave
    centre: tuple[float, float]
    polygon: tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class TrackSpace:
    shares: int
    capital: int
    special: Reward  # paid once on reaching the space; empty when none
    bonus: Reward | None  # a track bonus space's reward, None when not one
    extra_marker: bool


@dataclass(frozen=True, slots=True)
class Track:
    index: int
    id: str
    spaces: tuple[TrackSpace, ...]
    end_pounds: int
    shares_at: tuple[int, ...]  # shares held with the marker on each space

    @property
    def last(self) -> int:
        return len(self.spaces) - 1


@dataclass(frozen=True, slots=True)
class CardType:
    """One physical card (or bonus tile acting as a card)."""

    index: int
    name: str
    letter: str  # A..E for action cards, "S" starting, "T" bonus tile
    kind: str
    good: int  # 0..2 for goods, else -1
    value: int  # units, helmets, bookkeeping points, or merchant base steps
    crate: int
    share: int  # company of the share icon, -1 when none
    company: int  # merchant's / share card's company, -1 when none (plain merchant)
    seat: int  # 0-based owner seat of starting cards, -1 otherwise
    code: str  # starting-card code (shared by all seats), else the name


@dataclass(frozen=True, slots=True)
class Book:
    index: int
    name: str
    letter: str
    needs: tuple[tuple[int, int], ...]  # (measure, amount)
    reward: Reward


@dataclass(frozen=True, slots=True)
class StartingTile:
    id: int
    cards: tuple[str, str, str]  # starting-card codes
    bonus: Reward


@dataclass(frozen=True, slots=True)
class MajorityLine:
    minimum: int
    company: int
    steps: int
    reward: Reward


@dataclass(frozen=True, slots=True)
class BonusSpace:
    """A board bonus space (index < len(board spaces)) or a company-track bonus space."""

    index: int
    id: str
    kind: str  # first_player, buy_card, remove_card, majority, bonus_tile, track
    cost: int
    reward: Reward
    measure: int  # majority: index into MEASURES
    lines: tuple[MajorityLine, ...]
    tile: int  # bonus_tile: the tile's card index
    bonus_pounds: int  # remove_card: pounds on top of the crate value


@dataclass(frozen=True, slots=True)
class BonusTile:
    id: str
    kind: str
    value: int
    card: int  # its card index


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


def _reward(raw: dict[str, Any] | None, companies: dict[str, int]) -> Reward:
    if not raw:
        return Reward()
    track = raw.get("track", 0)
    if isinstance(track, dict):
        steps, company = int(track["steps"]), companies[track["company"]]
    else:
        steps, company = int(track), -1
    return Reward(
        pounds=int(raw.get("pounds", 0)),
        diamonds=int(raw.get("diamonds", 0)),
        bookkeeping=int(raw.get("bookkeeping", 0)),
        track_steps=steps,
        track_company=company,
        remove_posts=int(raw.get("remove_post", 0)),
    )


def _special(raw: dict[str, Any] | None) -> Reward:
    if not raw:
        return Reward()
    kind, amount = raw["kind"], int(raw["amount"])
    key = {"pounds": "pounds", "diamonds": "diamonds", "bookkeeping": "bookkeeping",
           "remove_post": "remove_posts"}[kind]
    return Reward(**{key: amount})


def _card(index: int, raw: dict[str, Any], name: str, letter: str, seat: int, code: str,
          companies: dict[str, int]) -> CardType:
    kind = raw["kind"]
    share = raw.get("share")
    company = raw.get("company")
    return CardType(
        index=index,
        name=name,
        letter=letter,
        kind=kind,
        good=GOODS.index(raw["good"]) if kind == KIND_GOODS else -1,
        value=int(raw.get("value", 0)),
        crate=int(raw.get("crate", 0)),
        share=companies[share] if share else -1,
        company=companies[company] if company else -1,
        seat=seat,
        code=code,
    )


def parse_catalogue(raw: dict[str, Any], path: str = "<memory>") -> Catalogue:
    """Validate a parsed catalogue file and build the indexed, frozen catalogue."""
    validate(raw)
    companies = tuple(
        Company(i, c["id"], c["name"], c["colour"], c["edge"])
        for i, c in enumerate(raw["companies"])
    )
    cidx = {c.id: c.index for c in companies}
    region_ids = {r["id"]: i for i, r in enumerate(raw["regions"])}
    regions = tuple(
        Region(
            index=i,
            id=r["id"],
            name=r["name"],
            reward=_reward(r.get("reward"), cidx),
            mines=int(r.get("mines", 0)),
            enclave_of=region_ids[r["enclave_of"]] if r.get("enclave_of") else -1,
            centre=(float(r["centre"][0]), float(r["centre"][1])),
            polygon=tuple((float(x), float(y)) for x, y in r["polygon"]),
        )
        for i, r in enumerate(raw["regions"])
    )
    adjacency: list[list[tuple[int, int]]] = [[] for _ in regions]
    for a, b, cost in raw["borders"]:
        ia, ib = region_ids[a], region_ids[b]
        adjacency[ia].append((ib, int(cost)))
        adjacency[ib].append((ia, int(cost)))
    base_neighbours = tuple(
        tuple((region_ids[r], int(cost)) for r, cost in raw["base_borders"][c.id])
        for c in companies
    )

    tracks = []
    for ti, t in enumerate(raw["tracks"]):
        spaces = tuple(
            TrackSpace(
                shares=int(s.get("shares", 0)),
                capital=int(s.get("capital", 0)),
                special=_special(s.get("special")),
                bonus=_reward(s["bonus"], cidx) if s.get("bonus") else None,
                extra_marker=bool(s.get("extra_marker", False)),
            )
            for s in t["spaces"]
        )
        held, shares_at = 0, []
        for s in spaces:
            held = max(held, s.shares)
            shares_at.append(held)
        tracks.append(Track(ti, t["id"], spaces, int(t.get("end_pounds", 0)), tuple(shares_at)))
    track_idx = {t.id: t.index for t in tracks}

    cards: list[CardType] = []
    for c in raw["cards"]["action"]:
        cards.append(_card(len(cards), c, c["name"], c["letter"], -1, c["name"], cidx))
    action_cards = tuple(range(len(cards)))
    seat_cards = []
    seat_raw = sorted(raw["cards"]["seat_expansion"], key=lambda c: c["seat"])
    for seat, seat_card in enumerate(seat_raw):
        mine = []
        for c in raw["cards"]["starting"]:
            name = f"{c['code']}/{seat + 1}"
            mine.append(len(cards))
            cards.append(_card(len(cards), c, name, "S", seat, c["code"], cidx))
        mine.append(len(cards))
        cards.append(_card(len(cards), seat_card, f"one/{seat + 1}", "S", seat, "one", cidx))
        seat_cards.append(tuple(mine))
    bonus_tiles = []
    tile_cards = []
    for t in raw["bonus_tiles"]:
        kind = t["kind"]
        card_kind = {"plus1_goods": KIND_PLUS1, "bookkeeper": KIND_BOOKKEEPER,
                     "merchant": KIND_MERCHANT, "expansion": KIND_EXPANSION}[kind]
        value = int(t.get("value", t.get("steps", 0)))
        index = len(cards)
        cards.append(CardType(index, f"T-{t['id']}", "T", card_kind, -1, value, 0, -1, -1, -1,
                              t["id"]))
        tile_cards.append(index)
        bonus_tiles.append(BonusTile(t["id"], kind, value, index))
    tile_by_id = {t.id: t.card for t in bonus_tiles}

    letters = "".join(sorted({c.letter for c in cards if c.index in action_cards}))

    disp = raw["display"]
    modifiers = tuple(int(m) for col in disp["modifiers"] for m in col)

    books = []
    counters: dict[str, int] = {}
    for i, b in enumerate(raw["books"]):
        letter = b["letter"]
        counters[letter] = counters.get(letter, 0) + 1
        needs = tuple((MEASURES.index(k), int(v)) for k, v in b["needs"])
        books.append(Book(i, f"{letter}{counters[letter]:02d}", letter, needs,
                          _reward(b.get("reward"), cidx)))
    bd = raw["book_display"]
    book_letters = tuple(bd["letters"][str(col)]
                         for col in bd["columns"] for _ in range(bd["rows"]))

    tiles = tuple(
        StartingTile(int(t["id"]), (t["cards"][0], t["cards"][1], t["cards"][2]),
                     _reward(t.get("bonus"), cidx))
        for t in raw["starting_tiles"]
    )
    tile_pos = {t.id: i for i, t in enumerate(tiles)}

    spaces_out: list[BonusSpace] = []
    for s in raw["bonus_spaces"]:
        kind = s["kind"]
        lines = tuple(
            MajorityLine(int(ln["min"]), cidx[ln["company"]], int(ln["steps"]),
                         _reward(ln.get("reward"), cidx))
            for ln in s.get("lines", [])
        )
        spaces_out.append(BonusSpace(
            index=len(spaces_out), id=s["id"], kind=kind, cost=int(s.get("cost", 0)),
            reward=_reward(s.get("reward"), cidx),
            measure=MEASURES.index(s["measure"]) if kind == "majority" else -1,
            lines=lines,
            tile=tile_by_id[s["tile"]] if kind == "bonus_tile" else -1,
            bonus_pounds=int(s.get("bonus_pounds", 0)),
        ))
    board_count = len(spaces_out)
    track_bonus_at = []
    for t in tracks:
        for pos, sp in enumerate(t.spaces):
            if sp.bonus is not None:
                track_bonus_at.append((t.index, pos, len(spaces_out)))
                spaces_out.append(BonusSpace(len(spaces_out), f"{t.id}@{pos}", "track", 0,
                                             sp.bonus, -1, (), -1, 0))

    dt, bt = raw["diamond_track"], raw["bookkeeping_track"]
    merch = raw["merchants"]
    player = raw["player"]
    return Catalogue(
        path=path,
        reconstruction=bool(raw.get("reconstruction", True)),
        companies=companies,
        base_columns=int(raw["base"]["columns"]),
        base_spaces=int(raw["base"]["spaces"]),
        base_coins=tuple(int(x) for x in raw["base"]["coins"]),
        regions=regions,
        neighbours=tuple(tuple(sorted(a)) for a in adjacency),
        base_neighbours=base_neighbours,
        tracks=tuple(tracks),
        track_cards=tuple((track_idx[a], track_idx[b]) for a, b in raw["track_cards"]),
        first_game_tracks=tuple(track_idx[raw["first_game_tracks"][c.id]] for c in companies),
        cards=tuple(cards),
        action_cards=action_cards,
        seat_cards=tuple(seat_cards),
        tile_cards=tuple(tile_cards),
        letters=letters,
        display_columns=tuple(disp["columns"]),
        display_rows=int(disp["rows"]),
        display_modifiers=modifiers,
        books=tuple(books),
        book_columns=tuple(int(c) for c in bd["columns"]),
        book_rows=int(bd["rows"]),
        book_space_letter=book_letters,
        book_costs={k: int(v) for k, v in bd["costs"].items()},
        round_coins={int(k): tuple(int(x) for x in v) for k, v in raw["round_coins"].items()},
        starting_tiles=tiles,
        first_game_tiles=tuple(tile_pos[int(t)] for t in raw["first_game_tiles"]),
        markers_per_colour=int(raw["bonus_markers"]["per_colour"]),
        markers_start={int(k): int(v) for k, v in raw["bonus_markers"]["start"].items()},
        bonus_spaces=tuple(spaces_out),
        board_bonus_count=board_count,
        track_bonus_at=tuple(track_bonus_at),
        bonus_tiles=tuple(bonus_tiles),
        diamond_values=tuple(int(v) for v in dt["values"]),
        diamond_slot=int(dt["slot_unlock"]),
        diamond_end_pounds=int(dt["end_pounds"]),
        bookkeeping_values=tuple(int(v) for v in bt["values"]),
        crossed_a=frozenset(int(i) for i in bt.get("crossed_a", [])),
        bookkeeping_slot=int(bt["slot_unlock"]),
        bookkeeping_end_pounds=int(bt["end_pounds"]),
        plain_merchant=(int(merch["plain"]["steps"]), int(merch["plain"]["pounds"])),
        company_merchant=(int(merch["company"]["steps"]), int(merch["company"]["pounds"]),
                          int(merch["company"]["mines_per_step"])),
        start_pounds=int(player["start_pounds"]),
        base_slots=int(player["slots"]),
        max_slots=int(player["max_slots"]),
    )


def load_catalogue(path: str | os.PathLike[str] | None = None) -> Catalogue:
    """Load and validate a catalogue file (default: ``MOMBASA_CATALOGUE`` or the shipped one)."""
    if path is None:
        return default_catalogue()
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"{p}: not valid JSON: {exc}") from exc
    return _load_cached(str(p.resolve()), p.stat().st_mtime_ns, raw)


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


@cache
def default_catalogue() -> Catalogue:
    """The catalogue named by ``MOMBASA_CATALOGUE``, else the shipped reconstruction."""
    env = os.environ.get("MOMBASA_CATALOGUE")
    p = Path(env) if env else DEFAULT_PATH
    raw = json.loads(p.read_text(encoding="utf-8"))
    return parse_catalogue(raw, str(p))


__all__ = [
    "Book", "BonusSpace", "BonusTile", "CardType", "Catalogue", "CatalogueError", "Company",
    "MajorityLine", "Region", "Reward", "StartingTile", "Track", "TrackSpace",
    "default_catalogue", "load_catalogue", "parse_catalogue",
]
