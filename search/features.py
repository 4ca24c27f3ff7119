"""Per-player features of a position, the inputs of the learned value model.

Each feature is a plain number a player's final money plausibly depends on linearly
(within one round and phase): money already certain (cash, diamonds, bookkeeping passed,
shares times today's share value), what shares may still gain, and the resources still
to be used this round and in the rounds left. :mod:`search.value_model` fits one weight
per feature for every (players, round, phase) bucket from self-play games.

>>> import engine
>>> s = engine.new_game(players=2, seed=0)
>>> rows = player_features(s)
>>> len(rows), len(rows[0]) == len(FEATURES)
(2, True)
>>> rows[0][FEATURES.index("cash")] == s.players[0].cash
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from engine import Catalogue, PlayerState, State, tables

FEATURES: tuple[str, ...] = (
    "bias",
    "cash",
    "diamond_value",
    "bookkeeping_value",
    "share_money",  # shares x current share value, summed over companies
    "shares",  # shares held (track icons and share cards)
    "share_room",  # shares x posts still on the company's bases (room for growth)
    "track_progress",  # part of the way to the next share icon, times the share value
    "now_coffee", "now_bananas", "now_cotton", "now_helmets", "now_bookkeeping",
    "own_coffee", "own_bananas", "own_cotton", "own_helmets", "own_bookkeeping",
    "merchants",  # merchant cards owned
    "cards",  # action cards owned (how diluted the hand is)
    "slots",  # action slots open to the player
    "book_run_value",  # bookkeeping value the run of books after the ink jar offers
    "books_ahead",  # books placed after the ink jar
    "markers",  # bonus markers still in front of the player this round
    "ended",  # has ended the action phase this round
    # Long plans (see docs/search.md, "The learned evaluator"):
    "ink_walk_value",  # bookkeeping value a bookkeeper used now would walk (face-up cards)
    "meetable_run_value",  # value of the run ahead whose needs the owned cards can meet
    "diamond_unlock_gap",  # diamond steps still missing to open the extra slot
    "ink_unlock_gap",  # books still missing for the ink jar to open the extra slot
    "resting_units",  # units of the cards in resting decks (still to come back)
    "merchant_now",  # face-up merchant cards this round
    # Appended after the first shipped model (a model fitted without a feature gives it
    # weight 0: search.value_model), so each set of cards planned is seen to differ by
    # the slots it takes: which cards come back together, and when.
    "comeback_units",  # units of the richest resting deck after this round (comeback_units)
)
INDEX = {name: i for i, name in enumerate(FEATURES)}


@cache
def track_icons(cat: Catalogue) -> tuple[tuple[tuple[int, float, int], ...], ...]:
    """Per track and position: (share icons held, fraction of the way from the first
    space with that many icons to the next icon, icons the next icon adds; 0.0 and 0
    past the last icon). Shared with the hand formula of :mod:`search.evaluator`."""
    out = []
    for track in cat.tracks:
        held = track.shares_at
        row = []
        for pos in range(len(held)):
            nxt = next((q for q in range(pos + 1, len(held)) if held[q] > held[pos]), None)
            if nxt is None:
                row.append((held[pos], 0.0, 0))
                continue
            prev = min(q for q in range(pos + 1) if held[q] == held[pos])
            row.append((held[pos], (pos - prev) / (nxt - prev), held[nxt] - held[pos]))
        out.append(tuple(row))
    return tuple(out)


@cache
def _track_fraction(cat: Catalogue) -> tuple[tuple[tuple[int, float], ...], ...]:
    """Per track and position: (share icons held, part of the next icon reached)."""
    return tuple(tuple((held, frac * gain) for held, frac, gain in row)
                 for row in track_icons(cat))


@cache
def _card_table(cat: Catalogue) -> tuple[tuple[int, int, int, int], ...]:
    """Per card: (measure it adds to or -1, its units, 1 if a merchant, share company
    or -1)."""
    t = tables(cat)
    return tuple(
        (t.card_measure[c.index], t.card_value[c.index], int(c.kind == "merchant"),
         c.share if c.kind == "share" else -1)
        for c in cat.cards
    )


def _own_part(cat: Catalogue, p: PlayerState) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """(features that depend on ``p`` alone, in FEATURES order from "own_coffee" to
    "books_ahead", plus cash/diamond/bookkeeping values; share cards per company)."""
    card_table = _card_table(cat)
    owned = p.owned_cards()
    # One pass over the cards owned: card values per measure, merchants, share cards.
    by_measure: list[list[int]] = [[], [], [], [], []]
    card_shares = [0] * len(cat.companies)
    n_cards = merchants = 0
    m = owned
    while m:
        low = m & -m
        measure, units, merchant, share = card_table[low.bit_length() - 1]
        m ^= low
        if measure >= 0:
            by_measure[measure].append(units)
        elif share >= 0:
            card_shares[share] += 1
        merchants += merchant
        n_cards += 1
    k = p.ink + 1
    books = p.books
    while k < len(books) and books[k]:
        k += 1
    bk = cat.bookkeeping_values
    run_value = bk[k - 1] - bk[p.ink]
    ahead = sum(1 for j in range(p.ink + 1, len(books)) if books[j])
    slots = len(p.available_slots(cat))
    resting = 0
    deck_units = []
    for deck in p.resting:
        units = 0
        for card in deck:
            if card_table[card][0] >= 0:
                units += card_table[card][1]
        deck_units.append(units)
        resting += units
    own = [sum(values) for values in by_measure]
    part = (
        float(own[0]), float(own[1]), float(own[2]), float(own[3]), float(own[4]),
        float(merchants), float(n_cards), float(slots), float(run_value), float(ahead),
        float(p.cash), float(cat.diamond_values[p.diamond]), float(bk[p.ink]),
        float(_meetable_run_value(cat, p, by_measure, slots)),
        float(max(0, cat.diamond_slot - p.diamond)),
        float(max(0, cat.bookkeeping_slot - p.ink)), float(resting),
        float(comeback_units(card_table, p, deck_units)),
    )
    return part, tuple(card_shares)


def comeback_units(card_table: Sequence[tuple[int, int, int, int]], p: PlayerState,
                   deck_units: Sequence[int]) -> int:
    """Units of the richest resting deck once this round's cards have joined theirs:
    what the player can take back at the end of the next round's actions. Before the
    player ends this round, the richest deck now (the first of equals) is taken back
    first and each action slot's card joins the deck above it (rounds-and-planning, "End
    of your action phase": "Pick up one resting deck into your hand", then "move each
    up to the resting deck of its slot"); after, the decks are as they will stay.
    ``deck_units`` are the decks' units now (cards that measure nothing count 0)."""
    if p.ended or not deck_units:
        return max(deck_units, default=0)
    taken = deck_units.index(max(deck_units))
    best = 0
    for k, (units, card) in enumerate(zip(deck_units, p.slots, strict=True)):
        if k == taken:
            units = 0
        if card >= 0:
            measure, card_units = card_table[card][0], card_table[card][1]
            if measure >= 0:
                units += card_units
        if units > best:
            best = units
    return best


def _meetable_run_value(cat: Catalogue, p: PlayerState, by_measure: list[list[int]],
                        slots: int) -> int:
    """Bookkeeping value of the run of books after the ink jar that the player's own
    cards (``by_measure``: the values of the cards owned, per measure) could walk: one
    bookkeeper (the best) plus, per book, the best cards of each needed measure in the
    other slots (books checked one by one, as the rules do)."""
    if not by_measure[4]:
        return 0
    best = [sorted(values, reverse=True) for values in by_measure]
    books = p.books
    k = p.ink
    while k + 1 < len(books) and books[k + 1]:
        top = books[k + 1][-1]
        if not (p.flipped >> top) & 1 and not _cards_meet(cat.books[top].needs, best,
                                                           slots):
            break
        k += 1
    bk = cat.bookkeeping_values
    return bk[k] - bk[p.ink]


def _cards_meet(needs: tuple[tuple[int, int], ...], best: list[list[int]],
                slots: int) -> bool:
    """Whether the best bookkeeper (its own points count for a bookkeeping need) and the
    best cards of each needed measure, in the ``slots - 1`` other slots, meet ``needs``."""
    free = slots - 1
    for measure, amount in needs:
        values = best[measure]
        if measure == 4:
            amount -= values[0]
            values = values[1:]
        for v in values:
            if amount <= 0 or free <= 0:
                break
            amount -= v
            free -= 1
        if amount > 0:
            return False
    return True


def ink_reach(cat: Catalogue, p: PlayerState, have: Sequence[int]) -> int:
    """The furthest bookkeeping space ``p``'s ink jar can walk to with the measures
    ``have`` face up (coffee, bananas, cotton, helmets, bookkeeping points): it enters
    the next book while that book is face down or ``have`` meets each of its needs,
    book by book, and never an empty space."""
    books = p.books
    k = p.ink
    while k + 1 < len(books) and books[k + 1]:
        top = books[k + 1][-1]
        if not (p.flipped >> top) & 1 and not all(
                have[m] >= amount for m, amount in cat.books[top].needs):
            break
        k += 1
    return k


def ink_walk(s: State, p: PlayerState) -> tuple[int, int]:
    """(books, bookkeeping value gained) if ``p`` used a bookkeeper now: the ink jar walks
    while the next book is face down or its needs are met by the face-up cards of the
    action area (as the rules check them, book by book). (0, 0) outside the action phase
    or without a face-up bookkeeper.

    >>> import engine
    >>> s = engine.new_game(players=2, seed=0)
    >>> ink_walk(s, s.players[0])
    (0, 0)
    """
    if s.phase not in (1, 2) or p.ended:
        return 0, 0
    have = p.measures(s.cat)
    if have[4] <= 0:  # no bookkeeper face up
        return 0, 0
    k = ink_reach(s.cat, p, have)
    bk = s.cat.bookkeeping_values
    return k - p.ink, bk[k] - bk[p.ink]


# The last state asked about and its rows: a search's leaf asks twice (the value model,
# then the bookkeeping drive), and states never change, so the same object means the
# same rows.
_last: tuple[State | None, list[list[float]]] = (None, [])


def player_features(s: State) -> list[list[float]]:
    """One feature row (ordered as :data:`FEATURES`) per player. Read-only: the rows of
    the last state asked about are shared with the next caller asking about it."""
    global _last
    last = _last  # read once: another thread may replace it in between
    if last[0] is s:
        return last[1]
    rows = _player_features(s)
    _last = (s, rows)
    return rows


def _player_features(s: State) -> list[list[float]]:
    cat = s.cat
    frac = _track_fraction(cat)
    ncomp = len(cat.companies)
    room = [sum(s.posts(c)) for c in range(len(s.bases))]
    values = s.values
    tracks = s.tracks
    in_round = s.phase in (1, 2)
    merchant_mask = tables(cat).merchant_mask
    out = []
    for p in s.players:
        part, card_shares = _own_part(cat, p)
        share_money = shares = share_room = progress = 0.0
        track = p.track
        for c in range(ncomp):
            held, prog = frac[tracks[c]][track[c]]
            n = held + card_shares[c]
            share_money += n * values[c]
            shares += n
            share_room += n * room[c]
            progress += prog * values[c]
        now = p.measures(s.cat) if in_round and not p.ended else (0, 0, 0, 0, 0)
        merchant_now = 0
        if in_round and not p.ended:
            merchant_now = (p.face_up() & merchant_mask).bit_count()
        out.append([
            1.0, part[10], part[11], part[12],
            share_money, shares, share_room, progress,
            float(now[0]), float(now[1]), float(now[2]), float(now[3]), float(now[4]),
            *part[:10], float(p.markers), float(p.ended),
            float(ink_walk(s, p)[1]), part[13], part[14], part[15], part[16],
            float(merchant_now), part[17],
        ])
    return out


def bucket(s: State) -> tuple[int, int, int]:
    """(players, round 1-7, phase 0 planning / 1 actions) the weights are fitted for."""
    return s.n, min(max(s.round, 1), 7), 1 if s.phase == 2 else 0
