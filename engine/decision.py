"""Who decides what next: :class:`Decision`, a value object with the decision's arguments
by name. No engine imports."""

from __future__ import annotations

from typing import Any


class Decision:
    """Who decides what next, and the decision's arguments by name.

    ``kind`` is a player's decision (the values of ``engine.rules.OP_KINDS``; the table
    in ``docs/engine.md``), ``"chance"`` or ``"over"``; ``player`` is -1 for chance and
    when the game is over. The arguments that are not ``None`` say where the decision
    stands:

    * ``plan``: ``slot``, the action slot filled last in this Planning (-1: none yet;
      the next card goes to a slot right of it);
    * ``goods-buy`` / ``goods-track``: ``units``, the goods units still to use;
    * ``expansion``: ``company``, ``points`` (expansion points left), ``entered`` and
      ``ousted`` (regions entered and the companies whose posts were ousted so far);
    * ``oust-return``: ``company``, whose ousted post goes back to its base;
    * ``bookkeeper-flip`` / ``ink-jar``: ``card``, the bookkeeper card (or tile) being
      used, and for the ink jar ``moved``, the spaces moved so far;
    * ``remove-post``: ``ousted``, the companies whose ousted posts still go home
      after the removal;
    * ``bookkeeping-points``: ``points`` left to spend and ``space``, the book-display
      space taken from last this turn (-1: none; a further book comes from a space
      right of it);
    * ``place-book``: ``books`` acquired this turn and still to place;
    * ``chance``: ``event``, the kind of the chance step due (``deal-track``,
      ``deal-card``, ``deal-book``, ``deal-tile``), and ``target``, the company, display
      space, book space or seat it is dealt to.

    Planning and the starting-tile choice are simultaneous: ``seats`` lists every seat
    that still has that decision to take, ``player`` first (the default decider, in
    turn order). Any of them may decide first: ``state.apply(step, player=k)``, or
    ``state.decide_as(k)`` for the position with seat ``k`` deciding. For every other
    decision ``seats`` is ``None``.

    Players are indices (0 for the first seat) in the attributes, as everywhere in the
    engine's API; the repr, which people read, names them P1-P4 (and leaves out the
    player of chance and of the end of the game).

    >>> Decision("expansion", 0, company=2, points=3, entered=(), ousted=())
    Decision('expansion', P1, company=2, points=3, entered=(), ousted=())
    >>> Decision("plan", 1, slot=-1, seats=(1, 0))
    Decision('plan', P2, slot=-1, seats=(P2, P1))
    >>> Decision("chance", -1, event="deal-tile", target=2)
    Decision('chance', event='deal-tile', target=P3)
    >>> Decision("plan", 1, slot=-1, seats=(1, 0)).hidden
    True
    >>> Decision("plan", 1, slot=-1, seats=(1, 0)).deciders
    (1, 0)
    """

    __slots__ = ("kind", "player", "company", "points", "units", "slot", "card", "moved",
                 "entered", "ousted", "space", "books", "event", "target", "seats")
    _ARGS = ("company", "points", "units", "slot", "card", "moved", "entered", "ousted", "space",
             "books", "event", "target", "seats")

    def __init__(self, kind: str, player: int, *, company: int | None = None,
                 points: int | None = None, units: int | None = None,
                 slot: int | None = None, card: int | None = None,
                 moved: int | None = None,
                 entered: tuple[int, ...] | None = None,
                 ousted: tuple[int, ...] | None = None, space: int | None = None,
                 books: tuple[int, ...] | None = None, event: str | None = None,
                 target: int | None = None, seats: tuple[int, ...] | None = None) -> None:
        self.kind = kind
        self.player = player
        self.company = company
        self.points = points
        self.units = units
        self.slot = slot
        self.card = card
        self.moved = moved
        self.entered = entered
        self.ousted = ousted
        self.space = space
        self.books = books
        self.event = event
        self.target = target
        self.seats = seats

    @property
    def hidden(self) -> bool:
        """True for decisions other players do not see until the reveal (Planning and
        the starting-tile choice)."""
        return self.kind in HIDDEN_KINDS

    @property
    def simultaneous(self) -> bool:
        """True for a decision several seats take at once (Planning, the starting tile)."""
        return self.seats is not None

    @property
    def deciders(self) -> tuple[int, ...]:
        """Every seat that may decide now: ``seats`` for a simultaneous decision, else
        ``(player,)``, or ``()`` for chance and the end of the game."""
        if self.seats is not None:
            return self.seats
        return (self.player,) if self.player >= 0 else ()

    @property
    def starts_turn(self) -> bool:
        """True for a decision that begins a turn rather than continuing one: an action,
        the resting cards, the starting tile, or a Planning with no card planned yet. A
        move may end where its player's next decision starts a turn (the last to plan
        may act first; a player whose opponents have all ended takes turn after turn).

        >>> Decision("plan", 0, slot=-1).starts_turn, Decision("plan", 0, slot=1).starts_turn
        (True, False)
        """
        return (self.kind in ("action", "resting-cards", "starting-tile")
                or (self.kind == "plan" and self.slot == -1))

    @property
    def is_chance(self) -> bool:
        """True when chance decides (a card, book, tile or track is dealt)."""
        return self.kind == "chance"

    def _key(self) -> tuple[Any, ...]:
        return (self.kind, self.player) + tuple(getattr(self, a) for a in Decision._ARGS)

    def __repr__(self) -> str:
        who = f", P{self.player + 1}" if self.player >= 0 else ""
        args = "".join(f", {a}={self._arg_text(a)}" for a in Decision._ARGS
                       if getattr(self, a) is not None)
        return f"Decision({self.kind!r}{who}{args})"

    def _arg_text(self, name: str) -> str:
        value = getattr(self, name)
        if name == "seats":
            return "(" + ", ".join(f"P{k + 1}" for k in value) + ")"
        if name == "target" and self.event == "deal-tile":  # a seat is dealt the tile
            return f"P{value + 1}"
        return repr(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Decision) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


# The decisions others do not see until the reveal.
HIDDEN_KINDS = frozenset({"starting-tile", "plan"})
