"""Moves: a player's whole turn, the steps one decider takes before someone else decides;
how much of a line of steps a seat may play before it sees something new.

>>> import engine
>>> s = engine.new_game(players=2, seed=2)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> m = engine.Move.parse(0, "rest cof1/1 ban1/1 exp2/1", s.cat)
>>> s2 = apply_move(s, m)
>>> s2.decision.player
1
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.rules import IllegalStep
from engine.state import State
from engine.steps import Move, Step


def apply_move(s: State, move: Move, complete: bool = True) -> State:
    """Apply all steps of ``move`` or none: an illegal step raises :class:`IllegalStep`
    naming its position, and ``s`` is unchanged. With ``complete`` the move must end
    the player's turn (the next decision belongs to someone else or to chance, or begins
    a new turn of the same player)."""
    cur = s
    for i, step in enumerate(move.steps):
        d = cur.decision
        if d.player != move.player and move.player in d.deciders:
            cur = cur.decide_as(move.player)  # a simultaneous decision: any seat first
            d = cur.decision
        if d.player != move.player:
            who = "chance" if d.player < 0 else f"P{d.player + 1}"
            raise IllegalStep(
                f"steps[{i}]: the decision belongs to {who}, not P{move.player + 1}")
        try:
            cur = cur.apply(step)
        except IllegalStep as exc:
            raise IllegalStep(f"steps[{i}]: {exc}") from None
    # A seat that stepped into a simultaneous decision is its first decider until it is
    # done, so "still deciding" is the first decider being the mover, unless what it
    # decides next is a new turn (the last to plan may act first; a player whose
    # opponents have all ended their actions takes turn after turn).
    d = cur.decision
    if (complete and move.player >= 0 and d.player == move.player and not cur.is_over()
            and not d.starts_turn):
        raise IllegalStep(f"move incomplete: P{move.player + 1} still has to decide {d.kind!r}")
    return cur


def group_moves(history: Iterable[tuple[int, Step]]) -> list[Move]:
    """Group a history of (decider, step) pairs into moves (chance steps: player -1)."""
    moves: list[Move] = []
    cur_player: int | None = None
    cur: list[Step] = []
    for player, step in history:
        if player != cur_player and cur:
            moves.append(Move(cur_player if cur_player is not None else -1, tuple(cur)))
            cur = []
        cur_player = player
        cur.append(step)
        if player < 0:  # every chance event is a move of its own
            moves.append(Move(-1, tuple(cur)))
            cur, cur_player = [], None
    if cur:
        moves.append(Move(cur_player if cur_player is not None else -1, tuple(cur)))
    return moves


def playable_prefix(s: State, viewer: int, steps: Sequence[Step]) -> tuple[int, str | None]:
    """How much of a line of ``viewer``'s steps may be played from ``s`` without playing
    past what ``viewer`` has seen: ``(k, why)``, ``steps[:k]`` playable, ``why`` what
    comes after them (``None``: ``viewer`` decides on, with nothing new to see).

    The line stops after the step that reveals the plans or the starting tiles
    (``"reveal"``: the rulebook's "as soon as all players are finished placing their
    cards ... turn all cards face up"; what the others planned is new information), and
    before a step that comes at a chance event (``"chance"``: a card, book, tile or track
    dealt), at another seat's decision (``"other-seat"``), at the end of the game
    (``"over"``) or that is illegal where it stands (``"illegal"``). The one rule for
    every place that plays a suggested line (the service's ``POST .../moves``, its
    analysis' ``playable``, the page, ``mombasa play``).

    >>> import engine
    >>> s = engine.new_game(players=2, seed=2)
    >>> while s.decision.kind == "chance":
    ...     s = s.apply(s.sample_chance())
    >>> rest = [Step.parse(t, s.cat) for t in ("rest cof1/1 ban1/1 exp2/1", "ready")]
    >>> playable_prefix(s, 0, rest)
    (1, 'other-seat')
    """
    cur = s
    for k, step in enumerate(steps):
        d = cur.decision
        if cur.is_over():
            return k, "over"
        if d.is_chance:
            return k, "chance"
        if viewer not in d.deciders:
            return k, "other-seat"
        try:
            nxt = cur.apply(step, viewer)
        except IllegalStep:
            return k, "illegal"
        if nxt.revealed and not cur.revealed:
            return k + 1, "reveal"
        cur = nxt
    return len(steps), _after(cur, viewer)


def _after(s: State, viewer: int) -> str | None:
    """What follows a line played to its end: None while ``viewer`` decides on."""
    if s.is_over():
        return "over"
    if s.decision.is_chance:
        return "chance"
    return None if viewer in s.decision.deciders else "other-seat"
