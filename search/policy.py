"""A cheap heuristic policy for rollouts, opponents' hidden plans and move ordering.

It prefers doing something useful over passing: play cards into slots, buy the dearest
affordable card, spend goods on the track with the best share prospects, enter the
richest regions, take books, move the ink jar. It is random among near-equal choices,
so rollouts differ.

>>> import engine, random
>>> s = engine.new_game(players=2, seed=0)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> policy_step(s, random.Random(0)).kind
'rest'
"""

from __future__ import annotations

import random

from engine import State, Step, tables
from search.candidates import candidate_steps

# Decisions the solvers answer (expansion routes, bookkeeping points, ink-jar moves).
SOLVED_KINDS = frozenset({"expansion", "bookkeeping-points", "ink-jar"})
PASSIVE = frozenset({"end", "ready", "halt", "stop", "nobuy", "pounds", "noflip"})
ACTION_WEIGHT = {
    "goods": 3.0, "expand": 4.0, "keeper": 4.0, "merchant": 4.0, "plus1": 2.0,
    "first": 0.5, "buy-card": 0.7, "remove-card": 0.1, "majority": 3.0, "reserve": 0.6,
    "track-bonus": 2.0, "end": 0.05,
}


def step_score(s: State, step: Step) -> float:
    """A quick desirability of a step for the player deciding (higher is better)."""
    kind = step.kind
    cat = s.cat
    if kind == "goods":
        t = tables(cat)
        units = 0
        m = step.a
        while m:
            low = m & -m
            units += t.card_value[low.bit_length() - 1]
            m ^= low
        return ACTION_WEIGHT[kind] + 0.3 * units
    if kind == "majority":
        return ACTION_WEIGHT[kind] + step.b
    if kind in ACTION_WEIGHT:
        return ACTION_WEIGHT[kind]
    if kind == "plan":
        return 2.0
    if kind == "ready":
        return 0.3
    if kind == "buy":
        return 1.0 + 0.4 * s.card_price(step.a)
    if kind == "nobuy":
        return 0.4
    if kind == "unit":
        p = s.players[s.decision.player]
        track = cat.tracks[s.tracks[step.a]]
        pos = p.track[step.a]
        nxt = min(pos + 2, track.last)
        gain = track.shares_at[nxt] - track.shares_at[pos]
        return 1.0 + gain * (1 + s.values[step.a]) * 0.5
    if kind == "reward-order":
        return 1.0 if step.a == 0 else 0.3  # pounds first pays the call: the default
    if kind == "enter":
        r = cat.regions[step.a].reward
        value = r.pounds + 1.5 * r.diamonds + r.track_steps + r.bookkeeping
        company = s.decision.company
        assert company is not None
        posts = s.posts(company)[step.b]
        return 1.0 + value + 0.1 * (5 - posts)  # empty one column before the next
    if kind == "take":
        return 2.0 + s.book_coins[step.a]
    if kind == "ink":
        return 3.0
    if kind == "place":
        p = s.players[s.decision.player]
        nxt = p.ink + 1
        while nxt < len(p.books) and p.books[nxt]:
            nxt += 1
        if step.b == nxt:
            return 3.0  # extends the run of books the ink jar can walk
        if step.b <= p.ink:
            return 0.2  # behind the ink jar: only to keep a bad book out of the way
        return 1.5 if not p.books[step.b] else 0.5
    if kind in PASSIVE:
        return 0.2
    return 1.0


# In a plan as the search pictures it, the chance of stopping before the slots are
# full, per card: the bots fill 73-85% of their free slots (3.04 cards of 3.57 slots a
# round, MCTS at 500 iterations; the greedy bot 2.61 of 3.56), and this stop gives
# 2.95 (`python -m benchmarks.diagnose_search plans`; docs/search.md, "How the search
# pictures a plan").
HOLD_BACK = 0.08


def plan_step(s: State, rng: random.Random, legal: list[Step] | None = None) -> Step:
    """A Planning step as players make them: a card drawn at random into the leftmost
    free slot, and ``ready`` once no slot is free (or, now and then, a card early).

    The search makes the plans it cannot see (another player's) and the rest of a plan
    it is judging with this: :func:`policy_step`, which scores every slot alike,
    leaves slots empty behind a card placed further right, so its plans hold about two
    cards where players place three.

    >>> import engine, random
    >>> s = engine.new_game(players=2, seed=0)
    >>> while s.decision.kind != "plan":
    ...     s = s.apply(s.sample_chance() if s.decision.kind == "chance"
    ...                 else policy_step(s, random.Random(0)))
    >>> step = plan_step(s, random.Random(1))
    >>> step.kind, step.b == min(st.b for st in s.legal_steps() if st.kind == "plan")
    ('plan', True)
    """
    if legal is None:
        legal = s.legal_steps()
    plans = [st for st in legal if st.kind == "plan"]
    if not plans or rng.random() < HOLD_BACK:
        return next(st for st in legal if st.kind == "ready")
    leftmost = min(st.b for st in plans)
    return rng.choice([st for st in plans if st.b == leftmost])


def rollout_step(s: State, rng: random.Random, legal: list[Step] | None = None,
                 noise: float = 1.5) -> Step:
    """The step the search's model of play makes where it does not search: a Planning
    step by :func:`plan_step`, any other step by :func:`policy_step` (with ``noise``).

    The one place that rule lives: the search makes hidden plans and plays its
    rollouts with it.

    >>> import engine, random
    >>> s = engine.new_game(players=2, seed=0)
    >>> while s.decision.kind != "plan":
    ...     s = s.apply(rollout_step(s, random.Random(0)) if s.decision.kind != "chance"
    ...                 else s.sample_chance())
    >>> rollout_step(s, random.Random(1)) == plan_step(s, random.Random(1))
    True
    """
    if s.decision.kind == "plan":
        return plan_step(s, rng, legal)
    return policy_step(s, rng, legal, noise=noise)


def policy_step(s: State, rng: random.Random, legal: list[Step] | None = None,
                noise: float = 1.5, solvers: bool = False) -> Step:
    """A step chosen by the heuristic (softly: random among the better ones)."""
    if s.decision.kind == "chance":
        return s.sample_chance()
    if legal is None:
        legal = s.legal_steps()
    if len(legal) == 1:
        return legal[0]
    if solvers and s.decision.kind in SOLVED_KINDS:
        return candidate_steps(s, legal)[0]
    scores = [step_score(s, st) + rng.random() * noise for st in legal]
    best = max(range(len(legal)), key=scores.__getitem__)
    return legal[best]
