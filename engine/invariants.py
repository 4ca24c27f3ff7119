"""Consistency checks of a :class:`~engine.state.State`: conservation of posts, cards and
books, and the ranges of every counter.

:func:`check_invariants` returns human-readable violations, each naming the invariant
it breaks (an empty list means the state is consistent). It is meant for tests, fuzzing
and debugging; the rules code never calls it.

>>> import engine
>>> s = engine.new_game(players=2, seed=1)
>>> check_invariants(s)
[]
>>> broken = s.clone()
>>> broken.player_mut(0).cash = -3
>>> check_invariants(broken)
['P1 cash is negative (-3)']
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.rules import PENDING
from engine.rules.pending import LIST_TYPES, THEN
from engine.state import DEAD, HIDDEN, OVER, State, bits
from engine.tables import tables

# Work items that may stand first in ``todo`` of a state handed out by the rules: a
# decision or a chance event.
_FIRST_OPS = frozenset(op for op, p in PENDING.items() if p.entry != THEN)

# Operation -> (the index in its item of the companies whose ousted trading posts are on
# their way home, whether it holds several or one).
_POSTS_HOME = {op: (p.arg_index(p.posts_home), dict(p.fields)[p.posts_home] in LIST_TYPES)
               for op, p in PENDING.items() if p.posts_home}


def check_invariants(s: State) -> list[str]:
    """Every invariant ``s`` breaks, as readable sentences; ``[]`` when all hold.

    Checked: 15 trading posts per company (base + map + removed + waiting to go home in
    ``todo``); valid base column codes and share values that match them; every card in
    exactly one place and every book in exactly one place (a reserved bonus tile is a
    claim, not a place: it must be backed by the claimant's marker on its space); used
    cards, the +1 tile and flipped books where they belong; cash, pool, ink jar, diamond,
    track and marker counters in range; a pending decision unless the game is over.

    >>> import engine
    >>> s = engine.new_game(players=3, seed=4).clone()
    >>> s.stack &= s.stack - 1          # lose the lowest card of the stack
    >>> s.discard |= 1 << s.cat.card_index("B7")
    >>> check_invariants(s)  # doctest: +NORMALIZE_WHITESPACE
    ['card B7 is in two places: stack and discard',
     'card A1 is nowhere (not in any supply, display, pile or player area)']
    """
    out: list[str] = []
    _check_posts(s, out)
    _check_cards(s, out)
    _check_books(s, out)
    _check_players(s, out)
    _check_flow(s, out)
    return out


# -- trading posts and share values -------------------------------------------------------

def _check_posts(s: State, out: list[str]) -> None:
    cat = s.cat
    t = tables(cat)
    n_comp = len(cat.companies)
    per_company = cat.base_columns * cat.base_spaces
    if len(s.bases) != n_comp:
        out.append(f"bases: {len(s.bases)} companies, expected {n_comp}")
        return
    pending = [0] * n_comp
    for item in s.todo:
        k, several = _POSTS_HOME.get(item[0], (len(item), False))
        if k >= len(item):
            continue
        for o in item[k] if several else (item[k],):
            if 0 <= o < n_comp:
                pending[o] += 1
            else:
                out.append(f"todo item {item!r}: ousted company {o} does not exist")
    on_map = [0] * n_comp
    for r, o in enumerate(s.owners):
        if o == -1:
            continue
        if 0 <= o < n_comp:
            on_map[o] += 1
        else:
            out.append(f"region {cat.regions[r].id} is owned by unknown company {o}")
    for c, comp in enumerate(cat.companies):
        cols = s.bases[c]
        if len(cols) != cat.base_columns:
            out.append(f"base of {comp.id}: {len(cols)} columns, expected {cat.base_columns}")
        in_base = 0
        for k, code in enumerate(cols):
            posts = code & 7
            dead = bool(code & DEAD)
            cap = cat.base_spaces - 1 if dead else cat.base_spaces
            low = 0 if dead else 1
            if code & ~(7 | DEAD) or not low <= posts <= cap or code not in t.column_value:
                out.append(f"base column code of {comp.id} column {k + 1} is invalid ({code}: "
                           f"{posts} posts, rear space {'emptied' if dead else 'kept'})")
            in_base += posts
        removed = s.removed_posts[c]
        if removed < 0:
            out.append(f"removed posts of {comp.id} is negative ({removed})")
        total = in_base + on_map[c] + removed + pending[c]
        if total != per_company:
            out.append(
                f"trading posts of {comp.id}: {total} accounted for, expected {per_company} "
                f"(base {in_base}, map {on_map[c]}, removed {removed}, "
                f"going home {pending[c]})")
        if all(code in t.column_value for code in cols):
            value = sum(t.column_value[code] for code in cols)
            if s.values[c] != value:
                out.append(f"share value of {comp.id} is {s.values[c]}, "
                           f"its base columns give {value}")


# -- cards --------------------------------------------------------------------------------

def _places(s: State) -> list[tuple[str, Iterable[int]]]:
    """(place name, card indices) of every place a card can be."""
    places: list[tuple[str, Iterable[int]]] = [
        ("stack", bits(s.stack)),
        ("discard", bits(s.discard)),
        ("gone", bits(s.gone)),
        ("box", bits(s.box)),
        ("tile supply", bits(s.tile_supply)),
    ]
    for k, c in enumerate(s.display):
        if c != -1:
            places.append((f"display {s.cat.display_space_name(k)}", (c,)))
    for i, p in enumerate(s.players):
        who = f"P{i + 1}"
        places.append((f"{who} hand", bits(p.hand)))
        places.append((f"{who} slots", [c for c in p.slots if c not in (-1, HIDDEN)]))
        places.append((f"{who} tiles", bits(p.tiles)))
        for k, deck in enumerate(p.resting):
            places.append((f"{who} resting deck {k + 1}", deck))
    return places


def _card_name(s: State, c: int) -> str:
    return s.cat.cards[c].name if 0 <= c < s.cat.n_cards else f"#{c}"


def _cards_fast(s: State) -> bool:
    """True when every card is certainly in exactly one place (bit-mask test)."""
    seen = dup = 0
    masks = [s.stack, s.discard, s.gone, s.box, s.tile_supply]
    for c in s.display:
        if c != -1:
            masks.append(1 << c if c >= 0 else -1)
    for p in s.players:
        masks += (p.hand, p.tiles)  # reserved tiles are claims, not places
        for c in p.slots:
            if c >= 0:
                masks.append(1 << c)
            elif c not in (-1, HIDDEN):
                return False
        for deck in p.resting:
            for c in deck:
                masks.append(1 << c if c >= 0 else -1)
    for m in masks:
        if m < 0:
            return False
        dup |= seen & m
        seen |= m
    return not dup and seen == (1 << s.cat.n_cards) - 1


def _check_cards(s: State, out: list[str]) -> None:
    if not _cards_fast(s):
        _card_places(s, out)
    _check_areas(s, out)


def _card_places(s: State, out: list[str]) -> None:
    n_cards = s.cat.n_cards
    where: dict[int, list[str]] = {}
    for name, cards in _places(s):
        for c in cards:
            where.setdefault(c, []).append(name)
    for c in sorted(where):
        if not 0 <= c < n_cards:
            out.append(f"unknown card index {c} in {', '.join(where[c])}")
        elif len(where[c]) > 1:
            places = where[c]
            count = {2: "two", 3: "three", 4: "four"}.get(len(places), str(len(places)))
            out.append(f"card {_card_name(s, c)} is in {count} places: "
                       f"{' and '.join(places)}")
    for c in range(n_cards):
        if c not in where:
            out.append(f"card {_card_name(s, c)} is nowhere "
                       f"(not in any supply, display, pile or player area)")


def _check_areas(s: State, out: list[str]) -> None:
    cat = s.cat
    t = tables(cat)
    for i, p in enumerate(s.players):
        who = f"P{i + 1}"
        area = 0
        for c in p.slots:
            if c >= 0:
                area |= 1 << c
        stray = p.used & ~(area | p.tiles)
        for c in bits(stray):
            out.append(f"{who} used card {_card_name(s, c)} is not in {who}'s slots or tiles")
        if p.plus1_on != -1 and not (p.plus1_on >= 0 and (area >> p.plus1_on) & 1):
            out.append(f"{who} +1 tile lies on {_card_name(s, p.plus1_on)}, "
                       f"which is not in {who}'s slots")
        if p.plus1_on >= 0 and not (p.tiles >> t.plus1_card) & 1:
            out.append(f"{who} +1 tile is laid on {_card_name(s, p.plus1_on)} "
                       f"but {who} does not hold the +1 tile")
        if len(p.slots) != cat.max_slots or len(p.resting) != cat.max_slots:
            out.append(f"{who} has {len(p.slots)} slots and {len(p.resting)} resting decks, "
                       f"expected {cat.max_slots}")
    tile_mask = t.tile_mask
    for name, mask in (("stack", s.stack), ("discard", s.discard)):
        if mask & tile_mask:
            out.append(f"{name} holds bonus tiles "
                       f"{', '.join(_card_name(s, c) for c in bits(mask & tile_mask))}")
    if s.tile_supply & ~tile_mask:
        out.append("tile supply holds cards that are not bonus tiles: "
                   + ", ".join(_card_name(s, c) for c in bits(s.tile_supply & ~tile_mask)))
    for i, p in enumerate(s.players):
        for name, mask in (("tiles", p.tiles), ("reserved", p.reserved)):
            if mask & ~tile_mask:
                out.append(f"P{i + 1} {name} holds cards that are not bonus tiles: "
                           + ", ".join(_card_name(s, c) for c in bits(mask & ~tile_mask)))
    _check_claims(s, out)


def _check_claims(s: State, out: list[str]) -> None:
    """A reserved tile is a claim (docs/rules.md, "Bonus tiles"): the tile stays where it
    is until Preparation. Each claim is backed by the claimant's marker on that tile's
    bonus space, and no tile is claimed twice."""
    space_of = {sp.tile: sp for sp in s.cat.bonus_spaces if sp.kind == "bonus_tile"}
    claimed = 0
    for i, p in enumerate(s.players):
        for c in bits(p.reserved):
            if (claimed >> c) & 1:
                out.append(f"bonus tile {_card_name(s, c)} is reserved by two players")
            claimed |= 1 << c
            sp = space_of.get(c)
            if sp is not None and s.bonus[sp.index] != i:
                out.append(f"P{i + 1} reserved {_card_name(s, c)} without a marker on "
                           f"bonus space {sp.id}")


# -- books --------------------------------------------------------------------------------

def _books_fast(s: State) -> bool:
    """True when every book is certainly in exactly one place (bit-mask test)."""
    seen, dup = s.book_supply, 0
    if seen < 0:
        return False
    items = list(s.book_display) + list(s.turn_books)
    for p in s.players:
        for stack in p.books:
            items.extend(stack)
    for b in items:
        if b == -1:
            continue
        if b < 0:
            return False
        m = 1 << b
        dup |= seen & m
        seen |= m
    return not dup and seen == (1 << len(s.cat.books)) - 1


def _check_books(s: State, out: list[str]) -> None:
    if not _books_fast(s):
        _book_places(s, out)
    _check_flipped(s, out)


def _book_places(s: State, out: list[str]) -> None:
    cat = s.cat
    n_books = len(cat.books)
    where: dict[int, list[str]] = {}

    def put(b: int, place: str) -> None:
        where.setdefault(b, []).append(place)

    for b in bits(s.book_supply):
        put(b, "book supply")
    for k, b in enumerate(s.book_display):
        if b != -1:
            put(b, f"book display {cat.book_space_name(k)}")
    for b in s.turn_books:
        put(b, "books taken this turn")
    for i, p in enumerate(s.players):
        for k, stack in enumerate(p.books):
            for b in stack:
                put(b, f"P{i + 1} bookkeeping space {k}")
    for b in sorted(where):
        if not 0 <= b < n_books:
            out.append(f"unknown book index {b} in {', '.join(where[b])}")
        elif len(where[b]) > 1:
            out.append(f"book {cat.books[b].name} is in {len(where[b])} places: "
                       f"{' and '.join(where[b])}")
    for b in range(n_books):
        if b not in where:
            out.append(f"book {cat.books[b].name} is nowhere")


def _check_flipped(s: State, out: list[str]) -> None:
    cat = s.cat
    for i, p in enumerate(s.players):
        own = 0
        for stack in p.books:
            for b in stack:
                if b >= 0:
                    own |= 1 << b
        for b in bits(p.flipped & ~own):
            out.append(f"P{i + 1} flipped book {_book_name(s, b)} is not on P{i + 1}'s "
                       f"bookkeeping track")
        if len(p.books) != len(cat.bookkeeping_values):
            out.append(f"P{i + 1} has {len(p.books)} book stacks, "
                       f"expected {len(cat.bookkeeping_values)}")
        if p.books and p.books[0]:
            out.append(f"P{i + 1} has books on the starting space of the bookkeeping track")


def _book_name(s: State, b: int) -> str:
    return s.cat.books[b].name if 0 <= b < len(s.cat.books) else f"#{b}"


# -- player counters ------------------------------------------------------------------------

def _check_players(s: State, out: list[str]) -> None:
    cat = s.cat
    t = tables(cat)
    placed = [0] * s.n
    for q in s.bonus:
        if q != -1:
            if 0 <= q < s.n:
                placed[q] += 1
            else:
                out.append(f"a bonus space holds the marker of unknown seat {q}")
    for i, p in enumerate(s.players):
        who = f"P{i + 1}"
        if p.cash < 0:
            out.append(f"{who} cash is negative ({p.cash})")
        if not 0 <= p.ink <= t.bk_last:
            out.append(f"{who} ink jar position {p.ink} is out of range 0..{t.bk_last}")
        if not 0 <= p.diamond <= t.dia_last:
            out.append(f"{who} diamond position {p.diamond} is out of range 0..{t.dia_last}")
        if not 0 <= p.markers <= p.markers_total <= cat.markers_per_colour:
            out.append(f"{who} markers out of range: {p.markers} in front, "
                       f"{p.markers_total} owned, at most {cat.markers_per_colour}")
        elif p.markers + placed[i] != p.markers_total:
            out.append(f"{who} markers: {p.markers} in front + {placed[i]} on bonus spaces "
                       f"!= {p.markers_total} owned")
        for c, comp in enumerate(cat.companies):
            tr = s.tracks[c]
            if tr < 0:
                if p.track[c] != 0:
                    out.append(f"{who} marker on the {comp.id} track at {p.track[c]} "
                               f"before the track is dealt")
                continue
            last = cat.tracks[tr].last
            if not 0 <= p.track[c] <= last:
                out.append(f"{who} marker on the {comp.id} track at {p.track[c]}, "
                           f"out of range 0..{last}")


# -- game flow ----------------------------------------------------------------------------

def _check_flow(s: State, out: list[str]) -> None:
    if s.pool < 0:
        out.append(f"bookkeeping pool is negative ({s.pool})")
    if s.phase == OVER:
        if s.todo:
            out.append(f"the game is over but work is pending: {s.todo[0]!r}")
        return
    if not s.todo:
        out.append("the game is not over but nothing is pending")
    elif s.todo[0][0] not in _FIRST_OPS:
        out.append(f"first pending item {s.todo[0]!r} is neither a decision nor chance")
    dealt = [tr for tr in s.tracks if tr >= 0]
    if len(set(dealt)) != len(dealt):
        out.append(f"a company track is dealt twice: {s.tracks}")
