"""Steps (one small choice) and moves (a player's whole turn), with text and JSON forms.

A :class:`Step` is a small value object: a kind and up to three integer arguments whose
meaning depends on the kind (a card index, a company, a display space...). Its text
notation names things the way a player does:

>>> from engine.catalogue import default_catalogue
>>> cat = default_catalogue()
>>> step = Step("unit", cat.company_index("CAI"))
>>> step.text(cat)
'unit CAI'
>>> Step.parse("unit CAI", cat) == step
True
>>> step.to_json(cat)
{'kind': 'unit', 'company': 'CAI'}

The notation of every kind is listed in ``docs/notation.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from engine.catalogue import Catalogue, default_catalogue
from engine.primitives import HIDDEN, bits

# kind -> argument (name, type) pairs. Types: company, track, card, cards, dspace, bspace,
# book, player, tile, slot, deck, region, column, bkspace, bonus, line, order.
KINDS: dict[str, tuple[tuple[str, str], ...]] = {
    # chance events
    "deal-track": (("company", "company"), ("track", "track")),
    "deal-card": (("card", "card"), ("space", "dspace")),
    "deal-book": (("book", "book"), ("space", "bspace")),
    "deal-tile": (("player", "player"), ("tile", "tile")),
    # setup
    "tile": (("tile", "tile"),),
    "rest": (("card1", "card"), ("card2", "card"), ("card3", "card")),
    # planning
    "plan": (("card", "card"), ("slot", "slot")),
    "ready": (),
    # actions
    "goods": (("cards", "cards"),),
    "expand": (("company", "company"),),
    "keeper": (("card", "card"),),
    "merchant": (("card", "card"),),
    "plus1": (("card", "card"),),
    "end": (("deck", "deck"),),
    "first": (),
    "buy-card": (("space", "dspace"),),
    "remove-card": (("card", "card"),),
    "majority": (("bonus", "bonus"), ("line", "line")),
    "reserve": (("bonus", "bonus"),),
    "track-bonus": (("bonus", "bonus"),),
    # sub-choices
    "buy": (("space", "dspace"),),
    "nobuy": (),
    "unit": (("company", "company"),),
    "enter": (("region", "region"), ("column", "column")),
    "stop": (),
    "reward-order": (("first", "order"),),
    "return": (("column", "column"),),
    "remove-post": (("company", "company"), ("column", "column")),
    "flip": (("space", "bkspace"),),
    "noflip": (),
    "ink": (),
    "halt": (),
    "take": (("space", "bspace"),),
    "pounds": (),
    "place": (("book", "book"), ("space", "bkspace")),
}

# kind -> what the step does, for people (docs/notation.md and the web page).
DESCRIPTIONS: dict[str, str] = {
    "deal-track": "chance: the track placed at a company's edge (variable setup)",
    "deal-card": "chance: an action card drawn into a display space",
    "deal-book": "chance: a book drawn into a book-display space",
    "deal-tile": "chance: a starting tile dealt to a player (variable setup)",
    "tile": "choose the starting tile to keep (hidden until all reveal)",
    "rest": "the starting tile's three cards into resting slots 2, 3, 4",
    "plan": "a card into an action slot (slots left to right; hidden until the reveal)",
    "ready": "planning done",
    "goods": "use goods cards of one type (names joined by +)",
    "expand": "use all expansion cards on a company",
    "keeper": "use a bookkeeper card or tile",
    "merchant": "use a diamond merchant card or tile",
    "plus1": "lay the +1 goods tile on a face-up goods card (free, the turn goes on)",
    "end": "end the action phase, taking resting deck N into the hand (- if all empty)",
    "first": "bonus: first-player space",
    "buy-card": "bonus: buy the card of a display space for pounds",
    "remove-card": "bonus: remove a hand card from the game for pounds",
    "majority": "bonus: a majority space, at the line with this minimum",
    "reserve": "bonus: reserve a bonus tile",
    "track-bonus": "bonus: a company-track bonus space",
    "buy": "goods: take the card of this display space",
    "nobuy": "goods: take no card",
    "unit": "goods: one unit onto this company's track",
    "enter": "expansion: enter a region with the foremost post of base column N",
    "stop": "expansion: forfeit the remaining points",
    "reward-order": ("expansion: the regions' rewards pounds first (they can pay a capital "
                     "call on the track) or track steps first (the marker stops before a "
                     "call it cannot pay)"),
    "return": "an ousted post goes back to base column N",
    "remove-post": "remove the foremost post of a company's base column from the game",
    "flip": "bookkeeper: flip the book on bookkeeping space N (2 pounds)",
    "noflip": "bookkeeper: flip nothing",
    "ink": "bookkeeper: move the ink jar one book on",
    "halt": "bookkeeper: stop the ink jar here",
    "take": "bookkeeping points: take the book of a book-display space",
    "pounds": "bookkeeping points: the rest as pounds",
    "place": "put a taken book on bookkeeping space N",
}

class NotationError(ValueError):
    """A step or move text / JSON that does not parse."""


class Step(NamedTuple):
    """One small choice: a kind and up to three integer arguments."""

    kind: str
    a: int = -1
    b: int = -1
    c: int = -1

    def args(self) -> tuple[int, ...]:
        return (self.a, self.b, self.c)[: len(KINDS[self.kind])]

    def text(self, cat: Catalogue | None = None) -> str:
        """Canonical text notation, e.g. ``enter KAS 2``."""
        cat = cat or default_catalogue()
        spec = KINDS[self.kind]
        parts = [self.kind]
        for (_, typ), value in zip(spec, self.args(), strict=True):
            parts.append(_format(cat, typ, value, self))
        return " ".join(parts)

    def to_json(self, cat: Catalogue | None = None) -> dict[str, Any]:
        cat = cat or default_catalogue()
        out: dict[str, Any] = {"kind": self.kind}
        for (name, typ), value in zip(KINDS[self.kind], self.args(), strict=True):
            text = _format(cat, typ, value, self)
            out[name] = text.split("+") if typ == "cards" else (
                int(text) if typ in _INT_TYPES and text != "-" else text)
        return out

    @staticmethod
    def parse(text: str, cat: Catalogue | None = None) -> Step:
        cat = cat or default_catalogue()
        words = text.split()
        if not words:
            raise NotationError("empty step")
        kind, rest = words[0], words[1:]
        if kind not in KINDS:
            raise NotationError(f"unknown step kind {kind!r}")
        spec = KINDS[kind]
        if len(rest) != len(spec):
            raise NotationError(
                f"{kind!r} takes {len(spec)} argument(s) ({', '.join(n for n, _ in spec)}), "
                f"got {len(rest)}")
        return _build(cat, kind, spec, rest)

    @staticmethod
    def from_json(obj: Any, cat: Catalogue | None = None) -> Step:
        cat = cat or default_catalogue()
        if not isinstance(obj, dict) or "kind" not in obj:
            raise NotationError("a step is an object with a 'kind' field")
        kind = obj["kind"]
        if kind not in KINDS:
            raise NotationError(f"kind: unknown step kind {kind!r}")
        spec = KINDS[kind]
        words = []
        for name, typ in spec:
            if name not in obj:
                raise NotationError(f"{name}: missing for step kind {kind!r}")
            value = obj[name]
            if typ == "cards":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise NotationError(f"{name}: expected a list of card names")
                words.append("+".join(value))
            else:
                words.append(str(value))
        extra = set(obj) - {"kind"} - {n for n, _ in spec}
        if extra:
            raise NotationError(f"{sorted(extra)[0]}: unexpected field for step kind {kind!r}")
        return _build(cat, kind, spec, words)


# reward-order: which comes first when an expansion's rewards are collected.
REWARD_ORDERS = ("pounds", "track")

_INT_TYPES = frozenset({"tile", "slot", "deck", "column", "bkspace", "line"})


def _format(cat: Catalogue, typ: str, value: int, step: Step) -> str:
    if typ == "company":
        return cat.companies[value].id
    if typ == "track":
        return cat.tracks[value].id
    if typ == "card":
        return cat.cards[value].name
    if typ == "cards":
        return "+".join(cat.cards[i].name for i in bits(value))
    if typ == "dspace":
        return cat.display_space_name(value)
    if typ == "bspace":
        return cat.book_space_name(value)
    if typ == "book":
        return cat.books[value].name
    if typ == "player":
        return f"P{value + 1}"
    if typ == "tile":
        return "?" if value == HIDDEN else str(cat.starting_tiles[value].id)
    if typ in ("slot", "column"):
        return str(value + 1)
    if typ == "deck":
        return "-" if value < 0 else str(value + 1)
    if typ == "region":
        return cat.regions[value].id
    if typ == "bkspace":
        return str(value)
    if typ == "bonus":
        return cat.bonus_spaces[value].id
    if typ == "line":
        return str(cat.bonus_spaces[step.a].lines[value].minimum)
    if typ == "order":
        return REWARD_ORDERS[value]
    raise AssertionError(typ)


def _parse_arg(cat: Catalogue, typ: str, word: str, kind: str, args: Sequence[int]) -> int:
    try:
        if typ == "company":
            return cat.company_index(word)
        if typ == "track":
            return next(t.index for t in cat.tracks if t.id == word)
        if typ == "card":
            return cat.card_index(word)
        if typ == "cards":
            mask = 0
            for name in word.split("+"):
                mask |= 1 << cat.card_index(name)
            return mask
        if typ == "dspace":
            return cat.display_space_index(word)
        if typ == "bspace":
            return cat.book_space_index(word)
        if typ == "book":
            return cat.book_index(word)
        if typ == "player":
            if not word.startswith("P"):
                raise ValueError("players are written P1..P4")
            return _in_range(_num(word[1:]), 1, 4) - 1
        if typ == "tile":
            if word == "?":
                return HIDDEN  # a tile dealt face down to another seat at a live table
            tid = _num(word)
            return next(i for i, t in enumerate(cat.starting_tiles) if t.id == tid)
        if typ == "slot":
            return _in_range(_num(word), 1, cat.max_slots) - 1
        if typ == "column":
            return _in_range(_num(word), 1, cat.base_columns) - 1
        if typ == "deck":
            return -1 if word == "-" else _in_range(_num(word), 1, cat.max_slots) - 1
        if typ == "region":
            return cat.region_index(word)
        if typ == "bkspace":
            return _in_range(_num(word), 0, len(cat.bookkeeping_values) - 1)
        if typ == "bonus":
            return next(b.index for b in cat.bonus_spaces if b.id == word)
        if typ == "order":
            return REWARD_ORDERS.index(word)
        if typ == "line":
            space = cat.bonus_spaces[args[0]]
            minimum = _num(word)
            return next(i for i, ln in enumerate(space.lines) if ln.minimum == minimum)
    except (KeyError, ValueError, StopIteration, IndexError) as exc:
        raise NotationError(f"{kind}: cannot read {word!r} as a {typ}: {exc}") from None
    raise AssertionError(typ)


def _num(word: str) -> int:
    """A plain decimal number as written by the notation (no sign, no other digits)."""
    if not (word.isascii() and word.isdigit()):
        raise ValueError("expected a plain number")
    return int(word)


def _in_range(value: int, lo: int, hi: int) -> int:
    if not lo <= value <= hi:
        raise ValueError(f"must be between {lo} and {hi}")
    return value


def _build(cat: Catalogue, kind: str, spec: tuple[tuple[str, str], ...],
           words: Sequence[str]) -> Step:
    args: list[int] = []
    for (_, typ), word in zip(spec, words, strict=True):
        args.append(_parse_arg(cat, typ, word, kind, args))
    return Step(kind, *args)


class Move(NamedTuple):
    """A player's whole turn: the steps one decider takes in a row.

    Text form: steps joined by ``"; "``. ``player`` is the seat's index (-1: chance);
    the repr names it P1-P4.

    >>> Move(1, (Step("ready"),))
    Move(P2, steps=(Step(kind='ready', a=-1, b=-1, c=-1),))
    """

    player: int
    steps: tuple[Step, ...]

    def __repr__(self) -> str:
        who = "chance" if self.player < 0 else f"P{self.player + 1}"
        return f"Move({who}, steps={self.steps!r})"

    def text(self, cat: Catalogue | None = None) -> str:
        return "; ".join(s.text(cat) for s in self.steps)

    def to_json(self, cat: Catalogue | None = None) -> dict[str, Any]:
        who: int | str = "chance" if self.player < 0 else self.player + 1
        return {"player": who, "steps": [s.to_json(cat) for s in self.steps]}

    @staticmethod
    def parse(player: int, text: str, cat: Catalogue | None = None) -> Move:
        parts = [p.strip() for p in text.split(";") if p.strip()]
        if not parts:
            raise NotationError("empty move")
        return Move(player, tuple(Step.parse(p, cat) for p in parts))

    @staticmethod
    def from_json(obj: Any, cat: Catalogue | None = None) -> Move:
        if not isinstance(obj, dict) or "steps" not in obj or "player" not in obj:
            raise NotationError("a move is an object with 'player' and 'steps'")
        if not isinstance(obj["steps"], list) or not obj["steps"]:
            raise NotationError("steps: expected a non-empty list")
        player = obj["player"]
        if player == "chance":
            player = 0  # chance moves are stored with player -1
        elif isinstance(player, bool) or not isinstance(player, int) or not 1 <= player <= 4:
            raise NotationError("player: expected a seat number 1..4 or 'chance'")
        return Move(player - 1, tuple(Step.from_json(s, cat) for s in obj["steps"]))
