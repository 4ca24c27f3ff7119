"""Scripted specialists: one bot per route to money, to measure what each route yields.

Mombasa pays in four categories: company shares, diamonds, bookkeeping and cash. A
specialist plays like the greedy bot (one turn ahead, the solvers at expansions, book
purchases and ink-jar moves) but judges positions by the learned evaluator *plus* a
bonus for progress on its own route, so it keeps choosing that route's cards, slots and
actions even where a one-turn reading would not. Routes:

* ``bookkeeper``: the ink jar's value, the run of books ahead of it, books on the track,
  bookkeeper cards owned and face up (points to buy books, the action that moves the jar).
* ``diamonds``: the diamond track's value, merchant cards owned and face up, pounds for
  a merchant's use.
* ``shares``: shares times the share value, progress to the next share icon, face-up
  expansion helmets and goods.

They are yardsticks for the catalogue and the evaluator (``docs/catalogue.md``), not
advice: the bonus is not money.

>>> import engine
>>> s = engine.new_game(players=2, seed=4)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> bot = SpecialistBot("bookkeeper", seed=1)
>>> bot.choose(engine.observe(s, 0)).steps[0].kind
'rest'
"""

from __future__ import annotations

from itertools import combinations

from engine import Observation, State, Step, tables
from search.bots import GreedyBot
from search.features import ink_reach, ink_walk
from search.routes import ROUTES, route_bonus

# How hard each route is pushed by default (times its bonus, search.routes). The diamond track
# caps what the route can yield (its top space pays 24): at 1.0 the specialist gave up
# 28 pounds of shares for 9 of diamonds (-11.4% against greedy); at 0.5 it still takes
# 6 pounds more of diamonds than greedy and ends -6.6% (docs/catalogue.md).
DEFAULT_STRENGTH: dict[str, float] = {"bookkeeper": 1.0, "diamonds": 0.5, "shares": 1.0}
_BOOKS_WANTED = 4  # books ahead of the ink jar the bookkeeper keeps buying towards


class SpecialistBot(GreedyBot):
    """Greedy with the learned evaluator, plus a bonus for progress on one route."""

    def __init__(self, route: str, seed: int = 0, strength: float | None = None,
                 evaluator: str = "learned") -> None:
        if route not in ROUTES:
            raise ValueError(f"route: one of {', '.join(ROUTES)}, got {route!r}")
        super().__init__(seed, evaluator=evaluator)
        self.name = route
        self.route = route
        self.strength = DEFAULT_STRENGTH[route] if strength is None else strength
        self._planned: list[int] = []  # route cards still to plan this Planning phase

    def route_bonus(self, state: State, me: int) -> float:
        """Pounds of bonus for this bot's progress on its route."""
        return self.strength * route_bonus(state, me, self.route)

    def _value(self, state: State, me: int) -> float:
        return super()._value(state, me) + self.route_bonus(state, me)

    def _pick(self, obs: Observation, state: State) -> Step:
        scripted = self._scripted(state, obs.viewer)
        if scripted is not None and scripted in state.legal_steps():
            return scripted
        return super()._pick(obs, state)

    def _scripted(self, state: State, me: int) -> Step | None:
        """The route's own moves where a one-turn look cannot see them: plan the route's
        cards together (a bookkeeper with the cards that meet the books ahead; the
        merchants) and use them first."""
        d = state.decision
        p = state.players[me]
        t = tables(state.cat)
        if d.kind == "plan" and d.slot == -1:
            core = self._core_cards(state, me)
            self._planned = list(core)
        if d.kind == "plan" and self._planned:
            last = -1 if d.slot is None else d.slot
            slots = [k for k in p.available_slots(state.cat) if k > last]
            while self._planned and not (p.hand >> self._planned[0]) & 1:
                self._planned.pop(0)
            if self._planned and slots:
                return Step("plan", self._planned.pop(0), slots[0])
            return None
        if d.kind == "action":
            up = p.face_up()
            if self.route == "bookkeeper" and ink_walk(state, p)[0] > 0:
                keepers = up & t.keeper_mask
                if keepers:
                    return Step("keeper", (keepers & -keepers).bit_length() - 1)
            if self.route == "diamonds" and up & t.merchant_mask:
                m = up & t.merchant_mask
                return Step("merchant", (m & -m).bit_length() - 1)
        return None

    def _core_cards(self, state: State, me: int) -> tuple[int, ...]:
        p = state.players[me]
        t = tables(state.cat)
        cards = [c for c in range(len(state.cat.cards)) if (p.hand >> c) & 1]
        free = len(p.available_slots(state.cat))
        if self.route == "diamonds":
            return tuple(c for c in cards if (t.merchant_mask >> c) & 1)[:free]
        if self.route != "bookkeeper":
            return ()
        keepers = sorted((c for c in cards if (t.keeper_mask >> c) & 1),
                         key=lambda c: -t.card_value[c])
        if not keepers:
            return ()
        others = [c for c in cards if c != keepers[0] and t.card_measure[c] >= 0]
        best: tuple[int, tuple[int, ...]] = (0, ())
        for size in range(min(free - 1, len(others)) + 1):
            for combo in combinations(others, size):
                gain = _walk_gain(state, me, (keepers[0], *combo))
                if gain > best[0]:
                    best = (gain, combo)
        if best[0] > 0:
            return (keepers[0], *best[1])
        # Nothing to walk yet: the bookkeeper's points still buy the books to walk later.
        ahead = sum(1 for k in range(p.ink + 1, len(p.books)) if p.books[k])
        return (keepers[0],) if ahead < _BOOKS_WANTED else ()


def _walk_gain(state: State, me: int, cards: tuple[int, ...]) -> int:
    """Bookkeeping value the ink jar would walk with exactly ``cards`` face up."""
    cat = state.cat
    t = tables(cat)
    p = state.players[me]
    have = [0, 0, 0, 0, 0]
    for c in cards:
        if t.card_measure[c] >= 0:
            have[t.card_measure[c]] += t.card_value[c]
    bk = cat.bookkeeping_values
    return bk[ink_reach(cat, p, have)] - bk[p.ink]


__all__ = ["DEFAULT_STRENGTH", "ROUTES", "SpecialistBot"]
