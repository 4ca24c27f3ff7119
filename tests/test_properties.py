"""Property tests: random complete games keep every invariant of the state.

Games are played with :func:`engine.rules.random_step` (uniform over the legal steps,
chance from the state's own RNG) or with a biased policy that avoids the passive steps
(end, ready, halt, ...) 90% of the time, so that games go deeper into expansions, books
and ink-jar moves. After every step: no exception, :func:`check_invariants` finds
nothing, no cash is negative, no player's track shares or share count go down (a share
card can only leave through the remove-a-card bonus space), and the game finishes with
a consistent final score.

The default run plays 330 property games (210 uniform, 120 biased; invariants checked
after every step: about 15 s on one core) plus a few dozen in the smaller tests;
``-m slow`` plays 5,000 more, checking invariants where the decider changes and at the
end (cash and shares after every step).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import (
    Step,
    check_invariants,
    score,
    winners,
)
from engine.state import OVER, State, share_count

Policy = Callable[[State, random.Random], Step]

# No shrinking in PROPERTY: a smaller seed is not a simpler game, and replaying the
# failing game from its seed is all a failure needs (the message names seed and step).
from tests.random_games import MAX_STEPS, PROPERTY, SEEDS, policy  # noqa: E402


def uniform_policy(s: State, rng: random.Random) -> Step:
    return policy(s, rng, biased=False)


def biased_policy(s: State, rng: random.Random) -> Step:
    """Like :func:`random_step`, but a non-passive step 90% of the time when one exists."""
    return policy(s, rng, biased=True)


def track_shares(s: State) -> list[list[int]]:
    """Shares from the company tracks, per player and company (0 before tracks are dealt)."""
    cat = s.cat
    return [
        [cat.tracks[s.tracks[c]].shares_at[p.track[c]] if s.tracks[c] >= 0 else 0
         for c in range(len(cat.companies))]
        for p in s.players
    ]


def held_shares(s: State) -> list[list[int]]:
    """:func:`engine.rules.share_count` per player and company."""
    return [[share_count(s, i, c) for c in range(len(s.cat.companies))] for i in range(s.n)]


class GameLog:
    """What a checked game did (for coverage assertions and failure messages)."""

    def __init__(self, players: int, seed: int, variable: bool, policy: str) -> None:
        self.where = f"{players}p seed={seed} variable={variable} policy={policy}"
        self.steps = 0
        self.kinds: dict[str, int] = {}

    def at(self, k: int, s: State, step: Step) -> str:
        return (f"{self.where}: step {k} {step.text(s.cat)!r} "
                f"(round {s.round}, {s.decision.kind} of P{s.decision.player + 1})")


def play_checked(players: int, seed: int, variable: bool, policy: Policy,
                 every_step: bool = True) -> tuple[State, GameLog]:
    """Play one complete random game, checking the properties after the steps.

    ``every_step`` checks invariants after every step; otherwise only where the decider
    changes (a move ends) and at the end of the game. Cash and share monotonicity are
    always checked after every step.
    """
    log = GameLog(players, seed, variable, policy.__name__)
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rng = random.Random(seed)
    assert check_invariants(s) == [], log.where
    tracks, held = track_shares(s), held_shares(s)
    k = 0
    while s.phase != OVER:
        assert k < MAX_STEPS, f"{log.where}: no end after {MAX_STEPS} steps"
        step = policy(s, rng)
        where = log.at(k, s, step)
        nxt = s.apply_unchecked(step)
        k += 1
        log.kinds[step.kind] = log.kinds.get(step.kind, 0) + 1
        if every_step or nxt.phase == OVER or nxt.decision.player != s.decision.player:
            violations = check_invariants(nxt)
            assert violations == [], f"{where}: {violations}"
        for i, p in enumerate(nxt.players):
            assert p.cash >= 0, f"{where}: P{i + 1} cash {p.cash}"
        tracks2, held2 = track_shares(nxt), held_shares(nxt)
        for i in range(players):
            for c, comp in enumerate(s.cat.companies):
                assert tracks2[i][c] >= tracks[i][c], (
                    f"{where}: P{i + 1} track shares of {comp.id} went down "
                    f"{tracks[i][c]} -> {tracks2[i][c]}")
                if step.kind != "remove-card":
                    assert held2[i][c] >= held[i][c], (
                        f"{where}: P{i + 1} shares of {comp.id} went down "
                        f"{held[i][c]} -> {held2[i][c]}")
        if step.kind != "remove-card":
            assert sum(map(sum, held2)) >= sum(map(sum, held)), where
        s, tracks, held = nxt, tracks2, held2
    log.steps = k
    check_final(s, log)
    return s, log


def check_final(s: State, log: GameLog) -> None:
    """A finished game: round 7 over, nothing left to decide, a consistent score."""
    cat = s.cat
    assert s.phase == OVER and s.round == 7, log.where
    assert s.decision.kind == "over" and s.legal_steps() == [], log.where
    scores = score(s)
    ids = tuple(c.id for c in cat.companies)
    for sc in scores:
        p = s.players[sc.player]
        assert sc.total == sc.cash + sum(sc.companies) + sc.diamonds + sc.bookkeeping
        assert sc.cash == p.cash >= 0
        assert sc.shares == tuple(share_count(s, sc.player, c) for c in range(len(ids)))
        assert sc.share_values == s.values
        assert sc.companies == tuple(n * v for n, v in zip(sc.shares, s.values, strict=True))
        assert sc.diamonds == cat.diamond_values[p.diamond]
        assert sc.bookkeeping == cat.bookkeeping_values[p.ink]
        js = sc.to_json(ids)
        parts = js["companies"]
        assert isinstance(parts, dict)
        assert js["total"] == (js["cash"] + sum(v["pounds"] for v in parts.values())
                               + js["diamonds"] + js["bookkeeping"]) == sc.total
    best = max(sc.total for sc in scores)
    won = winners(s)
    assert won and won == [sc.player for sc in scores if sc.total == best], log.where


# -- the default suite: 330 games ------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
@settings(PROPERTY, max_examples=70)
@given(seed=SEEDS, variable=st.booleans())
def test_uniform_random_games(players: int, seed: int, variable: bool) -> None:
    play_checked(players, seed, variable, uniform_policy)


@pytest.mark.parametrize("players", [2, 3, 4])
@settings(PROPERTY, max_examples=40)
@given(seed=SEEDS, variable=st.booleans())
def test_biased_random_games(players: int, seed: int, variable: bool) -> None:
    play_checked(players, seed, variable, biased_policy)


def play_plain(players: int, seed: int, variable: bool, policy: Policy
               ) -> tuple[State, dict[str, int], int]:
    """One random game without checks: (final state, steps played per kind, steps)."""
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rng = random.Random(seed)
    kinds: dict[str, int] = {}
    k = 0
    while s.phase != OVER:
        assert k < MAX_STEPS
        step = policy(s, rng)
        kinds[step.kind] = kinds.get(step.kind, 0) + 1
        s = s.apply_unchecked(step)
        k += 1
    return s, kinds, k


def test_biased_policy_reaches_the_rare_steps() -> None:
    """The biased games really go into expansions, books, the ink jar and ousting."""
    seen: dict[str, int] = {}
    for seed in range(24):
        _, kinds, _ = play_plain(2 + seed % 3, seed, seed % 2 == 0, biased_policy)
        for kind, n in kinds.items():
            seen[kind] = seen.get(kind, 0) + n
    for kind in ("expand", "enter", "return", "take", "place", "keeper", "flip", "ink",
                 "merchant", "plus1", "majority", "reserve", "buy-card", "remove-card",
                 "first", "unit", "buy"):
        assert seen.get(kind, 0) > 0, f"the biased policy never played {kind!r}: {seen}"


@settings(PROPERTY, max_examples=12)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans())
def test_apply_agrees_with_apply_unchecked_and_never_mutates(
        seed: int, players: int, variable: bool) -> None:
    """The checked and unchecked paths give equal states; the old state is untouched."""
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rng = random.Random(seed)
    k = 0
    while s.phase != OVER:
        assert k < MAX_STEPS
        step = biased_policy(s, rng) if k % 2 else uniform_policy(s, rng)
        assert step in s.legal_steps()
        key = s.key()
        a = s.apply(step)
        b = s.apply_unchecked(step)
        assert a == b and hash(a) == hash(b)
        assert s.key() == key, f"step {k} {step.text(s.cat)!r} changed the state it was applied to"
        s = a
        k += 1


@pytest.mark.parametrize("variable", [False, True])
def test_same_seed_same_game(variable: bool) -> None:
    a, kinds_a, n_a = play_plain(3, 12345, variable, uniform_policy)
    b, kinds_b, n_b = play_plain(3, 12345, variable, uniform_policy)
    assert a == b and kinds_a == kinds_b and n_a == n_b
    c, _, _ = play_plain(3, 54321, variable, uniform_policy)
    assert c != a


# -- the long run ----------------------------------------------------------------------------

def _slow_selected(config: pytest.Config) -> bool:
    """True when the run asked for slow tests (``-m slow``)."""
    expr = str(config.getoption("markexpr") or "")
    return "slow" in expr and "not slow" not in expr


@pytest.mark.slow
def test_5000_random_games(request: pytest.FixtureRequest) -> None:
    """5,000 games (about 3 CPU minutes). The ``slow`` marker is deselected by the
    project's default options; a run that clears them (``-o addopts=''``) without
    ``-m slow`` skips this test rather than spend minutes on it."""
    if not _slow_selected(request.config):
        pytest.skip("5,000 random games: run with -m slow")
    _play_5000_games()


@settings(PROPERTY, max_examples=5_000, suppress_health_check=list(HealthCheck))
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]), variable=st.booleans(),
       biased=st.booleans())
def _play_5000_games(seed: int, players: int, variable: bool, biased: bool) -> None:
    play_checked(players, seed, variable, biased_policy if biased else uniform_policy,
                 every_step=False)
