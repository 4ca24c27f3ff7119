"""Game review: where each player lost, by how much, and what was better.

:func:`review_record` goes through a game record (:class:`engine.GameRecord`) and, for
every decision of the chosen seats with at least two candidates, searches the position
*from that seat's observation at the time* (its hidden information respected: the
other seats' face-down plans and tiles are sampled, never read), unless the review is
all-seeing (a finished record only; the output says so).

One search judges both steps. Its root holds the search's usual candidates plus the
step played (``MCTS.search(..., only=...)``); if the search gave the played step less
than :data:`PLAYED_SHARE` of its iterations, it goes on with that step alone
(``only=[played]`` on the same tree) until it has them, so a step the search dislikes
is still measured on enough playouts. The *loss* is the best line's value minus the
played step's, in the seat's win chance and in its projected final money, clipped at
0; "best" is the search's choice (the most visited line) before the played step's
extra iterations. Each loss gets a class from :data:`THRESHOLDS`, chosen from measured
distributions (``docs/review.md``). Where the exact solvers apply (an expansion route,
a bookkeeping purchase) the solver's answer stands beside the route played.

>>> import engine
>>> from search.review import review_record
>>> s = engine.new_game(players=2, seed=1)
>>> rec = engine.GameRecord.new(s)
>>> while s.decision.is_chance or s.decision.kind == "resting-cards":
...     step = s.sample_chance() if s.decision.is_chance else s.legal_steps()[-1]
...     rec.append(s.decision.player, step, "chance" if s.decision.is_chance else "bot")
...     s = s.apply(step)
>>> review = review_record(rec, iterations=40)
>>> [(d.player, d.played == d.best or d.loss_win >= 0) for d in review.decisions]
[(0, True), (1, True)]
>>> review.to_json()["format"]
'mombasa-review/1'
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from engine import (
    Catalogue,
    GameRecord,
    IllegalStep,
    Observation,
    State,
    Step,
    default_catalogue,
    determinize,
    observe,
)
from search.bot_specs import search_config
from search.mcts import MCTS, Line, SearchConfig, SearchResult
from search.pacing import REAL_TIME, Pacer
from search.solvers import SolverError, best_bookkeeping, best_expansions

FORMAT = "mombasa-review/1"
#: The default budget of one decision's search, in iterations (measured choice:
#: ``docs/review.md``, "Speed": a two-player game for both seats in under 3 minutes on
#: a busy 2-core machine).
DEFAULT_ITERATIONS = 1000
#: The played step is searched on at least this share of the search's iterations.
PLAYED_SHARE = 0.25
#: How many of a solver's best plans are listed to find the route played among them.
SOLVER_DEPTH = 20
CLASSES = ("inaccuracy", "mistake", "blunder")
# The steps of an expansion route / a bookkeeping purchase after its first decision.
_ROUTE_KINDS = {"expansion": frozenset({"enter", "stop", "reward-order", "remove-post",
                                        "return"}),
                "books": frozenset({"take", "pounds", "place"})}

Progress = Callable[[int, int], None]


class ReviewStopped(Exception):
    """The review was told to stop (its pacer's checkpoint answered False)."""


@dataclass(frozen=True)
class Thresholds:
    """The smallest loss of each class (inaccuracy, mistake, blunder), in win chance
    (0..1) and in projected pounds; a step's class is the worse of the two it reaches.

    >>> t = Thresholds(win=(0.02, 0.05, 0.10), money=(3.0, 6.0, 12.0))
    >>> t.classify(0.01, 1.0), t.classify(0.06, 1.0), t.classify(0.0, 20.0)
    (None, 'mistake', 'blunder')
    """

    win: tuple[float, float, float]
    money: tuple[float, float, float]

    def classify(self, loss_win: float, loss_money: float) -> str | None:
        rank = max(_rank(loss_win, self.win), _rank(loss_money, self.money))
        return CLASSES[rank] if rank >= 0 else None

    def to_json(self) -> dict[str, Any]:
        return {"win": dict(zip(CLASSES, self.win, strict=True)),
                "money": dict(zip(CLASSES, self.money, strict=True)),
                "rule": "the worse class of the two losses", "source": "docs/review.md"}


def _rank(loss: float, bounds: tuple[float, float, float]) -> int:
    return max((k for k, b in enumerate(bounds) if loss >= b), default=-1)


#: Drawn from measured losses (docs/review.md, "Thresholds": ``python -m
#: benchmarks.review_quality thresholds``): the 95th, 97.5th and 99.5th percentiles of
#: the losses of a strong search's own steps (mcts at 1,000 iterations, 411 positions
#: of 6 self-play games) at the default budget, per measure; random steps at the same
#: positions lose 2.64 pounds and 1.7 points of win chance at the median.
THRESHOLDS = Thresholds(win=(0.02, 0.03, 0.10), money=(2.0, 4.0, 6.0))


@dataclass(frozen=True)
class SolverNote:
    """The exact solver's answer at the first decision of an expansion route or a
    bookkeeping purchase, beside the route played: ``kind`` ``expansion`` or ``books``,
    the best plan's steps and value, the played route's steps, and its rank (1 = the
    best) and value among the solver's :data:`SOLVER_DEPTH` best plans (None if not
    among them)."""

    kind: str
    exact: tuple[Step, ...]
    exact_value: float
    played: tuple[Step, ...]
    played_rank: int | None
    played_value: float | None

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        return {"kind": self.kind,
                "exact": {"steps": [s.text(cat) for s in self.exact],
                          "value": round(self.exact_value, 2)},
                "played": {"steps": [s.text(cat) for s in self.played],
                           "rank": self.played_rank,
                           "value": None if self.played_value is None
                           else round(self.played_value, 2)},
                "agrees": self.played_rank == 1}


@dataclass(frozen=True)
class Judgement:
    """What one search says of a step played at one decision (see :func:`judge`)."""

    played: Step
    best: Step
    win_played: float  # the seat's win chance after the played step (0..1)
    win_best: float
    money_played: float  # the seat's projected final money after the played step
    money_best: float
    visits_played: int
    visits_best: int
    iterations: int  # of the whole search, the played step's extra ones included

    @property
    def loss_win(self) -> float:
        return max(0.0, self.win_best - self.win_played)

    @property
    def loss_money(self) -> float:
        return max(0.0, self.money_best - self.money_played)


@dataclass(frozen=True)
class ReviewedDecision(Judgement):
    """One reviewed decision: the search's :class:`Judgement` of the step played, with
    ``index`` of that step in ``record.steps``, the 0-based ``player``, the decision's
    ``kind`` and round, the class of the loss and, where a solver applies, its note."""

    index: int
    player: int
    kind: str
    round: int
    classification: str | None
    solver: SolverNote | None = None

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        return {"index": self.index, "player": self.player + 1, "kind": self.kind,
                "round": self.round, "played": self.played.text(cat),
                "best": self.best.text(cat), "loss_win": round(self.loss_win, 4),
                "loss_money": round(self.loss_money, 2), "class": self.classification,
                "win_played": round(self.win_played, 4), "win_best": round(self.win_best, 4),
                "money_played": round(self.money_played, 2),
                "money_best": round(self.money_best, 2),
                "visits_played": self.visits_played, "visits_best": self.visits_best,
                "iterations": self.iterations,
                "solver": None if self.solver is None else self.solver.to_json(cat)}


@dataclass
class Review:
    """A record's review: the seats reviewed (0-based), the budget of each decision's
    search, whether it was all-seeing, the reviewed decisions in game order, the
    thresholds of the classes, and how many of the record's steps could be replayed
    (a seat's view stops at its first hidden step)."""

    seats: list[int]
    iterations: int | None
    seconds: float | None
    all_seeing: bool
    decisions: list[ReviewedDecision]
    thresholds: Thresholds = THRESHOLDS
    steps_replayed: int = 0
    cat: Catalogue = field(default_factory=default_catalogue, repr=False)

    def curves(self) -> dict[int, list[tuple[int, float, float]]]:
        """Per seat (0-based), (index, win chance, projected money) after each of its
        reviewed decisions: the search's values of the step played."""
        out: dict[int, list[tuple[int, float, float]]] = {s: [] for s in self.seats}
        for d in self.decisions:
            out[d.player].append((d.index, d.win_played, d.money_played))
        return out

    def counts(self, player: int) -> dict[str, int]:
        """How many of ``player``'s decisions fall in each class."""
        out = dict.fromkeys(CLASSES, 0)
        for d in self.decisions:
            if d.player == player and d.classification is not None:
                out[d.classification] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "seats": [s + 1 for s in self.seats],
            "budget": {"iterations": self.iterations, "seconds": self.seconds,
                       "played_share": PLAYED_SHARE},
            "all_seeing": self.all_seeing, "steps_replayed": self.steps_replayed,
            "decisions": [d.to_json(self.cat) for d in self.decisions],
            "curves": {str(s + 1): [{"index": i, "win": round(w, 4), "money": round(m, 2)}
                                    for i, w, m in points]
                       for s, points in self.curves().items()},
            "thresholds": self.thresholds.to_json(),
        }


class _Watch(Pacer):
    """A pacer passing on another's clock and checkpoint, remembering a stop."""

    def __init__(self, inner: Pacer) -> None:
        self.inner = inner
        self.stopped = False

    def clock(self) -> float:
        return self.inner.clock()

    def checkpoint(self) -> bool:
        if not self.stopped and not self.inner.checkpoint():
            self.stopped = True
        return not self.stopped


def _line(result: SearchResult, step: Step) -> Line:
    return next(ln for ln in result.lines if ln.step == step)


def judge(obs: Observation, played: Step, config: SearchConfig,
          pacer: Pacer = REAL_TIME, candidates: Sequence[Step] | None = None) -> Judgement:
    """Judge ``played`` at the viewer's decision of ``obs`` by one search of ``config``:
    the search's candidates (``candidates``, default :meth:`MCTS.candidates`) plus
    ``played``, then ``played`` alone on the same tree until it has had
    :data:`PLAYED_SHARE` of the iterations. Raises :class:`ReviewStopped` if the
    pacer stops the search."""
    watch = _Watch(pacer)
    mcts = MCTS(config, watch)
    cands = list(candidates) if candidates is not None else mcts.candidates(obs)
    first = mcts.search(obs, only=[*cands, played])
    if watch.stopped:
        raise ReviewStopped("stopped")
    best = _line(first, first.best)
    total = first.iterations
    need = max(1, math.ceil(PLAYED_SHARE * first.iterations))
    seen = next((ln.visits for ln in first.lines if ln.step == played), 0)  # prior=0: none
    final = first
    if played != best.step and seen < need:
        more = replace(config, iterations=need - seen, time=None, seed=config.seed + 1)
        final = MCTS(more, watch).search(obs, root=first.root, only=[played])
        if watch.stopped:
            raise ReviewStopped("stopped")
        total += final.iterations
    mine = _line(final, played)
    me = obs.viewer
    return Judgement(played=played, best=best.step, win_played=mine.win[me],
                     win_best=best.win[me], money_played=mine.money[me],
                     money_best=best.money[me], visits_played=mine.visits,
                     visits_best=best.visits, iterations=total)


def seat_observation(state: State, seat: int, all_seeing: bool = False) -> Observation:
    """What ``seat`` saw when deciding at ``state`` (:func:`engine.observe`), or, when
    ``all_seeing``, the whole state as if it were that seat's observation."""
    if not all_seeing:
        return observe(state, seat)
    return Observation(seat, state.decide_as(seat) if seat in state.decision.deciders
                       else state)


@dataclass(frozen=True)
class _Todo:
    index: int
    player: int
    obs: Observation
    candidates: list[Step]
    played: Step


def _replayable(record: GameRecord, cat: Catalogue) -> list[State]:
    """The states of the record's steps up to its first hidden one (a seat's view)."""
    stop = next((i for i, r in enumerate(record.steps) if r.step is None),
                len(record.steps))
    if stop == len(record.steps):
        return record.replay(cat)
    return replace(record, steps=record.steps[:stop], result=None).replay(cat)


def _check_seats(seats: Sequence[int] | None, players: int) -> list[int]:
    if seats is None:
        return list(range(players))
    out = list(dict.fromkeys(seats))
    if not out:
        raise ValueError("seats: none given")
    for s in out:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players:
            raise ValueError(f"seats: no seat {s!r} (0-based) in a {players}-player game")
    return sorted(out)


def _plan(record: GameRecord, states: list[State], seats: list[int], all_seeing: bool,
          config: SearchConfig) -> list[_Todo]:
    """The decisions to review: the chosen seats' steps where the root would hold at
    least two candidates (the search's and the played step)."""
    todo = []
    for i, rec in enumerate(record.steps[:len(states) - 1]):
        if rec.player not in seats or rec.step is None:
            continue
        obs = seat_observation(states[i], rec.player, all_seeing)
        cands = MCTS(replace(config, seed=_seed(config.seed, i))).candidates(obs)
        if len({*cands, rec.step}) >= 2:
            todo.append(_Todo(i, rec.player, obs, cands, rec.step))
    return todo


def _seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index) & ((1 << 62) - 1)


def review_record(record: GameRecord, seats: Sequence[int] | None = None, *,
                  iterations: int | None = None, seconds: float | None = None,
                  all_seeing: bool = False, pacer: Pacer = REAL_TIME,
                  progress: Progress | None = None, seed: int = 0,
                  thresholds: Thresholds = THRESHOLDS,
                  catalogue: Catalogue | None = None) -> Review:
    """Review ``record`` for ``seats`` (0-based; None: every seat).

    Each decision is searched with ``iterations`` and/or ``seconds`` (neither:
    :data:`DEFAULT_ITERATIONS`) from the seat's observation, or the whole state when
    ``all_seeing`` (only for a finished record that is nobody's view). ``progress`` is
    called with (decisions done, decisions to review). Raises :class:`RecordError` for a
    record that does not replay, ``ValueError`` for bad seats, budget or all-seeing,
    :class:`ReviewStopped` when ``pacer``'s checkpoint says stop."""
    cat = catalogue or default_catalogue()
    chosen = _check_seats(seats, record.players)
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    config = search_config(iterations=iterations, time=seconds, seed=seed)
    states = _replayable(record, cat)
    if all_seeing and (record.viewer is not None or not states[-1].is_over()):
        raise ValueError("all_seeing: only a finished record with every step may be "
                         "reviewed all-seeing")
    todo = _plan(record, states, chosen, all_seeing, config)
    if progress is not None:
        progress(0, len(todo))
    decisions = []
    for done, item in enumerate(todo, 1):
        if not pacer.checkpoint():
            raise ReviewStopped(f"stopped after {done - 1} of {len(todo)} decisions")
        cfg = replace(config, seed=_seed(seed, item.index))
        j = judge(item.obs, item.played, cfg, pacer, item.candidates)
        state = states[item.index]
        decisions.append(ReviewedDecision(
            **{f.name: getattr(j, f.name) for f in fields(Judgement)},
            index=item.index, player=item.player, kind=state.decision.kind,
            round=state.round, classification=thresholds.classify(j.loss_win, j.loss_money),
            solver=solver_note(record, states, item.index, item.obs)))
        if progress is not None:
            progress(done, len(todo))
    return Review(chosen, iterations, seconds, all_seeing, decisions, thresholds,
                  len(states) - 1, cat)


def _route_start(state: State) -> str | None:
    """``expansion`` / ``books`` where a route or purchase begins at this decision."""
    d = state.decision
    if d.kind == "expansion" and not d.entered and not d.ousted:
        return "expansion"
    if d.kind == "bookkeeping-points" and d.space == -1:
        return "books"
    return None


def solver_note(record: GameRecord, states: list[State], index: int,
                obs: Observation) -> SolverNote | None:
    """The solver's answer beside the route played from step ``index``, where a route
    begins there (solved on a determinization of the seat's observation: the solvers
    read only what the seat sees)."""
    kind = _route_start(states[index])
    if kind is None:
        return None
    player = record.steps[index].player
    played = [record.steps[index].step]
    for rec in record.steps[index + 1:len(states) - 1]:
        if rec.player != player or rec.step is None or rec.step.kind not in _ROUTE_KINDS[kind]:
            break
        played.append(rec.step)
    state = determinize(obs, random.Random(0))
    try:
        if kind == "expansion":
            company = state.decision.company
            assert company is not None
            plans = [(p.steps, p.value) for p in best_expansions(state, company, k=SOLVER_DEPTH)]
        else:
            plans = [(p.steps, p.value) for p in best_bookkeeping(state, k=SOLVER_DEPTH)]
    except SolverError:
        return None
    if not plans:
        return None
    route = tuple(s for s in played if s is not None)
    # A plan is the route played if it leads to the same position (the same regions
    # entered in another order are the same route).
    played_end = _after(state, route)
    rank = next((k for k, (steps, _) in enumerate(plans, 1)
                 if played_end is not None and _after(state, steps) == played_end), None)
    return SolverNote(kind, plans[0][0], plans[0][1], route, rank,
                      None if rank is None else plans[rank - 1][1])


def _after(state: State, steps: Sequence[Step]) -> State | None:
    """The position after ``steps``, None if one of them is illegal on the way."""
    for step in steps:
        try:
            state = state.apply(step)
        except IllegalStep:
            return None
    return state


__all__ = ["CLASSES", "DEFAULT_ITERATIONS", "FORMAT", "PLAYED_SHARE", "THRESHOLDS",
           "Judgement", "Review", "ReviewStopped", "ReviewedDecision",
           "SolverNote", "Thresholds", "judge", "review_record", "seat_observation",
           "solver_note"]
