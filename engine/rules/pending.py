"""The declaration of a work-queue operation: :class:`Pending`.

Each rules module declares the operations it queues (``PENDING``), next to the rules
that queue and carry them out: how the entry is named in a saved state, its arguments
(name and value type, in item order), the phases in which it may be pending and the
few rules of the turn flow that concern it. The interpreter (:mod:`engine.rules`)
collects them; the state format and its strict checks (:mod:`engine.serialize`) and the
invariants (:mod:`engine.invariants`) read them, so adding an argument to an operation
touches its declaration only. They are read when the package is imported and when a
state is (de)serialized or checked, never while steps are applied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.primitives import Item

if TYPE_CHECKING:
    from engine.decision import Decision
    from engine.state import State

# The kinds of entry: a player's decision, a chance event, or work the rules carry out
# by themselves once the entries before it are done.
DECISION, CHANCE, THEN = "decision", "chance", "then"
ENTRY_KEYS = (DECISION, CHANCE, THEN)

# The value types of arguments, as a saved state writes them: "company" and "companies"
# (ids), "regions" (ids), "dspace" / "bspace" (display / book space names, a book space
# may be none), "seat" (1-based), "slot" (1-based or none), "card" (name, "hidden" or
# none), "int" and "bool".
VALUE_TYPES = frozenset({"company", "companies", "regions", "dspace", "bspace", "seat",
                         "slot", "card", "int", "bool"})
LIST_TYPES = frozenset({"companies", "regions"})


@dataclass(frozen=True)
class Fixed:
    """In ``phase``, argument ``field`` always holds ``value``; ``must`` says so in a
    sentence (the strict check's message: ``must be <must>``)."""

    field: str
    phase: int
    value: Any
    must: str


@dataclass(frozen=True)
class Pending:
    """One operation of the work queue, ``(op, player, *arguments)``.

    * ``entry`` and ``name``: its entry in a saved state, ``{entry: name, ...}``: a
      decision's kind (``Decision.kind``), a chance event's step kind, or the name of
      work the rules carry out by themselves (``then``);
    * ``seatless``: work of no seat (the item ``(op,)``; no arguments). Every other
      entry names its seat, but chance, whose item keeps ``NOBODY`` in its place
      (:attr:`player`);
    * ``fields``: the arguments after the player, ``(name, value type)`` in item order
      (``VALUE_TYPES``);
    * ``phases``: the phases in which it may be pending;
    * ``once_per_seat``: a seat never has two such entries pending;
    * ``simultaneous``: every seat's entry is queued at once and any seat of the run of
      them at the front may decide first (``decide_as``);
    * ``first_only``: it is only ever the first entry (the action decision);
    * ``closes``: when pending it follows all the rest, and in its phases it is always
      pending: the text names what it follows (the reveal, after the seats planning);
    * ``fixed``: arguments whose value the phase decides (:class:`Fixed`);
    * ``posts_home``: the argument naming the companies (or company) whose ousted
      trading posts are on their way home (counted by the post invariant);
    * ``in_v1``: whether ``mombasa-state/1`` files may hold it (later operations: no);
    * ``decision``: for a decision, the :class:`~engine.decision.Decision` it asks for,
      built from the state and the item (once per state; the interpreter calls it as
      it is). Chance entries get theirs from ``name`` and their one argument.
    """

    op: str
    entry: str
    name: str
    phases: frozenset[int]
    fields: tuple[tuple[str, str], ...] = ()
    seatless: bool = False
    once_per_seat: bool = False
    simultaneous: bool = False
    first_only: bool = False
    closes: str = ""
    fixed: tuple[Fixed, ...] = ()
    posts_home: str = ""
    in_v1: bool = True
    decision: Callable[[State, Item], Decision] | None = None

    def __post_init__(self) -> None:
        assert self.entry in ENTRY_KEYS, self
        assert all(kind in VALUE_TYPES for _, kind in self.fields), self
        assert (self.decision is not None) == (self.entry == DECISION), self
        assert not self.seatless or (self.entry == THEN and not self.fields), self
        assert self.entry != CHANCE or len(self.fields) == 1, self  # Decision.target
        names = [f for f, _ in self.fields]
        assert all(f.field in names for f in self.fixed), self
        assert not self.posts_home or self.posts_home in names, self

    @property
    def player(self) -> bool:
        """Whether the entry names the seat whose work it is (not chance, not seatless)."""
        return not self.seatless and self.entry != CHANCE

    @property
    def args_at(self) -> int:
        """The index of the first argument in the item: after the player's place (which
        chance keeps, as ``NOBODY``); seatless work has neither."""
        return 1 if self.seatless else 2

    def arg_index(self, field: str) -> int:
        """The index of argument ``field`` in the item."""
        return self.args_at + [f for f, _ in self.fields].index(field)


def collect(*groups: Iterable[Pending]) -> dict[str, Pending]:
    """The declarations of every rules module, by operation (each declared once)."""
    out: dict[str, Pending] = {}
    for group in groups:
        for p in group:
            assert p.op not in out, f"{p.op!r} is declared twice"
            out[p.op] = p
    return out


def seats_deciding(s: State, op: str) -> tuple[int, ...]:
    """The seats of the run of ``op`` items at the front of the queue, in queue order
    (a simultaneous decision: the group still deciding)."""
    seats = []
    for item in s.todo:
        if item[0] != op:
            break
        seats.append(item[1])
    return tuple(seats)
