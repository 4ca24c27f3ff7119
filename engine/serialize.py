"""One versioned JSON schema for states, observations, steps and moves.

Components are named as in the catalogue (cards ``B7`` / ``cof2/1``, books ``C03``,
regions, companies ``MOM``...), players are written 1-based. ``load(dump(x)) == x``.

>>> import engine
>>> s = engine.new_game(players=2, seed=5)
>>> state_from_json(state_to_json(s)) == s
True
"""

from __future__ import annotations

from collections.abc import Container
from functools import cache
from typing import Any

from engine.catalogue import Catalogue, default_catalogue, load_catalogue
from engine.invariants import check_invariants
from engine.observation import Observation
from engine.rules import PENDING, ROUNDS
from engine.rules.pending import CHANCE, ENTRY_KEYS, LIST_TYPES, THEN, Pending
from engine.state import (
    ACTIONS,
    DEAD,
    HIDDEN,
    NOBODY,
    OVER,
    PHASE_NAMES,
    PLANNING,
    SETUP,
    PlayerState,
    State,
    bits,
)
from engine.tables import tables

SCHEMA = "mombasa-state/2"
SCHEMA_V1 = "mombasa-state/1"  # read (its "todo" list of interpreter items), not written
OBS_SCHEMA = "mombasa-observation/1"

# Version 2 describes the pending work in game terms: a list of entries, the first being
# the decision due. Each is {"decision": kind, "player": n, ...} for a player's decision,
# {"chance": step kind, ...} for a chance event, or {"then": what, ...} for what the rules
# carry out by themselves once the entries before it are done; the other keys are the
# operation's arguments. All of it is declared with the rules (``engine.rules.PENDING``);
# version 1 wrote the interpreter's items, ``[operation, player, *arguments]``.
_PENDING_OP = {(p.entry, p.name): op for op, p in PENDING.items()}

# The keys of a state, of each player's part and of an observation: any other key is
# refused (a typo would otherwise be silently ignored). Version 1 has "todo" for "pending".
_STATE_KEYS = frozenset({
    "schema", "catalogue", "players", "variable", "phase", "round", "first", "next_first",
    "turn", "player_states", "bases", "owners", "removed_posts", "display", "stack",
    "discard", "gone", "box", "tile_supply", "book_display", "book_coins", "book_supply",
    "round_coins", "bonus", "tracks", "pool", "turn_books", "revealed", "rng"})
_STATE_KEYS_V1 = _STATE_KEYS | {"todo"}
_STATE_KEYS_V2 = _STATE_KEYS | {"pending"}
_PLAYER_KEYS = frozenset({
    "cash", "hand", "slots", "used", "tiles", "reserved", "plus1_on", "resting", "track",
    "diamond", "ink", "books", "flipped", "markers", "markers_total", "tile",
    "tile_options", "ended"})
_OBS_KEYS = frozenset({"schema", "viewer", "state"})

class StateFormatError(ValueError):
    """A JSON state/observation that is malformed or breaks an invariant (names the field)."""


def _card_name(cat: Catalogue, c: int) -> str | None:
    if c == HIDDEN:
        return "hidden"
    return None if c < 0 else cat.cards[c].name


def _names(cat: Catalogue, mask: int) -> list[str]:
    return [cat.cards[c].name for c in bits(mask)]


def _book_names(cat: Catalogue, mask: int) -> list[str]:
    return [cat.books[b].name for b in bits(mask)]


def state_to_json(s: State) -> dict[str, Any]:
    cat = s.cat
    comp = [c.id for c in cat.companies]
    players = []
    for p in s.players:
        players.append({
            "cash": p.cash,
            "hand": _names(cat, p.hand),
            "slots": [_card_name(cat, c) for c in p.slots],
            "used": _names(cat, p.used),
            "tiles": _names(cat, p.tiles),
            "reserved": _names(cat, p.reserved),
            "plus1_on": _card_name(cat, p.plus1_on),
            "resting": [[cat.cards[c].name for c in deck] for deck in p.resting],
            "track": dict(zip(comp, p.track, strict=True)),
            "diamond": p.diamond,
            "ink": p.ink,
            "books": [[cat.books[b].name for b in stack] for stack in p.books],
            "flipped": _book_names(cat, p.flipped),
            "markers": p.markers,
            "markers_total": p.markers_total,
            "tile": _tile_out(cat, p.tile),
            "tile_options": [_tile_out(cat, t) for t in p.tile_options],
            "ended": p.ended,
        })
    return {
        "schema": SCHEMA,
        "catalogue": None if cat is default_catalogue() else cat.path,
        "players": s.n,
        "variable": s.variable,
        "phase": PHASE_NAMES[s.phase],
        "round": s.round,
        "first": s.first + 1,
        "next_first": s.next_first + 1 if s.next_first >= 0 else None,
        "turn": s.turn + 1,
        "player_states": players,
        "bases": {cid: [[code & 7, bool(code & DEAD)] for code in s.bases[i]]
                  for i, cid in enumerate(comp)},
        "owners": {cat.regions[r].id: (comp[o] if o >= 0 else None)
                   for r, o in enumerate(s.owners)},
        "removed_posts": dict(zip(comp, s.removed_posts, strict=True)),
        "display": {cat.display_space_name(i): _card_name(cat, c)
                    for i, c in enumerate(s.display)},
        "stack": _names(cat, s.stack),
        "discard": _names(cat, s.discard),
        "gone": _names(cat, s.gone),
        "box": _names(cat, s.box),
        "tile_supply": _names(cat, s.tile_supply),
        "book_display": {cat.book_space_name(i): (cat.books[b].name if b >= 0 else None)
                         for i, b in enumerate(s.book_display)},
        "book_coins": {cat.book_space_name(i): n for i, n in enumerate(s.book_coins)},
        "book_supply": _book_names(cat, s.book_supply),
        "round_coins": list(s.round_coins),
        "bonus": {cat.bonus_spaces[i].id: (q + 1 if q >= 0 else None)
                  for i, q in enumerate(s.bonus)},
        "tracks": {cid: (cat.tracks[t].id if t >= 0 else None)
                   for cid, t in zip(comp, s.tracks, strict=True)},
        "pending": [_pending_out(cat, it) for it in s.todo],
        "pool": s.pool,
        "turn_books": [cat.books[b].name for b in s.turn_books],
        "revealed": s.revealed,
        "rng": str(s.rng),
    }


def _tile_out(cat: Catalogue, t: int) -> int | str | None:
    if t == HIDDEN:
        return "hidden"
    return None if t < 0 else cat.starting_tiles[t].id


def _pending_out(cat: Catalogue, item: tuple[Any, ...]) -> dict[str, Any]:
    """One work item in game terms (version 2)."""
    p = PENDING[item[0]]
    out: dict[str, Any] = {p.entry: p.name}
    if p.player:
        out["player"] = item[1] + 1
    for (field, kind), value in zip(p.fields, item[p.args_at:], strict=True):
        out[field] = _value_out(cat, kind, value)
    return out


def _value_out(cat: Catalogue, kind: str, v: Any) -> Any:
    if kind == "company":
        return cat.companies[v].id
    if kind == "companies":
        return [cat.companies[c].id for c in v]
    if kind == "regions":
        return [cat.regions[r].id for r in v]
    if kind == "dspace":
        return cat.display_space_name(v)
    if kind == "bspace":
        return None if v < 0 else cat.book_space_name(v)
    if kind in ("seat", "slot"):
        return None if v < 0 else v + 1
    if kind == "card":
        return _card_name(cat, v)
    if kind == "bool":
        return bool(v)
    return v


# -- loading ---------------------------------------------------------------------------

class _Reader:
    def __init__(self, cat: Catalogue) -> None:
        self.cat = cat
        self.card_ix = {c.name: c.index for c in cat.cards}
        self.book_ix = {b.name: b.index for b in cat.books}
        t = tables(cat)
        self.dspace_names = [cat.display_space_name(i) for i in range(t.n_display)]
        self.bspace_names = [cat.book_space_name(i) for i in range(t.n_book_spaces)]
        self.dspace_ix = {name: i for i, name in enumerate(self.dspace_names)}
        self.bspace_ix = {name: i for i, name in enumerate(self.bspace_names)}
        self.regions = [reg.id for reg in cat.regions]
        self.companies = [c.id for c in cat.companies]
        self.bonus_spaces = [sp.id for sp in cat.bonus_spaces]
        self.company_set = frozenset(c.id for c in cat.companies)
        self.region_set = frozenset(self.regions)
        self.bonus_set = frozenset(self.bonus_spaces)

    def card(self, v: Any, field: str) -> int:
        if v is None:
            return -1
        if v == "hidden":
            return HIDDEN
        if not isinstance(v, str) or v not in self.card_ix:
            raise StateFormatError(f"{field}: unknown card {v!r}")
        return self.card_ix[v]

    def cards(self, v: Any, field: str) -> int:
        if not isinstance(v, list):
            raise StateFormatError(f"{field}: expected a list of card names")
        mask = 0
        for i, name in enumerate(v):
            c = self.card(name, f"{field}[{i}]")
            if c < 0:
                raise StateFormatError(f"{field}[{i}]: expected a card name")
            if (mask >> c) & 1:
                raise StateFormatError(f"{field}[{i}]: card {name!r} listed twice")
            mask |= 1 << c
        return mask

    def book(self, v: Any, field: str, optional: bool = False) -> int:
        if v is None and optional:
            return -1
        if not isinstance(v, str) or v not in self.book_ix:
            raise StateFormatError(f"{field}: unknown book {v!r}")
        return self.book_ix[v]

    def books(self, v: Any, field: str) -> int:
        if not isinstance(v, list):
            raise StateFormatError(f"{field}: expected a list of book names")
        mask = 0
        for i, name in enumerate(v):
            mask |= 1 << self.book(name, f"{field}[{i}]")
        return mask


@cache
def _reader(cat: Catalogue) -> _Reader:
    """The name lookups of a catalogue (built once: a catalogue never changes)."""
    return _Reader(cat)


def _list(v: Any, field: str) -> list[Any]:
    if not isinstance(v, list):
        raise StateFormatError(f"{field}: expected a list, got {type(v).__name__}")
    return v


def _bool(v: Any, field: str) -> bool:
    if not isinstance(v, bool):
        raise StateFormatError(f"{field}: expected true or false, got {v!r}")
    return v


def _int(v: Any, field: str, lo: int = 0, hi: int = 1 << 62) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise StateFormatError(f"{field}: expected an integer, got {v!r}")
    if not lo <= v <= hi:
        raise StateFormatError(f"{field}: must be between {lo} and {hi}, got {v}")
    return v


def _known_keys(obj: Any, allowed: Container[str], field: str, what: str = "key") -> None:
    """Refuse any key of the object ``obj`` (at ``field``) that is not ``allowed``:
    ``display.Q9: unknown display space``."""
    if not isinstance(obj, dict):
        raise StateFormatError(f"{field or 'state'}: expected an object")
    for key in obj:
        if key not in allowed:
            raise StateFormatError(f"{field}.{key}: unknown {what}" if field
                                   else f"{key}: unknown {what}")


def _get(obj: dict[str, Any], key: str, field: str) -> Any:
    if not isinstance(obj, dict):
        raise StateFormatError(f"{field}: expected an object")
    if key not in obj:
        raise StateFormatError(f"{field}.{key}: missing" if field else f"{key}: missing")
    return obj[key]


def _tile_in(cat: Catalogue, v: Any, field: str) -> int:
    if v is None:
        return -1
    if v == "hidden":
        return HIDDEN
    if isinstance(v, bool):  # True == 1: not a tile id
        raise StateFormatError(f"{field}: unknown starting tile {v!r}")
    for i, t in enumerate(cat.starting_tiles):
        if t.id == v:
            return i
    raise StateFormatError(f"{field}: unknown starting tile {v!r}")


def state_from_json(obj: Any, catalogue: Catalogue | None = None, check: bool = True) -> State:
    """Build a state from its JSON form; raises :class:`StateFormatError` naming the field
    (or, with ``check``, the first invariant it breaks: a card in two places...)."""
    version, queue = _schema(obj)
    cat = _catalogue_of(obj, catalogue)
    r = _reader(cat)
    s = State.__new__(State)
    s._legal = None
    s._decision = None
    s.cat = cat
    _seats_in(s, obj)
    s.players = _players_in(r, obj, s.n)
    _posts_in(s, r, obj)
    _cards_and_books_in(s, r, obj)
    paths = _queue_in(s, r, obj, version)
    s.pool = _int(_get(obj, "pool", ""), "pool", 0, 99)
    s.turn_books = tuple(r.book(b, f"turn_books[{i}]")
                         for i, b in enumerate(_list(_get(obj, "turn_books", ""), "turn_books")))
    s.revealed = _bool(_get(obj, "revealed", ""), "revealed")
    rng = _get(obj, "rng", "")
    if isinstance(rng, bool) or not (isinstance(rng, int) or
                                     (isinstance(rng, str) and rng.isdigit())):
        raise StateFormatError(f"rng: expected an integer string, got {rng!r}")
    s.rng = int(rng)
    if not 0 <= s.rng < 1 << 64:
        raise StateFormatError("rng: must be a 64-bit unsigned integer")
    s._own = 0
    if s.phase != OVER and not s.todo:
        raise StateFormatError(f"{queue}: a game that is not over needs a pending decision")
    if s.todo and PENDING[s.todo[0][0]].entry == THEN:
        raise StateFormatError(f"{queue}[0]: {PENDING[s.todo[0][0]].name!r} is not a "
                               "decision or chance event")
    _check_turn(s, _Paths(paths, version == SCHEMA_V1))
    if check:
        broken = check_invariants(s)
        if broken:
            raise StateFormatError(f"invariant: {broken[0]}")
    return s


def _schema(obj: Any) -> tuple[str, str]:
    """The state's schema version and the key of its pending work; refuses unknown keys."""
    if not isinstance(obj, dict):
        raise StateFormatError("state: expected a JSON object")
    version = obj.get("schema")
    if version not in (SCHEMA, SCHEMA_V1):
        raise StateFormatError(f"schema: expected {SCHEMA!r} (or {SCHEMA_V1!r}), "
                               f"got {version!r}")
    queue = "todo" if version == SCHEMA_V1 else "pending"
    other = "pending" if version == SCHEMA_V1 else "todo"
    if other in obj:
        raise StateFormatError(f"{other}: unknown key ({version} lists its pending work "
                               f"under {queue!r})")
    _known_keys(obj, _STATE_KEYS_V1 if version == SCHEMA_V1 else _STATE_KEYS_V2, "")
    return version, queue


def _catalogue_of(obj: dict[str, Any], catalogue: Catalogue | None) -> Catalogue:
    """The catalogue given, else the one the state names (else the default)."""
    if catalogue is not None:
        return catalogue
    path = obj.get("catalogue")
    if path is not None and not isinstance(path, str):
        raise StateFormatError("catalogue: expected a file path or null")
    try:
        return load_catalogue(path) if path else default_catalogue()
    except (OSError, ValueError) as exc:
        # No path: the default catalogue, whose error names MOMBASA_CATALOGUE.
        what = f"cannot load {path!r}: " if path else ""
        raise StateFormatError(f"catalogue: {what}{exc}") from None


def _seats_in(s: State, obj: dict[str, Any]) -> None:
    """The number of players, the setup, the phase, the round and the seats of turn order."""
    s.n = _int(_get(obj, "players", ""), "players", 2, 4)
    s.variable = _bool(_get(obj, "variable", ""), "variable")
    phase = _get(obj, "phase", "")
    if phase not in PHASE_NAMES:
        raise StateFormatError(f"phase: one of {', '.join(PHASE_NAMES)}, got {phase!r}")
    s.phase = PHASE_NAMES.index(phase)
    s.round = _int(_get(obj, "round", ""), "round", 0, 7)
    s.first = _int(_get(obj, "first", ""), "first", 1, s.n) - 1
    nf = obj.get("next_first")
    s.next_first = -1 if nf is None else _int(nf, "next_first", 1, s.n) - 1
    s.turn = _int(_get(obj, "turn", ""), "turn", 1, s.n) - 1


def _players_in(r: _Reader, obj: dict[str, Any], n: int) -> tuple[PlayerState, ...]:
    pls = _get(obj, "player_states", "")
    if not isinstance(pls, list) or len(pls) != n:
        raise StateFormatError(f"player_states: expected a list of {n} players")
    return tuple(_player_in(r, pj, f"player_states[{i}]") for i, pj in enumerate(pls))


def _player_in(r: _Reader, pj: Any, f: str) -> PlayerState:
    """One player's part (at path ``f``)."""
    cat = r.cat
    t = tables(cat)
    _known_keys(pj, _PLAYER_KEYS, f)
    p = PlayerState.__new__(PlayerState)
    p._measures = None
    p.cash = _int(_get(pj, "cash", f), f"{f}.cash")
    p.hand = r.cards(_get(pj, "hand", f), f"{f}.hand")
    slots = _get(pj, "slots", f)
    if not isinstance(slots, list) or len(slots) != cat.max_slots:
        raise StateFormatError(f"{f}.slots: expected {cat.max_slots} entries")
    p.slots = tuple(r.card(c, f"{f}.slots[{k}]") for k, c in enumerate(slots))
    p.used = r.cards(_get(pj, "used", f), f"{f}.used")
    p.tiles = r.cards(_get(pj, "tiles", f), f"{f}.tiles")
    p.reserved = r.cards(_get(pj, "reserved", f), f"{f}.reserved")
    p.plus1_on = r.card(_get(pj, "plus1_on", f), f"{f}.plus1_on")
    resting = _get(pj, "resting", f)
    if not isinstance(resting, list) or len(resting) != cat.max_slots:
        raise StateFormatError(f"{f}.resting: expected {cat.max_slots} decks")
    p.resting = tuple(
        tuple(_real_card(r, c, f"{f}.resting[{k}][{j}]")
              for j, c in enumerate(_list(deck, f"{f}.resting[{k}]")))
        for k, deck in enumerate(resting)
    )
    track = _get(pj, "track", f)
    _known_keys(track, r.company_set, f"{f}.track", "company")
    p.track = tuple(_int(_get(track, cid, f"{f}.track"), f"{f}.track.{cid}", 0, 99)
                    for cid in r.companies)
    p.diamond = _int(_get(pj, "diamond", f), f"{f}.diamond", 0, t.dia_last)
    p.ink = _int(_get(pj, "ink", f), f"{f}.ink", 0, t.bk_last)
    books = _get(pj, "books", f)
    if not isinstance(books, list) or len(books) != len(cat.bookkeeping_values):
        raise StateFormatError(
            f"{f}.books: expected {len(cat.bookkeeping_values)} book stacks")
    p.books = tuple(tuple(r.book(b, f"{f}.books[{k}][{j}]")
                          for j, b in enumerate(_list(st, f"{f}.books[{k}]")))
                    for k, st in enumerate(books))
    p.flipped = r.books(_get(pj, "flipped", f), f"{f}.flipped")
    p.markers = _int(_get(pj, "markers", f), f"{f}.markers", 0, cat.markers_per_colour)
    p.markers_total = _int(_get(pj, "markers_total", f), f"{f}.markers_total", 0,
                           cat.markers_per_colour)
    p.tile = _tile_in(cat, _get(pj, "tile", f), f"{f}.tile")
    p.tile_options = tuple(
        _tile_in(cat, x, f"{f}.tile_options[{k}]")
        for k, x in enumerate(_list(_get(pj, "tile_options", f), f"{f}.tile_options")))
    p.ended = _bool(_get(pj, "ended", f), f"{f}.ended")
    return p


def _posts_in(s: State, r: _Reader, obj: dict[str, Any]) -> None:
    """The trading posts: the companies' bases (and their share values), the map's owners
    and the posts removed."""
    cat = r.cat
    t = tables(cat)
    comp = r.companies
    bases = _get(obj, "bases", "")
    _known_keys(bases, r.company_set, "bases", "company")
    out_bases = []
    for cid in comp:
        cols = _get(bases, cid, "bases")
        if not isinstance(cols, list) or len(cols) != cat.base_columns:
            raise StateFormatError(f"bases.{cid}: expected {cat.base_columns} columns")
        codes = []
        for k, col in enumerate(cols):
            if not isinstance(col, list) or len(col) != 2:
                raise StateFormatError(f"bases.{cid}[{k}]: expected [posts, rear_emptied]")
            dead = _bool(col[1], f"bases.{cid}[{k}][1]")
            cap = cat.base_spaces - 1 if dead else cat.base_spaces
            posts = _int(col[0], f"bases.{cid}[{k}][0]", 0 if dead else 1, cap)
            codes.append(posts | (DEAD if dead else 0))
        out_bases.append(tuple(codes))
    s.bases = tuple(out_bases)
    s.values = tuple(sum(t.column_value[c] for c in cols) for cols in s.bases)
    owners = _get(obj, "owners", "")
    _known_keys(owners, r.region_set, "owners", "region")
    s.owners = tuple(_company_or_none(comp, _get(owners, reg, "owners"), f"owners.{reg}")
                     for reg in r.regions)
    rp = _get(obj, "removed_posts", "")
    _known_keys(rp, r.company_set, "removed_posts", "company")
    s.removed_posts = tuple(_int(_get(rp, cid, "removed_posts"), f"removed_posts.{cid}", 0, 15)
                            for cid in comp)


def _cards_and_books_in(s: State, r: _Reader, obj: dict[str, Any]) -> None:
    """The card display and piles, the book display, its coins and supply, the round
    track's coins, the bonus spaces and the company tracks dealt."""
    cat = r.cat
    disp = _get(obj, "display", "")
    _known_keys(disp, r.dspace_ix, "display", "display space")
    s.display = tuple(r.card(_get(disp, name, "display"), f"display.{name}")
                      for name in r.dspace_names)
    for key in ("stack", "discard", "gone", "box", "tile_supply"):
        setattr(s, key, r.cards(_get(obj, key, ""), key))
    bd = _get(obj, "book_display", "")
    _known_keys(bd, r.bspace_ix, "book_display", "book space")
    s.book_display = tuple(r.book(_get(bd, name, "book_display"), f"book_display.{name}",
                                  optional=True)
                           for name in r.bspace_names)
    bc = _get(obj, "book_coins", "")
    _known_keys(bc, r.bspace_ix, "book_coins", "book space")
    s.book_coins = tuple(_int(_get(bc, name, "book_coins"), f"book_coins.{name}", 0, 10)
                         for name in r.bspace_names)
    s.book_supply = r.books(_get(obj, "book_supply", ""), "book_supply")
    rc = _get(obj, "round_coins", "")
    if not isinstance(rc, list) or len(rc) != len(cat.round_coins[s.n]):
        raise StateFormatError("round_coins: expected one count per round-track space 2..7")
    s.round_coins = tuple(_int(v, f"round_coins[{i}]", 0, 2) for i, v in enumerate(rc))
    bonus = _get(obj, "bonus", "")
    _known_keys(bonus, r.bonus_set, "bonus", "bonus space")
    s.bonus = tuple(
        -1 if (v := _get(bonus, sp.id, "bonus")) is None else _int(v, f"bonus.{sp.id}", 1, s.n) - 1
        for sp in cat.bonus_spaces
    )
    tracks = _get(obj, "tracks", "")
    _known_keys(tracks, r.company_set, "tracks", "company")
    track_ids = {tr.id: tr.index for tr in cat.tracks}
    tl = []
    for cid in r.companies:
        v = _get(tracks, cid, "tracks")
        if v is None:
            tl.append(-1)
        elif isinstance(v, str) and v in track_ids:
            tl.append(track_ids[v])
        else:
            raise StateFormatError(f"tracks.{cid}: unknown track {v!r}")
    s.tracks = tuple(tl)


def _queue_in(s: State, r: _Reader, obj: dict[str, Any], version: str) -> list[str]:
    """The pending work (version 1's items or version 2's entries) into ``s.todo``;
    returns the path of each item in the file."""
    if version == SCHEMA_V1:
        queue = "todo"
        todo = _get(obj, "todo", "")
        if not isinstance(todo, list):
            raise StateFormatError("todo: expected a list of work items")
        s.todo = tuple(_item_in(it, f"todo[{i}]", s.n) for i, it in enumerate(todo))
    else:
        queue = "pending"
        pending = _get(obj, "pending", "")
        if not isinstance(pending, list):
            raise StateFormatError("pending: expected a list")
        s.todo = tuple(_pending_in(r, it, f"pending[{i}]", s.n)
                       for i, it in enumerate(pending))
    paths = [f"{queue}[{i}]" for i in range(len(s.todo))]
    todo_then = s.todo
    s.todo = _simultaneous_planning(s.todo, s.first, s.n)
    if s.todo != todo_then:  # the seats added stand for the first entry
        added = len(s.todo) - len(todo_then)
        paths[1:1] = [paths[0]] * added
    return paths


def _simultaneous_planning(todo: tuple[Any, ...], first: int, n: int) -> tuple[Any, ...]:
    """Files written before Planning was simultaneous queue only the seat planning now
    (the seats after it were queued as each became ready); queue them all, as today,
    with the reveal after the last (the same game: each seat still plans in turn)."""
    if not todo or todo[0][0] != "plan" or any(item[0] == "reveal" for item in todo):
        return todo
    seat = todo[0][1]
    later = []
    k = (seat + 1) % n
    while k != first:
        later.append(("plan", k, -1))
        k = (k + 1) % n
    return (todo[0], *later, ("reveal",)) + todo[1:]


class _Paths:
    """Where each pending item and its parts stand in the file: ``pending[3].player`` (or
    version 1's ``todo[3][1]``)."""

    def __init__(self, paths: list[str], v1: bool) -> None:
        self.queue = "todo" if v1 else "pending"
        self.items = paths
        self.v1 = v1

    def player(self, i: int) -> str:
        return f"{self.items[i]}[1]" if self.v1 else f"{self.items[i]}.player"

    def arg(self, i: int, p: Pending, field: str) -> str:
        return f"{self.items[i]}[{p.arg_index(field)}]" if self.v1 else f"{self.items[i]}.{field}"


def _check_turn(s: State, at: _Paths) -> None:
    """Whose turn it is agrees with the phase and the pending work, as the rules keep it
    (engine/rules): raises :class:`StateFormatError` naming the field.

    * Setup (round 0): no turn has begun, so ``turn`` and ``first`` are seat 1 and
      ``next_first`` is null.
    * Planning (rounds 1-7): nobody has ended an action phase yet and ``next_first`` is
      null (the new round took it over).
    * Action phase (rounds 1-7): every entry with a player is the turn player's (only
      the turn player acts; its action's work all stays its own), and that seat has not
      ended its action phase; ``next_first`` is not ``first`` (the first player may not
      take the first-player space).
    * Over: after round 7, nothing pending.
    * The pending entries as their declarations say (``engine.rules.PENDING``): which
      may be pending in the phase, those each seat has once (the starting tile, resting
      cards, starting bonus, plan), arguments the phase decides (an action passes the
      turn, a starting bonus does not), the action decision only ever first, and the
      reveal after the seats still planning, with nothing after it.
    """
    if s.phase == OVER:
        if s.round != ROUNDS:
            raise StateFormatError(f"round: the game is over after round {ROUNDS}, "
                                   f"got {s.round}")
        if s.todo:
            raise StateFormatError(f"{at.queue}: the game is over, nothing is pending")
        return
    _check_round_and_seats(s)
    _check_entries(s, at)
    if s.phase == ACTIONS:
        _check_turn_player(s, at)


def _check_round_and_seats(s: State) -> None:
    """The round, the seats of turn order and the ended action phases agree with the
    phase (setup, planning or actions)."""
    phase = PHASE_NAMES[s.phase]
    if s.phase == SETUP:
        if s.round != 0:
            raise StateFormatError(f"round: must be 0 during setup, got {s.round}")
        for name, seat in (("turn", s.turn), ("first", s.first)):
            if seat != 0:
                raise StateFormatError(f"{name}: must be 1 during setup (no turn has "
                                       f"begun), got {seat + 1}")
    elif s.round < 1:
        raise StateFormatError(f"round: must be 1 to {ROUNDS} during {phase}, got {s.round}")
    if s.phase in (SETUP, PLANNING):
        if s.next_first != NOBODY:
            raise StateFormatError(f"next_first: must be null during {phase} (the "
                                   "first-player space is taken in the action phase)")
        for i, p in enumerate(s.players):
            if p.ended:
                raise StateFormatError(f"player_states[{i}].ended: no seat has ended its "
                                       f"action phase during {phase}")
    elif s.next_first == s.first:
        raise StateFormatError("next_first: the first player may not take the "
                               "first-player space (next_first equals first)")


def _check_entries(s: State, at: _Paths) -> None:
    """Each pending entry as its declaration says (``engine.rules.PENDING``)."""
    phase = PHASE_NAMES[s.phase]
    seen: set[tuple[str, int]] = set()
    for i, item in enumerate(s.todo):
        p = PENDING[item[0]]
        if s.phase not in p.phases:
            raise StateFormatError(f"{at.items[i]}: {p.name!r} is never pending "
                                   f"during {phase}")
        if p.once_per_seat:
            if (p.op, item[1]) in seen:
                raise StateFormatError(f"{at.player(i)}: seat {item[1] + 1} has two "
                                       f"{p.name!r} entries")
            seen.add((p.op, item[1]))
        for fixed in p.fixed:
            if fixed.phase == s.phase and item[p.arg_index(fixed.field)] != fixed.value:
                raise StateFormatError(f"{at.arg(i, p, fixed.field)}: must be {fixed.must}")
    ops = [item[0] for item in s.todo]
    for p in _CLOSING:
        if s.phase not in p.phases:
            continue
        if p.op not in ops:
            raise StateFormatError(f"{at.queue}: during {phase} the {p.name} follows "
                                   f"{p.closes}")
        after = ops.index(p.op) + 1
        if after < len(ops):
            raise StateFormatError(f"{at.items[after]}: nothing follows the {p.name} "
                                   f"during {phase}")


# The entries that close the queue of their phases (the reveal, in Planning).
_CLOSING = tuple(p for p in PENDING.values() if p.closes)


def _check_turn_player(s: State, at: _Paths) -> None:
    """In the action phase only the turn player acts: every entry with a player is the
    turn player's, and that seat has not ended its action phase; the action decision is
    only ever first."""
    seated = False
    for i, item in enumerate(s.todo):
        p = PENDING[item[0]]
        if not p.player:
            continue
        seated = True
        if item[1] != s.turn:
            raise StateFormatError(f"{at.player(i)}: P{item[1] + 1}'s entry in the "
                                   f"action phase, but it is P{s.turn + 1}'s turn "
                                   f"(turn {s.turn + 1})")
        if p.first_only and i:
            raise StateFormatError(f"{at.items[i]}: the {p.name} {p.entry} is only ever the "
                                   "first pending entry")
    if seated and s.players[s.turn].ended:
        raise StateFormatError(f"player_states[{s.turn}].ended: P{s.turn + 1} has work "
                               "pending on its turn, so it has not ended its action phase")


def _real_card(r: _Reader, v: Any, field: str) -> int:
    c = r.card(v, field)
    if c < 0:
        raise StateFormatError(f"{field}: expected a card name")
    return c


def _company_or_none(comp: list[str], v: Any, field: str) -> int:
    if v is None:
        return -1
    if v not in comp:
        raise StateFormatError(f"{field}: unknown company {v!r}")
    return comp.index(v)


def _pending_in(r: _Reader, v: Any, field: str, n: int) -> tuple[Any, ...]:
    """One version-2 entry back to the interpreter's work item."""
    if not isinstance(v, dict):
        raise StateFormatError(f"{field}: expected an object")
    keys = [k for k in ENTRY_KEYS if k in v]
    if len(keys) != 1:
        raise StateFormatError(f"{field}: expected exactly one of 'decision', 'chance', "
                               "'then'")
    key = keys[0]
    op = _PENDING_OP.get((key, v[key])) if isinstance(v[key], str) else None
    if op is None:
        known = sorted(name for k, name in _PENDING_OP if k == key)
        raise StateFormatError(f"{field}.{key}: unknown {v[key]!r} (expected one of "
                               f"{', '.join(known)})")
    p = PENDING[op]
    allowed = {key, *(f for f, _ in p.fields)}
    if p.player:
        allowed.add("player")
    extra = sorted(set(v) - allowed)
    if extra:
        raise StateFormatError(f"{field}.{extra[0]}: unknown key (not a field of "
                               f"{v[key]!r})")
    if p.seatless:
        return (op,)
    player = NOBODY if not p.player else _int(_get(v, "player", field),
                                              f"{field}.player", 1, n) - 1
    out: list[Any] = [op, player]
    for name, kind in p.fields:
        out.append(_value_in(r, kind, _get(v, name, field), f"{field}.{name}", n))
    return tuple(out)


def _value_in(r: _Reader, kind: str, v: Any, field: str, n: int) -> Any:
    cat = r.cat
    try:
        if kind == "company":
            return cat.company_index(v)
        if kind == "companies":
            return tuple(cat.company_index(c) for c in _list(v, field))
        if kind == "regions":
            return tuple(cat.region_index(x) for x in _list(v, field))
    except (KeyError, ValueError, TypeError) as exc:
        raise StateFormatError(f"{field}: {exc.args[0] if exc.args else exc}") from None
    if kind == "dspace":
        if not isinstance(v, str) or v not in r.dspace_ix:
            raise StateFormatError(f"{field}: unknown display space {v!r}")
        return r.dspace_ix[v]
    if kind == "bspace":
        if v is not None and (not isinstance(v, str) or v not in r.bspace_ix):
            raise StateFormatError(f"{field}: unknown book space {v!r}")
        return -1 if v is None else r.bspace_ix[v]
    if kind == "seat":
        return _int(v, field, 1, n) - 1
    if kind == "slot":
        return -1 if v is None else _int(v, field, 1, cat.max_slots) - 1
    if kind == "card":
        return r.card(v, field)
    if kind == "bool":
        return _bool(v, field)
    return _int(v, field, 0, 99)


def _item_in(v: Any, field: str, n: int) -> tuple[Any, ...]:
    """One version-1 item, ``[operation, player, *arguments]`` (its arguments as the
    interpreter keeps them: indices, lists of indices and booleans)."""
    if not isinstance(v, list) or not v or not isinstance(v[0], str):
        raise StateFormatError(f"{field}: expected [operation, player, ...]")
    op = v[0]
    p = PENDING.get(op)
    if p is None or not p.in_v1:
        raise StateFormatError(f"{field}: unknown operation {op!r}")
    if p.seatless:
        if len(v) != 1:
            raise StateFormatError(f"{field}: {op!r} takes no arguments")
        return (op,)
    if len(v) != 2 + len(p.fields):
        raise StateFormatError(f"{field}: {op!r} takes {1 + len(p.fields)} arguments")
    chance = p.entry == CHANCE
    if (v[1] is None) != chance:
        raise StateFormatError(f"{field}[1]: " + ("a chance event has no player (null)"
                                                  if chance else "expected a player number"))
    player = -1 if v[1] is None else _int(v[1], f"{field}[1]", 1, n) - 1
    out: list[Any] = [op, player]
    for j, ((_, kind), value) in enumerate(zip(p.fields, v[2:], strict=True)):
        f = f"{field}[{j + 2}]"
        if kind in LIST_TYPES:
            if not isinstance(value, list):
                raise StateFormatError(f"{f}: expected a list")
            out.append(tuple(_int(x, f, 0, 99) for x in value))
        elif kind == "bool":
            out.append(bool(value))
        else:
            out.append(_int(value, f, -1, 1 << 20))
    return tuple(out)


def observation_to_json(obs: Observation) -> dict[str, Any]:
    return {"schema": OBS_SCHEMA, "viewer": obs.viewer + 1, "state": state_to_json(obs.state)}


def observation_from_json(obj: Any, catalogue: Catalogue | None = None) -> Observation:
    """An observation from its JSON form; paths in errors are the observation's own
    (``schema``, ``viewer``, ``state.display.Q9``, ...)."""
    if not isinstance(obj, dict) or obj.get("schema") != OBS_SCHEMA:
        raise StateFormatError(f"schema: expected {OBS_SCHEMA!r}")
    _known_keys(obj, _OBS_KEYS, "")
    try:
        state = state_from_json(obj.get("state"), catalogue, check=False)
    except StateFormatError as exc:
        msg = str(exc)
        raise StateFormatError(msg if msg.startswith("state:") else f"state.{msg}") from None
    viewer = _int(obj.get("viewer"), "viewer", 1, state.n) - 1
    return Observation(viewer, state)
