"""The cards of the catalogue and the card display, checked and built in one walk. Cards
are indexed with the 44 action cards first, then each seat's 9 starting cards and its
"1"-expansion card (the bonus tiles, read with the tiles, come last); since the file
lists the starting cards first and they are checked in file order, each card is read
into a ``Face`` (its printed values) and given its index and name afterwards."""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.catalogue.checks import (
    COMPANY_IDS,
    COMPANY_INDEX,
    MAX_UNIT_VALUE,
    SEATS,
    as_dict,
    as_int,
    as_list,
    as_str,
    choice,
    choice_field,
    dict_field,
    exact,
    exact_field,
    fail,
    field,
    int_field,
    join,
    list_field,
    str_field,
    unique,
)
from engine.catalogue.model import GOODS, CardType

CARD_KINDS: tuple[str, ...] = ("goods", "expansion", "bookkeeper", "merchant", "share")
STARTING_KINDS: tuple[str, ...] = ("goods", "expansion", "bookkeeper")
ACTION_LETTERS: dict[str, int] = {"A": 9, "B": 16, "C": 11, "D": 4, "E": 4}
SHARE_LETTERS: frozenset[str] = frozenset({"D", "E"})
MERCHANT_COUNT = 5
# Rulebook: an expansion card shows "a number of expansion points (1, 2 or 3)".
EXPANSION_CARD_VALUES: tuple[int, ...] = (1, 2, 3)
STARTING_CARDS = 9
DISPLAY_COLUMNS = 3
DISPLAY_ROWS = 4


class Face(NamedTuple):
    """A card's printed values, before it has an index, name and owner."""

    kind: str
    good: int
    value: int
    crate: int
    share: int
    company: int


class Cards(NamedTuple):
    cards: tuple[CardType, ...]
    action_cards: tuple[int, ...]
    seat_cards: tuple[tuple[int, ...], ...]  # seat -> its 10 card indices
    letters: str  # letters of the action-card stack
    codes: frozenset[str]  # the starting-card codes (for the starting tiles)


class Display(NamedTuple):
    columns: tuple[str, ...]
    rows: int
    modifiers: tuple[int, ...]  # by display space (column * rows + row)


def read_cards(root: dict[str, Any]) -> Cards:
    cards = dict_field(root, "cards", "")
    starting, seats = _read_starting_cards(cards)
    action = _read_action_cards(cards)
    out = [
        _card(i, face, name, letter, -1, name) for i, (face, name, letter) in enumerate(action)
    ]
    seat_cards: list[tuple[int, ...]] = []
    for seat, seat_face in enumerate(seats):
        first = len(out)
        for face, code in starting:
            out.append(_card(len(out), face, f"{code}/{seat + 1}", "S", seat, code))
        out.append(_card(len(out), seat_face, f"one/{seat + 1}", "S", seat, "one"))
        seat_cards.append(tuple(range(first, len(out))))
    return Cards(
        cards=tuple(out),
        action_cards=tuple(range(len(action))),
        seat_cards=tuple(seat_cards),
        letters="".join(sorted({letter for _face, _name, letter in action})),
        codes=frozenset(code for _face, code in starting),
    )


def _card(index: int, face: Face, name: str, letter: str, seat: int, code: str) -> CardType:
    return CardType(index, name, letter, face.kind, face.good, face.value, face.crate,
                    face.share, face.company, seat, code)


def _card_label(obj: dict[str, Any]) -> str:
    """`` (card C4)``, `` (card exp2)``, `` (seat 3's card)``: which card a message is about."""
    for key in ("name", "code"):
        if isinstance(obj.get(key), str):
            return f" (card {obj[key]})"
    if isinstance(obj.get("seat"), int):
        return f" (seat {obj['seat']}'s card)"
    return ""


def _read_face(obj: dict[str, Any], path: str, kinds: tuple[str, ...]) -> Face:
    kind = choice_field(obj, "kind", path, kinds, "card kind")
    crate = int_field(obj, "crate", path, lo=0)
    share = field(obj, "share", path)
    if share is not None:
        choice(share, path, COMPANY_IDS, "company", "share")
    good = -1
    if kind in ("merchant", "share"):
        if kind == "merchant":
            company = field(obj, "company", path)
            if company is not None:
                choice(company, path, COMPANY_IDS, "company", "company")
        else:
            company = choice_field(obj, "company", path, COMPANY_IDS, "company")
            if share != company:
                fail(
                    join(path, "share"), f"a single-share card must show {company!r}, got {share!r}"
                )
        # Optional on these kinds (a merchant's base steps, if given); checked when present.
        value = int_field(obj, "value", path, lo=0) if obj.get("value") is not None else 0
    else:
        if kind == "goods":
            good = GOODS.index(choice_field(obj, "good", path, GOODS, "good"))
            value = int_field(obj, "value", path, lo=1, hi=MAX_UNIT_VALUE)
        elif kind == "expansion":
            value = int_field(obj, "value", path)
            if value not in EXPANSION_CARD_VALUES:
                fail(
                    join(path, "value"),
                    f"an expansion card shows 1, 2 or 3 points, got {value}{_card_label(obj)}",
                )
        else:
            value = int_field(obj, "value", path, lo=1)
        # Optional here: a company on a goods, expansion or bookkeeper card.
        company = obj.get("company")
        if company is not None:
            choice(company, path, COMPANY_IDS, "company", "company")
    return Face(
        kind=kind,
        good=good,
        value=value,
        crate=crate,
        share=COMPANY_INDEX[share] if share else -1,
        company=COMPANY_INDEX[company] if company else -1,
    )


def _read_starting_cards(cards: dict[str, Any]) -> tuple[list[tuple[Face, str]], list[Face]]:
    """The 9 starting cards (face, code) and each seat's "1"-expansion card, seat order."""
    path = "cards.starting"
    entries = list_field(cards, "starting", "cards", STARTING_CARDS, "cards")
    starting: list[tuple[Face, str]] = []
    for i, entry in enumerate(entries):
        sub = join(path, i)
        obj = as_dict(entry, sub)
        face = _read_face(obj, sub, STARTING_KINDS)
        starting.append((face, str_field(obj, "code", sub)))
    unique([code for _face, code in starting], path, "code")
    seats_path = "cards.seat_expansion"
    entries = list_field(cards, "seat_expansion", "cards", SEATS, "cards")
    seats: list[Face] = []
    previous = -1
    for i, entry in enumerate(entries):
        sub = join(seats_path, i)
        obj = as_dict(entry, sub)
        face = _read_face(obj, sub, ("expansion",))
        exact_field(obj, "seat", sub, i + 1)
        exact(face.value, 1, sub, "value")
        if face.crate <= previous:
            fail(
                join(sub, "crate"),
                f"later seats need a higher crate value ({face.crate} <= {previous})",
            )
        previous = face.crate
        seats.append(face)
    return starting, seats


def _read_action_cards(cards: dict[str, Any]) -> list[tuple[Face, str, str]]:
    """The action cards as (face, name, letter), in file order."""
    path = "cards.action"
    entries = list_field(cards, "action", "cards", sum(ACTION_LETTERS.values()), "cards")
    action: list[tuple[Face, str, str]] = []
    per_letter = dict.fromkeys(ACTION_LETTERS, 0)
    merchants: list[str | None] = []
    for i, entry in enumerate(entries):
        sub = join(path, i)
        obj = as_dict(entry, sub)
        face = _read_face(obj, sub, CARD_KINDS)
        letter = choice_field(obj, "letter", sub, ACTION_LETTERS, "letter")
        name = str_field(obj, "name", sub)
        if not name.startswith(letter):
            fail(join(sub, "name"), f"name {name!r} does not start with its letter {letter}")
        per_letter[letter] += 1
        is_share = face.kind == "share"
        if letter in SHARE_LETTERS and not is_share:
            fail(
                join(sub, "kind"),
                f"cards of letter {letter} must be single-share cards, got {face.kind!r}",
            )
        if letter not in SHARE_LETTERS and is_share:
            fail(join(sub, "kind"), "only D and E cards may be single-share cards")
        if face.kind == "merchant":
            merchants.append(obj["company"])
        action.append((face, name, letter))
    unique([name for _face, name, _letter in action], path, "card name")
    for letter, expected in ACTION_LETTERS.items():
        if per_letter[letter] != expected:
            fail(path, f"expected {expected} cards of letter {letter}, got {per_letter[letter]}")
    if len(merchants) != MERCHANT_COUNT:
        fail(path, f"expected {MERCHANT_COUNT} diamond merchants among A-C, got {len(merchants)}")
    for company in (None, *COMPANY_IDS):
        if merchants.count(company) != 1:
            label = "plain" if company is None else company
            fail(
                path, f"expected exactly 1 {label} diamond merchant, got {merchants.count(company)}"
            )
    return action


def read_display(root: dict[str, Any]) -> Display:
    display = dict_field(root, "display", "")
    columns = list_field(display, "columns", "display", DISPLAY_COLUMNS, "columns")
    names = tuple(as_str(column, "display.columns", i) for i, column in enumerate(columns))
    unique(columns, "display.columns", "column")
    rows = exact_field(display, "rows", "display", DISPLAY_ROWS)
    raw_modifiers = list_field(display, "modifiers", "display", DISPLAY_COLUMNS, "columns")
    modifiers: list[int] = []
    for i, column in enumerate(raw_modifiers):
        sub = join("display.modifiers", i)
        for j, value in enumerate(as_list(column, sub, DISPLAY_ROWS, "rows")):
            modifiers.append(as_int(value, sub, key=j))
    return Display(names, int(rows), tuple(modifiers))
