"""The state records list their fields once (``FIELDS``); the hand-written copies on the
hot path (``PlayerState.copy``, ``State.clone``) and the value used for equality must
follow that list, so a field added to it and forgotten in a copy fails here."""

from __future__ import annotations

from typing import TypeVar

import engine
from engine.state import PlayerState, State

T = TypeVar("T", PlayerState, State)


def _filled(cls: type[T], fields: tuple[str, ...]) -> tuple[T, dict[str, object]]:
    record = cls.__new__(cls)
    sentinels = {name: object() for name in cls.__slots__}
    for name, value in sentinels.items():
        setattr(record, name, value)
    return record, {name: sentinels[name] for name in fields}


def test_player_copy_copies_every_field_and_drops_the_cache() -> None:
    record, expected = _filled(PlayerState, PlayerState.FIELDS)
    copy = record.copy()
    assert {name: getattr(copy, name) for name in PlayerState.FIELDS} == expected
    assert copy._measures is None


def test_clone_copies_every_field_and_starts_without_caches() -> None:
    record, expected = _filled(State, State.FIELDS)
    clone = record.clone()
    assert {name: getattr(clone, name) for name in State.FIELDS} == expected
    assert (clone._own, clone._legal, clone._decision) == (0, None, None)


def test_slots_are_the_fields_plus_the_caches() -> None:
    assert PlayerState.__slots__ == PlayerState.FIELDS + ("_measures",)
    assert State.__slots__ == State.FIELDS + ("_own", "_legal", "_decision")


def test_every_field_takes_part_in_equality() -> None:
    s = engine.new_game(players=2, seed=3)
    for name in State.FIELDS[1:]:
        other = s.clone()
        setattr(other, name, ("changed", name))
        assert other != s, name
    for name in PlayerState.FIELDS:
        other = s.clone()
        setattr(other.player_mut(0), name, ("changed", name))
        assert other != s, name
    assert s.clone() == s and hash(s.clone()) == hash(s)
