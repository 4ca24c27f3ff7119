"""The exact solvers (search/solvers) against brute force, on positions from random and
bot-played games (2-4 players, all rounds).

Brute force here is independent of the solvers' models: it walks the engine's own
legal steps from the decision (every ``enter``/``stop``/``return`` step, every
``take``/``pounds``/``place`` step) and values the states it ends in from the
differences of cash, diamonds, track, pool, share values and the bookkeeping track.
Two sound reductions keep it tractable: states already expanded are not expanded
again (memo), and of base columns in exactly the same condition only the first is
tried (they are interchangeable). A ``remove-post`` decision met on the way (a track
space paying a removal) is taken with the solvers' documented policy and valued at
``Valuation.remove_post`` (docs/solvers.md).

The default suite checks 60 positions per solver (expansions with up to 4 points,
bookkeeping with up to 2 or the pool as played); ``-m slow`` runs 500 per solver
(up to 6 points, 3 bookkeeping points).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest

import engine
from engine import tables
from engine.state import State, face_up, measures
from search.policy import PASSIVE
from search.solvers import (
    SolverError,
    TrackValuation,
    Valuation,
    best_bookkeeping,
    best_expansions,
    best_ink_move,
    default_track_valuation,
    default_valuation,
    removal_step,
    track_value,
)
from search.solvers import bookkeeping as bk_mod
from search.solvers import expansion as exp_mod
from search.solvers.common import SCALE

TOL = 1e-6


# --------------------------------------------------------------------------- positions


def _games(seed0: int) -> Iterator[tuple[int, Callable[[State, random.Random], engine.Step]]]:
    """Endless (seed, policy): uniformly random players and a busy bot (does something
    90% of the time rather than passing), alternately."""
    seed = seed0
    while True:
        yield seed, _uniform if seed % 2 == 0 else _busy
        seed += 1


def _uniform(s: State, rng: random.Random) -> engine.Step:
    return s.random_step(rng)


def _busy(s: State, rng: random.Random) -> engine.Step:
    if s.decision.kind == "chance":
        return s.sample_chance()
    legal = s.legal_steps()
    busy = [x for x in legal if x.kind not in PASSIVE]
    return rng.choice(busy) if busy and rng.random() < 0.9 else rng.choice(legal)


def _with_points(s: State, points: int) -> State:
    """The same pending expansion with another number of points left."""
    item = s.todo[0]
    assert item[0] == "enter"
    s2 = s.clone()
    s2.todo = (item[:3] + (points,) + item[4:],) + s2.todo[1:]
    return s2


def _with_pool(s: State, points: int) -> State:
    s2 = s.clone()
    s2.pool = points
    return s2


def _collect(kinds: tuple[str, ...], count: int, seed0: int, per_game: int
             ) -> list[tuple[State, int]]:
    """(state, game seed) at decisions of these kinds, at most ``per_game`` per game,
    from games with 2, 3 and 4 players in turn."""
    out: list[tuple[State, int]] = []
    for seed, policy in _games(seed0):
        s = engine.new_game(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        found: list[State] = []
        while not s.is_over():
            kind = s.decision.kind
            if kind in kinds and (kind != "action" or _can_expand(s)):
                found.append(s)
            s = s.apply_unchecked(policy(s, rng))
        rng.shuffle(found)
        out.extend((x, seed) for x in found[:per_game])
        if len(out) >= count:
            return out[:count]
    raise AssertionError("unreachable")


def _can_expand(s: State) -> bool:
    p = s.players[s.decision.player]
    return bool(face_up(p) & tables(s.cat).expansion_mask)


@cache
def expansion_positions(count: int, seed0: int, cap: int) -> tuple[State, ...]:
    """Expansion decisions: as played (including ones part-way through an expansion),
    and started from action decisions; points as played or drawn in 1..cap."""
    out = []
    for s, seed in _collect(("expansion", "action"), count, seed0, per_game=3):
        rng = random.Random(seed * 7919 + s.round)
        if s.decision.kind == "action":
            companies = [c for c in range(4) if any(code & 7 for code in s.bases[c])]
            s = s.apply_unchecked(engine.Step("expand", rng.choice(companies)))
            if s.decision.kind != "expansion":
                continue
        item = s.todo[0]
        points = item[3] if rng.random() < 0.4 else rng.randint(1, cap)
        out.append(_with_points(s, points))
    return tuple(out)


@cache
def bookkeeping_positions(count: int, seed0: int, cap: int) -> tuple[State, ...]:
    out = []
    for s, seed in _collect(("bookkeeping-points",), count, seed0, per_game=2):
        rng = random.Random(seed * 104729 + s.round)
        natural = s.pool <= cap + 1 and rng.random() < 0.4
        points = s.pool if natural else rng.randint(1, cap)
        out.append(_with_pool(s, points))
    return tuple(out)


# --------------------------------------------------------------------------- expansion


def _exp_value(base: State, t: State, player: int, company: int, v: Valuation) -> float:
    p0, p1 = base.players[player], t.players[player]
    value = (v.pound * (p1.cash - p0.cash) + v.diamond * (p1.diamond - p0.diamond)
             + v.track[company] * (p1.track[company] - p0.track[company])
             + v.bookkeeping * (t.pool - base.pool))
    return value + sum(v.share[c] * (t.values[c] - base.values[c]) for c in range(4))


def _distinct_columns(s: State, steps: list[engine.Step], company: int) -> list[engine.Step]:
    """Of steps that differ only by a base column, keep the first column of each
    column condition (columns with the same code are interchangeable)."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for st in steps:
        if st.kind in ("enter", "return"):
            col = st.b if st.kind == "enter" else st.a
            key = (st.kind, st.a if st.kind == "enter" else None, s.bases[company][col])
            if key in seen:
                continue
            seen.add(key)
        out.append(st)
    return out


def brute_force_expansion(s: State, v: Valuation) -> float:
    """The best value over every sequence of engine steps from an expansion decision
    to the end of the expansion (including the ousted posts' returns)."""
    player, company = s.todo[0][1], s.todo[0][2]
    memo: dict[tuple[Any, ...], float] = {}

    def key(t: State) -> tuple[Any, ...]:
        item = t.todo[0]
        if item[0] == "enter":
            head: tuple[Any, ...] = ("enter", item[3], frozenset(item[4]),
                                     tuple(sorted(item[5])))
        else:
            head = (item[0], item[2] if item[0] == "oust" else None)
        pending = tuple(sorted(x[2] for x in t.todo if x[0] == "oust"))
        # The rewards collected so far: after a reward-order decision two orders reach
        # the same returns with different rewards.
        p = t.players[player]
        return (head, pending, t.owners, t.bases, p.cash, p.diamond, p.track, t.pool)

    def rec(t: State, adjust: float) -> float:
        d = t.decision
        if d.player == player and d.kind in ("expansion", "oust-return"):
            k = key(t)
            if k not in memo:
                memo[k] = max(rec(t.apply(st), 0.0) for st in
                              _distinct_columns(t, t.legal_steps(), company if
                                                d.kind == "expansion" else t.todo[0][2]))
            return memo[k] + adjust
        if d.player == player and d.kind == "reward-order":
            return max(rec(t.apply(st), adjust) for st in t.legal_steps())
        if d.player == player and d.kind == "remove-post":
            st = removal_step(t, v)
            t2 = t.apply(st)
            removed = v.share[st.a] * (t2.values[st.a] - t.values[st.a])
            return rec(t2, adjust - removed + v.remove_post)
        return _exp_value(s, t, player, company, v) + adjust

    # Values are relative to ``s``; sub-results are relative too, so the memo may add
    # the adjustment of the path (removals) outside.
    return rec(s, 0.0)


def _check_expansion_plan(s: State, plan: exp_mod.ExpansionPlan) -> None:
    """Apply the steps one by one with the engine; the claimed rewards, owners and
    share values must be what happens, and the expansion must be over."""
    player = s.decision.player
    company = plan.company
    t = s
    for st in plan.steps:
        t = t.apply(st)  # raises IllegalStep if not legal
    assert t.decision.kind not in ("expansion", "oust-return", "remove-post") or \
        t.decision.player != player, plan.text(s.cat)
    p0, p1 = s.players[player], t.players[player]
    r = plan.rewards
    assert (p1.cash - p0.cash, p1.diamond - p0.diamond, p1.track[company] - p0.track[company],
            t.pool - s.pool) == (r.pounds, r.diamonds, r.track, r.bookkeeping), plan
    owners = list(s.owners)
    for region in plan.regions:
        owners[region] = company
    assert tuple(owners) == t.owners
    assert tuple(a - b for a, b in zip(t.values, s.values, strict=True)) == plan.share_delta
    assert plan.spent + plan.forfeited == plan.points
    assert len(plan.returns) == len([x for x in plan.steps if x.kind == "return"]) + len(
        [c for c, k in plan.returns if k < 0])


def _check_expansion_position(s: State) -> None:
    item = s.todo[0]
    company = item[2]
    v = default_valuation(s)
    ref = best_expansions(s, company, k=3, method="cpsat")
    fast = best_expansions(s, company, k=3, method="dp")
    assert [p.value for p in fast] == [p.value for p in ref]
    best = brute_force_expansion(s, v)
    assert abs(ref[0].value - best) < TOL, (ref[0].value, best, ref[0].text(s.cat))
    for plan in (*ref, *fast):
        _check_expansion_plan(s, plan)


def test_expansion_matches_brute_force() -> None:
    for s in expansion_positions(60, 1000, 4):
        _check_expansion_position(s)


def _summary(positions: tuple[State, ...], points: Callable[[State], int]) -> str:
    def hist(values: list[int]) -> str:
        return ", ".join(f"{v}: {values.count(v)}" for v in sorted(set(values)))

    return (f"players {{{hist([s.n for s in positions])}}}; "
            f"rounds {{{hist([s.round for s in positions])}}}; "
            f"points {{{hist([points(s) for s in positions])}}}")


@pytest.mark.slow
def test_expansion_matches_brute_force_500() -> None:
    start = time.perf_counter()
    positions = expansion_positions(500, 50_000, 6)
    for s in positions:
        _check_expansion_position(s)
    ousting = sum(1 for s in positions if s.todo[0][5] or any(
        o >= 0 and o != s.todo[0][2] for o in s.owners))
    print(f"\n{len(positions)} expansion positions checked in "
          f"{time.perf_counter() - start:.1f} s ({ousting} with posts of other companies "
          f"on the map); " + _summary(positions, lambda s: s.todo[0][3]))


def test_expansion_at_action_decision_starts_with_expand() -> None:
    checked = 0
    for s, _ in _collect(("action",), 40, 77, per_game=2):
        if s.decision.kind != "action":
            continue
        p = s.players[s.decision.player]
        for c in range(4):
            if not any(code & 7 for code in s.bases[c]):
                continue
            plans = best_expansions(s, c, k=2)
            assert plans[0].points == measures(s, p)[3]
            for plan in plans:
                assert plan.exact and plan.steps[0] == engine.Step("expand", c)
                _check_expansion_plan(s, plan)
            ref = best_expansions(s, c, method="cpsat")
            assert ref[0].value == plans[0].value
            checked += 1
    assert checked >= 40
    # A hypothetical number of points: indicative steps, flagged.
    s = next(x for x, _ in _collect(("action",), 5, 3, per_game=1) if x.decision.kind == "action")
    c = next(c for c in range(4) if any(code & 7 for code in s.bases[c]))
    helmets = measures(s, s.players[s.decision.player])[3]
    assert not best_expansions(s, c, points=helmets + 3)[0].exact


def _removal_position() -> tuple[State, int]:
    """An expansion whose track reward passes a remove-a-post space: the expanding
    player's marker is put just before it."""
    for s in expansion_positions(60, 1000, 4):
        player, company = s.todo[0][1], s.todo[0][2]
        track = s.cat.tracks[s.tracks[company]]
        spots = [i for i, sp in enumerate(track.spaces) if sp.special.remove_posts
                 and all(x.capital == 0 for x in track.spaces[i - 2: i + 1])]
        if not spots:
            continue
        s2 = s.clone()
        p = s2.player_mut(player)
        p.track = p.track[:company] + (spots[0] - 1,) + p.track[company + 1:]
        s2._own = 0
        s2 = _with_points(s2, 5)
        plans = best_expansions(s2, company, k=5)
        if any(pl.rewards.remove_posts for pl in plans):
            return s2, company
    raise AssertionError("no position with a removal found")


def _order_positions(count: int) -> list[tuple[State, int]]:
    """Expansions whose rewards meet a capital call: the player's marker is put just
    before the company's first capital call, with 0 or 1 pound in hand."""
    out: list[tuple[State, int]] = []
    for s in expansion_positions(60, 1000, 4):
        player, company = s.todo[0][1], s.todo[0][2]
        track = s.cat.tracks[s.tracks[company]]
        calls = [i for i, sp in enumerate(track.spaces) if sp.capital > 0 and i >= 1]
        if not calls:
            continue
        s2 = s.clone()
        p = s2.player_mut(player)
        p.track = p.track[:company] + (calls[0] - 1,) + p.track[company + 1:]
        p.cash = len(out) % 2
        s2._own = 0
        out.append((_with_points(s2, 5), company))
        if len(out) == count:
            break
    return out


def test_expansion_reward_order_is_the_better_one() -> None:
    """Rulebook: the rewards of the regions entered are taken in any order; the engine
    asks (``reward-order``) where the track steps meet a capital call the pounds would
    pay (docs/rules.md). The solver takes the better order, and its plans say it:
    the track steps first when the call is not worth its pounds, the pounds first
    when the track is worth more. Both methods agree, and the best plan is worth what
    every sequence of engine steps (both orders included) can reach."""
    orders: set[int] = set()
    for s, company in _order_positions(6):
        base = default_valuation(s)
        for v in (base, dataclasses.replace(base, track=(9.0,) * 4)):
            ref = best_expansions(s, company, k=3, valuation=v, method="cpsat")
            fast = best_expansions(s, company, k=3, valuation=v, method="dp")
            assert [p.value for p in fast] == [p.value for p in ref]
            assert abs(ref[0].value - brute_force_expansion(s, v)) < TOL
            for plan in (*ref, *fast):
                _check_expansion_plan(s, plan)
                orders.update(st.a for st in plan.steps if st.kind == "reward-order")
    assert orders == {0, 1}


def test_expansion_with_a_removed_post() -> None:
    s, company = _removal_position()
    v = default_valuation(s)
    plans = best_expansions(s, company, k=5)
    with_removal = [pl for pl in plans if pl.rewards.remove_posts]
    assert with_removal
    for plan in with_removal:
        assert any(st.kind == "remove-post" for st in plan.steps)
        assert plan.removals
        _check_expansion_plan(s, plan)
    ref = best_expansions(s, company, k=5, method="cpsat")
    assert [p.value for p in ref] == [p.value for p in plans]
    assert abs(ref[0].value - brute_force_expansion(s, v)) < TOL


def test_expansion_custom_valuation_and_returns() -> None:
    """Heavy share weights make column and return choices matter; the methods agree
    with each other and with brute force."""
    v = Valuation(pound=0.5, diamond=2.0, track=(1.0, 0.25, 0.5, 2.0), bookkeeping=0.75,
                  share=(3.0, 2.5, 1.5, 4.0), remove_post=1.0)
    n = 0
    for s in expansion_positions(60, 1000, 4):
        if not s.todo[0][5] and not any(o >= 0 and o != s.todo[0][2] for o in s.owners):
            continue
        company = s.todo[0][2]
        ref = best_expansions(s, company, k=2, valuation=v, method="cpsat")
        fast = best_expansions(s, company, k=2, valuation=v)
        assert [p.value for p in ref] == [p.value for p in fast]
        assert abs(ref[0].value - brute_force_expansion(s, v)) < TOL
        for plan in fast:
            _check_expansion_plan(s, plan)
        n += 1
        if n == 10:
            break
    assert n == 10


def test_expansion_is_deterministic() -> None:
    for s in expansion_positions(60, 1000, 4)[:10]:
        company = s.todo[0][2]
        for method in ("dp", "cpsat"):
            exp_mod.clear_cache()
            a = best_expansions(s, company, k=3, method=method)  # type: ignore[arg-type]
            exp_mod.clear_cache()
            b = best_expansions(s, company, k=3, method=method)  # type: ignore[arg-type]
            assert a == b
        # k plans are distinct: a different set of regions or a different value.
        keys = [(frozenset(p.regions), p.value) for p in a]
        assert len(set(keys)) == len(keys)
        assert [p.value for p in a] == sorted((p.value for p in a), reverse=True)


def test_expansion_errors() -> None:
    s = expansion_positions(60, 1000, 4)[0]
    company = s.todo[0][2]
    other = (company + 1) % 4
    with pytest.raises(SolverError, match="unknown company"):
        best_expansions(s, "XYZ")
    with pytest.raises(SolverError, match="unknown company"):
        best_expansions(s, 7)
    with pytest.raises(SolverError, match="non-negative"):
        best_expansions(s, company, points=-1)
    with pytest.raises(SolverError, match="pending expansion is for"):
        best_expansions(s, other)
    with pytest.raises(SolverError, match="point"):
        best_expansions(s, company, points=s.todo[0][3] + 1)
    with pytest.raises(SolverError, match="k must be"):
        best_expansions(s, company, k=0)
    with pytest.raises(SolverError, match="unknown method"):
        best_expansions(s, company, method="magic")  # type: ignore[arg-type]
    fresh = engine.new_game(players=2, seed=1)
    with pytest.raises(SolverError, match="chance"):
        best_expansions(fresh, "MOM")
    b = bookkeeping_positions(60, 2000, 2)[0]
    with pytest.raises(SolverError, match="bookkeeping-points"):
        best_expansions(b, "MOM")
    assert issubclass(SolverError, ValueError)


def test_given_points_at_an_action_decision_need_no_face_up_expansion_card() -> None:
    """Hypothetical points ("what if I expanded with 3") work without an expansion card,
    as for books; without points there is nothing to count, and the error says so."""
    s = engine.new_game(players=3, seed=2)
    rng = random.Random(2)
    while not (s.decision.kind == "action"
               and not face_up(s.players[s.decision.player])
               & tables(s.cat).expansion_mask and s.round > 1):
        s = s.apply_unchecked(s.random_step(rng))
    with pytest.raises(SolverError, match="give the points"):
        best_expansions(s, "CAI")
    plans = best_expansions(s, "CAI", points=3)
    assert plans and not plans[0].exact and plans[0].spent <= 3
    assert engine.Step.parse("expand CAI", s.cat) == plans[0].steps[0]


def test_expansion_cache_hits_are_cheap() -> None:
    s = expansion_positions(60, 1000, 4)[3]
    company = s.todo[0][2]
    first = best_expansions(s, company, k=2)
    hits = exp_mod.cache_info()["hits"]
    for _ in range(200):
        again = best_expansions(s, company, k=2)
    assert again == first and exp_mod.cache_info()["hits"] == hits + 200
    # how fast a hit is: benchmarks/test_solver_speed.py (target 50 us)
    # A different valuation is a different entry.
    other = best_expansions(s, company, k=2, valuation=Valuation(pound=3.0))
    assert exp_mod.cache_info()["hits"] == hits + 200
    assert isinstance(other, list)


def test_default_valuation_follows_the_documented_formula() -> None:
    from engine.state import share_count

    s = expansion_positions(60, 1000, 4)[5]
    player = s.decision.player
    v = default_valuation(s)
    growth = 1 + 0.1 * (7 - s.round)
    for c in range(4):
        assert v.share[c] == pytest.approx(share_count(s, player, c) * growth, abs=1e-3)
    assert v.pound == 1.0 and v.bookkeeping in (1.5, 2.0)
    assert all(x >= 0 for x in v.track) and v.diamond >= 0


# --------------------------------------------------------------------------- bookkeeping


def brute_force_bookkeeping(s: State, tv: TrackValuation) -> float:
    """The best value over every sequence of engine steps from a bookkeeping-points
    decision until the last book is placed: pounds received + change of the track
    value (``track_value``, the documented objective)."""
    player = s.decision.player
    cat = s.cat
    p0 = s.players[player]
    before = track_value(cat, p0.books, p0.flipped, p0.ink, tv)
    pound = int(round(SCALE * tv.pound))
    best = -float("inf")
    seen: set[tuple[Any, ...]] = set()

    def rec(t: State) -> None:
        nonlocal best
        d = t.decision
        if d.player == player and d.kind in ("bookkeeping-points", "place-book"):
            p = t.players[player]
            key = (p.books, t.turn_books, t.pool, t.todo[0], p.cash)
            if key in seen:
                return
            seen.add(key)
            for st in t.legal_steps():
                rec(t.apply_unchecked(st))
            return
        p = t.players[player]
        value = (pound * (p.cash - p0.cash)
                 + track_value(cat, p.books, p.flipped, p.ink, tv) - before)
        best = max(best, value / SCALE)

    rec(s)
    return best


def _check_book_plan(s: State, plan: bk_mod.BookPlan, tv: TrackValuation) -> None:
    player = s.decision.player
    t = s
    for st in plan.steps:
        t = t.apply(st)
    assert t.decision.kind not in ("bookkeeping-points", "place-book") or \
        t.decision.player != player
    p0, p1 = s.players[player], t.players[player]
    assert p1.cash - p0.cash == plan.pounds + plan.coins
    assert t.pool == 0 and not t.turn_books
    for book, space in plan.placements:
        assert book in p1.books[space]
    value = (int(round(SCALE * tv.pound)) * (p1.cash - p0.cash)
             + track_value(s.cat, p1.books, p1.flipped, p1.ink, tv)
             - track_value(s.cat, p0.books, p0.flipped, p0.ink, tv))
    assert abs(value / SCALE - plan.value) < TOL


def _check_book_position(s: State) -> None:
    tv = default_track_valuation(s)
    ref = best_bookkeeping(s, k=3, method="cpsat")
    fast = best_bookkeeping(s, k=3, method="dp")
    assert [p.value for p in fast] == [p.value for p in ref]
    assert abs(ref[0].value - brute_force_bookkeeping(s, tv)) < TOL
    for plan in (*ref, *fast):
        assert plan.exact
        _check_book_plan(s, plan, tv)


def test_bookkeeping_matches_brute_force() -> None:
    for s in bookkeeping_positions(60, 2000, 2):
        _check_book_position(s)


@pytest.mark.slow
def test_bookkeeping_matches_brute_force_500() -> None:
    start = time.perf_counter()
    positions = bookkeeping_positions(500, 60_000, 3)
    for s in positions:
        _check_book_position(s)
    print(f"\n{len(positions)} bookkeeping positions checked in "
          f"{time.perf_counter() - start:.1f} s; " + _summary(positions, lambda s: s.pool))


def test_bookkeeping_four_points_methods_agree() -> None:
    """Up to 4 points (too many for brute force in the default suite): the hand-written
    search and the CP-SAT model agree, and the steps are legal."""
    for s in bookkeeping_positions(60, 2000, 2)[:8]:
        s4 = _with_pool(s, 4)
        tv = default_track_valuation(s4)
        ref = best_bookkeeping(s4, k=2, method="cpsat")
        fast = best_bookkeeping(s4, k=2)
        assert [p.value for p in ref] == [p.value for p in fast]
        for plan in fast:
            _check_book_plan(s4, plan, tv)


def test_bookkeeping_negative_weights_use_the_model() -> None:
    s = bookkeeping_positions(60, 2000, 2)[1]
    base = default_track_valuation(s)
    tv = TrackValuation(pound=1.0, step=tuple(-x for x in base.step), decay=base.decay,
                        reward_share=base.reward_share, cards=base.cards, slots=base.slots,
                        rewards=base.rewards)
    plans = best_bookkeeping(s, valuation=tv)
    assert abs(plans[0].value - brute_force_bookkeeping(s, tv)) < TOL
    _check_book_plan(s, plans[0], tv)


def test_bookkeeping_hypothetical_at_action() -> None:
    s, _ = _collect(("action",), 1, 5, per_game=1)[0]
    plans = best_bookkeeping(s, points=2, k=2)
    assert plans and not plans[0].exact and plans[0].points == 2
    with pytest.raises(SolverError, match="points"):
        best_bookkeeping(s)


def test_bookkeeping_is_deterministic_and_cached() -> None:
    s = bookkeeping_positions(60, 2000, 2)[2]
    bk_mod.clear_cache()
    a = best_bookkeeping(s, k=3)
    bk_mod.clear_cache()
    b = best_bookkeeping(s, k=3)
    assert a == b
    hits = bk_mod.cache_info()["hits"]
    assert best_bookkeeping(s, k=3) == a and bk_mod.cache_info()["hits"] == hits + 1
    assert len({p.spaces for p in a}) == len(a)


def test_bookkeeping_errors() -> None:
    s = bookkeeping_positions(60, 2000, 2)[0]
    with pytest.raises(SolverError, match="non-negative"):
        best_bookkeeping(s, points=-2)
    with pytest.raises(SolverError, match="k must be"):
        best_bookkeeping(s, k=0)
    e = expansion_positions(60, 1000, 4)[0]
    with pytest.raises(SolverError, match="expansion"):
        best_bookkeeping(e)
    with pytest.raises(SolverError, match="chance"):
        best_bookkeeping(engine.new_game(players=3, seed=2))
    with pytest.raises(SolverError, match="ink-jar"):
        best_ink_move(s)


# --------------------------------------------------------------------------- ink jar


@cache
def ink_positions(count: int) -> tuple[State, ...]:
    return tuple(s for s, _ in _collect(("ink-jar",), count, 3000, per_game=2))


def _ink_value(s: State, t: State, tv: TrackValuation) -> float:
    """The documented value of a stop: score steps passed + the reward collected +
    the track value from the new position."""
    player = s.decision.player
    p0, p1 = s.players[player], t.players[player]
    value = sum(tv.step[k] for k in range(p0.ink + 1, p1.ink + 1))
    moved = s.todo[0][3] or p1.ink > p0.ink
    top = p1.books[p1.ink][-1] if p1.books[p1.ink] else -1
    if moved and top >= 0 and not (p1.flipped >> top) & 1:
        value += bk_mod.reward_value(s.cat.books[top].reward, tv.rewards) / SCALE
    return value + track_value(s.cat, p1.books, p1.flipped, p1.ink, tv) / SCALE


def test_ink_move_is_the_best_stop() -> None:
    for s in ink_positions(40):
        player = s.decision.player
        tv = default_track_valuation(s)
        plan = best_ink_move(s)
        t = s
        for st in plan.steps:
            t = t.apply(st)
        assert t.players[player].ink == plan.target
        assert t.decision.kind != "ink-jar" or t.decision.player != player
        # Every stop the engine allows: ink ... ink halt.
        options = []
        u = s
        while True:
            halted = u.apply(engine.Step("halt"))
            options.append(_ink_value(s, halted, tv))
            if engine.Step("ink") not in u.legal_steps():
                break
            u = u.apply(engine.Step("ink"))
            if u.decision.kind != "ink-jar" or u.decision.player != player:
                options.append(_ink_value(s, u, tv))
                break
        assert abs(plan.value - max(options)) < 1e-3, (plan, options)
