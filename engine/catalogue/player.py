"""The player-board parts of the catalogue: the diamond and bookkeeping tracks, the
diamond merchants' pay, and a player's starting pounds and card slots, checked and
built in one walk."""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.catalogue.checks import (
    as_int,
    dict_field,
    exact_field,
    fail,
    int_field,
    join,
    list_field,
    unique,
)

PLAYER_SLOTS = 3
PLAYER_MAX_SLOTS = 5


class ValuesTrack(NamedTuple):
    values: tuple[int, ...]
    slot_unlock: int
    end_pounds: int


class PlayerTracks(NamedTuple):
    diamonds: ValuesTrack
    bookkeeping: ValuesTrack
    crossed_a: frozenset[int]


class MerchantsAndPlayer(NamedTuple):
    plain_merchant: tuple[int, int]  # steps, pounds
    company_merchant: tuple[int, int, int]  # steps, pounds, mines per extra step
    start_pounds: int
    slots: int
    max_slots: int


def read_player_tracks(root: dict[str, Any]) -> PlayerTracks:
    diamonds = _read_values_track(dict_field(root, "diamond_track", ""), "diamond_track")
    books = dict_field(root, "bookkeeping_track", "")
    bookkeeping = _read_values_track(books, "bookkeeping_track")
    crossed = list_field(books, "crossed_a", "bookkeeping_track")
    path = "bookkeeping_track.crossed_a"
    last = len(bookkeeping.values) - 1
    indices = frozenset(
        as_int(value, path, lo=1, hi=last, key=i) for i, value in enumerate(crossed)
    )
    unique(crossed, path, "index")
    return PlayerTracks(diamonds, bookkeeping, indices)


def _read_values_track(obj: dict[str, Any], path: str) -> ValuesTrack:
    """A track of values from 0, never decreasing, with the space that unlocks a slot."""
    raw_values = list_field(obj, "values", path)
    values_path = join(path, "values")
    if len(raw_values) < 2:
        fail(values_path, "expected at least 2 values")
    values: list[int] = []
    previous = 0
    for i, value in enumerate(raw_values):
        number = as_int(value, values_path, lo=0, key=i)
        if i == 0 and number != 0:
            fail(join(values_path, 0), f"the first value must be 0, got {number}")
        if number < previous:
            fail(join(values_path, i), f"values must not decrease ({number} < {previous})")
        previous = number
        values.append(number)
    slot_unlock = int_field(obj, "slot_unlock", path, lo=1, hi=len(values) - 1)
    end_pounds = int_field(obj, "end_pounds", path, lo=0)
    return ValuesTrack(tuple(values), slot_unlock, end_pounds)


def read_merchants_and_player(root: dict[str, Any]) -> MerchantsAndPlayer:
    merchants = dict_field(root, "merchants", "")
    plain = dict_field(merchants, "plain", "merchants")
    plain_merchant = (
        int_field(plain, "steps", "merchants.plain", lo=0),
        int_field(plain, "pounds", "merchants.plain", lo=0),
    )
    company = dict_field(merchants, "company", "merchants")
    company_merchant = (
        int_field(company, "steps", "merchants.company", lo=0),
        int_field(company, "pounds", "merchants.company", lo=0),
        int_field(company, "mines_per_step", "merchants.company", lo=1),
    )
    player = dict_field(root, "player", "")
    start_pounds = int_field(player, "start_pounds", "player", lo=0)
    slots = exact_field(player, "slots", "player", PLAYER_SLOTS)
    max_slots = exact_field(player, "max_slots", "player", PLAYER_MAX_SLOTS)
    return MerchantsAndPlayer(
        plain_merchant, company_merchant, start_pounds, int(slots), int(max_slots)
    )
