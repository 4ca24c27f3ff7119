"""The rules of Mombasa: who decides what, which steps are legal, and what a step does.

The flow of the game is a small interpreter over ``state.todo``, a tuple of work items
``(operation, player, *arguments)``. The first item is always either a player's decision,
a chance event, or (only inside this module, between steps) an automatic item such as
"move 3 steps on the Cairo track" that :func:`_run` carries out at once. So a state
handed out by this module always names its next decider.

Public entry points: :func:`decision`, :func:`legal_steps`, :func:`apply`,
:func:`chance_outcomes`, :func:`sample_chance`, :func:`random_step`.
Rules decisions are listed in ``docs/rules.md``; comments cite the rules texts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import permutations

from engine.catalogue import (
    KIND_SHARE,
    Reward,
)
from engine.state import (
    ACTIONS,
    DEAD,
    NOBODY,
    OVER,
    PLANNING,
    Decision,
    Item,
    PlayerState,
    State,
    available_slots,
    bits,
    card_price,
    face_up,
    measures,
    replace_at,
)
from engine.steps import Step
from engine.tables import Tables, tables

# Rulebook, "Use 1 bookkeeper card": flipping a book on your track costs 2 pounds.
FLIP_COST = 2
ROUNDS = 7
_new = tuple.__new__  # builds a Step without NamedTuple's argument handling (hot path)

CHANCE_OPS = frozenset({"c_track", "c_card", "c_book", "c_tile"})
OP_KINDS = {  # work-queue operation -> the kind of decision it asks for
    "tile": "starting-tile", "rest": "resting-cards", "plan": "plan", "act": "action",
    "buy": "goods-buy", "alloc": "goods-track", "enter": "expansion", "oust": "oust-return",
    "rmpost": "remove-post", "flip": "bookkeeper-flip", "ink": "ink-jar",
    "spend": "bookkeeping-points", "place": "place-book",
}
# Decisions whose steps other players do not see until the reveal.
HIDDEN_OPS = frozenset({"tile", "plan"})


class IllegalStep(ValueError):
    """A step that is not legal in the state it was applied to (the state is unchanged)."""


# --------------------------------------------------------------------------------------
# Derived tables (per catalogue, computed once)
# --------------------------------------------------------------------------------------

# --------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------

def decision(s: State) -> Decision:
    """Who decides next, what kind of decision it is, and its arguments by name."""
    if s.phase == OVER:
        return Decision("over", NOBODY)
    item = s.todo[0]
    return _DECISION_OF[item[0]](s, item)


_CHANCE_EVENTS = {"c_track": "deal-track", "c_card": "deal-card", "c_book": "deal-book",
                  "c_tile": "deal-tile"}


def _plain(s: State, item: Item) -> Decision:
    return Decision(OP_KINDS[item[0]], item[1])


def _chance(s: State, item: Item) -> Decision:
    return Decision("chance", NOBODY, event=_CHANCE_EVENTS[item[0]], target=item[2])


_DECISION_OF: dict[str, Callable[[State, Item], Decision]] = {
    "tile": _plain, "rest": _plain, "act": _plain,
    "rmpost": lambda s, item: Decision(
        "remove-post", item[1], ousted=tuple(i[2] for i in s.todo if i[0] == "oust")),
    "plan": lambda s, item: Decision("plan", item[1], slot=item[2]),
    "buy": lambda s, item: Decision("goods-buy", item[1], units=item[2]),
    "alloc": lambda s, item: Decision("goods-track", item[1], units=item[2]),
    "enter": lambda s, item: Decision("expansion", item[1], company=item[2],
                                      points=item[3], entered=item[4], ousted=item[5]),
    "oust": lambda s, item: Decision("oust-return", item[1], company=item[2]),
    "flip": lambda s, item: Decision("bookkeeper-flip", item[1], card=item[2]),
    "ink": lambda s, item: Decision("ink-jar", item[1], card=item[2], moved=item[3]),
    "spend": lambda s, item: Decision("bookkeeping-points", item[1], points=s.pool,
                                      space=item[2]),
    "place": lambda s, item: Decision("place-book", item[1], books=s.turn_books),
    **{op: _chance for op in CHANCE_OPS},
}


def pending_expansion(s: State) -> tuple[int, int] | None:
    """(company, points left) of the expansion being decided, None at other decisions."""
    if s.phase == OVER or s.todo[0][0] != "enter":
        return None
    return s.todo[0][2], s.todo[0][3]


def display_prices(s: State) -> tuple[int, ...]:
    """Price of every display space (-1 for an empty space), cached per display."""
    t = tables(s.cat)
    prices = t.price_cache.get(s.display)
    if prices is None:
        mods = s.cat.display_modifiers
        prices = tuple(-1 if c < 0 else max(0, t.card_crate[c] + mods[d])
                       for d, c in enumerate(s.display))
        if len(t.price_cache) > 50_000:
            t.price_cache.clear()
        t.price_cache[s.display] = prices
    return prices


def company_mines(s: State, company: int) -> int:
    mines = tables(s.cat).mines_of_region
    return sum(mines[r] for r, o in enumerate(s.owners) if o == company)


# --------------------------------------------------------------------------------------
# Legal steps
# --------------------------------------------------------------------------------------

def legal_steps(s: State) -> list[Step]:
    """Every legal step at this state (chance outcomes at a chance event)."""
    if s.phase == OVER:
        return []
    item = s.todo[0]
    return _LEGAL[item[0]](s, item)


def chance_outcomes(s: State) -> list[tuple[Step, float]]:
    """The outcomes of the pending chance event with their probabilities (uniform)."""
    if s.phase == OVER or s.todo[0][0] not in CHANCE_OPS:
        raise IllegalStep("no chance event is due")
    steps = legal_steps(s)
    p = 1.0 / len(steps)
    return [(st, p) for st in steps]


def _legal_c_track(s: State, item: Item) -> list[Step]:
    used_letters = {s.tracks[c] // 2 for c in range(item[2]) if s.tracks[c] >= 0}
    out = []
    for a, b in s.cat.track_cards:
        if a // 2 in used_letters:
            continue
        out.append(_new(Step, ("deal-track", item[2], a, -1)))
        out.append(_new(Step, ("deal-track", item[2], b, -1)))
    return out


def _stack_layer(s: State) -> int:
    for layer in tables(s.cat).layer_masks:
        m = s.stack & layer
        if m:
            return m
    return 0


def _legal_c_card(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("deal-card", c, item[2], -1)) for c in bits(_stack_layer(s))]


def _book_candidates(s: State, space: int) -> int:
    letter = s.cat.book_space_letter[space]
    return s.book_supply & tables(s.cat).letter_books[letter]


def _legal_c_book(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("deal-book", b, item[2], -1)) for b in bits(_book_candidates(s, item[2]))]


def _dealt_tiles(s: State) -> set[int]:
    return {t for p in s.players for t in p.tile_options}


def _legal_c_tile(s: State, item: Item) -> list[Step]:
    dealt = _dealt_tiles(s)
    return [_new(Step, ("deal-tile", item[2], t, -1)) for t in range(len(s.cat.starting_tiles))
            if t not in dealt]


def _legal_tile(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("tile", t, -1, -1)) for t in s.players[item[1]].tile_options]


def _legal_rest(s: State, item: Item) -> list[Step]:
    cards = _tile_cards(s, item[1])
    return [Step("rest", *perm) for perm in permutations(cards)]


def _tile_cards(s: State, player: int) -> tuple[int, int, int]:
    p = s.players[player]
    tile = s.cat.starting_tiles[p.tile]
    seat = s.cat.seat_cards[player]
    by_code = {s.cat.cards[c].code: c for c in seat}
    a, b, c = (by_code[code] for code in tile.cards)
    return a, b, c


def _legal_plan(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    last = item[2]
    out = [_new(Step, ("ready", -1, -1, -1))]
    slots = [k for k in available_slots(s, p) if k > last]
    if slots:
        hand = p.hand & ~tables(s.cat).share_mask
        while hand:
            low = hand & -hand
            c = low.bit_length() - 1
            hand ^= low
            out += [_new(Step, ("plan", c, k, -1)) for k in slots]
    return out


def _subsets(mask: int) -> list[int]:
    """All non-empty sub-masks of ``mask``."""
    out = []
    sub = mask
    while sub:
        out.append(sub)
        sub = (sub - 1) & mask
    return out


def _legal_act(s: State, item: Item) -> list[Step]:
    player = item[1]
    p = s.players[player]
    t = tables(s.cat)
    up = face_up(p)
    out: list[Step] = []
    for g in range(3):
        m = up & t.goods_mask[g]
        if m:
            out.extend(_new(Step, ("goods", sub, -1, -1)) for sub in _subsets(m))
    if up & t.expansion_mask:
        for c, cols in enumerate(s.bases):
            if cols[0] & 7 or cols[1] & 7 or cols[2] & 7:
                out.append(t.step1["expand"][c])
    for c in bits(up & t.keeper_mask):
        out.append(t.step1["keeper"][c])
    for c in bits(up & t.merchant_mask):
        out.append(t.step1["merchant"][c])
    if p.plus1_on < 0 and (p.tiles >> t.plus1_card) & 1 and not (p.used >> t.plus1_card) & 1:
        for c in bits(up & (t.goods_mask[0] | t.goods_mask[1] | t.goods_mask[2])):
            out.append(t.step1["plus1"][c])
    if p.markers > 0:
        out.extend(_legal_bonus(s, player, p))
    decks = [d for d, deck in enumerate(p.resting) if deck]
    if decks:
        out.extend(t.step1["end"][d] for d in decks)
    else:
        out.append(_new(Step, ("end", -1, -1, -1)))
    return out


def _legal_bonus(s: State, player: int, p: PlayerState) -> list[Step]:
    cat = s.cat
    out: list[Step] = []
    occ = s.bonus
    meas: list[tuple[int, int, int, int, int]] | None = None
    t = tables(cat)
    for sp in t.board_spaces:
        if occ[sp.index] != NOBODY:
            continue
        kind = sp.kind
        if kind == "first_player":
            if player != s.first:
                out.append(_new(Step, ("first", -1, -1, -1)))
        elif kind == "buy_card":
            budget = p.cash - sp.cost
            for d, price in enumerate(display_prices(s)):
                if 0 <= price <= budget:
                    out.append(t.step1["buy-card"][d])
        elif kind == "remove_card":
            hand = p.hand
            while hand:
                low = hand & -hand
                out.append(t.step1["remove-card"][low.bit_length() - 1])
                hand ^= low
        elif kind == "majority":
            if meas is None:
                meas = [measures(s, q) for q in s.players]
            m = sp.measure
            mine = meas[player][m]
            if mine <= 0 or any(meas[i][m] > mine for i in range(s.n) if i != player):
                continue
            for li, line in enumerate(sp.lines):
                if mine >= line.minimum:
                    out.append(_new(Step, ("majority", sp.index, li, -1)))
        elif kind == "bonus_tile" and p.cash >= sp.cost:
            out.append(t.step1["reserve"][sp.index])
    by_track = t.track_bonus_by_track
    for c, track in enumerate(s.tracks):
        for pos, index in by_track.get(track, ()):
            if occ[index] == NOBODY and p.track[c] >= pos:
                out.append(t.step1["track-bonus"][index])
    return out


def _legal_buy(s: State, item: Item) -> list[Step]:
    units = item[2]
    out = [_new(Step, ("nobuy", -1, -1, -1))]
    for d, price in enumerate(display_prices(s)):
        if 0 <= price <= units:
            out.append(_new(Step, ("buy", d, -1, -1)))
    return out


def _can_step(s: State, p: PlayerState, company: int) -> bool:
    track = s.cat.tracks[s.tracks[company]]
    pos = p.track[company]
    return pos == track.last or track.spaces[pos + 1].capital <= p.cash


def _legal_alloc(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    return [_new(Step, ("unit", c, -1, -1)) for c in range(4) if _can_step(s, p, c)]


def entry_costs(s: State, company: int, points: int) -> list[tuple[int, int]]:
    """(region, cost) of every region the company can enter now for at most ``points``."""
    t = tables(s.cat)
    key = (company, s.owners)
    costs = t.entry_cache.get(key)
    if costs is None:
        # The costs depend only on who owns which region: cached per ownership map.
        costs = tuple(_entry_costs(s, company))
        if len(t.entry_cache) > 50_000:
            t.entry_cache.clear()
        t.entry_cache[key] = costs
    return [rc for rc in costs if rc[1] <= points]


def _entry_costs(s: State, company: int) -> list[tuple[int, int]]:
    cat = s.cat
    owners = s.owners
    best: dict[int, int] = {}
    for r, cost in cat.base_neighbours[company]:
        if best.get(r, 99) > cost:
            best[r] = cost
    for q, o in enumerate(owners):
        if o == company:
            for r, cost in cat.neighbours[q]:
                if best.get(r, 99) > cost:
                    best[r] = cost
    out = []
    for r, cost in best.items():
        o = owners[r]
        if o == company:
            continue
        if o >= 0:
            cost += 1
        out.append((r, cost))
    out.sort()
    return out


def _legal_enter(s: State, item: Item) -> list[Step]:
    company, points = item[2], item[3]
    cols = [k for k, code in enumerate(s.bases[company]) if code & 7]
    out = [_new(Step, ("stop", -1, -1, -1))]
    if cols:
        for r, _ in entry_costs(s, company, points):
            for k in cols:
                out.append(_new(Step, ("enter", r, k, -1)))
    return out


def _return_columns(s: State, company: int) -> list[int]:
    full = tables(s.cat).full_column
    out = []
    for k, code in enumerate(s.bases[company]):
        cap = full - 1 if code & DEAD else full
        if (code & 7) < cap:
            out.append(k)
    return out


def _legal_oust(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("return", k, -1, -1)) for k in _return_columns(s, item[2])]


def _legal_rmpost(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("remove-post", c, k, -1)) for c in range(4)
            for k, code in enumerate(s.bases[c]) if code & 7]


def _flippable(s: State, p: PlayerState) -> list[int]:
    if p.cash < FLIP_COST:
        return []
    return [k for k in range(p.ink + 1, len(p.books))
            if p.books[k] and not (p.flipped >> p.books[k][-1]) & 1]


def _legal_flip(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    flips = [_new(Step, ("flip", k, -1, -1)) for k in _flippable(s, p)]
    return [_new(Step, ("noflip", -1, -1, -1)), *flips]


def _can_enter_book(s: State, p: PlayerState) -> bool:
    nxt = p.ink + 1
    if nxt >= len(p.books) or not p.books[nxt]:
        return False
    book = p.books[nxt][-1]
    if (p.flipped >> book) & 1:
        return True
    needs = s.cat.books[book].needs
    if not needs:
        return True
    have = measures(s, p)
    return all(have[m] >= amount for m, amount in needs)


def _legal_ink(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    out = [_new(Step, ("halt", -1, -1, -1))]
    if _can_enter_book(s, p):
        out.append(_new(Step, ("ink", -1, -1, -1)))
    return out


def _placeable(s: State, p: PlayerState, letter: str, space: int) -> bool:
    stack = p.books[space]
    if letter != "A":
        return True
    if not stack:
        return space not in s.cat.crossed_a
    return tables(s.cat).book_letter[stack[-1]] == "A"


def _book_spaces(s: State, p: PlayerState) -> range:
    """Spaces a new book may go on: any space of the track (not the starting tile's).
    Behind the ink jar a book is dead, which can still beat blocking the way ahead."""
    return range(1, len(p.books))


def _legal_spend(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    last = item[2]
    cat = s.cat
    t = tables(cat)
    out = [_new(Step, ("pounds", -1, -1, -1))]
    spaces = _book_spaces(s, p)
    a_ok = any(_placeable(s, p, "A", k) for k in spaces)
    for space in range(last + 1, t.n_book_spaces):
        book = s.book_display[space]
        if book < 0:
            continue
        letter = t.book_letter[book]
        if cat.book_costs[letter] > s.pool:
            continue
        if letter == "A" and not a_ok:
            continue
        out.append(_new(Step, ("take", space, -1, -1)))
    return out


def _legal_place(s: State, item: Item) -> list[Step]:
    p = s.players[item[1]]
    t = tables(s.cat)
    book = s.turn_books[0]
    letter = t.book_letter[book]
    pending_a = any(t.book_letter[b] == "A" for b in s.turn_books[1:])
    out = []
    for k in _book_spaces(s, p):
        if not _placeable(s, p, letter, k):
            continue
        if pending_a and letter != "A" and _placeable(s, p, "A", k):
            # Covering this space must leave somewhere for the A-books still to place.
            others = [j for j in _book_spaces(s, p) if j != k and _placeable(s, p, "A", j)]
            if not others:
                continue
        out.append(_new(Step, ("place", book, k, -1)))
    return out


_LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    "c_track": _legal_c_track, "c_card": _legal_c_card, "c_book": _legal_c_book,
    "c_tile": _legal_c_tile, "tile": _legal_tile, "rest": _legal_rest, "plan": _legal_plan,
    "act": _legal_act, "buy": _legal_buy, "alloc": _legal_alloc, "enter": _legal_enter,
    "oust": _legal_oust, "rmpost": _legal_rmpost, "flip": _legal_flip, "ink": _legal_ink,
    "spend": _legal_spend, "place": _legal_place,
}


# --------------------------------------------------------------------------------------
# Applying steps
# --------------------------------------------------------------------------------------

def apply(s: State, step: Step) -> State:
    """The state after ``step``; raises :class:`IllegalStep` (state untouched) if illegal."""
    if not isinstance(step, Step):
        raise IllegalStep(f"not a Step: {step!r}")
    if s.phase == OVER:
        raise IllegalStep("the game is over")
    legal = legal_steps(s)
    if step not in legal:
        raise IllegalStep(_why_illegal(s, step, legal))
    return apply_unchecked(s, step)


def apply_unchecked(s: State, step: Step) -> State:
    """Apply a step known to be legal (taken from :func:`legal_steps`)."""
    n = s.clone()
    item = n.todo[0]
    _APPLY[step.kind](n, item, step)
    if item[0] in CHANCE_OPS:
        n.rng = _next_rng(n.rng)[0]
    _run(n)
    n._own = 0
    return n


def random_step(s: State, rng: random.Random) -> Step:
    """A uniformly random legal step; chance events are sampled from the state's RNG."""
    if s.todo[0][0] in CHANCE_OPS:
        return sample_chance(s)
    legal = legal_steps(s)
    return legal[int(rng.random() * len(legal))]


def sample_chance(s: State) -> Step:
    """The outcome of the pending chance event drawn from the state's own RNG."""
    if s.phase == OVER or s.todo[0][0] not in CHANCE_OPS:
        raise IllegalStep("no chance event is due")
    _, value = _next_rng(s.rng)
    item = s.todo[0]
    if item[0] in ("c_card", "c_book"):
        # The same outcome as legal_steps(s)[value % n], without building the list:
        # those outcomes are the set bits of a mask, lowest first.
        mask = _stack_layer(s) if item[0] == "c_card" else _book_candidates(s, item[2])
        k = value % mask.bit_count()
        for _ in range(k):
            mask &= mask - 1
        low = (mask & -mask).bit_length() - 1
        kind = "deal-card" if item[0] == "c_card" else "deal-book"
        return _new(Step, (kind, low, item[2], -1))
    outcomes = legal_steps(s)
    return outcomes[value % len(outcomes)]


_M64 = (1 << 64) - 1


def _next_rng(x: int) -> tuple[int, int]:
    """splitmix64: (next state, output)."""
    x = (x + 0x9E3779B97F4A7C15) & _M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return x, z ^ (z >> 31)


def _why_illegal(s: State, step: Step, legal: list[Step]) -> str:
    d = decision(s)
    who = "chance" if d.player < 0 else f"P{d.player + 1}"
    kinds = sorted({st.kind for st in legal})
    try:
        text = step.text(s.cat)
    except (IndexError, KeyError, ValueError):
        text = repr(step)
    if step.kind not in kinds:
        return (f"{text!r}: the decision is {d.kind!r} of {who}; "
                f"legal step kinds here: {', '.join(kinds)}")
    detail = _detail(s, step)
    return f"{text!r} is not legal now ({d.kind} of {who})" + (f": {detail}" if detail else "")


def _detail(s: State, step: Step) -> str:
    """A specific reason for the most common illegal steps."""
    d = decision(s)
    p = s.players[d.player] if d.player >= 0 else None
    cat = s.cat
    kind = step.kind
    if p is None:
        return "that outcome is not possible"
    if kind == "plan":
        if not 0 <= step.a < cat.n_cards or not (p.hand >> step.a) & 1:
            return "that card is not in your hand"
        if cat.cards[step.a].kind == KIND_SHARE:
            return "single-share cards are never placed in a slot"
        return "that slot is not available, or slots are filled left to right"
    if kind in ("keeper", "merchant", "plus1", "goods"):
        return "the card(s) must be face up in your action area and of the right kind"
    if kind == "enter":
        return "the region is not reachable for the points left, or already holds this company"
    if kind in ("buy", "buy-card"):
        return "that display space is empty or the card costs more than you can pay"
    if kind == "take":
        return "book space empty, too few points, or books are taken left to right"
    if kind == "place":
        return ("an A-book may not go on an empty crossed-out-A space nor cover a B/C book; "
                "books are placed in the order taken, on spaces 1-12")
    if kind == "ink":
        return "the next space has no book or its needs are not met"
    if kind == "first":
        return "the first player may not take the first-player space, or it is taken"
    if kind == "majority":
        return "another player has more of that type face up, or your total is below the line"
    return ""


# -- helpers that change state (on a fresh clone only) ----------------------------------

def _replace_top(s: State, items: tuple[Item, ...]) -> None:
    s.todo = items + s.todo[1:]


def _set_base(s: State, company: int, col: int, code: int) -> None:
    t = tables(s.cat)
    cols = replace_at(s.bases[company], col, code)
    s.bases = replace_at(s.bases, company, cols)
    s.values = replace_at(s.values, company, sum(t.column_value[c] for c in cols))


def _take_post(s: State, company: int, col: int) -> None:
    _set_base(s, company, col, Tables.after_take(s.bases[company][col]))


def _diamond_steps(s: State, player: int, steps: int) -> None:
    if steps <= 0:
        return
    p = s.player_mut(player)
    last = tables(s.cat).dia_last
    for _ in range(steps):
        if p.diamond >= last:
            p.cash += s.cat.diamond_end_pounds
        else:
            p.diamond += 1


def _reward(s: State, player: int, r: Reward, company: int) -> tuple[Item, ...]:
    """Pay a reward; returns work items for the parts that need steps or decisions."""
    items: list[Item] = []
    if r.pounds:
        s.player_mut(player).cash += r.pounds
    if r.diamonds:
        _diamond_steps(s, player, r.diamonds)
    if r.bookkeeping:
        s.pool += r.bookkeeping
    if r.track_steps:
        c = r.track_company if r.track_company >= 0 else company
        items.append(("track", player, c, r.track_steps))
    items.extend(("rmpost", player) for _ in range(r.remove_posts))
    return tuple(items)


def _track_step(s: State, player: int, company: int) -> tuple[Item, ...] | None:
    """Move one step on a company track; None when a capital call blocks the way."""
    track = s.cat.tracks[s.tracks[company]]
    p = s.player_mut(player)
    pos = p.track[company]
    if pos >= track.last:
        p.cash += track.end_pounds
        return ()
    space = track.spaces[pos + 1]
    if space.capital > p.cash:
        return None
    p.cash -= space.capital
    p.track = replace_at(p.track, company, pos + 1)
    if space.extra_marker and p.markers_total < s.cat.markers_per_colour:
        p.markers_total += 1
        p.markers += 1
    if space.special.is_empty():
        return ()
    return _reward(s, player, space.special, company)


# -- step handlers ----------------------------------------------------------------------

def _ap_deal_track(s: State, item: Item, step: Step) -> None:
    s.tracks = replace_at(s.tracks, step.a, step.b)
    s.todo = s.todo[1:]


def _ap_deal_card(s: State, item: Item, step: Step) -> None:
    s.stack &= ~(1 << step.a)
    s.display = replace_at(s.display, step.b, step.a)
    s.todo = s.todo[1:]


def _ap_deal_book(s: State, item: Item, step: Step) -> None:
    s.book_supply &= ~(1 << step.a)
    s.book_display = replace_at(s.book_display, step.b, step.a)
    s.todo = s.todo[1:]


def _ap_deal_tile(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(step.a)
    p.tile_options = p.tile_options + (step.b,)
    s.todo = s.todo[1:]


def _ap_tile(s: State, item: Item, step: Step) -> None:
    s.player_mut(item[1]).tile = step.a
    s.todo = s.todo[1:]


def _ap_rest(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    t = tables(s.cat)
    resting = list(p.resting)
    for slot, card in zip(t.base_slot_list, (step.a, step.b, step.c), strict=True):
        p.hand &= ~(1 << card)
        resting[slot] = (card,)
    p.resting = tuple(resting)
    s.todo = s.todo[1:]


def _ap_plan(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.hand &= ~(1 << step.a)
    p.slots = replace_at(p.slots, step.b, step.a)
    _replace_top(s, (("plan", item[1], step.b),))


def _ap_ready(s: State, item: Item, step: Step) -> None:
    nxt = (item[1] + 1) % s.n
    if nxt == s.first:
        _replace_top(s, (("reveal",),))
    else:
        _replace_top(s, (("plan", nxt, -1),))


def _ap_goods(s: State, item: Item, step: Step) -> None:
    player = item[1]
    p = s.player_mut(player)
    t = tables(s.cat)
    units = 0
    for c in bits(step.a):
        units += t.card_value[c]
    if p.plus1_on >= 0 and (step.a >> p.plus1_on) & 1:
        units += 1
        p.used |= 1 << t.plus1_card
    p.used |= step.a
    _replace_top(s, (("buy", player, units), ("finish", player, True)))


def _ap_buy(s: State, item: Item, step: Step) -> None:
    player, units = item[1], item[2]
    price = card_price(s, step.a)
    card = s.display[step.a]
    p = s.player_mut(player)
    p.hand |= 1 << card
    s.display = replace_at(s.display, step.a, -1)
    units -= price
    _replace_top(s, (("alloc", player, units),) if units > 0 else ())


def _ap_nobuy(s: State, item: Item, step: Step) -> None:
    _replace_top(s, (("alloc", item[1], item[2]),))


def _ap_unit(s: State, item: Item, step: Step) -> None:
    player, units = item[1], item[2]
    extra = _track_step(s, player, step.a)
    assert extra is not None  # legality checked that the step is payable
    rest: tuple[Item, ...] = (("alloc", player, units - 1),) if units > 1 else ()
    _replace_top(s, extra + rest)


def _ap_expand(s: State, item: Item, step: Step) -> None:
    player = item[1]
    p = s.player_mut(player)
    t = tables(s.cat)
    cards = face_up(p) & t.expansion_mask
    points = sum(t.card_value[c] for c in bits(cards))
    p.used |= cards
    _replace_top(s, (("enter", player, step.a, points, (), ()), ("finish", player, True)))


def _ap_enter(s: State, item: Item, step: Step) -> None:
    _, player, company, points, entered, ousted = item
    cost = dict(entry_costs(s, company, points))[step.a]
    other = s.owners[step.a]
    _take_post(s, company, step.b)
    s.owners = replace_at(s.owners, step.a, company)
    if other >= 0:
        ousted = ousted + (other,)
    _replace_top(s, (("enter", player, company, points - cost, entered + (step.a,), ousted),))


def _ap_stop(s: State, item: Item, step: Step) -> None:
    _resolve_expansion(s, item)


def _resolve_expansion(s: State, item: Item) -> None:
    """Rewards of the entered regions (pounds first, so they can pay capital calls),
    then ousted posts go home."""
    _, player, company, _points, entered, ousted = item
    regions = s.cat.regions
    total = Reward(
        pounds=sum(regions[r].reward.pounds for r in entered),
        diamonds=sum(regions[r].reward.diamonds for r in entered),
        bookkeeping=sum(regions[r].reward.bookkeeping for r in entered),
        track_steps=sum(regions[r].reward.track_steps for r in entered),
        track_company=company,
    )
    items = _reward(s, player, total, company)
    items += tuple(("oust", player, o) for o in ousted)
    _replace_top(s, items)


def _ap_return(s: State, item: Item, step: Step) -> None:
    company = item[2]
    code = s.bases[company][step.a]
    _set_base(s, company, step.a, Tables.after_return(code))
    s.todo = s.todo[1:]


def _ap_remove_post(s: State, item: Item, step: Step) -> None:
    _take_post(s, step.a, step.b)
    s.removed_posts = replace_at(s.removed_posts, step.a, s.removed_posts[step.a] + 1)
    s.todo = s.todo[1:]


def _ap_keeper(s: State, item: Item, step: Step) -> None:
    player = item[1]
    _replace_top(s, (("flip", player, step.a), ("ink", player, step.a, 0),
                     ("finish", player, True)))


def _ap_flip(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.cash -= FLIP_COST
    p.flipped |= 1 << p.books[step.a][-1]
    s.todo = s.todo[1:]


def _ap_noflip(s: State, item: Item, step: Step) -> None:
    s.todo = s.todo[1:]


def _ap_ink(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.ink += 1
    _replace_top(s, (("ink", item[1], item[2], item[3] + 1),))


def _ap_halt(s: State, item: Item, step: Step) -> None:
    _, player, card, moved = item
    p = s.player_mut(player)
    items: tuple[Item, ...] = ()
    if moved:
        book = p.books[p.ink][-1]
        if not (p.flipped >> book) & 1:
            items = _reward(s, player, s.cat.books[book].reward, -1)
    p.used |= 1 << card
    s.pool += tables(s.cat).card_value[card]
    _replace_top(s, items)


def _ap_merchant(s: State, item: Item, step: Step) -> None:
    player = item[1]
    cat = s.cat
    t = tables(cat)
    card = cat.cards[step.a]
    p = s.player_mut(player)
    if card.letter == "T":
        # The merchant tile: its steps, +1 per other face-up merchant card.
        others = face_up(p) & t.merchant_mask & ~(1 << step.a)
        steps, pounds = card.value + others.bit_count(), 0
    elif card.company < 0:
        steps, pounds = cat.plain_merchant
    else:
        base, pounds, per = cat.company_merchant
        steps = base + company_mines(s, card.company) // per
    p.used |= 1 << step.a
    p.cash += pounds
    _diamond_steps(s, player, steps)
    _replace_top(s, (("finish", player, True),))


def _ap_plus1(s: State, item: Item, step: Step) -> None:
    s.player_mut(item[1]).plus1_on = step.a


def _place_marker(s: State, player: int, space: int) -> None:
    s.player_mut(player).markers -= 1
    s.bonus = replace_at(s.bonus, space, player)


def _board_space(s: State, kind: str) -> int:
    return next(sp.index for sp in s.cat.bonus_spaces if sp.kind == kind)


def _ap_first(s: State, item: Item, step: Step) -> None:
    player = item[1]
    space = _board_space(s, "first_player")
    _place_marker(s, player, space)
    s.next_first = player
    items = _reward(s, player, s.cat.bonus_spaces[space].reward, -1)
    _replace_top(s, items + (("finish", player, True),))


def _ap_buy_card(s: State, item: Item, step: Step) -> None:
    player = item[1]
    space = _board_space(s, "buy_card")
    cost = s.cat.bonus_spaces[space].cost + card_price(s, step.a)
    _place_marker(s, player, space)
    p = s.player_mut(player)
    p.cash -= cost
    p.hand |= 1 << s.display[step.a]
    s.display = replace_at(s.display, step.a, -1)
    _replace_top(s, (("finish", player, True),))


def _ap_remove_card(s: State, item: Item, step: Step) -> None:
    player = item[1]
    space = _board_space(s, "remove_card")
    _place_marker(s, player, space)
    p = s.player_mut(player)
    p.hand &= ~(1 << step.a)
    s.gone |= 1 << step.a
    p.cash += s.cat.cards[step.a].crate + s.cat.bonus_spaces[space].bonus_pounds
    _replace_top(s, (("finish", player, True),))


def _ap_majority(s: State, item: Item, step: Step) -> None:
    player = item[1]
    sp = s.cat.bonus_spaces[step.a]
    line = sp.lines[step.b]
    _place_marker(s, player, step.a)
    items: tuple[Item, ...] = (("track", player, line.company, line.steps),)
    items += _reward(s, player, line.reward, line.company)
    _replace_top(s, items + (("finish", player, True),))


def _ap_reserve(s: State, item: Item, step: Step) -> None:
    player = item[1]
    sp = s.cat.bonus_spaces[step.a]
    _place_marker(s, player, step.a)
    p = s.player_mut(player)
    p.cash -= sp.cost
    p.reserved |= 1 << sp.tile
    _replace_top(s, (("finish", player, True),))


def _ap_track_bonus(s: State, item: Item, step: Step) -> None:
    player = item[1]
    sp = s.cat.bonus_spaces[step.a]
    track = next(t for t, _, idx in s.cat.track_bonus_at if idx == step.a)
    company = s.tracks.index(track)
    _place_marker(s, player, step.a)
    items = _reward(s, player, sp.reward, company)
    _replace_top(s, items + (("finish", player, True),))


def _ap_end(s: State, item: Item, step: Step) -> None:
    """End your own action phase: take one resting deck, then clean up the area."""
    player = item[1]
    p = s.player_mut(player)
    resting = list(p.resting)
    if step.a >= 0:
        for c in resting[step.a]:
            p.hand |= 1 << c
        resting[step.a] = ()
    for k, c in enumerate(p.slots):
        if c >= 0:
            resting[k] = resting[k] + (c,)
    p.resting = tuple(resting)
    p.slots = (-1,) * len(p.slots)
    p.used = 0
    s.tile_supply |= p.tiles
    p.tiles = 0
    p.plus1_on = -1
    p.ended = True
    s.todo = s.todo[1:]
    _next_turn(s, player)


def _ap_take(s: State, item: Item, step: Step) -> None:
    player = item[1]
    book = s.book_display[step.a]
    s.pool -= s.cat.book_costs[tables(s.cat).book_letter[book]]
    s.turn_books = s.turn_books + (book,)
    coins = s.book_coins[step.a]
    if coins:
        s.player_mut(player).cash += coins
        s.book_coins = replace_at(s.book_coins, step.a, 0)
    s.book_display = replace_at(s.book_display, step.a, -1)
    _replace_top(s, (("spend", player, step.a),) if s.pool > 0 else ())


def _ap_pounds(s: State, item: Item, step: Step) -> None:
    s.player_mut(item[1]).cash += s.pool
    s.pool = 0
    s.todo = s.todo[1:]


def _ap_place(s: State, item: Item, step: Step) -> None:
    p = s.player_mut(item[1])
    p.books = replace_at(p.books, step.b, p.books[step.b] + (step.a,))
    s.turn_books = s.turn_books[1:]
    if not s.turn_books:
        s.todo = s.todo[1:]


_APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "deal-track": _ap_deal_track, "deal-card": _ap_deal_card, "deal-book": _ap_deal_book,
    "deal-tile": _ap_deal_tile, "tile": _ap_tile, "rest": _ap_rest, "plan": _ap_plan,
    "ready": _ap_ready, "goods": _ap_goods, "buy": _ap_buy, "nobuy": _ap_nobuy,
    "unit": _ap_unit, "expand": _ap_expand, "enter": _ap_enter, "stop": _ap_stop,
    "return": _ap_return, "remove-post": _ap_remove_post, "keeper": _ap_keeper,
    "flip": _ap_flip, "noflip": _ap_noflip, "ink": _ap_ink, "halt": _ap_halt,
    "merchant": _ap_merchant, "plus1": _ap_plus1, "first": _ap_first,
    "buy-card": _ap_buy_card, "remove-card": _ap_remove_card, "majority": _ap_majority,
    "reserve": _ap_reserve, "track-bonus": _ap_track_bonus, "end": _ap_end,
    "take": _ap_take, "pounds": _ap_pounds, "place": _ap_place,
}


# --------------------------------------------------------------------------------------
# The interpreter: automatic items and forced outcomes
# --------------------------------------------------------------------------------------

def _run(s: State) -> None:
    """Carry out automatic work until a real decision or chance event is first in line."""
    while s.todo:
        item = s.todo[0]
        op = item[0]
        auto = _AUTO.get(op)
        if auto is not None:
            auto(s, item)
            continue
        skip = _SKIP.get(op)
        if skip is not None and skip(s, item):
            continue
        return


def _next_turn(s: State, player: int) -> None:
    for i in range(1, s.n + 1):
        q = (player + i) % s.n
        if not s.players[q].ended:
            s.turn = q
            s.todo = (("act", q),) + s.todo
            return
    s.todo = (("prep",),) + s.todo


def _auto_finish(s: State, item: Item) -> None:
    player, advance = item[1], item[2]
    if s.pool > 0:
        s.todo = (("spend", player, -1),) + s.todo
        return
    if s.turn_books:
        s.todo = (("place", player),) + s.todo
        return
    refill = tuple(("c_book", NOBODY, k) for k, b in enumerate(s.book_display)
                   if b < 0 and _book_candidates(s, k))
    if refill:
        s.todo = refill + s.todo
        return
    s.todo = s.todo[1:]
    if advance:
        _next_turn(s, player)


def _auto_track(s: State, item: Item) -> None:
    _, player, company, steps = item
    extra = _track_step(s, player, company)
    if extra is None:  # a capital call the player cannot pay: stop before it
        s.todo = s.todo[1:]
        return
    rest: tuple[Item, ...] = (("track", player, company, steps - 1),) if steps > 1 else ()
    _replace_top(s, extra + rest)


def _auto_reveal(s: State, item: Item) -> None:
    s.revealed = True
    s.phase = ACTIONS
    s.turn = s.first
    _replace_top(s, (("act", s.first),))


def _auto_setup_tiles(s: State, item: Item) -> None:
    """Starting tiles: reveal the choices, then resting cards and starting bonuses."""
    cat = s.cat
    items: list[Item] = []
    for i in range(s.n):
        p = s.player_mut(i)
        if not s.variable:
            p.tile = cat.first_game_tiles[i]
        p.tile_options = ()  # the unchosen tiles go back to the box, unseen
        items.append(("rest", i))
    for i in range(s.n):
        items.append(("bonus_start", i))
    items.append(("round",))
    s.revealed = True
    _replace_top(s, tuple(items))


def _auto_bonus_start(s: State, item: Item) -> None:
    player = item[1]
    tile = s.cat.starting_tiles[s.players[player].tile]
    items = _reward(s, player, tile.bonus, -1)
    _replace_top(s, items + (("finish", player, False),))


def _auto_round(s: State, item: Item) -> None:
    """Start the next round: markers and reserved tiles come back, then Planning."""
    s.round += 1
    s.bonus = (NOBODY,) * len(s.bonus)
    if s.next_first >= 0:
        s.first = s.next_first
        s.next_first = NOBODY
    for i in range(s.n):
        p = s.player_mut(i)
        p.markers = p.markers_total
        p.tiles |= p.reserved
        s.tile_supply &= ~p.reserved
        p.reserved = 0
        p.ended = False
    s.revealed = False
    s.phase = PLANNING
    _replace_top(s, (("plan", s.first, -1),))


def _auto_prep(s: State, item: Item) -> None:
    """Preparation phase (or the end of the game after round 7)."""
    cat = s.cat
    t = tables(cat)
    if s.round >= ROUNDS:
        s.phase = OVER
        s.todo = ()
        return
    # A. Coins of the leftmost round-track stack go under the book column of its number.
    k = s.round - 1
    coins = s.round_coins[k]
    if coins:
        col = cat.book_columns.index(s.round + 1)
        bc = list(s.book_coins)
        for row in range(min(coins, cat.book_rows)):
            bc[col * cat.book_rows + row] += 1
        s.book_coins = tuple(bc)
        s.round_coins = replace_at(s.round_coins, k, 0)
    # B. Discard the right column, slide rows right, refill right/middle/left top-down.
    rows, ncol = cat.display_rows, len(cat.display_columns)
    disp = list(s.display)
    for row in range(rows):
        right = (ncol - 1) * rows + row
        if disp[right] >= 0:
            s.discard |= 1 << disp[right]
            disp[right] = -1
        cards = [disp[col * rows + row] for col in range(ncol) if disp[col * rows + row] >= 0]
        for col in range(ncol):
            disp[col * rows + row] = -1
        for j, c in enumerate(reversed(cards)):
            disp[(ncol - 1 - j) * rows + row] = c
    s.display = tuple(disp)
    refill = tuple(("c_card", NOBODY, sp) for sp in t.display_fill_order if disp[sp] < 0)
    _replace_top(s, refill + (("round",),))


def _skip_c_card(s: State, item: Item) -> bool:
    if _stack_layer(s):
        return False
    s.todo = s.todo[1:]  # the stack is empty: the space stays empty
    return True


def _skip_c_book(s: State, item: Item) -> bool:
    if _book_candidates(s, item[2]):
        return False
    s.todo = s.todo[1:]
    return True


def _skip_buy(s: State, item: Item) -> bool:
    units = item[2]
    if any(0 <= price <= units for price in display_prices(s)):
        return False
    _replace_top(s, (("alloc", item[1], units),))
    return True


def _skip_alloc(s: State, item: Item) -> bool:
    p = s.players[item[1]]
    if item[2] > 0 and any(_can_step(s, p, c) for c in range(4)):
        return False
    s.todo = s.todo[1:]  # every track is blocked: the remaining units are lost
    return True


def _skip_enter(s: State, item: Item) -> bool:
    company, points = item[2], item[3]
    if any(code & 7 for code in s.bases[company]) and entry_costs(s, company, points):
        return False
    _resolve_expansion(s, item)  # nothing more can be entered: remaining points forfeit
    return True


def _skip_oust(s: State, item: Item) -> bool:
    if _return_columns(s, item[2]):
        return False
    company = item[2]
    s.removed_posts = replace_at(s.removed_posts, company, s.removed_posts[company] + 1)
    s.todo = s.todo[1:]
    return True


def _skip_rmpost(s: State, item: Item) -> bool:
    if any(code & 7 for base in s.bases for code in base):
        return False
    s.todo = s.todo[1:]
    return True


def _skip_flip(s: State, item: Item) -> bool:
    if _flippable(s, s.players[item[1]]):
        return False
    s.todo = s.todo[1:]
    return True


def _skip_ink(s: State, item: Item) -> bool:
    if _can_enter_book(s, s.players[item[1]]):
        return False
    _ap_halt(s, item, Step("halt"))
    return True


def _skip_spend(s: State, item: Item) -> bool:
    player = item[1]
    p = s.players[player]
    if s.pool <= 0:
        s.todo = s.todo[1:]
        return True
    if p.ink >= tables(s.cat).bk_last:
        # The ink jar at the last space: every bookkeeping point pays 2 pounds instead.
        s.player_mut(player).cash += s.pool * s.cat.bookkeeping_end_pounds
        s.pool = 0
        s.todo = s.todo[1:]
        return True
    return False


def _skip_place(s: State, item: Item) -> bool:
    if s.turn_books:
        return False
    s.todo = s.todo[1:]
    return True


_AUTO: dict[str, Callable[[State, Item], None]] = {
    "finish": _auto_finish, "track": _auto_track, "reveal": _auto_reveal,
    "setup_tiles": _auto_setup_tiles, "bonus_start": _auto_bonus_start,
    "round": _auto_round, "prep": _auto_prep,
}
_SKIP: dict[str, Callable[[State, Item], bool]] = {
    "c_card": _skip_c_card, "c_book": _skip_c_book, "buy": _skip_buy, "alloc": _skip_alloc,
    "enter": _skip_enter, "oust": _skip_oust, "rmpost": _skip_rmpost, "flip": _skip_flip,
    "ink": _skip_ink, "spend": _skip_spend, "place": _skip_place,
}


def run_automatic(s: State) -> None:
    """Used by game setup: carry out the automatic items of a freshly built state."""
    _run(s)
