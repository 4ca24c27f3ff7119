"""The tiles and bonus spaces of the catalogue, checked and built in one walk: the
starting tiles (and the first-game choice of them), the bonus markers, the bonus tiles
(which act as cards, indexed after the starting cards) and the bonus spaces, numbered
board spaces first, then one per track bonus space (from the tracks read before)."""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.catalogue.checks import (
    COMPANY_IDS,
    COMPANY_INDEX,
    MAX_NEEDS,
    MAX_UNIT_VALUE,
    PLAYER_COUNTS,
    SEATS,
    as_dict,
    as_int,
    choice,
    choice_field,
    dict_field,
    exact_field,
    fail,
    field,
    int_field,
    join,
    list_field,
    needs,
    reward_field,
    str_field,
    unique,
)
from engine.catalogue.model import (
    KIND_BOOKKEEPER,
    KIND_EXPANSION,
    KIND_MERCHANT,
    KIND_PLUS1,
    MEASURES,
    BonusSpace,
    BonusTile,
    CardType,
    MajorityLine,
    Reward,
    StartingTile,
    Track,
)

STARTING_TILES = 10
TILE_CARDS = 3
TILE_BONUS_KEYS: tuple[str, ...] = ("track", "diamonds")
BONUS_MARKERS_PER_COLOUR = 5
MAJORITY_MEASURES: tuple[str, ...] = ("coffee", "cotton", "bananas", "expansion")
SINGLE_BONUS_SPACES: tuple[str, ...] = ("first_player", "buy_card", "remove_card")
SPACE_KINDS: tuple[str, ...] = (*SINGLE_BONUS_SPACES, "majority", "bonus_tile")
# Bonus tile kind -> the card kind the tile plays as.
BONUS_TILE_KINDS: dict[str, str] = {
    "plus1_goods": KIND_PLUS1, "bookkeeper": KIND_BOOKKEEPER,
    "merchant": KIND_MERCHANT, "expansion": KIND_EXPANSION,
}


class StartingTiles(NamedTuple):
    tiles: tuple[StartingTile, ...]
    first_game: tuple[int, ...]  # seat -> index into tiles


class BonusMarkers(NamedTuple):
    per_colour: int
    start: dict[int, int]  # player count -> markers each player starts with


class BonusTiles(NamedTuple):
    tiles: tuple[BonusTile, ...]
    cards: tuple[CardType, ...]  # the tiles as cards, indexed from the first free card


class BonusSpaces(NamedTuple):
    spaces: tuple[BonusSpace, ...]  # board spaces, then track bonus spaces
    board_count: int
    track_bonus_at: tuple[tuple[int, int, int], ...]  # (track, position, bonus index)


def read_starting_tiles(root: dict[str, Any], codes: frozenset[str]) -> StartingTiles:
    entries = list_field(root, "starting_tiles", "", STARTING_TILES, "tiles")
    known = sorted(codes)
    tiles: list[StartingTile] = []
    ids: list[int] = []
    for i, entry in enumerate(entries):
        path = join("starting_tiles", i)
        obj = as_dict(entry, path)
        ids.append(int_field(obj, "id", path, lo=1))
        cards = list_field(obj, "cards", path, TILE_CARDS, "card codes")
        cards_path = join(path, "cards")
        for k, code in enumerate(cards):
            choice(code, cards_path, known, "starting card code", k)
        unique(cards, cards_path, "card code")
        # The tile's printed book is checked but not used by the rules.
        book = dict_field(obj, "book", path)
        book_path = join(path, "book")
        needs(field(book, "needs", book_path), join(book_path, "needs"), 0, MAX_NEEDS)
        reward_field(book, "reward", book_path)
        bonus = reward_field(obj, "bonus", path, TILE_BONUS_KEYS, non_empty=True)
        tiles.append(StartingTile(ids[-1], (cards[0], cards[1], cards[2]), bonus))
    unique(ids, "starting_tiles", "tile id")
    first = list_field(root, "first_game_tiles", "", SEATS, "tile ids")
    for i, tile in enumerate(first):
        if as_int(tile, "first_game_tiles", key=i) not in ids:
            fail(join("first_game_tiles", i), f"unknown starting tile {tile!r}")
    unique(first, "first_game_tiles", "tile id")
    return StartingTiles(tuple(tiles), tuple(ids.index(tile) for tile in first))


def read_bonus_markers(root: dict[str, Any]) -> BonusMarkers:
    markers = dict_field(root, "bonus_markers", "")
    per_colour = exact_field(markers, "per_colour", "bonus_markers", BONUS_MARKERS_PER_COLOUR)
    start = dict_field(markers, "start", "bonus_markers")
    if sorted(start) != list(PLAYER_COUNTS):
        fail("bonus_markers.start", f"expected keys {', '.join(PLAYER_COUNTS)}")
    for players in PLAYER_COUNTS:
        as_int(
            start[players], "bonus_markers.start", lo=1, hi=BONUS_MARKERS_PER_COLOUR, key=players
        )
    # In the file's key order (the keys are checked as a set).
    return BonusMarkers(int(per_colour), {int(k): int(v) for k, v in start.items()})


def read_bonus_tiles(root: dict[str, Any], first_card: int) -> BonusTiles:
    """The bonus tiles; their cards take the indices from ``first_card`` on."""
    entries = list_field(root, "bonus_tiles", "", len(BONUS_TILE_KINDS), "tiles")
    tiles: list[BonusTile] = []
    cards: list[CardType] = []
    for i, entry in enumerate(entries):
        path = join("bonus_tiles", i)
        obj = as_dict(entry, path)
        tid = str_field(obj, "id", path)
        kind = choice_field(obj, "kind", path, BONUS_TILE_KINDS, "bonus tile kind")
        if kind == "bookkeeper":
            value = int_field(obj, "value", path, lo=1)
        elif kind == "expansion":
            value = int_field(obj, "value", path, lo=1, hi=MAX_UNIT_VALUE)
        else:
            if kind == "merchant":
                int_field(obj, "steps", path, lo=1)
            # A merchant's steps, or an optional "value" that wins over them.
            if obj.get("value") is not None:
                value = int_field(obj, "value", path, lo=0)
            else:
                value = int(obj.get("steps", 0))
        index = first_card + i
        cards.append(CardType(index, f"T-{tid}", "T", BONUS_TILE_KINDS[kind], -1, value, 0,
                              -1, -1, -1, tid))
        tiles.append(BonusTile(tid, kind, value, index))
    unique([t.id for t in tiles], "bonus_tiles", "tile id")
    unique([t.kind for t in tiles], "bonus_tiles", "tile kind")
    return BonusTiles(tuple(tiles), tuple(cards))


def read_bonus_spaces(
    root: dict[str, Any], bonus_tiles: tuple[BonusTile, ...], tracks: tuple[Track, ...]
) -> BonusSpaces:
    entries = list_field(root, "bonus_spaces", "")
    tile_card = {t.id: t.card for t in bonus_tiles}
    spaces: list[BonusSpace] = []
    measures: list[str] = []
    tiles: list[str] = []
    for i, entry in enumerate(entries):
        path = join("bonus_spaces", i)
        obj = as_dict(entry, path)
        sid = str_field(obj, "id", path)
        kind = choice_field(obj, "kind", path, SPACE_KINDS, "bonus space kind")
        # A space's fields other than its kind's are optional, but read when present (the
        # web page shows every space's cost), so they are checked when present too.
        paid: Reward | None = None
        cost: int | None = None
        bonus_pounds: int | None = None
        lines: tuple[MajorityLine, ...] | None = None
        measure = tile = -1
        if kind == "first_player":
            paid = reward_field(obj, "reward", path)
        elif kind == "buy_card":
            cost = int_field(obj, "cost", path, lo=0)
        elif kind == "remove_card":
            bonus_pounds = int_field(obj, "bonus_pounds", path, lo=0)
        elif kind == "majority":
            measure_name, lines = _read_majority(obj, path)
            measures.append(measure_name)
            measure = MEASURES.index(measure_name)
        else:
            tile_id = choice_field(obj, "tile", path, sorted(tile_card), "bonus tile")
            tiles.append(tile_id)
            tile = tile_card[tile_id]
            cost = int_field(obj, "cost", path, lo=0)
        spaces.append(BonusSpace(
            index=i,
            id=sid,
            kind=kind,
            cost=_optional_int(obj, "cost", path) if cost is None else cost,
            reward=(reward_field(obj, "reward", path, integer_track=True)
                    if obj.get("reward") else Reward())
            if paid is None else paid,
            measure=measure,
            lines=(_read_lines(obj, path, optional_rewards=True) if obj.get("lines") else ())
            if lines is None else lines,
            tile=tile,
            bonus_pounds=_optional_int(obj, "bonus_pounds", path)
            if bonus_pounds is None else bonus_pounds,
        ))
    unique([s.id for s in spaces], "bonus_spaces", "space id")
    kinds = [s.kind for s in spaces]
    for kind in SINGLE_BONUS_SPACES:
        if kinds.count(kind) != 1:
            fail("bonus_spaces", f"expected exactly 1 {kind} space, got {kinds.count(kind)}")
    if sorted(measures) != sorted(MAJORITY_MEASURES):
        fail(
            "bonus_spaces",
            f"expected one majority space per measure "
            f"({', '.join(MAJORITY_MEASURES)}), got {measures}",
        )
    if sorted(tiles) != sorted(tile_card):
        fail("bonus_spaces", f"expected one bonus_tile space per bonus tile, got {tiles}")
    board_count = len(spaces)
    track_bonus_at: list[tuple[int, int, int]] = []
    for track in tracks:
        for pos, space in enumerate(track.spaces):
            if space.bonus is not None:
                track_bonus_at.append((track.index, pos, len(spaces)))
                spaces.append(BonusSpace(len(spaces), f"{track.id}@{pos}", "track", 0,
                                         space.bonus, -1, (), -1, 0))
    return BonusSpaces(tuple(spaces), board_count, tuple(track_bonus_at))


def _read_majority(obj: dict[str, Any], path: str) -> tuple[str, tuple[MajorityLine, ...]]:
    """A majority space's measure and its lines (minimums increasing)."""
    measure = choice_field(obj, "measure", path, MAJORITY_MEASURES, "measure")
    entries = list_field(obj, "lines", path)
    if not entries:
        fail(join(path, "lines"), "expected at least 1 line")
    return measure, _read_lines(obj, path)


def _read_lines(obj: dict[str, Any], path: str, optional_rewards: bool = False
                ) -> tuple[MajorityLine, ...]:
    """The majority lines of ``obj`` (minimums increasing). On a space of another kind
    (``optional_rewards``) a line may leave its reward out."""
    lines: list[MajorityLine] = []
    previous = 0
    for i, entry in enumerate(list_field(obj, "lines", path)):
        sub = join(join(path, "lines"), i)
        line = as_dict(entry, sub)
        minimum = int_field(line, "min", sub, lo=1)
        if minimum <= previous:
            fail(join(sub, "min"), f"line minimums must increase ({minimum} <= {previous})")
        previous = minimum
        company = choice_field(line, "company", sub, COMPANY_IDS, "company")
        steps = int_field(line, "steps", sub, lo=0)
        if optional_rewards and line.get("reward") is None:
            paid = Reward()
        else:
            paid = reward_field(line, "reward", sub)
        lines.append(MajorityLine(minimum, COMPANY_INDEX[company], steps, paid))
    return tuple(lines)


def _optional_int(obj: dict[str, Any], key: str, path: str) -> int:
    """A count >= 0 that a space of another kind may carry; 0 when absent."""
    return int_field(obj, key, path, lo=0) if obj.get(key) is not None else 0
