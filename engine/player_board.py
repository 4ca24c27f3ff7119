"""Queries of one player's board that the rules, the search and the service share: the
cards in the action area, the face-up totals book needs and goods count, the open action
slots, display prices and shares held. ``State`` and ``PlayerState`` offer them as
methods; the rules call these functions directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.catalogue import Catalogue
from engine.primitives import bits
from engine.tables import tables

if TYPE_CHECKING:
    from engine.state import PlayerState, State


def available_slots(s: State, p: PlayerState) -> tuple[int, ...]:
    """Action slots the player may fill (3, plus the 4th and 5th once unlocked)."""
    return player_slots(s.cat, p)


def player_slots(cat: Catalogue, p: PlayerState) -> tuple[int, ...]:
    t = tables(cat)
    out = []
    if p.diamond >= cat.diamond_slot:
        out.append(t.extra_left)
    out.extend(t.base_slot_list)
    if p.ink >= cat.bookkeeping_slot:
        out.append(t.extra_right)
    return tuple(out)


def area_cards(p: PlayerState) -> int:
    """Mask of the cards in the action slots."""
    m = 0
    for c in p.slots:
        if c >= 0:
            m |= 1 << c
    return m


def face_up(p: PlayerState) -> int:
    """Mask of face-up (unused) cards and card tiles in the action area."""
    return (area_cards(p) | p.tiles) & ~p.used


def measures(s: State, p: PlayerState) -> tuple[int, int, int, int, int]:
    """Face-up totals: coffee, bananas, cotton units, helmets, bookkeeping points."""
    return player_measures(s.cat, p)


def player_measures(cat: Catalogue, p: PlayerState) -> tuple[int, int, int, int, int]:
    key = (p.slots, p.used, p.tiles, p.plus1_on)
    cached = p._measures
    if cached is not None and cached[0] == key:
        return cached[1]
    t = tables(cat)
    up = face_up(p)
    totals = [0, 0, 0, 0, 0]
    measure_of, values = t.card_measure, t.card_value
    while up:
        low = up & -up
        c = low.bit_length() - 1
        up ^= low
        m = measure_of[c]
        if m >= 0:
            totals[m] += values[c] + (p.plus1_on == c)
    result = (totals[0], totals[1], totals[2], totals[3], totals[4])
    p._measures = (key, result)  # the key makes a stale entry harmless
    return result


def card_price(s: State, space: int) -> int:
    """Price of the card in a display space (not empty): ``Tables.display_price``."""
    return tables(s.cat).display_price[space][s.display[space]]


def display_prices(s: State) -> tuple[int, ...]:
    """Price of every display space (-1 for an empty space), cached per display."""
    t = tables(s.cat)
    prices = t.price_cache.get(s.display)
    if prices is None:
        table = t.display_price
        prices = tuple(-1 if c < 0 else table[d][c] for d, c in enumerate(s.display))
        if len(t.price_cache) > 50_000:
            t.price_cache.clear()
        t.price_cache[s.display] = prices
    return prices


def owned_cards(p: PlayerState) -> int:
    """Mask of the cards the player owns: hand, action slots and resting decks."""
    owned = p.hand | area_cards(p)
    for deck in p.resting:
        for c in deck:
            owned |= 1 << c
    return owned


def share_count(s: State, player: int, company: int) -> int:
    """Shares held: the last share icon reached on the track plus share icons on cards."""
    p = s.players[player]
    track = s.cat.tracks[s.tracks[company]]
    n = track.shares_at[p.track[company]]
    cards = s.cat.cards
    for c in bits(owned_cards(p)):
        if cards[c].share == company:
            n += 1
    return n


