"""Helpers that build game positions for the rules and scenario tests.

Everything here goes through the public API (``engine.new_game``, ``State.apply``,
``Step.parse``) except :func:`with_player` / :func:`with_state`, which replace fields
of a clone. State parts are immutable ints and tuples, so replacing them on a clone
never touches the original state.

Steps are written in the engine's text notation (``engine/steps.py``), so a test reads
like the moves it makes::

    s = play_setup(2, seed=0)
    s = plan(s, {0: ["cof2/1", "kpr2/1"], 1: ["cof1/2"]})
    s = do(s, "goods cof2/1", "nobuy", "unit CAI", "unit CAI")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

import engine
from engine.state import ACTIONS, OVER, PLANNING, State, bits

# Order in which ``area`` fills the action slots: the three base slots, then the slot
# opened on the diamond track (left), then the one opened on the bookkeeping track.
AREA_SLOT_ORDER = (1, 2, 3, 0, 4)


# --------------------------------------------------------------------------- notation


def step(s: State, text: str) -> engine.Step:
    """The step written ``text`` in the engine's notation."""
    return engine.Step.parse(text, s.cat)


def texts(s: State) -> set[str]:
    """The legal steps of the current decision, as notation."""
    return {st.text(s.cat) for st in s.legal_steps()}


def is_legal(s: State, text: str) -> bool:
    return step(s, text) in s.legal_steps()


def card(s: State, name: str) -> int:
    return s.cat.card_index(name)


def cards(s: State, *names: str) -> int:
    """Bit mask of the named cards."""
    mask = 0
    for name in names:
        mask |= 1 << s.cat.card_index(name)
    return mask


def names(s: State, mask: int) -> list[str]:
    """Card names of a bit mask."""
    return [s.cat.cards[c].name for c in bits(mask)]


def company(s: State, ident: str) -> int:
    return s.cat.company_index(ident)


def region(s: State, ident: str) -> int:
    return s.cat.region_index(ident)


def dspace(s: State, name: str) -> int:
    return s.cat.display_space_index(name)


def bspace(s: State, name: str) -> int:
    return s.cat.book_space_index(name)


def book(s: State, name: str) -> int:
    return s.cat.book_index(name)


def bonus(s: State, ident: str) -> int:
    return next(b.index for b in s.cat.bonus_spaces if b.id == ident)


# --------------------------------------------------------------------------- driving


def resolve_chance(s: State) -> State:
    """Draw every pending chance event from the state's own generator."""
    while not s.is_over() and s.decision.kind == "chance":
        s = s.apply(s.sample_chance())
    return s


def do(s: State, *step_texts: str, chance: bool = True) -> State:
    """Apply the steps in order (each must be legal); with ``chance`` the chance events
    that come due after each step are drawn at once."""
    for text in step_texts:
        s = s.apply(step(s, text))
        if chance:
            s = resolve_chance(s)
    return s


def play_setup(players: int = 2, seed: int = 0, variable: bool = False) -> State:
    """A new game played through setup (chance events drawn, each setup decision taken
    with its first legal step) up to the first Planning decision."""
    s = engine.new_game(players=players, seed=seed, variable=variable)
    while s.decision.kind not in ("plan", "over"):
        if s.decision.kind == "chance":
            s = s.apply(s.sample_chance())
        else:
            s = s.apply(s.legal_steps()[0])
    return s


def plan(s: State, plans: Mapping[int, Sequence[str | None]]) -> State:
    """Every player plans (``plan <card> <slot>`` then ``ready``) and the cards are
    revealed: ``plans[player]`` lists card names in slot order over the player's
    available slots (``None`` leaves a slot empty; missing players plan nothing).
    Returns the state at the first decision of the action phase."""
    assert s.phase == PLANNING and s.decision.kind == "plan", s.decision
    while s.phase == PLANNING and s.decision.kind == "plan":
        player = s.decision.player
        available = _available_slots(s, player)
        wanted = list(plans.get(player, ()))
        assert len(wanted) <= len(available), (player, wanted, available)
        for name, slot in zip(wanted, available, strict=False):
            if name is not None:
                s = s.apply(step(s, f"plan {name} {slot + 1}"))
        s = s.apply(step(s, "ready"))
    return resolve_chance(s)


def _available_slots(s: State, player: int) -> list[int]:
    from engine.state import available_slots

    return list(available_slots(s, s.players[player]))


def end_turns(s: State, deck: int | None = None) -> State:
    """Every player still in the action phase ends it (taking resting deck ``deck`` if
    given and legal, else the first legal one), until the action phase is over;
    returns the state at the next Planning decision (or the game's end)."""
    while s.phase == ACTIONS:
        if s.decision.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        assert s.decision.kind == "action", s.decision
        ends = [st for st in s.legal_steps() if st.kind == "end"]
        chosen = next((st for st in ends if st.a == deck), ends[0])
        s = s.apply(chosen)
    while not s.is_over() and s.decision.kind == "chance":
        s = s.apply(s.sample_chance())
    return s


def first_action(players: int = 2, seed: int = 0,
                 plans: Mapping[int, Sequence[str | None]] | None = None) -> State:
    """Setup played, planning done with ``plans`` (default: nobody plans a card):
    the first player's first action decision of round 1."""
    s = play_setup(players, seed)
    return plan(s, plans or {})


@cache
def start(players: int = 2, seed: int = 0) -> State:
    """``first_action(players, seed)`` with empty plans, computed once (states are
    immutable values, so tests may share it)."""
    return first_action(players, seed)


# --------------------------------------------------------------------------- editing


def with_player(s: State, i: int, **fields: Any) -> State:
    """A clone of ``s`` with player ``i``'s fields replaced (see ``PlayerState``)."""
    s2 = s.clone()
    p = s2.player_mut(i)
    for key, value in fields.items():
        if not hasattr(p, key):
            raise AttributeError(f"PlayerState has no field {key!r}")
        setattr(p, key, value)
    s2._own = 0
    return s2


def with_state(s: State, **fields: Any) -> State:
    """A clone of ``s`` with board fields replaced (owners, bases, display, ...)."""
    s2 = s.clone()
    for key, value in fields.items():
        if key.startswith("_") or key not in State.__slots__:
            raise AttributeError(f"State has no field {key!r}")
        setattr(s2, key, value)
    s2._own = 0
    return s2


def area(s: State, *card_names: str) -> tuple[int, ...]:
    """An action-slots tuple holding the named cards (base slots first)."""
    slots = [-1] * s.cat.max_slots
    assert len(card_names) <= len(AREA_SLOT_ORDER)
    for name, k in zip(card_names, AREA_SLOT_ORDER, strict=False):
        slots[k] = s.cat.card_index(name)
    return tuple(slots)


def with_area(s: State, i: int, *card_names: str, **fields: Any) -> State:
    """Player ``i`` has exactly the named cards face up in the action area (taken out of
    the player's hand and resting decks, so every card stays in one place), and the
    other ``fields`` replaced."""
    p = s.players[i]
    moved = cards(s, *card_names)
    resting = tuple(tuple(c for c in deck if not (moved >> c) & 1) for deck in p.resting)
    fields.setdefault("hand", p.hand & ~moved)
    fields.setdefault("resting", resting)
    fields.setdefault("used", 0)
    fields.setdefault("plus1_on", -1)
    return with_player(s, i, slots=area(s, *card_names), **fields)


def at_action(s: State, i: int) -> State:
    """The same position, with player ``i`` to take an action of the action phase."""
    assert s.phase == ACTIONS
    return with_state(s, todo=(("act", i),), turn=i)


def set_owner(s: State, pairs: Mapping[str, str | None]) -> State:
    """Region owners replaced: ``{"OGA": "CAP", "PWA": None}``."""
    owners = list(s.owners)
    for rid, cid in pairs.items():
        owners[s.cat.region_index(rid)] = -1 if cid is None else s.cat.company_index(cid)
    return with_state(s, owners=tuple(owners))


def set_base(s: State, cid: str, columns: Iterable[int]) -> State:
    """Company ``cid``'s base columns replaced (codes: posts, plus ``DEAD`` once the rear
    space is emptied); its share value is recomputed from the catalogue."""
    from engine.tables import tables

    c = s.cat.company_index(cid)
    cols = tuple(columns)
    bases = list(s.bases)
    bases[c] = cols
    values = list(s.values)
    values[c] = sum(tables(s.cat).column_value[code] for code in cols)
    return with_state(s, bases=tuple(bases), values=tuple(values))


def set_display(s: State, spaces: Mapping[str, str | None], clear: bool = False) -> State:
    """Card-display spaces replaced: ``{"R2": "A1", "L1": None}``; with ``clear`` every
    other space is emptied (the removed cards are simply out of play)."""
    disp = [-1] * len(s.display) if clear else list(s.display)
    for sp, name in spaces.items():
        disp[s.cat.display_space_index(sp)] = -1 if name is None else s.cat.card_index(name)
    return with_state(s, display=tuple(disp))


def set_books(s: State, i: int, spaces: Mapping[int, Sequence[str]]) -> State:
    """Player ``i``'s bookkeeping-track stacks replaced: ``{1: ["A01"], 2: ["B03"]}``."""
    books = list(s.players[i].books)
    for k, stack in spaces.items():
        books[k] = tuple(s.cat.book_index(b) for b in stack)
    return with_player(s, i, books=tuple(books))


def set_book_display(s: State, spaces: Mapping[str, str | None]) -> State:
    bd = list(s.book_display)
    for sp, name in spaces.items():
        bd[s.cat.book_space_index(sp)] = -1 if name is None else s.cat.book_index(name)
    return with_state(s, book_display=tuple(bd))


def is_over(s: State) -> bool:
    return s.phase == OVER
