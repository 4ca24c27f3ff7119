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

from functools import cache

from engine import State
from engine.catalogue import KIND_MERCHANT, KIND_SHARE, Catalogue
from engine.rules import measures, tables

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
)
INDEX = {name: i for i, name in enumerate(FEATURES)}


@cache
def _track_fraction(cat: Catalogue) -> tuple[tuple[tuple[int, float], ...], ...]:
    """Per track and position: (share icons held, fraction of the way to the next)."""
    out = []
    for track in cat.tracks:
        held = track.shares_at
        row = []
        for pos in range(len(held)):
            nxt = next((q for q in range(pos + 1, len(held)) if held[q] > held[pos]), None)
            if nxt is None:
                row.append((held[pos], 0.0))
                continue
            prev = min(q for q in range(pos + 1) if held[q] == held[pos])
            row.append((held[pos], (pos - prev) / (nxt - prev) * (held[nxt] - held[pos])))
        out.append(tuple(row))
    return tuple(out)


@cache
def _card_kinds(cat: Catalogue) -> tuple[int, int]:
    """(mask of merchant cards, mask of share cards)."""
    merchant = share = 0
    for c in cat.cards:
        if c.kind == KIND_MERCHANT:
            merchant |= 1 << c.index
        elif c.kind == KIND_SHARE:
            share |= 1 << c.index
    return merchant, share


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


def player_features(s: State) -> list[list[float]]:
    """One feature row (ordered as :data:`FEATURES`) per player."""
    cat = s.cat
    t = tables(cat)
    frac = _track_fraction(cat)
    merchant_mask, share_mask = _card_kinds(cat)
    measure_of, unit_value = t.card_measure, t.card_value
    cards = cat.cards
    ncomp = len(cat.companies)
    room = [sum(code & 7 for code in cols) for cols in s.bases]
    values = s.values
    in_round = s.phase in (1, 2)
    out = []
    for p in s.players:
        owned = p.hand
        for deck in p.resting:
            for card in deck:
                owned |= 1 << card
        for card in p.slots:
            if card >= 0:
                owned |= 1 << card
        card_shares = [0] * ncomp
        m = owned & share_mask
        while m:
            low = m & -m
            card_shares[cards[low.bit_length() - 1].share] += 1
            m ^= low
        share_money = shares = share_room = progress = 0.0
        for c in range(ncomp):
            held, part = frac[s.tracks[c]][p.track[c]]
            n = held + card_shares[c]
            share_money += n * values[c]
            shares += n
            share_room += n * room[c]
            progress += part * values[c]
        own = [0, 0, 0, 0, 0]
        n_cards = 0
        m = owned
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            kind = measure_of[c]
            if kind >= 0:
                own[kind] += unit_value[c]
            n_cards += 1
        now = measures(s, p) if in_round and not p.ended else (0, 0, 0, 0, 0)
        k = p.ink + 1
        books = p.books
        while k < len(books) and books[k]:
            k += 1
        bk = cat.bookkeeping_values
        run_value = bk[k - 1] - bk[p.ink]
        ahead = sum(1 for j in range(p.ink + 1, len(books)) if books[j])
        slots = 3 + (p.diamond >= cat.diamond_slot) + (p.ink >= cat.bookkeeping_slot)
        out.append([
            1.0, float(p.cash), float(cat.diamond_values[p.diamond]), float(bk[p.ink]),
            share_money, shares, share_room, progress,
            float(now[0]), float(now[1]), float(now[2]), float(now[3]), float(now[4]),
            float(own[0]), float(own[1]), float(own[2]), float(own[3]), float(own[4]),
            float(_popcount(owned & merchant_mask)), float(n_cards), float(slots),
            float(run_value), float(ahead), float(p.markers), float(p.ended),
        ])
    return out


def bucket(s: State) -> tuple[int, int, int]:
    """(players, round 1-7, phase 0 planning / 1 actions) the weights are fitted for."""
    return s.n, min(max(s.round, 1), 7), 1 if s.phase == 2 else 0
