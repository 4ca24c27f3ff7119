"""A readable text summary of a position (for ``mombasa play``), from one player's view.

>>> import engine
>>> s = engine.new_game(players=2, seed=1)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> print(board_text(engine.observe(s, 0).state, 0).splitlines()[0])
Round 0 (setup) - first player P1 - decision: resting-cards of P1
"""

from __future__ import annotations

from engine import HIDDEN, State, bits


def _card(s: State, c: int) -> str:
    if c == HIDDEN:
        return "??"
    return "-" if c < 0 else s.cat.cards[c].name


def _cards(s: State, mask: int) -> str:
    names = [s.cat.cards[c].name for c in bits(mask)]
    return " ".join(names) if names else "-"


def board_text(s: State, me: int) -> str:
    """Plain text: the round, the display, books, companies, then every player."""
    cat = s.cat
    d = s.decision
    who = "chance" if d.player < 0 else f"P{d.player + 1}"
    lines = [f"Round {s.round} ({s.phase_name}) - first player P{s.first + 1} - "
             f"decision: {d.kind} of {who}"]
    display = []
    for i, c in enumerate(s.display):
        if c >= 0:
            display.append(f"{cat.display_space_name(i)} {cat.cards[c].name} "
                           f"({s.card_price(i)})")
    lines.append("Display: " + (", ".join(display) or "empty"))
    books = [f"{cat.book_space_name(i)} {cat.books[b].name}"
             for i, b in enumerate(s.book_display) if b >= 0]
    lines.append("Books:   " + (", ".join(books) or "none"))
    lines.append("Shares:  " + ", ".join(
        f"{c.id} value {s.values[k]}" for k, c in enumerate(cat.companies)))
    for i, p in enumerate(s.players):
        tag = " (you)" if i == me else ""
        tracks = " ".join(f"{c.id}:{p.track[k]}" for k, c in enumerate(cat.companies))
        lines.append(f"P{i + 1}{tag}: {p.cash} pounds, diamonds {p.diamond}, ink {p.ink}, "
                     f"tracks {tracks}, markers {p.markers}/{p.markers_total}"
                     + (", ended" if p.ended else ""))
        slots = " ".join(f"{k + 1}:{_card(s, c)}" for k, c in enumerate(p.slots))
        used = f" (used: {_cards(s, p.used)})" if p.used else ""
        lines.append(f"    hand {_cards(s, p.hand)}")
        lines.append(f"    slots {slots}{used}")
        resting = " | ".join(" ".join(cat.cards[c].name for c in deck) or "-"
                             for deck in p.resting)
        lines.append(f"    resting {resting}")
        if p.tiles:
            lines.append(f"    tiles {_cards(s, p.tiles)}")
    return "\n".join(lines)
