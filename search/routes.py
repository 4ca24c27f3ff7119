"""Progress on each route to money, in pounds of bonus (not money).

Mombasa pays in four categories: company shares, diamonds, bookkeeping and cash. The
bonus of a route counts what a player has built towards it beyond what the score
already holds: for the bookkeeping route the ink jar's value, the run of books ahead of
it, bookkeeper cards owned and face up, and the walk a bookkeeper used now would make.
The scripted specialists (:mod:`search.specialists`) judge positions by the evaluator
plus one route's bonus; the search can add a share of the bookkeeping bonus to its
leaves (``SearchConfig.book_drive``), because the learned evaluator prices books set up
for a later walk below what a player who plans the walk gets from them.

>>> import engine
>>> s = engine.new_game(players=2, seed=0)
>>> route_bonus(s, 0, "bookkeeper") >= 0.0
True
"""

from __future__ import annotations

from engine import ROUNDS, State, tables
from search.evaluator import rounds_left
from search.features import INDEX, ink_walk, player_features

ROUTES = ("bookkeeper", "diamonds", "shares")

# Pounds of bonus per unit of route progress (on top of the evaluator's own money).
# Chosen so the route wins every near-tie and is preferred against a few pounds of
# estimated money, but not against a large sure gain.
_BONUS: dict[str, tuple[tuple[int, float], ...]] = {
    route: tuple((INDEX[k], v) for k, v in weights.items())
    for route, weights in {
        "bookkeeper": {"bookkeeping_value": 1.5, "book_run_value": 1.0, "books_ahead": 1.0,
                       "now_bookkeeping": 1.5, "own_bookkeeping": 1.0},
        "diamonds": {"diamond_value": 1.5, "merchants": 3.0},
        "shares": {"share_money": 0.5, "track_progress": 0.5, "now_helmets": 0.5},
    }.items()
}
_WALK_BOOK, _WALK_VALUE = 2.0, 1.0  # per book / pound the ink jar could walk now
_FACE_UP_MERCHANT = 2.0  # per face-up merchant card (diamonds route)


def route_bonus(state: State, me: int, route: str) -> float:
    """Pounds of bonus for player ``me``'s progress on ``route`` (one of
    :data:`ROUTES`). The feature rows come from :func:`player_features`, which keeps
    the last state's rows, so asking for every player of one state computes them once."""
    row = player_features(state)[me]
    bonus = sum(row[i] * w for i, w in _BONUS[route])
    if route == "bookkeeper":
        books, value = ink_walk(state, state.players[me])
        bonus += _WALK_BOOK * books + _WALK_VALUE * value
    elif route == "diamonds" and state.phase in (1, 2):
        up = state.players[me].face_up() & tables(state.cat).merchant_mask
        bonus += _FACE_UP_MERCHANT * up.bit_count()
    return bonus


def bookkeeping_drive(state: State, weight: float) -> list[float] | None:
    """Per player, ``weight`` times the bookkeeping route's bonus, fading with the rounds
    left (full at the first Planning, none once the game is over); None for no drive.
    The search adds it to the estimated money when it selects (``book_drive``), never
    to the money it reports.

    >>> import engine
    >>> s = engine.new_game(players=2, seed=0)
    >>> bookkeeping_drive(s, 0.0) is None
    True
    >>> len(bookkeeping_drive(s, 1.0))
    2
    """
    if not weight or state.is_over():
        return None
    weight *= rounds_left(state) / ROUNDS
    return [weight * route_bonus(state, i, "bookkeeper") for i in range(state.n)]


__all__ = ["ROUTES", "bookkeeping_drive", "route_bonus"]
