"""The checking helpers of the catalogue loader (schema ``mombasa-catalogue/1``): each
checks one raw (parsed JSON) value and returns it checked, so that the section readers
(``header``, ``map``, ``tracks``, ``cards``, ``books``, ``tiles``, ``player``) build the
catalogue's records from what they checked, in one walk. A fault raises
``CatalogueError`` whose message starts with the JSON path of the value, for example
``regions[3].reward.pounds: must be >= 0, got -1``. Rewards, track specials and book
needs, which several sections hold, are read here too, along with the shared counts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn

from engine.catalogue.model import MEASURES, Reward

SCHEMA = "mombasa-catalogue/1"

COMPANIES: tuple[tuple[str, str, str], ...] = (
    ("MOM", "black", "east"),
    ("CAP", "red", "south"),
    ("STL", "white", "west"),
    ("CAI", "orange", "north"),
)
COMPANY_IDS: tuple[str, ...] = tuple(c[0] for c in COMPANIES)
# Companies are indexed by their fixed place in the list (checked in ``read_companies``).
COMPANY_INDEX: dict[str, int] = {cid: i for i, cid in enumerate(COMPANY_IDS)}
SEATS = 4
PLAYER_COUNTS: tuple[str, ...] = ("2", "3", "4")
MAX_UNIT_VALUE = 4
MAX_NEEDS = 2
REWARD_KEYS: tuple[str, ...] = ("pounds", "diamonds", "bookkeeping", "track", "remove_post")
# Reward keys of the file -> fields of ``Reward`` (the track is read apart).
_REWARD_FIELDS: dict[str, str] = {
    "pounds": "pounds", "diamonds": "diamonds", "bookkeeping": "bookkeeping",
    "remove_post": "remove_posts",
}
SPECIAL_KINDS: tuple[str, ...] = ("pounds", "diamonds", "bookkeeping", "remove_post")


class CatalogueError(ValueError):
    """A catalogue breaks a count or structural rule; the message starts with its path."""


COMMENT_PREFIX = "//"


def strip_comments(value: Any) -> Any:
    """``value`` without its comments: object keys starting with ``//`` (``"//"``,
    ``"// regions"``...), at any depth, whatever their value. JSON has no comments, so
    a catalogue file carries its notes in such keys; the loader drops them before its
    walk, so they are allowed everywhere and never checked.

    >>> strip_comments({"//": "a note", "a": [{"// why": ["x"], "b": 1}], "c/": 2})
    {'a': [{'b': 1}], 'c/': 2}
    """
    if isinstance(value, dict):
        return {k: strip_comments(v) if isinstance(v, _NESTED) else v
                for k, v in value.items()
                if not (isinstance(k, str) and k.startswith(COMMENT_PREFIX))}
    if isinstance(value, list):
        return [strip_comments(v) if isinstance(v, _NESTED) else v for v in value]
    return value


_NESTED = (dict, list)


Key = str | int | None


def fail(path: str, message: str) -> NoReturn:
    raise CatalogueError(f"{path or '$'}: {message}")


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def at(path: str, key: Key) -> str:
    """``path`` with ``key`` joined on, if one is given."""
    return path if key is None else join(path, key)


# Each helper takes the path of its value as ``path`` plus an optional last ``key``, and
# joins the two only when it fails: the paths of a valid file are never built, which
# is most of the time a walk over a valid catalogue would otherwise spend.


def as_dict(value: Any, path: str, key: Key = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        fail(at(path, key), f"expected an object, got {type(value).__name__}")
    return value


def as_list(
    value: Any, path: str, length: int | None = None, what: str = "entries", key: Key = None
) -> list[Any]:
    if not isinstance(value, list):
        fail(at(path, key), f"expected a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        fail(at(path, key), f"expected {length} {what}, got {len(value)}")
    return value


def field(obj: dict[str, Any], key: str, path: str) -> Any:
    if key not in obj:
        fail(join(path, key), "missing")
    return obj[key]


def as_int(
    value: Any, path: str, lo: int | None = None, hi: int | None = None, key: Key = None
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        fail(at(path, key), f"expected an integer, got {value!r}")
    if lo is not None and value < lo:
        fail(at(path, key), f"must be >= {lo}, got {value}")
    if hi is not None and value > hi:
        fail(at(path, key), f"must be <= {hi}, got {value}")
    return value


def as_num(value: Any, path: str, key: Key = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(at(path, key), f"expected a number, got {value!r}")
    return float(value)


def as_str(value: Any, path: str, key: Key = None) -> str:
    if not isinstance(value, str) or not value:
        fail(at(path, key), f"expected a non-empty string, got {value!r}")
    return value


def as_bool(value: Any, path: str, key: Key = None) -> bool:
    if not isinstance(value, bool):
        fail(at(path, key), f"expected true or false, got {value!r}")
    return value


def choice(
    value: Any, path: str, allowed: Iterable[str], what: str = "value", key: Key = None
) -> str:
    options = tuple(allowed)
    if value not in options:
        fail(at(path, key), f"unknown {what} {value!r} (expected one of {', '.join(options)})")
    return str(value)


def exact(value: Any, expected: Any, path: str, key: Key = None) -> Any:
    """The value, which must equal ``expected`` (a fixed count or id of the game)."""
    if value != expected:
        fail(at(path, key), f"must be {expected!r}, got {value!r}")
    return value


# ``obj[key]``, which must be there, checked as above (``path`` is the object's path).


def dict_field(obj: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    return as_dict(field(obj, key, path), path, key)


def list_field(
    obj: dict[str, Any], key: str, path: str, length: int | None = None, what: str = "entries"
) -> list[Any]:
    return as_list(field(obj, key, path), path, length, what, key)


def int_field(
    obj: dict[str, Any], key: str, path: str, lo: int | None = None, hi: int | None = None
) -> int:
    return as_int(field(obj, key, path), path, lo, hi, key)


def str_field(obj: dict[str, Any], key: str, path: str) -> str:
    return as_str(field(obj, key, path), path, key)


def bool_field(obj: dict[str, Any], key: str, path: str) -> bool:
    return as_bool(field(obj, key, path), path, key)


def choice_field(
    obj: dict[str, Any], key: str, path: str, allowed: Iterable[str], what: str = "value"
) -> str:
    return choice(field(obj, key, path), path, allowed, what, key)


def exact_field(obj: dict[str, Any], key: str, path: str, expected: Any) -> Any:
    return exact(field(obj, key, path), expected, path, key)


_PLAIN_NUMBERS = (int, float)


def point(value: Any, path: str, key: Key = None) -> tuple[float, float]:
    x, y = as_list(value, path, 2, "coordinates", key)
    if type(x) in _PLAIN_NUMBERS and type(y) in _PLAIN_NUMBERS:
        return float(x), float(y)
    here = at(path, key)
    return as_num(x, here, 0), as_num(y, here, 1)


def unique(values: list[Any], path: str, what: str) -> None:
    seen: set[Any] = set()
    for i, value in enumerate(values):
        if value in seen:
            fail(join(path, i), f"duplicate {what} {value!r}")
        seen.add(value)


def company_steps(value: Any, path: str) -> tuple[int, int]:
    """``{"company": id, "steps": n}``: (steps, company index)."""
    obj = as_dict(value, path)
    company = choice_field(obj, "company", path, COMPANY_IDS, "company")
    steps = int_field(obj, "steps", path, lo=1)
    extra = set(obj) - {"company", "steps"}
    if extra:
        fail(path, f"unknown key {sorted(extra)[0]!r}")
    return steps, COMPANY_INDEX[company]


def reward(
    value: Any,
    path: str,
    keys: tuple[str, ...] = REWARD_KEYS,
    *,
    key: Key = None,
    integer_track: bool = False,
    non_empty: bool = False,
) -> Reward:
    """A reward object: known keys, amounts >= 0, track as int or company steps."""
    obj = as_dict(value, path, key)
    here = at(path, key)
    amounts: dict[str, int] = {}
    for name, amount in obj.items():
        if name not in keys:
            fail(join(here, name), f"unknown reward key (expected one of {', '.join(keys)})")
        if name != "track":
            amounts[_REWARD_FIELDS[name]] = as_int(amount, here, lo=0, key=name)
        elif integer_track:
            # Steps on the track of the company in context (a region's expander).
            amounts["track_steps"] = as_int(amount, here, lo=0, key=name)
        else:
            amounts["track_steps"], amounts["track_company"] = company_steps(
                amount, join(here, name)
            )
    result = Reward(**amounts)
    # Amounts are >= 0 and company steps >= 1, so "empty" is "every amount is 0".
    if non_empty and result.is_empty():
        fail(here, "reward must not be empty")
    return result


def reward_field(
    obj: dict[str, Any],
    key: str,
    path: str,
    keys: tuple[str, ...] = REWARD_KEYS,
    *,
    integer_track: bool = False,
    non_empty: bool = False,
) -> Reward:
    return reward(
        field(obj, key, path), path, keys, key=key, integer_track=integer_track,
        non_empty=non_empty,
    )


def special(value: Any, path: str) -> Reward:
    """A track space's one-off special ``{"kind": ..., "amount": n}`` as a reward."""
    obj = as_dict(value, path)
    kind = choice_field(obj, "kind", path, SPECIAL_KINDS, "special kind")
    amount = int_field(obj, "amount", path, lo=1)
    return Reward(**{_REWARD_FIELDS[kind]: amount})


def needs(value: Any, path: str, lo: int, hi: int) -> tuple[tuple[int, int], ...]:
    """A book's needs ``[[kind, amount], ...]`` as (index into MEASURES, amount) pairs."""
    items = as_list(value, path)
    if not lo <= len(items) <= hi:
        fail(path, f"expected {lo} to {hi} needs, got {len(items)}")
    out: list[tuple[int, int]] = []
    kinds: set[str] = set()
    for i, need in enumerate(items):
        sub = join(path, i)
        kind, amount = as_list(need, sub, 2, "items ([kind, amount])")
        choice(kind, sub, MEASURES, "need kind", 0)
        if kind in kinds:
            fail(join(sub, 0), f"need kind {kind!r} listed twice")
        kinds.add(kind)
        out.append((MEASURES.index(kind), as_int(amount, sub, lo=1, key=1)))
    return tuple(out)
