"""What the codes of the notation stand for, in words from the catalogue: ``mombasa
play``'s ``c`` command explains every card, company, region and book code in the
current choices and in the player's own view of the board (``kpr2/1``: "bookkeeper
card, 2 bookkeeping points ... P1's starting card"). Only texts the player already
sees are explained, so nothing hidden is named."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import engine


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def card_text(cat: engine.Catalogue, card: Any) -> str:
    """A card (or bonus tile) in words.

    >>> cat = engine.default_catalogue()
    >>> card_text(cat, cat.cards[cat.card_index("kpr2/1")])
    "bookkeeper card: 2 bookkeeping points, 2 crates (P1's starting card)"
    >>> card_text(cat, cat.cards[cat.card_index("A1")])
    'coffee goods card: 2 units, 1 crate (action card, letter A)'
    """
    def company(i: int) -> str:
        return f"{cat.companies[i].name} ({cat.companies[i].id})"

    if card.kind == "goods":
        what = f"{engine.MEASURES[card.good]} goods card: {_plural(card.value, 'unit')}"
    elif card.kind == "expansion":
        what = f"expansion card: {_plural(card.value, 'expansion point')}"
    elif card.kind == "bookkeeper":
        what = f"bookkeeper card: {_plural(card.value, 'bookkeeping point')}"
    elif card.kind == "merchant":
        what = "diamond merchant card" + (f" of {company(card.company)}"
                                          if card.company >= 0 else "")
    elif card.kind == "share":
        what = f"share card of {company(card.company)}"
    elif card.kind == "plus1_goods":
        what = "+1 goods tile: one more unit for a goods card"
    else:
        what = f"{card.kind} card"
    if card.crate:
        what += f", {_plural(card.crate, 'crate')}"
    if card.share >= 0 and card.kind != "share":
        what += f", share icon of {cat.companies[card.share].id}"
    if card.letter == "S":
        return f"{what} (P{card.seat + 1}'s starting card)"
    if card.letter == "T":
        return f"{what} (bonus tile)"
    return f"{what} (action card, letter {card.letter})"


def _book_text(cat: engine.Catalogue, book: Any) -> str:
    from advisor_api.cli_catalogue import reward_text

    needs = " + ".join(f"{engine.MEASURES[m]} {n}" for m, n in book.needs) or "nothing"
    return f"book {book.letter}: needs {needs}; reward {reward_text(cat, book.reward)}"


def _explain(cat: engine.Catalogue, token: str) -> str | None:
    lookups = (
        (cat.card_index, lambda i: card_text(cat, cat.cards[i])),
        (cat.company_index, lambda i: f"company {cat.companies[i].name}"),
        (cat.region_index, lambda i: f"region {cat.regions[i].name}"),
        (cat.book_index, lambda i: _book_text(cat, cat.books[i])),
    )
    for find, describe in lookups:
        try:
            return describe(find(token))
        except KeyError:
            continue
    return None


def explain_codes(cat: engine.Catalogue, texts: Iterable[str]) -> list[tuple[str, str]]:
    """Each code found in ``texts`` once, in order of appearance, with its meaning.

    >>> cat = engine.default_catalogue()
    >>> explain_codes(cat, ["goods cof1/1+cof2/1", "enter HOG 1", "expand MOM"])[1:]
    [('cof2/1', "coffee goods card: 2 units, 1 crate (P1's starting card)"), \
('HOG', 'region Hoggar'), ('MOM', 'company Mombasa')]
    """
    out: dict[str, str] = {}
    for text in texts:
        for token in re.split(r"[\s;+|,:()]+", text):
            if token and token not in out:
                meaning = _explain(cat, token)
                if meaning is not None:
                    out[token] = meaning
    return list(out.items())
