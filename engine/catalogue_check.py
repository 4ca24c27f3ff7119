"""Validation of a raw (parsed JSON) component catalogue, schema ``mombasa-catalogue/1``.

``validate(raw)`` checks plain dicts and lists against every count and structural rule
of the catalogue (see ``docs/catalogue.md``) and raises ``CatalogueError`` on the first
fault. The message always starts with the JSON path of the fault, for example
``regions[3].reward.pounds: must be >= 0, got -1``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, NoReturn

__all__ = ["CatalogueError", "validate", "SCHEMA"]

SCHEMA = "mombasa-catalogue/1"

COMPANIES: tuple[tuple[str, str, str], ...] = (
    ("MOM", "black", "east"),
    ("CAP", "red", "south"),
    ("STL", "white", "west"),
    ("CAI", "orange", "north"),
)
COMPANY_IDS: tuple[str, ...] = tuple(c[0] for c in COMPANIES)
TRACK_IDS: tuple[str, ...] = ("A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2")
EXTRA_MARKER_TRACK = "B2"
GOODS: tuple[str, ...] = ("coffee", "bananas", "cotton")
NEED_KINDS: tuple[str, ...] = (*GOODS, "expansion", "bookkeeping")
MAJORITY_MEASURES: tuple[str, ...] = ("coffee", "cotton", "bananas", "expansion")
SPECIAL_KINDS: tuple[str, ...] = ("pounds", "diamonds", "bookkeeping", "remove_post")
REWARD_KEYS: tuple[str, ...] = ("pounds", "diamonds", "bookkeeping", "track", "remove_post")
REGION_REWARD_KEYS: tuple[str, ...] = ("pounds", "diamonds", "track", "bookkeeping")
CARD_KINDS: tuple[str, ...] = ("goods", "expansion", "bookkeeper", "merchant", "share")
STARTING_KINDS: tuple[str, ...] = ("goods", "expansion", "bookkeeper")
ACTION_LETTERS: dict[str, int] = {"A": 9, "B": 16, "C": 11, "D": 4, "E": 4}
SHARE_LETTERS: frozenset[str] = frozenset({"D", "E"})
MERCHANT_COUNT = 5
MAX_UNIT_VALUE = 4
# Rulebook: an expansion card shows "a number of expansion points (1, 2 or 3)".
EXPANSION_CARD_VALUES: tuple[int, ...] = (1, 2, 3)

REGION_COUNT = 24
ENCLAVE_COUNT = 2
BASE_COLUMNS = 3
BASE_SPACES = 5
REAR_COINS = 2
STARTING_CARDS = 9
SEATS = 4
DISPLAY_COLUMNS = 3
DISPLAY_ROWS = 4
BOOK_LETTERS: dict[str, int] = {"A": 24, "B": 24, "C": 24}
BOOK_DISPLAY_COLUMNS: list[int] = [2, 3, 4, 5, 6, 7]
BOOK_DISPLAY_ROWS = 2
BOOK_SPACES_PER_LETTER = 4
BOOK_COSTS: dict[str, int] = {"A": 1, "B": 1, "C": 2}
MAX_NEEDS = 2
ROUND_COINS: dict[str, list[int]] = {
    "2": [1, 1, 1, 1, 1, 1],
    "3": [2, 1, 2, 1, 2, 1],
    "4": [2, 2, 2, 2, 2, 2],
}
STARTING_TILES = 10
TILE_CARDS = 3
TILE_BONUS_KEYS: tuple[str, ...] = ("track", "diamonds")
BONUS_MARKERS_PER_COLOUR = 5
PLAYER_COUNTS: tuple[str, ...] = ("2", "3", "4")
SINGLE_BONUS_SPACES: tuple[str, ...] = ("first_player", "buy_card", "remove_card")
BONUS_TILE_KINDS: tuple[str, ...] = ("plus1_goods", "bookkeeper", "merchant", "expansion")
PLAYER_SLOTS = 3
PLAYER_MAX_SLOTS = 5


class CatalogueError(ValueError):
    """A catalogue breaks a count or structural rule; the message starts with its path."""


# --------------------------------------------------------------------------- helpers


def _fail(path: str, message: str) -> NoReturn:
    raise CatalogueError(f"{path or '$'}: {message}")


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _dict(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        _fail(path, f"expected an object, got {type(value).__name__}")
    return value


def _list(value: Any, path: str, length: int | None = None, what: str = "entries") -> list[Any]:
    if not isinstance(value, list):
        _fail(path, f"expected a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        _fail(path, f"expected {length} {what}, got {len(value)}")
    return value


def _field(obj: dict[str, Any], key: str, path: str) -> Any:
    if key not in obj:
        _fail(_join(path, key), "missing")
    return obj[key]


def _int(value: Any, path: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, f"expected an integer, got {value!r}")
    if lo is not None and value < lo:
        _fail(path, f"must be >= {lo}, got {value}")
    if hi is not None and value > hi:
        _fail(path, f"must be <= {hi}, got {value}")
    return value


def _num(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        _fail(path, f"expected a number, got {value!r}")
    return float(value)


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value:
        _fail(path, f"expected a non-empty string, got {value!r}")
    return value


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        _fail(path, f"expected true or false, got {value!r}")
    return value


def _choice(value: Any, path: str, allowed: Iterable[str], what: str = "value") -> str:
    options = tuple(allowed)
    if value not in options:
        _fail(path, f"unknown {what} {value!r} (expected one of {', '.join(options)})")
    return str(value)


def _int_field(
    obj: dict[str, Any], key: str, path: str, lo: int | None = None, hi: int | None = None
) -> int:
    return _int(_field(obj, key, path), _join(path, key), lo, hi)


def _exact(value: Any, expected: Any, path: str) -> None:
    if value != expected:
        _fail(path, f"must be {expected!r}, got {value!r}")


def _point(value: Any, path: str) -> tuple[float, float]:
    pair = _list(value, path, 2, "coordinates")
    return _num(pair[0], _join(path, 0)), _num(pair[1], _join(path, 1))


def _inside(point: tuple[float, float], polygon: list[tuple[float, float]]) -> bool:
    """Ray-casting point-in-polygon test (points on the outline count as outside-ish)."""
    x, y = point
    result = False
    count = len(polygon)
    for i in range(count):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % count]
        if (y1 > y) != (y2 > y):
            x_cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < x_cross:
                result = not result
    return result


def _reach(start: Iterable[str], adjacency: dict[str, set[str]]) -> set[str]:
    seen = set(start)
    queue = deque(seen)
    while queue:
        node = queue.popleft()
        for other in adjacency[node]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return seen


def _company_steps(value: Any, path: str) -> None:
    obj = _dict(value, path)
    _choice(_field(obj, "company", path), _join(path, "company"), COMPANY_IDS, "company")
    _int_field(obj, "steps", path, lo=1)
    extra = set(obj) - {"company", "steps"}
    if extra:
        _fail(path, f"unknown key {sorted(extra)[0]!r}")


def _reward(
    value: Any,
    path: str,
    keys: tuple[str, ...] = REWARD_KEYS,
    *,
    integer_track: bool = False,
    non_empty: bool = False,
) -> dict[str, Any]:
    """A reward object: known keys, amounts >= 0, track as int or company steps."""
    obj = _dict(value, path)
    for key, amount in obj.items():
        sub = _join(path, key)
        if key not in keys:
            _fail(sub, f"unknown reward key (expected one of {', '.join(keys)})")
        if key == "track" and not integer_track:
            _company_steps(amount, sub)
        else:
            _int(amount, sub, lo=0)
    if non_empty and not _reward_total(obj):
        _fail(path, "reward must not be empty")
    return obj


def _reward_total(obj: dict[str, Any]) -> int:
    """Sum of all amounts of a checked reward object (track steps included)."""
    return sum(
        int(amount["steps"]) if isinstance(amount, dict) else int(amount) for amount in obj.values()
    )


def _needs(value: Any, path: str, lo: int, hi: int) -> None:
    needs = _list(value, path)
    if not lo <= len(needs) <= hi:
        _fail(path, f"expected {lo} to {hi} needs, got {len(needs)}")
    kinds: set[str] = set()
    for i, need in enumerate(needs):
        sub = _join(path, i)
        pair = _list(need, sub, 2, "items ([kind, amount])")
        kind = _choice(pair[0], _join(sub, 0), NEED_KINDS, "need kind")
        if kind in kinds:
            _fail(_join(sub, 0), f"need kind {kind!r} listed twice")
        kinds.add(kind)
        _int(pair[1], _join(sub, 1), lo=1)


def _unique(values: list[Any], path: str, what: str) -> None:
    seen: set[Any] = set()
    for i, value in enumerate(values):
        if value in seen:
            _fail(_join(path, i), f"duplicate {what} {value!r}")
        seen.add(value)


def _values_track(obj: dict[str, Any], path: str) -> int:
    values_path = _join(path, "values")
    values = _list(_field(obj, "values", path), values_path)
    if len(values) < 2:
        _fail(values_path, "expected at least 2 values")
    previous = 0
    for i, value in enumerate(values):
        number = _int(value, _join(values_path, i), lo=0)
        if i == 0 and number != 0:
            _fail(_join(values_path, 0), f"the first value must be 0, got {number}")
        if number < previous:
            _fail(_join(values_path, i), f"values must not decrease ({number} < {previous})")
        previous = number
    _int_field(obj, "slot_unlock", path, lo=1, hi=len(values) - 1)
    _int_field(obj, "end_pounds", path, lo=0)
    return len(values)


# --------------------------------------------------------------------------- sections


def _check_header(root: dict[str, Any]) -> None:
    _exact(_field(root, "schema", ""), SCHEMA, "schema")
    _bool(_field(root, "reconstruction", ""), "reconstruction")
    if "note" in root and not isinstance(root["note"], str):
        _fail("note", "expected a string")


def _check_companies(root: dict[str, Any]) -> None:
    companies = _list(_field(root, "companies", ""), "companies", len(COMPANIES), "companies")
    for i, (entry, (cid, colour, edge)) in enumerate(zip(companies, COMPANIES, strict=True)):
        path = _join("companies", i)
        obj = _dict(entry, path)
        _exact(_field(obj, "id", path), cid, _join(path, "id"))
        _str(_field(obj, "name", path), _join(path, "name"))
        _exact(_field(obj, "colour", path), colour, _join(path, "colour"))
        _exact(_field(obj, "edge", path), edge, _join(path, "edge"))


def _check_base(root: dict[str, Any]) -> None:
    base = _dict(_field(root, "base", ""), "base")
    _exact(_field(base, "columns", "base"), BASE_COLUMNS, "base.columns")
    _exact(_field(base, "spaces", "base"), BASE_SPACES, "base.spaces")
    coins = _list(_field(base, "coins", "base"), "base.coins", BASE_SPACES, "coin counts")
    for i, coin in enumerate(coins):
        _int(coin, _join("base.coins", i), lo=0)
    if coins[-1] != REAR_COINS:
        _fail(
            _join("base.coins", BASE_SPACES - 1),
            f"the rear space must show {REAR_COINS} coin icons, got {coins[-1]}",
        )


def _check_region(obj: dict[str, Any], path: str) -> list[tuple[float, float]]:
    rid = _str(_field(obj, "id", path), _join(path, "id"))
    if rid in COMPANY_IDS:
        _fail(_join(path, "id"), f"region id {rid!r} clashes with a company id")
    _str(_field(obj, "name", path), _join(path, "name"))
    _reward(
        _field(obj, "reward", path), _join(path, "reward"), REGION_REWARD_KEYS, integer_track=True
    )
    _int_field(obj, "mines", path, lo=0)
    enclave_of = _field(obj, "enclave_of", path)
    if enclave_of is not None:
        _str(enclave_of, _join(path, "enclave_of"))
    _point(_field(obj, "centre", path), _join(path, "centre"))
    poly_path = _join(path, "polygon")
    polygon = _list(_field(obj, "polygon", path), poly_path)
    if len(polygon) < 3:
        _fail(poly_path, f"expected at least 3 points, got {len(polygon)}")
    return [_point(p, _join(poly_path, i)) for i, p in enumerate(polygon)]


def _check_regions(root: dict[str, Any]) -> tuple[dict[str, int], dict[str, str]]:
    """Returns region index by id and surrounding region by enclave id."""
    regions = _list(_field(root, "regions", ""), "regions", REGION_COUNT, "regions")
    index: dict[str, int] = {}
    polygons: list[list[tuple[float, float]]] = []
    for i, entry in enumerate(regions):
        path = _join("regions", i)
        polygons.append(_check_region(_dict(entry, path), path))
        rid = entry["id"]
        if rid in index:
            _fail(_join(path, "id"), f"duplicate region id {rid!r}")
        index[rid] = i
    enclaves: dict[str, str] = {}
    for i, entry in enumerate(regions):
        surrounding = entry["enclave_of"]
        if surrounding is None:
            continue
        path = _join(_join("regions", i), "enclave_of")
        if surrounding not in index:
            _fail(path, f"unknown region {surrounding!r}")
        if surrounding == entry["id"]:
            _fail(path, "a region cannot be its own enclave")
        if regions[index[surrounding]]["enclave_of"] is not None:
            _fail(path, f"surrounding region {surrounding!r} is itself an enclave")
        if surrounding in enclaves.values():
            _fail(path, f"region {surrounding!r} already surrounds another enclave")
        enclaves[entry["id"]] = surrounding
    if len(enclaves) != ENCLAVE_COUNT:
        _fail("regions", f"expected {ENCLAVE_COUNT} enclaves, got {len(enclaves)}")
    _check_enclave_shapes(enclaves, index, polygons)
    _check_region_rewards(regions, set(enclaves.values()))
    return index, enclaves


def _check_enclave_shapes(
    enclaves: dict[str, str],
    index: dict[str, int],
    polygons: list[list[tuple[float, float]]],
) -> None:
    for enclave, surrounding in enclaves.items():
        outline = polygons[index[surrounding]]
        for j, vertex in enumerate(polygons[index[enclave]]):
            if not _inside(vertex, outline):
                path = _join(_join(_join("regions", index[enclave]), "polygon"), j)
                _fail(path, f"enclave vertex lies outside its surrounding region {surrounding!r}")


def _check_region_rewards(regions: list[Any], surrounding: set[str]) -> None:
    for i, entry in enumerate(regions):
        path = _join(_join("regions", i), "reward")
        empty = not _reward_total(entry["reward"])
        if entry["id"] in surrounding and not empty:
            _fail(path, "a region surrounding an enclave must have no reward")
        if entry["id"] not in surrounding and empty:
            _fail(path, "only the 2 regions surrounding an enclave may have no reward")


def _check_borders(
    root: dict[str, Any], index: dict[str, int], enclaves: dict[str, str]
) -> dict[str, set[str]]:
    borders = _list(_field(root, "borders", ""), "borders")
    adjacency: dict[str, set[str]] = {rid: set() for rid in index}
    seen: dict[frozenset[str], int] = {}
    for i, entry in enumerate(borders):
        path = _join("borders", i)
        triple = _list(entry, path, 3, "items ([region, region, cost])")
        for k in (0, 1):
            if triple[k] not in index:
                _fail(path, f"unknown region {triple[k]!r}")
        a, b = triple[0], triple[1]
        if a == b:
            _fail(path, f"region {a!r} cannot border itself")
        _int(triple[2], _join(path, 2), lo=1, hi=2)
        pair = frozenset((a, b))
        if pair in seen:
            _fail(path, f"duplicate border {a}-{b} (already borders[{seen[pair]}])")
        seen[pair] = i
        for x, y in ((a, b), (b, a)):
            if x in enclaves and enclaves[x] != y:
                _fail(
                    path,
                    f"enclave {x!r} may border only its surrounding region "
                    f"{enclaves[x]!r}, not {y!r}",
                )
        adjacency[a].add(b)
        adjacency[b].add(a)
    for enclave, surrounding in enclaves.items():
        if surrounding not in adjacency[enclave]:
            _fail(
                _join("regions", index[enclave]),
                f"enclave {enclave!r} has no border with its surrounding region {surrounding!r}",
            )
    reached = _reach([next(iter(index))], adjacency)
    for rid, i in index.items():
        if rid not in reached:
            _fail(_join("regions", i), f"region {rid!r} is not connected to the rest of the map")
    return adjacency


def _check_base_borders(
    root: dict[str, Any],
    index: dict[str, int],
    enclaves: dict[str, str],
    adjacency: dict[str, set[str]],
) -> None:
    bases = _dict(_field(root, "base_borders", ""), "base_borders")
    for key in bases:
        if key not in COMPANY_IDS:
            _fail(_join("base_borders", key), "unknown company")
    for company in COMPANY_IDS:
        path = _join("base_borders", company)
        entries = _list(_field(bases, company, "base_borders"), path)
        if not entries:
            _fail(path, "a base must border at least one region")
        touched: list[str] = []
        for i, entry in enumerate(entries):
            sub = _join(path, i)
            pair = _list(entry, sub, 2, "items ([region, cost])")
            region = pair[0]
            if region not in index:
                _fail(sub, f"unknown region {region!r}")
            if region in enclaves:
                _fail(sub, f"a base cannot border the enclave {region!r}")
            _int(pair[1], _join(sub, 1), lo=1, hi=2)
            touched.append(region)
        _unique(touched, path, "region")
        reached = _reach(touched, adjacency)
        missing = [rid for rid in index if rid not in reached]
        if missing:
            _fail(path, f"region {missing[0]!r} cannot be reached from this base")


def _check_track_space(space: Any, path: str, start: bool) -> dict[str, Any]:
    obj = _dict(space, path)
    shares = _int_field(obj, "shares", path, lo=0)
    capital = _int_field(obj, "capital", path, lo=0)
    special = _field(obj, "special", path)
    if special is not None:
        sp = _dict(special, _join(path, "special"))
        _choice(
            _field(sp, "kind", _join(path, "special")),
            _join(_join(path, "special"), "kind"),
            SPECIAL_KINDS,
            "special kind",
        )
        _int_field(sp, "amount", _join(path, "special"), lo=1)
    bonus = _field(obj, "bonus", path)
    if bonus is not None:
        _reward(bonus, _join(path, "bonus"), non_empty=True)
    extra = _bool(_field(obj, "extra_marker", path), _join(path, "extra_marker"))
    if start and (shares or capital or special is not None or bonus is not None or extra):
        _fail(path, "the start space must be empty")
    return obj


def _check_track(entry: Any, path: str) -> int:
    """Checks one track; returns the number of extra-marker spaces on it."""
    obj = _dict(entry, path)
    spaces = _list(_field(obj, "spaces", path), _join(path, "spaces"))
    if len(spaces) < 2:
        _fail(_join(path, "spaces"), "expected a start space and at least 1 more")
    highest = 0
    extras = 0
    for i, space in enumerate(spaces):
        sub = _join(_join(path, "spaces"), i)
        sp = _check_track_space(space, sub, i == 0)
        shares = sp["shares"]
        if shares and shares < highest:
            _fail(
                _join(sub, "shares"),
                f"share icons must not decrease along the track ({shares} after {highest})",
            )
        highest = max(highest, shares)
        if sp["extra_marker"]:
            if obj["id"] != EXTRA_MARKER_TRACK:
                _fail(
                    _join(sub, "extra_marker"),
                    f"only track {EXTRA_MARKER_TRACK} may grant an extra bonus marker",
                )
            extras += 1
    _int_field(obj, "end_pounds", path, lo=0)
    return extras


def _check_tracks(root: dict[str, Any]) -> None:
    tracks = _list(_field(root, "tracks", ""), "tracks", len(TRACK_IDS), "tracks")
    extras = 0
    for i, (entry, tid) in enumerate(zip(tracks, TRACK_IDS, strict=True)):
        path = _join("tracks", i)
        _exact(_field(_dict(entry, path), "id", path), tid, _join(path, "id"))
        extras += _check_track(entry, path)
    if extras != 1:
        _fail(
            "tracks", f"expected exactly 1 extra_marker space on {EXTRA_MARKER_TRACK}, got {extras}"
        )
    cards = _list(_field(root, "track_cards", ""), "track_cards", len(TRACK_IDS) // 2, "cards")
    covered: set[str] = set()
    for i, card in enumerate(cards):
        pair = _list(card, _join("track_cards", i), 2, "track ids")
        for k, tid in enumerate(pair):
            sub = _join(_join("track_cards", i), k)
            if _choice(tid, sub, TRACK_IDS, "track") in covered:
                _fail(sub, f"track {tid!r} is on more than one track card")
            covered.add(tid)
    first = _dict(_field(root, "first_game_tracks", ""), "first_game_tracks")
    if sorted(first) != sorted(COMPANY_IDS):
        _fail("first_game_tracks", f"expected keys {', '.join(COMPANY_IDS)}")
    pieces: set[str] = set()
    for company in COMPANY_IDS:
        tid = _choice(first[company], _join("first_game_tracks", company), TRACK_IDS, "track")
        if tid[0] in pieces:
            _fail(_join("first_game_tracks", company), f"track piece {tid[0]} used twice")
        pieces.add(tid[0])


def _card_label(obj: dict[str, Any]) -> str:
    """`` (card C4)``, `` (card exp2)``, `` (seat 3's card)``: which card a message is about."""
    for key in ("name", "code"):
        if isinstance(obj.get(key), str):
            return f" (card {obj[key]})"
    if isinstance(obj.get("seat"), int):
        return f" (seat {obj['seat']}'s card)"
    return ""


def _check_card(entry: Any, path: str, kinds: tuple[str, ...]) -> dict[str, Any]:
    obj = _dict(entry, path)
    kind = _choice(_field(obj, "kind", path), _join(path, "kind"), kinds, "card kind")
    _int_field(obj, "crate", path, lo=0)
    share = _field(obj, "share", path)
    if share is not None:
        _choice(share, _join(path, "share"), COMPANY_IDS, "company")
    if kind == "goods":
        _choice(_field(obj, "good", path), _join(path, "good"), GOODS, "good")
        _int_field(obj, "value", path, lo=1, hi=MAX_UNIT_VALUE)
    elif kind == "expansion":
        value = _int_field(obj, "value", path)
        if value not in EXPANSION_CARD_VALUES:
            _fail(
                _join(path, "value"),
                f"an expansion card shows 1, 2 or 3 points, got {value}{_card_label(obj)}",
            )
    elif kind == "bookkeeper":
        _int_field(obj, "value", path, lo=1)
    elif kind == "merchant":
        company = _field(obj, "company", path)
        if company is not None:
            _choice(company, _join(path, "company"), COMPANY_IDS, "company")
    else:
        company = _choice(
            _field(obj, "company", path), _join(path, "company"), COMPANY_IDS, "company"
        )
        if share != company:
            _fail(_join(path, "share"), f"a single-share card must show {company!r}, got {share!r}")
    return obj


def _check_starting_cards(cards: dict[str, Any]) -> set[str]:
    path = "cards.starting"
    starting = _list(_field(cards, "starting", "cards"), path, STARTING_CARDS, "cards")
    codes: list[str] = []
    for i, entry in enumerate(starting):
        obj = _check_card(entry, _join(path, i), STARTING_KINDS)
        codes.append(_str(_field(obj, "code", _join(path, i)), _join(_join(path, i), "code")))
    _unique(codes, path, "code")
    seats_path = "cards.seat_expansion"
    seats = _list(_field(cards, "seat_expansion", "cards"), seats_path, SEATS, "cards")
    previous = -1
    for i, entry in enumerate(seats):
        sub = _join(seats_path, i)
        obj = _check_card(entry, sub, ("expansion",))
        _exact(_field(obj, "seat", sub), i + 1, _join(sub, "seat"))
        _exact(obj["value"], 1, _join(sub, "value"))
        if obj["crate"] <= previous:
            _fail(
                _join(sub, "crate"),
                f"later seats need a higher crate value ({obj['crate']} <= {previous})",
            )
        previous = obj["crate"]
    return set(codes)


def _check_action_cards(cards: dict[str, Any]) -> None:
    path = "cards.action"
    action = _list(_field(cards, "action", "cards"), path, sum(ACTION_LETTERS.values()), "cards")
    names: list[str] = []
    per_letter = dict.fromkeys(ACTION_LETTERS, 0)
    merchants: list[str | None] = []
    for i, entry in enumerate(action):
        sub = _join(path, i)
        obj = _check_card(entry, sub, CARD_KINDS)
        letter = _choice(_field(obj, "letter", sub), _join(sub, "letter"), ACTION_LETTERS, "letter")
        name = _str(_field(obj, "name", sub), _join(sub, "name"))
        if not name.startswith(letter):
            _fail(_join(sub, "name"), f"name {name!r} does not start with its letter {letter}")
        names.append(name)
        per_letter[letter] += 1
        is_share = obj["kind"] == "share"
        if letter in SHARE_LETTERS and not is_share:
            _fail(
                _join(sub, "kind"),
                f"cards of letter {letter} must be single-share cards, got {obj['kind']!r}",
            )
        if letter not in SHARE_LETTERS and is_share:
            _fail(_join(sub, "kind"), "only D and E cards may be single-share cards")
        if obj["kind"] == "merchant":
            merchants.append(obj["company"])
    _unique(names, path, "card name")
    for letter, expected in ACTION_LETTERS.items():
        if per_letter[letter] != expected:
            _fail(path, f"expected {expected} cards of letter {letter}, got {per_letter[letter]}")
    if len(merchants) != MERCHANT_COUNT:
        _fail(path, f"expected {MERCHANT_COUNT} diamond merchants among A-C, got {len(merchants)}")
    for company in (None, *COMPANY_IDS):
        if merchants.count(company) != 1:
            label = "plain" if company is None else company
            _fail(
                path, f"expected exactly 1 {label} diamond merchant, got {merchants.count(company)}"
            )


def _check_cards(root: dict[str, Any]) -> set[str]:
    cards = _dict(_field(root, "cards", ""), "cards")
    codes = _check_starting_cards(cards)
    _check_action_cards(cards)
    return codes


def _check_display(root: dict[str, Any]) -> None:
    display = _dict(_field(root, "display", ""), "display")
    columns = _list(
        _field(display, "columns", "display"), "display.columns", DISPLAY_COLUMNS, "columns"
    )
    for i, column in enumerate(columns):
        _str(column, _join("display.columns", i))
    _unique(columns, "display.columns", "column")
    _exact(_field(display, "rows", "display"), DISPLAY_ROWS, "display.rows")
    modifiers = _list(
        _field(display, "modifiers", "display"), "display.modifiers", DISPLAY_COLUMNS, "columns"
    )
    for i, column in enumerate(modifiers):
        sub = _join("display.modifiers", i)
        for j, value in enumerate(_list(column, sub, DISPLAY_ROWS, "rows")):
            _int(value, _join(sub, j))


def _check_books(root: dict[str, Any]) -> None:
    books = _list(_field(root, "books", ""), "books", sum(BOOK_LETTERS.values()), "books")
    per_letter = dict.fromkeys(BOOK_LETTERS, 0)
    for i, entry in enumerate(books):
        path = _join("books", i)
        obj = _dict(entry, path)
        letter = _choice(_field(obj, "letter", path), _join(path, "letter"), BOOK_LETTERS, "letter")
        per_letter[letter] += 1
        _needs(_field(obj, "needs", path), _join(path, "needs"), 1, MAX_NEEDS)
        _reward(_field(obj, "reward", path), _join(path, "reward"), non_empty=True)
    for letter, expected in BOOK_LETTERS.items():
        if per_letter[letter] != expected:
            got = per_letter[letter]
            _fail("books", f"expected {expected} books of letter {letter}, got {got}")


def _check_book_display(root: dict[str, Any]) -> None:
    path = "book_display"
    display = _dict(_field(root, path, ""), path)
    _exact(_field(display, "columns", path), BOOK_DISPLAY_COLUMNS, _join(path, "columns"))
    _exact(_field(display, "rows", path), BOOK_DISPLAY_ROWS, _join(path, "rows"))
    letters = _dict(_field(display, "letters", path), _join(path, "letters"))
    if sorted(letters) != sorted(str(c) for c in BOOK_DISPLAY_COLUMNS):
        _fail(_join(path, "letters"), "expected one letter per column 2..7")
    for column, letter in letters.items():
        _choice(letter, _join(_join(path, "letters"), column), BOOK_LETTERS, "letter")
    for letter in BOOK_LETTERS:
        spaces = BOOK_DISPLAY_ROWS * list(letters.values()).count(letter)
        if spaces != BOOK_SPACES_PER_LETTER:
            _fail(
                _join(path, "letters"),
                f"expected {BOOK_SPACES_PER_LETTER} spaces of letter {letter}, got {spaces}",
            )
    _exact(_field(display, "costs", path), BOOK_COSTS, _join(path, "costs"))


def _check_round_coins(root: dict[str, Any]) -> None:
    coins = _dict(_field(root, "round_coins", ""), "round_coins")
    if sorted(coins) != list(PLAYER_COUNTS):
        _fail("round_coins", f"expected keys {', '.join(PLAYER_COUNTS)}")
    for players, expected in ROUND_COINS.items():
        path = _join("round_coins", players)
        stacks = _list(coins[players], path, len(expected), "entries")
        for i, stack in enumerate(stacks):
            _int(stack, _join(path, i), lo=1, hi=BOOK_DISPLAY_ROWS)
        _exact(stacks, expected, path)


def _check_starting_tiles(root: dict[str, Any], codes: set[str]) -> None:
    tiles = _list(_field(root, "starting_tiles", ""), "starting_tiles", STARTING_TILES, "tiles")
    ids: list[int] = []
    for i, entry in enumerate(tiles):
        path = _join("starting_tiles", i)
        obj = _dict(entry, path)
        ids.append(_int_field(obj, "id", path, lo=1))
        cards = _list(_field(obj, "cards", path), _join(path, "cards"), TILE_CARDS, "card codes")
        for k, code in enumerate(cards):
            _choice(code, _join(_join(path, "cards"), k), sorted(codes), "starting card code")
        _unique(cards, _join(path, "cards"), "card code")
        book_path = _join(path, "book")
        book = _dict(_field(obj, "book", path), book_path)
        _needs(_field(book, "needs", book_path), _join(book_path, "needs"), 0, MAX_NEEDS)
        _reward(_field(book, "reward", book_path), _join(book_path, "reward"))
        _reward(_field(obj, "bonus", path), _join(path, "bonus"), TILE_BONUS_KEYS, non_empty=True)
    _unique(ids, "starting_tiles", "tile id")
    first = _list(_field(root, "first_game_tiles", ""), "first_game_tiles", SEATS, "tile ids")
    for i, tile in enumerate(first):
        if _int(tile, _join("first_game_tiles", i)) not in ids:
            _fail(_join("first_game_tiles", i), f"unknown starting tile {tile!r}")
    _unique(first, "first_game_tiles", "tile id")


def _check_bonus_markers(root: dict[str, Any]) -> None:
    markers = _dict(_field(root, "bonus_markers", ""), "bonus_markers")
    _exact(
        _field(markers, "per_colour", "bonus_markers"),
        BONUS_MARKERS_PER_COLOUR,
        "bonus_markers.per_colour",
    )
    start = _dict(_field(markers, "start", "bonus_markers"), "bonus_markers.start")
    if sorted(start) != list(PLAYER_COUNTS):
        _fail("bonus_markers.start", f"expected keys {', '.join(PLAYER_COUNTS)}")
    for players in PLAYER_COUNTS:
        _int(
            start[players], _join("bonus_markers.start", players), lo=1, hi=BONUS_MARKERS_PER_COLOUR
        )


def _check_bonus_tiles(root: dict[str, Any]) -> set[str]:
    tiles = _list(_field(root, "bonus_tiles", ""), "bonus_tiles", len(BONUS_TILE_KINDS), "tiles")
    ids: list[str] = []
    kinds: list[str] = []
    for i, entry in enumerate(tiles):
        path = _join("bonus_tiles", i)
        obj = _dict(entry, path)
        ids.append(_str(_field(obj, "id", path), _join(path, "id")))
        kind = _choice(
            _field(obj, "kind", path), _join(path, "kind"), BONUS_TILE_KINDS, "bonus tile kind"
        )
        kinds.append(kind)
        if kind == "bookkeeper":
            _int_field(obj, "value", path, lo=1)
        elif kind == "expansion":
            _int_field(obj, "value", path, lo=1, hi=MAX_UNIT_VALUE)
        elif kind == "merchant":
            _int_field(obj, "steps", path, lo=1)
    _unique(ids, "bonus_tiles", "tile id")
    _unique(kinds, "bonus_tiles", "tile kind")
    return set(ids)


def _check_majority(obj: dict[str, Any], path: str) -> str:
    measure = _choice(
        _field(obj, "measure", path), _join(path, "measure"), MAJORITY_MEASURES, "measure"
    )
    lines = _list(_field(obj, "lines", path), _join(path, "lines"))
    if not lines:
        _fail(_join(path, "lines"), "expected at least 1 line")
    previous = 0
    for i, entry in enumerate(lines):
        sub = _join(_join(path, "lines"), i)
        line = _dict(entry, sub)
        minimum = _int_field(line, "min", sub, lo=1)
        if minimum <= previous:
            _fail(_join(sub, "min"), f"line minimums must increase ({minimum} <= {previous})")
        previous = minimum
        _choice(_field(line, "company", sub), _join(sub, "company"), COMPANY_IDS, "company")
        _int_field(line, "steps", sub, lo=0)
        _reward(_field(line, "reward", sub), _join(sub, "reward"))
    return measure


def _check_bonus_spaces(root: dict[str, Any], tile_ids: set[str]) -> None:
    spaces = _list(_field(root, "bonus_spaces", ""), "bonus_spaces")
    ids: list[str] = []
    kinds: list[str] = []
    measures: list[str] = []
    tiles: list[str] = []
    space_kinds = (*SINGLE_BONUS_SPACES, "majority", "bonus_tile")
    for i, entry in enumerate(spaces):
        path = _join("bonus_spaces", i)
        obj = _dict(entry, path)
        ids.append(_str(_field(obj, "id", path), _join(path, "id")))
        kind = _choice(
            _field(obj, "kind", path), _join(path, "kind"), space_kinds, "bonus space kind"
        )
        kinds.append(kind)
        if kind == "first_player":
            _reward(_field(obj, "reward", path), _join(path, "reward"))
        elif kind == "buy_card":
            _int_field(obj, "cost", path, lo=0)
        elif kind == "remove_card":
            _int_field(obj, "bonus_pounds", path, lo=0)
        elif kind == "majority":
            measures.append(_check_majority(obj, path))
        else:
            tiles.append(
                _choice(
                    _field(obj, "tile", path), _join(path, "tile"), sorted(tile_ids), "bonus tile"
                )
            )
            _int_field(obj, "cost", path, lo=0)
    _unique(ids, "bonus_spaces", "space id")
    for kind in SINGLE_BONUS_SPACES:
        if kinds.count(kind) != 1:
            _fail("bonus_spaces", f"expected exactly 1 {kind} space, got {kinds.count(kind)}")
    if sorted(measures) != sorted(MAJORITY_MEASURES):
        _fail(
            "bonus_spaces",
            f"expected one majority space per measure "
            f"({', '.join(MAJORITY_MEASURES)}), got {measures}",
        )
    if sorted(tiles) != sorted(tile_ids):
        _fail("bonus_spaces", f"expected one bonus_tile space per bonus tile, got {tiles}")


def _check_player_tracks(root: dict[str, Any]) -> None:
    diamonds = _dict(_field(root, "diamond_track", ""), "diamond_track")
    _values_track(diamonds, "diamond_track")
    books = _dict(_field(root, "bookkeeping_track", ""), "bookkeeping_track")
    length = _values_track(books, "bookkeeping_track")
    path = "bookkeeping_track.crossed_a"
    crossed = _list(_field(books, "crossed_a", "bookkeeping_track"), path)
    for i, value in enumerate(crossed):
        _int(value, _join(path, i), lo=1, hi=length - 1)
    _unique(crossed, path, "index")


def _check_merchants_and_player(root: dict[str, Any]) -> None:
    merchants = _dict(_field(root, "merchants", ""), "merchants")
    plain = _dict(_field(merchants, "plain", "merchants"), "merchants.plain")
    _int_field(plain, "steps", "merchants.plain", lo=0)
    _int_field(plain, "pounds", "merchants.plain", lo=0)
    company = _dict(_field(merchants, "company", "merchants"), "merchants.company")
    _int_field(company, "steps", "merchants.company", lo=0)
    _int_field(company, "pounds", "merchants.company", lo=0)
    _int_field(company, "mines_per_step", "merchants.company", lo=1)
    player = _dict(_field(root, "player", ""), "player")
    _int_field(player, "start_pounds", "player", lo=0)
    _exact(_field(player, "slots", "player"), PLAYER_SLOTS, "player.slots")
    _exact(_field(player, "max_slots", "player"), PLAYER_MAX_SLOTS, "player.max_slots")


# --------------------------------------------------------------------------- entry point


def validate(raw: dict[str, Any]) -> None:
    """Check a parsed catalogue; raise ``CatalogueError`` (path first) on the first fault."""
    root = _dict(raw, "$")
    _check_header(root)
    _check_companies(root)
    _check_base(root)
    index, enclaves = _check_regions(root)
    adjacency = _check_borders(root, index, enclaves)
    _check_base_borders(root, index, enclaves, adjacency)
    _check_tracks(root)
    codes = _check_cards(root)
    _check_display(root)
    _check_books(root)
    _check_book_display(root)
    _check_round_coins(root)
    _check_starting_tiles(root, codes)
    _check_bonus_markers(root)
    _check_bonus_spaces(root, _check_bonus_tiles(root))
    _check_player_tracks(root)
    _check_merchants_and_player(root)
