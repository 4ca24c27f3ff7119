"""The company tracks of the catalogue (A1..D2), the track cards that pair them and the
first-game track of each company, checked and built in one walk."""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.catalogue.checks import (
    COMPANY_IDS,
    as_dict,
    as_list,
    bool_field,
    choice,
    dict_field,
    exact_field,
    fail,
    field,
    int_field,
    join,
    list_field,
    reward,
    special,
)
from engine.catalogue.model import Reward, Track, TrackSpace

TRACK_IDS: tuple[str, ...] = ("A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2")
EXTRA_MARKER_TRACK = "B2"
# One shared empty reward for the many spaces without a special (records are frozen).
_NO_REWARD = Reward()


class Tracks(NamedTuple):
    tracks: tuple[Track, ...]
    track_cards: tuple[tuple[int, int], ...]
    first_game_tracks: tuple[int, ...]  # company -> track index


def read_tracks(root: dict[str, Any]) -> Tracks:
    entries = list_field(root, "tracks", "", len(TRACK_IDS), "tracks")
    tracks: list[Track] = []
    extras = 0
    for i, (entry, tid) in enumerate(zip(entries, TRACK_IDS, strict=True)):
        path = join("tracks", i)
        obj = as_dict(entry, path)
        exact_field(obj, "id", path, tid)
        track, extra = _read_track(obj, path, i, tid)
        tracks.append(track)
        extras += extra
    if extras != 1:
        fail(
            "tracks", f"expected exactly 1 extra_marker space on {EXTRA_MARKER_TRACK}, got {extras}"
        )
    cards = list_field(root, "track_cards", "", len(TRACK_IDS) // 2, "cards")
    track_cards: list[tuple[int, int]] = []
    covered: set[str] = set()
    for i, card in enumerate(cards):
        sub = join("track_cards", i)
        pair = as_list(card, sub, 2, "track ids")
        for k, tid in enumerate(pair):
            if choice(tid, sub, TRACK_IDS, "track", k) in covered:
                fail(join(sub, k), f"track {tid!r} is on more than one track card")
            covered.add(tid)
        track_cards.append((TRACK_IDS.index(pair[0]), TRACK_IDS.index(pair[1])))
    first = dict_field(root, "first_game_tracks", "")
    if sorted(first) != sorted(COMPANY_IDS):
        fail("first_game_tracks", f"expected keys {', '.join(COMPANY_IDS)}")
    first_tracks: list[int] = []
    pieces: set[str] = set()
    for company in COMPANY_IDS:
        tid = choice(first[company], "first_game_tracks", TRACK_IDS, "track", company)
        # The two tracks of a letter are the two sides of one piece.
        if tid[0] in pieces:
            fail(join("first_game_tracks", company), f"track piece {tid[0]} used twice")
        pieces.add(tid[0])
        first_tracks.append(TRACK_IDS.index(tid))
    return Tracks(tuple(tracks), tuple(track_cards), tuple(first_tracks))


def _read_track(obj: dict[str, Any], path: str, index: int, tid: str) -> tuple[Track, int]:
    """One track and the number of extra-marker spaces on it."""
    entries = list_field(obj, "spaces", path)
    spaces_path = join(path, "spaces")
    if len(entries) < 2:
        fail(spaces_path, "expected a start space and at least 1 more")
    spaces: list[TrackSpace] = []
    shares_at: list[int] = []
    highest = 0
    extras = 0
    for i, entry in enumerate(entries):
        sub = join(spaces_path, i)
        space = _read_space(entry, sub, i == 0)
        shares = space.shares
        if shares and shares < highest:
            fail(
                join(sub, "shares"),
                f"share icons must not decrease along the track ({shares} after {highest})",
            )
        highest = max(highest, shares)
        if space.extra_marker:
            if tid != EXTRA_MARKER_TRACK:
                fail(
                    join(sub, "extra_marker"),
                    f"only track {EXTRA_MARKER_TRACK} may grant an extra bonus marker",
                )
            extras += 1
        spaces.append(space)
        # Spaces without share icons keep the shares held from the spaces before.
        shares_at.append(highest)
    end_pounds = int_field(obj, "end_pounds", path, lo=0)
    return Track(index, tid, tuple(spaces), end_pounds, tuple(shares_at)), extras


def _read_space(entry: Any, path: str, start: bool) -> TrackSpace:
    obj = as_dict(entry, path)
    shares = int_field(obj, "shares", path, lo=0)
    capital = int_field(obj, "capital", path, lo=0)
    raw_special = field(obj, "special", path)
    paid_once = _NO_REWARD if raw_special is None else special(raw_special, join(path, "special"))
    raw_bonus = field(obj, "bonus", path)
    bonus = None if raw_bonus is None else reward(raw_bonus, path, key="bonus", non_empty=True)
    extra = bool_field(obj, "extra_marker", path)
    if start and (shares or capital or raw_special is not None or bonus is not None or extra):
        fail(path, "the start space must be empty")
    return TrackSpace(shares, capital, paid_once, bonus, extra)
