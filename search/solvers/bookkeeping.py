"""Spending bookkeeping points (which books to take, the rest as pounds, where to place
each book) and moving the ink jar.

The value of a bookkeeping track is a documented heuristic (:class:`TrackValuation`):
walking from the ink jar, every space whose top book the player can plausibly satisfy
with the cards they own (or that is face down) is reachable, until the first one that
is not (an empty space, or needs the player's cards cannot meet); each reachable space
is worth its score step (plus the 5th-slot unlock) and a share of its book's reward,
discounted by its distance from the ink jar. A plan is worth the pounds (the points
not spent and the coins under the books taken) plus the change of that track value.

:func:`best_bookkeeping` solves the choice exactly with a CP-SAT model (which books,
where each goes, which book ends on top of each space, how far the chain reaches);
:func:`best_ink_move` compares the few ink-jar stops directly.

>>> import engine
>>> s = engine.new_game(players=2, seed=4)
>>> tv = default_track_valuation(s, 0)
>>> tv.slots, round(tv.pound, 3)
(3, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from ortools.sat.python import cp_model

from engine import ROUNDS, Catalogue, Reward, State, Step, tables
from search.features import ink_reach
from search.solvers.common import (
    SCALE,
    LRUCache,
    SolverError,
    Valuation,
    acting_player,
    default_valuation,
)

DECAY = 0.85  # plausibility factor per space beyond the next one
REWARD_SHARE = 0.5  # share of a book's reward counted for a reachable space
UNLOCK_PER_ROUND = 1.0  # value of the 5th action slot per round still to come
MEASURE_BOOKKEEPING = 4
_NEG = -(1 << 62)

Method = Literal["dp", "cpsat"]
DEFAULT_METHOD: Method = "dp"


@dataclass(frozen=True, slots=True)
class TrackValuation:
    """How a player values the bookkeeping track and pounds.

    * ``step[k]``: value of the ink jar getting from space k-1 to space k (the score
      step of the track, plus the 5th-slot unlock on its space);
    * a space ``d`` spaces beyond the next one counts ``decay ** d`` of its value (it is
      less plausible to get there); ``reward_share`` of a reachable book's reward counts;
    * ``cards[m]``: values of the player's cards of each measure (coffee, bananas,
      cotton, helmets, bookkeeping points), largest first; ``slots``: cards face up at
      once. A book is *meetable* when one bookkeeper plus cards filling the other slots
      can meet all its needs (see :func:`meetable`);
    * ``rewards``: values of reward units (pounds, diamond steps, track steps per
      company, removed posts); ``pound``: a pound taken now.

    >>> tv = TrackValuation(step=(0.0, 1.0, 1.0), cards=((2,), (), (), (), (2,)))
    >>> tv.decay
    0.85
    """

    pound: float = 1.0
    step: tuple[float, ...] = ()
    decay: float = DECAY
    reward_share: float = REWARD_SHARE
    cards: tuple[tuple[int, ...], ...] = ((), (), (), (), ())
    slots: int = 3
    rewards: Valuation = field(default_factory=Valuation)


def _owned_cards(s: State, player: int) -> int:
    """The player's cards (:meth:`PlayerState.owned_cards`) and its card tiles."""
    p = s.players[player]
    return p.owned_cards() | p.tiles


def default_track_valuation(s: State, player: int | None = None) -> TrackValuation:
    """The default track valuation of ``player`` (default: the player deciding now):
    score steps of the bookkeeping track plus 1 pound per round still to come for
    reaching the 5th-slot space, decay 0.85 per space, half of a book's reward, the
    player's cards (hand, action area and its tiles, resting decks) and available slots,
    reward units as in :func:`default_valuation`."""
    if player is None:
        player = acting_player(s)
    cat = s.cat
    p = s.players[player]
    t = tables(cat)
    values: list[list[int]] = [[], [], [], [], []]
    owned = _owned_cards(s, player)
    while owned:
        low = owned & -owned
        c = low.bit_length() - 1
        owned ^= low
        m = t.card_measure[c]
        if m >= 0:
            values[m].append(t.card_value[c])
    rounds_left = max(0, ROUNDS - max(s.round, 1))
    bk = cat.bookkeeping_values
    step = [0.0] + [float(bk[k] - bk[k - 1]) for k in range(1, len(bk))]
    if p.ink < cat.bookkeeping_slot < len(step):
        step[cat.bookkeeping_slot] += UNLOCK_PER_ROUND * rounds_left
    return TrackValuation(
        pound=1.0, step=tuple(step), decay=DECAY, reward_share=REWARD_SHARE,
        cards=tuple(tuple(sorted(v, reverse=True)) for v in values),
        slots=len(p.available_slots(s.cat)), rewards=default_valuation(s, player))


def meetable(needs: tuple[tuple[int, int], ...], tv: TrackValuation) -> bool:
    """Whether the player's cards can plausibly meet a book's needs: one bookkeeper (its
    own points count for a bookkeeping need) plus, in the other slots, the largest
    cards of each needed measure.

    >>> tv = TrackValuation(cards=((3, 1), (), (), (), (2,)), slots=3)
    >>> meetable(((0, 4),), tv), meetable(((0, 5),), tv), meetable(((4, 2),), tv)
    (True, False, True)
    """
    keepers = tv.cards[MEASURE_BOOKKEEPING]
    if not keepers:
        return False
    free = tv.slots - 1
    for m, amount in needs:
        values = tv.cards[m]
        if m == MEASURE_BOOKKEEPING:
            amount -= values[0]
            values = values[1:]
        used = 0
        for v in values:
            if amount <= 0:
                break
            amount -= v
            used += 1
        if amount > 0:
            return False
        free -= used
    return free >= 0


# --------------------------------------------------------------------------------------
# The track value (integer milli-units)
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Weights:
    pound: int
    space: tuple[int, ...]  # value of reaching each space, from this ink position
    reward: tuple[int, ...]  # weight (milli) of a reachable book's reward value
    meet: tuple[bool, ...]  # per book
    book_value: tuple[int, ...]  # per book: scaled value of its reward
    can_move: bool


@lru_cache(maxsize=4096)
def _weights(tv: TrackValuation, cat: Catalogue, ink: int) -> _Weights:
    n = len(cat.bookkeeping_values)
    space = [0] * n
    reward = [0] * n
    for k in range(ink + 1, n):
        f = tv.decay ** (k - ink - 1)
        space[k] = int(round(SCALE * (tv.step[k] if k < len(tv.step) else 0.0) * f))
        reward[k] = int(round(SCALE * tv.reward_share * f))
    return _Weights(
        pound=int(round(SCALE * tv.pound)), space=tuple(space), reward=tuple(reward),
        meet=tuple(not b.needs or meetable(b.needs, tv) for b in cat.books),
        book_value=tuple(reward_value(b.reward, tv.rewards) for b in cat.books),
        can_move=bool(tv.cards[MEASURE_BOOKKEEPING]))


def reward_value(r: Reward, v: Valuation) -> int:
    """Scaled value of a book's reward under the reward weights of ``v``."""
    w = v.scaled()
    track = w.track[r.track_company] * r.track_steps if r.track_company >= 0 else 0
    return (w.pound * r.pounds + w.diamond * r.diamonds + w.bookkeeping * r.bookkeeping
            + track + w.remove_post * r.remove_posts)


def _contribution(w: _Weights, k: int, book: int) -> int:
    return (w.reward[k] * w.book_value[book]) // SCALE


def track_value(cat: Catalogue, books: tuple[tuple[int, ...], ...], flipped: int, ink: int,
                tv: TrackValuation) -> int:
    """The scaled value of a bookkeeping track (stacks ``books``, face-down mask
    ``flipped``, ink jar on ``ink``) under ``tv``: the sum over the spaces the ink jar
    can plausibly reach, in order from the jar, of the space's value and the share of
    its top book's reward (none for a face-down book)."""
    w = _weights(tv, cat, ink)
    if not w.can_move:
        return 0
    total = 0
    for k in range(ink + 1, len(books)):
        stack = books[k]
        if not stack:
            break
        top = stack[-1]
        if (flipped >> top) & 1:
            total += w.space[k]
            continue
        if not w.meet[top]:
            break
        total += w.space[k] + _contribution(w, k, top)
    return total


# --------------------------------------------------------------------------------------
# Plans
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BookPlan:
    """One way to spend the bookkeeping points, complete.

    ``steps``: the ``take`` steps (display spaces in increasing order), ``pounds`` when
    points remain, then one ``place`` step per book to place (books taken earlier this
    turn first); ``books`` / ``spaces``: books taken now and their display spaces;
    ``placements``: (book, bookkeeping space) in placing order; ``pounds``: points taken
    as pounds; ``coins``: coins lying under the books taken; ``value``: pounds, coins
    and the change of the track value; ``exact``: the steps apply to the given state
    (False for a hypothetical number of points or an action decision).
    """

    steps: tuple[Step, ...]
    books: tuple[int, ...]
    spaces: tuple[int, ...]
    placements: tuple[tuple[int, int], ...]
    pounds: int
    coins: int
    points: int
    value: float
    exact: bool

    def text(self, cat: Catalogue) -> str:
        return "; ".join(st.text(cat) for st in self.steps)

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        return {
            "steps": [st.text(cat) for st in self.steps],
            "books": [cat.books[b].name for b in self.books],
            "spaces": [cat.book_space_name(j) for j in self.spaces],
            "placements": [{"book": cat.books[b].name, "space": k}
                           for b, k in self.placements],
            "pounds": self.pounds, "coins": self.coins, "points": self.points,
            "value": self.value, "exact": self.exact,
        }


@dataclass(frozen=True, slots=True)
class InkPlan:
    """How far to move the ink jar: ``ink`` steps then ``halt`` (left out when the
    engine halts by itself), the space it stops on, the reward collected there and the
    value (score steps + the reward now + the track value from the new position)."""

    steps: tuple[Step, ...]
    target: int
    reward: Reward | None
    value: float

    def text(self, cat: Catalogue) -> str:
        return "; ".join(st.text(cat) for st in self.steps)

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        r = self.reward
        return {
            "steps": [st.text(cat) for st in self.steps], "target": self.target,
            "reward": None if r is None else {
                "pounds": r.pounds, "diamonds": r.diamonds, "bookkeeping": r.bookkeeping,
                "track": r.track_steps,
                "company": cat.companies[r.track_company].id if r.track_company >= 0
                else None, "remove_posts": r.remove_posts},
            "value": self.value,
        }


class _BookProblem:
    """The spending problem read from the state."""

    def __init__(self, s: State, player: int, points: int, tv: TrackValuation,
                 exact: bool, spend_space: int | None) -> None:
        cat = s.cat
        t = tables(cat)
        p = s.players[player]
        self.cat = cat
        self.points = points
        self.exact = exact
        self.tv = tv
        self.ink = p.ink
        self.last = len(p.books) - 1
        self.ahead = list(range(p.ink + 1, len(p.books)))
        self.w = _weights(tv, cat, p.ink)
        self.books = p.books
        self.flipped = p.flipped
        # At a bookkeeping-points decision: books already taken this turn, and further
        # ones come from spaces right of the last (None: a hypothetical purchase).
        last_space = spend_space if spend_space is not None else -1
        self.pre: tuple[int, ...] = tuple(s.turn_books) if spend_space is not None else ()
        self.letter = t.book_letter
        a_ok = any(self.placeable("A", k) for k in self.ahead)
        self.display: list[tuple[int, int, int, int]] = []  # (space, book, cost, coins)
        for j in range(last_space + 1, t.n_book_spaces):
            b = s.book_display[j]
            if b < 0 or not self.ahead:
                continue
            letter = t.book_letter[b]
            if letter == "A" and not a_ok:
                continue
            cost = cat.book_costs[letter]
            if cost > points:
                continue
            self.display.append((j, b, cost, s.book_coins[j]))
        self.before = track_value(cat, p.books, p.flipped, p.ink, tv)
        order = [self.letter[b] for b in self.pre] + [self.letter[b] for _, b, _, _ in
                                                      self.display]
        seen_other = False
        for letter in order:
            if letter != "A":
                seen_other = True
            elif seen_other:
                raise SolverError("the bookkeeping model needs A-books to be taken before "
                                  "B- and C-books (display spaces in that order)")

    def placeable(self, letter: str, k: int) -> bool:
        """The engine's rule on the current track (``_placeable``)."""
        stack = self.books[k]
        if letter != "A":
            return True
        if not stack:
            return k not in self.cat.crossed_a
        return self.letter[stack[-1]] == "A"

    def old_top(self, k: int) -> tuple[bool, int]:
        """(enterable, contribution) of the book now on top of space ``k``."""
        stack = self.books[k]
        if not stack:
            return False, 0
        top = stack[-1]
        if (self.flipped >> top) & 1:
            return True, 0
        if not self.w.meet[top]:
            return False, 0
        return True, _contribution(self.w, k, top)


def _solve_books(pr: _BookProblem, k: int) -> list[tuple[int, tuple[int, ...],
                                                         tuple[tuple[int, int], ...]]]:
    """CP-SAT: the k best (value, display spaces taken, placements), each with a
    different set of books taken."""
    model = cp_model.CpModel()
    w = pr.w
    take = {j: model.new_bool_var(f"take{j}") for j, _, _, _ in pr.display}
    cost = sum(c * take[j] for j, _, c, _ in pr.display)
    if take:
        model.add(cost <= pr.points)
    seq: list[tuple[int, Any]] = [(b, 1) for b in pr.pre]
    seq += [(b, take[j]) for j, b, _, _ in pr.display]
    place: dict[tuple[int, int], Any] = {}
    for q, (b, taken) in enumerate(seq):
        lits = []
        for kk in pr.ahead:
            if pr.placeable(pr.letter[b], kk):
                lit = model.new_bool_var(f"pl{q}_{kk}")
                place[(q, kk)] = lit
                lits.append(lit)
        model.add(sum(lits) == taken)
    objective: list[Any] = [w.pound * (pr.points - cost)]
    objective += [w.pound * coins * take[j] for j, _, _, coins in pr.display if coins]
    prev_reach: Any = 1
    for kk in pr.ahead:
        placers = [q for q in range(len(seq)) if (q, kk) in place]
        old = model.new_bool_var(f"old{kk}")
        for q in placers:
            model.add_implication(place[(q, kk)], old.Not())
        model.add_bool_or([old] + [place[(q, kk)] for q in placers])
        ok_old, c_old = pr.old_top(kk)
        meet_terms: list[Any] = [old] if ok_old else []
        reach = model.new_bool_var(f"reach{kk}")
        rewards: list[Any] = []
        for i, q in enumerate(placers):
            top = model.new_bool_var(f"top{q}_{kk}")
            later = [place[(q2, kk)] for q2 in placers[i + 1:]]
            model.add_implication(top, place[(q, kk)])
            for lit in later:
                model.add_bool_or([top.Not(), lit.Not()])
            model.add_bool_or([top, place[(q, kk)].Not()] + later)
            b = seq[q][0]
            if w.meet[b] and w.can_move:
                meet_terms.append(top)
                c = _contribution(w, kk, b)
                if c:
                    z = model.new_bool_var(f"z{q}_{kk}")
                    model.add_implication(z, top)
                    model.add_implication(z, reach)
                    model.add_bool_or([z, top.Not(), reach.Not()])
                    rewards.append(c * z)
        if ok_old and c_old and w.can_move:
            z = model.new_bool_var(f"zo{kk}")
            model.add_implication(z, old)
            model.add_implication(z, reach)
            model.add_bool_or([z, old.Not(), reach.Not()])
            rewards.append(c_old * z)
        meet = sum(meet_terms) if meet_terms and w.can_move else 0
        # reach[k] = reach[k-1] and the top of k is enterable
        model.add(reach <= prev_reach)
        model.add(reach <= meet)
        model.add(reach >= prev_reach + meet - 1)
        objective.append(w.space[kk] * reach)
        objective.extend(rewards)
        prev_reach = reach
    obj = sum(objective)
    model.maximize(obj)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    out = []
    for _ in range(k):
        if solver.solve(model) != cp_model.OPTIMAL:
            break
        value = int(round(solver.objective_value)) - pr.before
        taken = tuple(j for j, _, _, _ in pr.display if solver.boolean_value(take[j]))
        placements = []
        for q, (b, _) in enumerate(seq):
            for kk in pr.ahead:
                chosen = place.get((q, kk))
                if chosen is not None and solver.boolean_value(chosen):
                    placements.append((b, kk))
        out.append((value, taken, tuple(placements)))
        # Distinct plans take distinct sets of books.
        model.add_bool_or([take[j].Not() if j in taken else take[j] for j in take])
    out.sort(key=lambda e: (-e[0], e[1]))
    return out


def _nonnegative(pr: _BookProblem) -> bool:
    w = pr.w
    return (w.pound >= 0 and min(w.space) >= 0 and min(w.reward) >= 0
            and min(w.book_value) >= 0)


def _solve_books_dp(pr: _BookProblem, k: int) -> list[tuple[int, tuple[int, ...],
                                                            tuple[tuple[int, int], ...]]]:
    """The hand-written exact method (valuations without negative weights): every
    affordable set of books, best optimistic bound first; for each, the best
    arrangement by dynamic programming along the track from the ink jar (which book,
    if any, ends on top of each space while the chain lasts), the other books being
    buried under a later book or put beyond the end of the chain. Stops when no
    remaining set's bound can enter the k best."""
    w = pr.w
    ahead = pr.ahead
    size = len(ahead)
    space_v = [w.space[kk] for kk in ahead]
    rw = [w.reward[kk] for kk in ahead]
    olds = [pr.old_top(kk) for kk in ahead]
    a_place = [pr.placeable("A", kk) for kk in ahead]
    any_a_from = [False] * (size + 1)
    for i in range(size - 1, -1, -1):
        any_a_from[i] = a_place[i] or any_a_from[i + 1]
    meet, bval = w.meet, w.book_value
    can_move = w.can_move
    letter = pr.letter

    def exact(queue: list[int]) -> tuple[int, list[int]]:
        """Best track value for these books (placing order) and each book's space."""
        m = len(queue)
        is_a = [letter[b] == "A" for b in queue]
        ok = [meet[b] and can_move for b in queue]
        memo: dict[tuple[int, int, int], tuple[int, Any]] = {}

        def feasible(i: int, used: int, max_a: int) -> bool:
            max_all = used.bit_length() - 1
            for q in range(m):
                if (used >> q) & 1:
                    continue
                if is_a[q]:
                    if not (any_a_from[i] or max_a > q):
                        return False
                elif not (i < size or max_all > q):
                    return False
            return True

        def rec(i: int, used: int, max_a: int) -> tuple[int, Any]:
            key = (i, used, max_a)
            hit = memo.get(key)
            if hit is not None:
                return hit
            best: tuple[int, Any] = (_NEG, None)
            if feasible(i, used, max_a):
                best = (0, ("stop",))
            if i < size and can_move:
                enterable, c_old = olds[i]
                if enterable:
                    v = rec(i + 1, used, max_a)[0]
                    if v > _NEG and space_v[i] + c_old + v > best[0]:
                        best = (space_v[i] + c_old + v, ("old",))
                for q in range(m):
                    if (used >> q) & 1 or not ok[q] or (is_a[q] and not a_place[i]):
                        continue
                    v = rec(i + 1, used | (1 << q), max(max_a, q) if a_place[i] else max_a)[0]
                    if v > _NEG:
                        total = space_v[i] + (rw[i] * bval[queue[q]]) // SCALE + v
                        if total > best[0]:
                            best = (total, ("new", q))
            memo[key] = best
            return best

        value, _ = rec(0, 0, -1)
        # Follow the choices: tops, then where every other book goes.
        where = [-1] * m
        i, used, max_a = 0, 0, -1
        while True:
            choice = memo[(i, used, max_a)][1]
            if choice[0] == "stop":
                break
            if choice[0] == "new":
                q = choice[1]
                where[q] = i
                if a_place[i]:
                    max_a = max(max_a, q)
                used |= 1 << q
            i += 1
        stop = i
        for q in range(m):
            if where[q] >= 0:
                continue
            later = [p for p in range(q + 1, m) if where[p] >= 0 and where[p] < stop
                     and (not is_a[q] or a_place[where[p]])]
            if later:
                where[q] = where[later[-1]]  # buried under a later book
            else:
                spots = [j for j in range(stop, size) if not is_a[q] or a_place[j]]
                where[q] = spots[-1]  # beyond the end of the chain
        return value, [ahead[i] for i in where]

    # Every affordable set of books from the display, with an optimistic bound: the
    # chain can cross at most one non-enterable space per meetable book, and no space
    # can hold a better book than the best of the set.
    display = pr.display
    pre_ok = [b for b in pr.pre if meet[b]]
    tv_bound: dict[tuple[int, int], int] = {}

    def chain_bound(tokens: int, best_c: int) -> int:
        key = (tokens, best_c)
        hit = tv_bound.get(key)
        if hit is not None:
            return hit
        tv = 0
        if can_move:
            for i in range(size):
                extra = (rw[i] * best_c) // SCALE if best_c >= 0 else 0
                if olds[i][0]:
                    tv += space_v[i] + max(olds[i][1], extra)
                elif tokens:
                    tokens -= 1
                    tv += space_v[i] + extra
                else:
                    break
        tv_bound[key] = tv
        return tv

    bounded: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    pound = w.pound
    base_gain = pound * pr.points - pr.before
    start_tokens = len(pre_ok)
    start_best = max((bval[b] for b in pre_ok), default=-1)

    def subsets(start: int, budget: int, chosen: tuple[int, ...], money: int, tokens: int,
                best_c: int) -> None:
        bound = base_gain + money + chain_bound(tokens, best_c)
        bounded.append((-bound, tuple(display[d][0] for d in chosen), chosen))
        for d in range(start, len(display)):
            _, b, cost, coins = display[d]
            if cost <= budget:
                good = meet[b]
                subsets(d + 1, budget - cost, (*chosen, d), money + pound * (coins - cost),
                        tokens + good, max(best_c, bval[b]) if good else best_c)

    subsets(0, pr.points, (), 0, start_tokens, start_best)
    bounded.sort()
    top: list[tuple[int, tuple[int, ...], tuple[tuple[int, int], ...]]] = []
    for neg_bound, spaces, chosen in bounded:
        if len(top) == k and -neg_bound < top[-1][0]:
            break
        queue = list(pr.pre) + [display[d][1] for d in chosen]
        tv, where = exact(queue)
        if tv <= _NEG:
            continue
        cost = sum(display[d][2] for d in chosen)
        coins = sum(display[d][3] for d in chosen)
        value = w.pound * (pr.points - cost + coins) + tv - pr.before
        top.append((value, spaces, tuple(zip(queue, where, strict=True))))
        top.sort(key=lambda e: (-e[0], e[1]))
        del top[k:]
    return top


def _book_plan(pr: _BookProblem, value: int, taken: tuple[int, ...],
               placements: tuple[tuple[int, int], ...]) -> BookPlan:
    by_space = {j: (b, c, coins) for j, b, c, coins in pr.display}
    spent = sum(by_space[j][1] for j in taken)
    coins = sum(by_space[j][2] for j in taken)
    steps = [Step("take", j) for j in taken]
    if pr.points - spent > 0:
        steps.append(Step("pounds"))
    steps += [Step("place", b, kk) for b, kk in placements]
    return BookPlan(steps=tuple(steps), books=tuple(by_space[j][0] for j in taken),
                    spaces=taken, placements=placements, pounds=pr.points - spent,
                    coins=coins, points=pr.points, value=value / SCALE, exact=pr.exact)


_CACHE: LRUCache[tuple[Any, ...], tuple[BookPlan, ...]] = LRUCache(8192)


def cache_info() -> dict[str, Any]:
    """Hits, misses and size of the bookkeeping-solver cache."""
    return _CACHE.info()


def clear_cache() -> None:
    _CACHE.clear()


def best_bookkeeping(state: State, points: int | None = None, k: int = 1,
                     valuation: TrackValuation | None = None, method: Method = DEFAULT_METHOD
                     ) -> list[BookPlan]:
    """The ``k`` best ways (distinct sets of books taken) to spend bookkeeping points.

    ``state`` is at the player's ``bookkeeping-points`` decision (``points`` defaults
    to the pool; the steps are exact when it is the pool), or at the player's
    ``action`` decision with ``points`` given (hypothetical: what to do with that many
    points at the end of this turn; ``exact`` is False). ``valuation`` defaults to
    :func:`default_track_valuation`. ``method``: ``"dp"`` (the hand-written exact
    search, the default; valuations with a negative weight go to CP-SAT) or
    ``"cpsat"`` (the reference model); both give the same values. Results are cached.

    >>> import engine, random
    >>> from engine import apply_unchecked, random_step
    >>> s, rng = engine.new_game(players=3, seed=5), random.Random(5)
    >>> while s.decision.kind != "bookkeeping-points":
    ...     s = apply_unchecked(s, random_step(s, rng))
    >>> plan = best_bookkeeping(s)[0]
    >>> plan.exact and plan.points == s.pool
    True
    """
    if not isinstance(state, State):
        raise SolverError(f"not a State: {type(state).__name__}")
    if not isinstance(k, int) or k < 1:
        raise SolverError(f"k must be a positive integer, got {k!r}")
    if points is not None and (not isinstance(points, int) or points < 0):
        raise SolverError(f"points must be a non-negative integer, got {points!r}")
    if method not in ("dp", "cpsat"):
        raise SolverError(f"unknown method {method!r} (expected 'dp' or 'cpsat')")
    player = acting_player(state)
    d = state.decision
    if d.kind == "bookkeeping-points":
        assert d.points is not None and d.space is not None
        pts = d.points if points is None else points
        exact = pts == d.points
        spend_space: int | None = d.space
    elif d.kind == "action":
        if points is None:
            raise SolverError("at an action decision the points to spend must be given")
        pts, exact, spend_space = points, False, None
    else:
        raise SolverError(f"the state is at a {d.kind!r} decision; book "
                          "purchases are solved at a 'bookkeeping-points' decision (or, "
                          "with points, hypothetically at an 'action' decision)")
    p = state.players[player]
    key = (state.cat, player, pts, exact, k, method, valuation, spend_space, state.book_display,
           state.book_coins, state.turn_books, p.books, p.flipped, p.ink,
           None if valuation is not None else (
               state.round, p.hand, p.slots, p.resting, p.tiles, p.used, p.track, p.diamond,
               state.bases, state.tracks))
    cached = _CACHE.get(key)
    if cached is not None:
        return list(cached)
    tv = valuation if valuation is not None else default_track_valuation(state, player)
    if len(tv.cards) != 5:
        raise SolverError("TrackValuation.cards needs one tuple per measure (5)")
    cat = state.cat
    if p.ink >= len(p.books) - 1:
        # The ink jar at the end: every point pays the end pounds, nothing to choose.
        pounds = pts * cat.bookkeeping_end_pounds
        value = pounds * int(round(SCALE * tv.pound))
        plans: tuple[BookPlan, ...] = (BookPlan((), (), (), (), pounds, 0, pts,
                                                value / SCALE, exact),)
    else:
        pr = _BookProblem(state, player, pts, tv, exact, spend_space)
        if method == "dp" and _nonnegative(pr):
            found = _solve_books_dp(pr, k)
        else:
            found = _solve_books(pr, k)
        plans = tuple(_book_plan(pr, v, taken, placed) for v, taken, placed in found)
    _CACHE.put(key, plans)
    return list(plans)


def best_ink_move(state: State, valuation: TrackValuation | None = None) -> InkPlan:
    """How far to move the ink jar at the player's ``ink-jar`` decision: among the
    spaces it can reach with the needs met now, the stop with the best score steps +
    reward collected there + track value from there.

    >>> import engine, random
    >>> from engine import apply_unchecked, random_step
    >>> s, rng = engine.new_game(players=2, seed=8), random.Random(8)
    >>> while s.decision.kind != "ink-jar":
    ...     s = apply_unchecked(s, random_step(s, rng))
    >>> best_ink_move(s).steps[-1].kind in ("ink", "halt")
    True
    """
    if not isinstance(state, State):
        raise SolverError(f"not a State: {type(state).__name__}")
    player = acting_player(state)
    d = state.decision
    if d.kind != "ink-jar" or d.moved is None:
        raise SolverError(f"the state is at a {d.kind!r} decision; the ink jar "
                          "moves at an 'ink-jar' decision")
    moved = d.moved
    cat = state.cat
    p = state.players[player]
    tv = valuation if valuation is not None else default_track_valuation(state, player)
    reach = ink_reach(cat, p, p.measures(state.cat))
    w_now = _weights(tv, cat, p.ink)
    best: tuple[int, int] | None = None
    for j in range(p.ink, reach + 1):
        value = sum(int(round(SCALE * tv.step[kk])) if kk < len(tv.step) else 0
                    for kk in range(p.ink + 1, j + 1))
        if moved or j > p.ink:
            top = p.books[j][-1] if p.books[j] else -1
            if top >= 0 and not (p.flipped >> top) & 1:
                value += w_now.book_value[top]
        value += track_value(cat, p.books, p.flipped, j, tv)
        if best is None or value > best[0]:
            best = (value, j)
    assert best is not None
    value, target = best
    steps = [Step("ink")] * (target - p.ink)
    if target < reach:
        steps.append(Step("halt"))
    reward = None
    if moved or target > p.ink:
        top = p.books[target][-1] if p.books[target] else -1
        if top >= 0 and not (p.flipped >> top) & 1:
            reward = cat.books[top].reward
    return InkPlan(steps=tuple(steps), target=target, reward=reward, value=value / SCALE)
