"""Lookups derived from a catalogue for the hot paths: card kinds, values and masks,
book letters, base column values, prebuilt steps. Computed once per catalogue.

>>> import engine
>>> t = tables(engine.default_catalogue())
>>> engine.default_catalogue().cards[t.plus1_card].kind
'plus1_goods'
"""

from __future__ import annotations

from functools import cache

from engine.catalogue import (
    KIND_BOOKKEEPER,
    KIND_EXPANSION,
    KIND_GOODS,
    KIND_MERCHANT,
    KIND_PLUS1,
    KIND_SHARE,
    MEASURE_BOOKKEEPING,
    MEASURE_EXPANSION,
    Catalogue,
)
from engine.primitives import DEAD
from engine.steps import Step

_new = tuple.__new__  # builds a Step without NamedTuple's argument handling


class Tables:
    """Lookups derived from a catalogue for the hot paths."""

    def __init__(self, cat: Catalogue) -> None:
        self.card_value = tuple(c.value for c in cat.cards)
        self.card_good = tuple(c.good for c in cat.cards)
        self.card_crate = tuple(c.crate for c in cat.cards)
        # [space][card]: a card's price in a display space is its crate value + the
        # space's modifier, at least 0 (the one definition of a display price).
        self.display_price = tuple(tuple(max(0, crate + m) for crate in self.card_crate)
                                   for m in cat.display_modifiers)
        self.price_cache: dict[tuple[int, ...], tuple[int, ...]] = {}
        # (company, owners) -> every (region, cost) the company could enter, by region
        self.entry_cache: dict[tuple[int, tuple[int, ...]], tuple[tuple[int, int], ...]] = {}
        self.board_spaces = cat.bonus_spaces[: cat.board_bonus_count]
        by_track: dict[int, list[tuple[int, int]]] = {}
        for track, pos, index in cat.track_bonus_at:
            by_track.setdefault(track, []).append((pos, index))
        self.track_bonus_by_track = {k: tuple(v) for k, v in by_track.items()}
        # Which measure (coffee, bananas, cotton, helmets, bookkeeping) a card adds to.
        self.card_measure = tuple(
            c.good if c.kind == KIND_GOODS else MEASURE_EXPANSION if c.kind == KIND_EXPANSION
            else MEASURE_BOOKKEEPING if c.kind == KIND_BOOKKEEPER else -1
            for c in cat.cards
        )
        self.goods_mask = [0, 0, 0]
        self.expansion_mask = 0
        self.keeper_mask = 0
        self.merchant_mask = 0
        self.share_mask = 0
        for c in cat.cards:
            bit = 1 << c.index
            if c.kind == KIND_GOODS:
                self.goods_mask[c.good] |= bit
            elif c.kind == KIND_EXPANSION:
                self.expansion_mask |= bit
            elif c.kind == KIND_BOOKKEEPER:
                self.keeper_mask |= bit
            elif c.kind == KIND_MERCHANT:
                self.merchant_mask |= bit
            elif c.kind == KIND_SHARE:
                self.share_mask |= bit
        self.plus1_card = next(c.index for c in cat.cards if c.kind == KIND_PLUS1)
        self.tile_mask = sum(1 << i for i in cat.tile_cards)
        self.book_letter = tuple(b.letter for b in cat.books)
        self.letter_books = {letter: sum(1 << b.index for b in cat.books if b.letter == letter)
                             for letter in "ABC"}
        self.layer_masks = tuple(
            sum(1 << c for c in cat.action_cards if cat.cards[c].letter == letter)
            for letter in cat.letters
        )
        # Share value of a base column by its code (posts + DEAD flag).
        coins = cat.base_coins
        spaces = cat.base_spaces
        total = sum(coins)
        col_value = {}
        for k in range(spaces + 1):
            col_value[k] = total - sum(coins[spaces - k:]) if k else total
            if k < spaces:
                col_value[k | DEAD] = total - sum(coins[spaces - 1 - k: spaces - 1])
        self.column_value = col_value
        self.full_column = spaces
        self.display_fill_order = tuple(
            col * cat.display_rows + row
            for col in reversed(range(len(cat.display_columns)))
            for row in range(cat.display_rows)
        )
        self.n_display = len(cat.display_columns) * cat.display_rows
        # Prebuilt one-argument steps of the action decision (its legal steps are listed
        # at every node of a search), indexed by their argument.
        size = max(len(cat.cards), self.n_display, len(cat.bonus_spaces), 16)
        self.step1 = {
            kind: tuple(_new(Step, (kind, a, -1, -1)) for a in range(size))
            for kind in ("expand", "keeper", "merchant", "plus1", "end", "buy-card",
                         "remove-card", "reserve", "track-bonus")
        }
        self.n_book_spaces = len(cat.book_columns) * cat.book_rows
        self.bk_last = len(cat.bookkeeping_values) - 1
        self.dia_last = len(cat.diamond_values) - 1
        self.mines_of_region = tuple(r.mines for r in cat.regions)
        self.extra_left = 0  # slot opened by the diamond track
        self.extra_right = cat.max_slots - 1  # slot opened by the bookkeeping track
        self.base_slot_list = tuple(range(1, cat.base_slots + 1))

    # -- base columns: a column's code is its number of posts, plus DEAD once its rear
    # space has been emptied (an emptied rear space is never covered again) ----------
    @staticmethod
    def posts_in(code: int) -> int:
        """Trading posts in a base column with this code."""
        return code & 7

    @staticmethod
    def after_take(code: int) -> int:
        """The column's code after its foremost post leaves for the map."""
        k = (code & 7) - 1
        return k | DEAD if k == 0 or code & DEAD else k

    @staticmethod
    def after_return(code: int) -> int:
        """The column's code after an ousted post comes back to it."""
        return ((code & 7) + 1) | (code & DEAD)

    def room(self, code: int) -> int:
        """How many returning posts the column can still take."""
        cap = self.full_column - 1 if code & DEAD else self.full_column
        return max(0, cap - (code & 7))


@cache
def tables(cat: Catalogue) -> Tables:
    return Tables(cat)
