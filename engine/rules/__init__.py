"""The rules of Mombasa: who decides what, which steps are legal, and what a step does.

The flow of the game is a small interpreter over ``state.todo``, a tuple of work items
``(operation, player, *arguments)``. The first item is always either a player's decision,
a chance event, or (only inside this package, between steps) an automatic item such as
"move 3 steps on the Cairo track" that :func:`_run` carries out at once. So a state
handed out by this package always names its next decider.

This module is the interpreter and the public entry points (:func:`decision`,
:func:`legal_steps`, :func:`apply`, :func:`chance_outcomes`, :func:`sample_chance`,
:func:`random_step`). The rules themselves live by rulebook area, each module holding
its legal steps (``LEGAL``), effects (``APPLY``), automatic parts (``AUTO``) and forced
outcomes (``SKIP``) together:

* :mod:`engine.rules.setup_and_rounds`: chance events, setup, turn order, Preparation;
* :mod:`engine.rules.planning`: Planning;
* :mod:`engine.rules.actions`: the action menu;
* :mod:`engine.rules.goods`: goods cards and company tracks;
* :mod:`engine.rules.expansion`: expansion and ousting;
* :mod:`engine.rules.bookkeeping`: the bookkeeper, books and bookkeeping points;
* :mod:`engine.rules.diamonds`: diamond merchants;
* :mod:`engine.rules.bonus`: bonus spaces and tiles;
* :mod:`engine.rules.common`: the work queue, bases, track steps and rewards they share.

Each module also declares the work-queue operations it owns (``PENDING``,
:class:`engine.rules.pending.Pending`): their arguments, entry names and the phases they
may be pending in. :data:`PENDING` collects them; the decision of each operation, the
state format (:mod:`engine.serialize`) and the invariants read them from there.

Rules decisions are listed in ``docs/rules.md``; comments cite the rules texts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.catalogue import KIND_SHARE
from engine.decision import Decision
from engine.primitives import NOBODY, OVER, Item
from engine.rules import (
    actions,
    bonus,
    bookkeeping,
    diamonds,
    expansion,
    goods,
    planning,
    setup_and_rounds,
)
from engine.rules.common import _new
from engine.rules.expansion import entry_costs, reward_order_asked
from engine.rules.pending import CHANCE, DECISION, THEN, Pending, collect
from engine.rules.setup_and_rounds import ROUNDS, book_candidates, stack_layer
from engine.steps import Step

if TYPE_CHECKING:
    from engine.state import State

__all__ = [
    "CHANCE_EVENTS", "CHANCE_OPS", "OP_KINDS", "PENDING", "ROUNDS", "IllegalStep", "apply",
    "apply_unchecked", "chance_outcomes", "decide_as", "decision", "entry_costs", "legal_steps",
    "random_step", "reward_order_asked", "run_automatic", "sample_chance",
]

# Work-queue operation -> its declaration, from the rules module that owns it.
PENDING: dict[str, Pending] = collect(
    setup_and_rounds.PENDING, planning.PENDING, actions.PENDING, goods.PENDING,
    expansion.PENDING, bookkeeping.PENDING,
)

# Chance operation -> the kind of the chance step it deals.
CHANCE_EVENTS = {op: p.name for op, p in PENDING.items() if p.entry == CHANCE}
CHANCE_OPS = frozenset(CHANCE_EVENTS)

# Work-queue operation -> the kind of decision it asks for.
OP_KINDS = {op: p.name for op, p in PENDING.items() if p.entry == DECISION}


class IllegalStep(ValueError):
    """A step that is not legal in the state it was applied to (the state is unchanged)."""


def decision(s: State) -> Decision:
    """Who decides next, what kind of decision it is, and its arguments by name (built
    once per state: a state handed out never changes)."""
    d = s._decision
    if d is None:
        if s.phase == OVER:
            d = Decision("over", NOBODY)
        else:
            item = s.todo[0]
            d = _DECISION_OF[item[0]](s, item)
        s._decision = d
    return d


# Decisions every seat takes at once: each seat's item is queued, the run of them at the
# front of the queue is the group still deciding (planning.py, setup_and_rounds.py).
SIMULTANEOUS_OPS = frozenset(op for op, p in PENDING.items() if p.simultaneous)


def decide_as(s: State, player: int) -> State:
    """The same position with seat ``player`` taking its simultaneous decision first.

    Planning and the starting-tile choice are taken by every seat at once; the state
    lists one default decider (``decision.player``). Raises :class:`IllegalStep` if
    ``player`` has no decision now.

    >>> import engine
    >>> s = engine.new_game(players=3, seed=5)
    >>> while s.decision.kind != "plan":
    ...     d = s.decision
    ...     s = s.apply(s.sample_chance() if d.is_chance else s.legal_steps()[0])
    >>> s.decision.seats
    (0, 1, 2)
    >>> s.decide_as(2).decision.player, s.decide_as(2).decision.seats
    (2, (2, 0, 1))
    """
    d = decision(s)
    if player == d.player:
        return s
    if d.seats is None or player not in d.seats:
        who = "chance" if d.player < 0 else f"P{d.player + 1}"
        raise IllegalStep(f"P{player + 1} has no decision now: the decision is "
                          f"{d.kind!r} of {who}")
    n = s.clone()
    k = d.seats.index(player)
    n.todo = (n.todo[k],) + n.todo[:k] + n.todo[k + 1:]
    return n


def _chance(event: str) -> Callable[[State, Item], Decision]:
    """The decision of a chance event dealing ``event`` steps to its one argument."""
    return lambda s, item: Decision("chance", NOBODY, event=event, target=item[2])


# Operation first in the queue -> the decision it asks for (declared with it).
_DECISION_OF: dict[str, Callable[[State, Item], Decision]] = {
    **{op: p.decision for op, p in PENDING.items() if p.decision is not None},
    **{op: _chance(event) for op, event in CHANCE_EVENTS.items()},
}


def legal_steps(s: State, player: int | None = None) -> list[Step]:
    """Every legal step at this state (chance outcomes at a chance event); with
    ``player``, that seat's legal steps at a simultaneous decision (:func:`decide_as`)."""
    if player is not None:
        s = decide_as(s, player)
    return list(_legal(s))


def _legal(s: State) -> tuple[Step, ...]:
    """The legal steps, listed once per state (a state handed out never changes)."""
    legal = s._legal
    if legal is None:
        if s.phase == OVER:
            legal = ()
        else:
            item = s.todo[0]
            legal = tuple(_LEGAL[item[0]](s, item))
        s._legal = legal
    return legal


def chance_outcomes(s: State) -> list[tuple[Step, float]]:
    """The outcomes of the pending chance event with their probabilities (uniform)."""
    if s.phase == OVER or s.todo[0][0] not in CHANCE_OPS:
        raise IllegalStep("no chance event is due")
    steps = _legal(s)
    p = 1.0 / len(steps)
    return [(st, p) for st in steps]


def apply(s: State, step: Step, player: int | None = None) -> State:
    """The state after ``step``; raises :class:`IllegalStep` (state untouched) if illegal.
    With ``player``, the step is that seat's (at a simultaneous decision any seat still
    deciding may step first; otherwise ``player`` must be the decider)."""
    if not isinstance(step, Step):
        raise IllegalStep(f"not a Step: {step!r}")
    if s.phase == OVER:
        raise IllegalStep("the game is over")
    if player is not None:
        s = decide_as(s, player)
    legal = _legal(s)
    if step not in legal and not setup_and_rounds.unseen_deal(s, step):
        raise IllegalStep(_why_illegal(s, step, list(legal)))
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
    legal = _legal(s)
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
        mask = stack_layer(s) if item[0] == "c_card" else book_candidates(s, item[2])
        k = value % mask.bit_count()
        for _ in range(k):
            mask &= mask - 1
        low = (mask & -mask).bit_length() - 1
        kind = "deal-card" if item[0] == "c_card" else "deal-book"
        return _new(Step, (kind, low, item[2], -1))
    outcomes = _legal(s)
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


def run_automatic(s: State) -> None:
    """Used by game setup: carry out the automatic items of a freshly built state."""
    _run(s)


_LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    **setup_and_rounds.LEGAL,
    **planning.LEGAL,
    **actions.LEGAL,
    **goods.LEGAL,
    **expansion.LEGAL,
    **bookkeeping.LEGAL,
}


_APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    **setup_and_rounds.APPLY,
    **planning.APPLY,
    **goods.APPLY,
    **expansion.APPLY,
    **bookkeeping.APPLY,
    **diamonds.APPLY,
    **bonus.APPLY,
}


_AUTO: dict[str, Callable[[State, Item], None]] = {
    **setup_and_rounds.AUTO,
    **goods.AUTO,
    **expansion.AUTO,
}


_SKIP: dict[str, Callable[[State, Item], bool]] = {
    **setup_and_rounds.SKIP,
    **goods.SKIP,
    **expansion.SKIP,
    **bookkeeping.SKIP,
}

# Every operation the rules handle is declared (PENDING), and every one declared is
# handled: a decision or chance event has its legal steps, other work is automatic.
assert set(_LEGAL) | set(_AUTO) | set(_SKIP) <= set(PENDING), set(_LEGAL) - set(PENDING)
assert all((op in _LEGAL) == (p.entry != THEN) and (op in _AUTO) == (p.entry == THEN)
           for op, p in PENDING.items()), "an operation's declaration and rules disagree"
