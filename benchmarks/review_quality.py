"""How good is the game review (``search.review``)? Three measurements:

* ``thresholds``: at decisions of a strong search's self-play games, the losses the
  review gives the search's own step and a uniformly random other legal step at the
  same position (same budget, same seed): the two distributions, and the class
  thresholds the rule below draws from them (``search.review.THRESHOLDS`` holds them);
* ``quality``: games of the strong search against a weak bot in which some of the
  strong side's steps were replaced by random ones at recorded indices: how many of
  the replaced steps the review classes as mistakes or blunders, how many of the
  search's own steps it flags (false alarms), and how many of the weak bot's;
* ``speed``: one two-player game reviewed for both seats at a budget and at 4x that
  budget: the time, and how often the two agree on the best step and on the class.

    .venv/bin/python -m benchmarks.review_quality thresholds --games 8 --every 2
    .venv/bin/python -m benchmarks.review_quality quality --games 20
    .venv/bin/python -m benchmarks.review_quality speed

Everything is reproducible: the bots and the review search by iteration budgets, the
games by their seeds. Results and the commands that made them: ``docs/review.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import engine
from engine import GameRecord, Seat, State, Step, observe
from search.bot_specs import make_bot, search_config
from search.review import (
    CLASSES,
    DEFAULT_ITERATIONS,
    THRESHOLDS,
    Review,
    Thresholds,
    judge,
    review_record,
    seat_observation,
)

STRONG = "mcts:iterations=1000"  # about the strength plateau (docs/search.md)
WEAK = "level:2"  # the novice: a random step in 1 of 20, careless plans
# The rule drawing the class thresholds from the strong search's own losses: the
# percentiles of those losses (per measure) where inaccuracy, mistake and blunder begin:
# a strong player's step is an inaccuracy or worse 1 time in 20 by each measure, a
# mistake or worse 1 in 40, a blunder 1 in 200.
PERCENTILES = (95.0, 97.5, 99.5)
FLAGGED = CLASSES  # any class
SERIOUS = ("mistake", "blunder")


def choices(state: State) -> list[Step]:
    """The legal steps of the decider at ``state`` (a simultaneous decision as its
    first seat's)."""
    return state.legal_steps()


Inject = Callable[[int, State, Step], Step]  # (seat decision number, state, bot's step)


def play_recorded(specs: Sequence[str], seed: int, inject: Inject | None = None,
                  injected_seat: int = 0) -> tuple[GameRecord, State, list[int]]:
    """A game of the bots ``specs`` (seat order) from ``new_game(seed=seed)``, recorded
    step by step. ``inject(k, state, step)`` sees ``injected_seat``'s k-th step with a
    choice (k from 0) and may return another step: that step is played instead (source
    ``random``), and the bot chooses the rest of its move anew. Returns the record, the
    final state and the indices of the replaced steps in ``record.steps``."""
    s = engine.new_game(players=len(specs), seed=seed)
    bots = [make_bot(sp, seed=seed * 7 + i) for i, sp in enumerate(specs)]
    rec = GameRecord.new(s, seats=[Seat("bot", sp) for sp in specs], seed=seed,
                         meta={"event": "review-quality"})
    replaced: list[int] = []
    count = 0
    while not s.is_over():
        d = s.decision
        if d.is_chance:
            step = s.sample_chance()
            rec.append(-1, step, "chance")
            s = s.apply(step)
            continue
        player = d.player
        for step in bots[player].choose(observe(s, player)).steps:
            here = s.decide_as(player) if d.simultaneous else s
            other = step
            if inject is not None and player == injected_seat and len(choices(here)) > 1:
                other = inject(count, here, step)
                count += 1
            rec.append(player, other, "bot" if other == step else "random")
            s = s.apply(other, player)
            if other != step:
                replaced.append(len(rec.steps) - 1)
                break
            if s.is_over() or s.decision.is_chance or player not in s.decision.deciders:
                break
    return rec, s, replaced


def random_replacer(targets: set[int], rng: random.Random) -> Inject:
    """Replace the seat's k-th choice for each k in ``targets`` by a uniformly random
    other legal step."""
    def inject(k: int, state: State, step: Step) -> Step:
        if k not in targets:
            return step
        return rng.choice([x for x in choices(state) if x != step])
    return inject


# -- thresholds ------------------------------------------------------------------------
@dataclass
class Losses:
    """Losses (win chance, pounds) of the search's own steps and of random steps."""

    own: list[tuple[float, float]] = field(default_factory=list)
    rand: list[tuple[float, float]] = field(default_factory=list)


def measure_losses(games: int, seed: int, every: int, iterations: int,
                   log: Callable[[str], None], strong: str = STRONG) -> Losses:
    """Strong self-play games; at every ``every``-th decision of the game's first seat
    with a choice, judge the search's step and a random other step."""
    out = Losses()
    cfg = search_config(iterations=iterations, seed=seed)
    for g in range(games):
        rec, _, _ = play_recorded([strong, strong], seed + g)
        states = rec.replay()
        rng = random.Random(seed + g)
        k = 0
        for i, r in enumerate(rec.steps):
            state = states[i]
            if r.player != 0 or r.step is None:
                continue
            here = state.decide_as(0) if state.decision.simultaneous else state
            legal = choices(here)
            if len(legal) < 2:
                continue
            k += 1
            if k % every:
                continue
            obs = seat_observation(state, 0)
            other = rng.choice([x for x in legal if x != r.step])
            c = replace(cfg, seed=seed * 1000 + i)
            for step, into in ((r.step, out.own), (other, out.rand)):
                j = judge(obs, step, c)
                into.append((j.loss_win, j.loss_money))
        log(f"game {g + 1}/{games}: {len(out.own)} positions")
    return out


def drawn_thresholds(own: list[tuple[float, float]]) -> Thresholds:
    """The rule: each class begins at :data:`PERCENTILES` of the search's own losses,
    per measure (win chance to 0.005, pounds to 0.5)."""
    arr = np.array(own)
    win = tuple(round(round(float(np.percentile(arr[:, 0], p)) / 0.005) * 0.005, 3)
                for p in PERCENTILES)
    money = tuple(round(float(np.percentile(arr[:, 1], p)) / 0.5) * 0.5 for p in PERCENTILES)
    return Thresholds(win=(win[0], win[1], win[2]), money=(money[0], money[1], money[2]))


def _share(losses: list[tuple[float, float]], t: Thresholds, classes: Sequence[str]
           ) -> float:
    hits = sum(t.classify(w, m) in classes for w, m in losses)
    return hits / len(losses) if losses else 0.0


def thresholds_report(losses: Losses) -> dict[str, Any]:
    pcts = (50, 75, 90, 95, 97.5, 99, 99.5)
    table: dict[str, Any] = {}
    for name, data in (("own", losses.own), ("random", losses.rand)):
        arr = np.array(data)
        table[name] = {
            "positions": len(data),
            "win": {str(p): round(float(np.percentile(arr[:, 0], p)), 4) for p in pcts},
            "money": {str(p): round(float(np.percentile(arr[:, 1], p)), 2) for p in pcts},
            "mean_win": round(float(arr[:, 0].mean()), 4),
            "mean_money": round(float(arr[:, 1].mean()), 2),
        }
    drawn = drawn_thresholds(losses.own)
    rates = {}
    for label, t in (("drawn", drawn), ("shipped", THRESHOLDS)):
        rates[label] = {
            f"{who}_{what}": round(_share(data, t, cls), 4)
            for who, data in (("own", losses.own), ("random", losses.rand))
            for what, cls in (("flagged", FLAGGED), ("serious", SERIOUS))}
    return {"distributions": table, "percentiles": list(PERCENTILES),
            "drawn": drawn.to_json(), "shipped": THRESHOLDS.to_json(), "rates": rates,
            "losses": {"own": losses.own, "random": losses.rand}}


# -- quality ---------------------------------------------------------------------------
def _tally(review: Review, player: int, skip: set[int]) -> dict[str, int]:
    out = {"decisions": 0, "flagged": 0, "serious": 0}
    for d in review.decisions:
        if d.player != player or d.index in skip:
            continue
        out["decisions"] += 1
        out["flagged"] += d.classification is not None
        out["serious"] += d.classification in SERIOUS
    return out


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    for k, v in part.items():
        total[k] = total.get(k, 0) + v


def quality(games: int, seed: int, iterations: int, per_game: int,
            log: Callable[[str], None], strong: str = STRONG, weak: str = WEAK
            ) -> dict[str, Any]:
    """Games of the strong search against the weak bot (seats alternate), in which
    ``per_game`` of the strong seat's choices (drawn among its first 90) were replaced
    by random steps; both seats reviewed. The replaced steps' classes, the strong
    search's own steps flagged (false alarms) and the weak bot's."""
    replaced: dict[str, int] = {"steps": 0, "flagged": 0, "serious": 0}
    classes = dict.fromkeys(["none", *CLASSES], 0)
    own: dict[str, int] = {}
    other: dict[str, int] = {}
    losses: dict[str, list[tuple[float, float]]] = {"replaced": [], "strong": [], "weak": []}
    for g in range(games):
        rng = random.Random(seed + g)
        specs = [strong, weak] if g % 2 == 0 else [weak, strong]
        s = g % 2
        rec, _, where = play_recorded(specs, seed + g,
                                      random_replacer(set(rng.sample(range(90), per_game)),
                                                      rng), injected_seat=s)
        review = review_record(rec, iterations=iterations, seed=seed + g)
        for d in review.decisions:
            group = "replaced" if d.index in where else "strong" if d.player == s else "weak"
            losses[group].append((d.loss_win, d.loss_money))
        by_index = {d.index: d for d in review.decisions}
        for i in where:
            cls = by_index[i].classification if i in by_index else None
            classes[cls or "none"] += 1
            replaced["steps"] += 1
            replaced["flagged"] += cls is not None
            replaced["serious"] += cls in SERIOUS
        _add(own, _tally(review, s, set(where)))
        _add(other, _tally(review, 1 - s, set()))
        log(f"game {g + 1}/{games}: replaced {replaced}, strong {own}, weak {other}")
    return {"games": games, "strong": strong, "weak": weak, "per_game": per_game,
            "replaced": replaced, "replaced_classes": classes, "strong_steps": own,
            "weak_steps": other,
            "mean_loss": {k: _means(v) for k, v in losses.items()}}


def _means(losses: list[tuple[float, float]]) -> dict[str, float]:
    if not losses:
        return {"win": 0.0, "money": 0.0}
    arr = np.array(losses)
    return {"win": round(float(arr[:, 0].mean()), 4), "money": round(float(arr[:, 1].mean()), 2)}


# -- speed -----------------------------------------------------------------------------
def speed(seed: int, iterations: int, factor: int, log: Callable[[str], None],
          strong: str = STRONG) -> dict[str, Any]:
    """One strong self-play game reviewed for both seats at ``iterations`` and at
    ``factor`` times as many: times, and agreement of best steps and classes."""
    rec, _, _ = play_recorded([strong, strong], seed)
    runs = []
    for budget in (iterations, iterations * factor):
        t0 = time.perf_counter()
        review = review_record(rec, iterations=budget, seed=seed)
        runs.append((review, time.perf_counter() - t0))
        log(f"{budget} iterations: {len(review.decisions)} decisions in "
            f"{runs[-1][1]:.1f} s")
    (small, t_small), (big, t_big) = runs
    pairs = list(zip(small.decisions, big.decisions, strict=True))
    same_best = sum(a.best == b.best for a, b in pairs)
    same_class = sum(a.classification == b.classification for a, b in pairs)
    flagged_big = [b for _, b in pairs if b.classification in SERIOUS]
    caught = sum(a.classification in SERIOUS for a, b in pairs if b.classification in SERIOUS)
    diff = np.array([abs(a.loss_win - b.loss_win) for a, b in pairs])
    diff_money = np.array([abs(a.loss_money - b.loss_money) for a, b in pairs])
    return {"seed": seed, "decisions": len(pairs), "iterations": iterations,
            "factor": factor, "seconds": round(t_small, 1),
            "seconds_factor": round(t_big, 1), "same_best": same_best,
            "same_class": same_class, "serious_at_factor": len(flagged_big),
            "of_those_serious_at_budget": caught,
            "serious_at_budget": sum(a.classification in SERIOUS for a, _ in pairs),
            "flagged_at_budget": sum(a.classification is not None for a, _ in pairs),
            "flagged_at_factor": sum(b.classification is not None for _, b in pairs),
            "flagged_at_both": sum(a.classification is not None
                                   and b.classification is not None for a, b in pairs),
            "mean_abs_loss_win_difference": round(float(diff.mean()), 4),
            "mean_abs_loss_money_difference": round(float(diff_money.mean()), 2),
            "pairs": [{"index": a.index, "player": a.player + 1,
                       "best": a.best.text(small.cat), "best_factor": b.best.text(big.cat),
                       "loss_win": [round(a.loss_win, 4), round(b.loss_win, 4)],
                       "loss_money": [round(a.loss_money, 2), round(b.loss_money, 2)],
                       "class": [a.classification, b.classification]}
                      for a, b in pairs]}


# -- command line ----------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.review_quality",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("thresholds", help="loss distributions and the drawn thresholds")
    t.add_argument("--games", type=int, default=8)
    t.add_argument("--every", type=int, default=2, help="judge every k-th decision")
    t.add_argument("--seed", type=int, default=500)
    q = sub.add_parser("quality", help="strong against weak, random steps put in")
    q.add_argument("--games", type=int, default=20)
    q.add_argument("--per-game", type=int, default=3, help="random steps per game")
    q.add_argument("--seed", type=int, default=0)
    s = sub.add_parser("speed", help="a game reviewed at a budget and at 4x")
    s.add_argument("--seed", type=int, default=7)
    s.add_argument("--factor", type=int, default=4)
    q.add_argument("--weak", default=WEAK, help="the weak bot's spec")
    for sp in (t, q, s):
        sp.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                        help="the review's budget a decision")
        sp.add_argument("--strong", default=STRONG, help="the strong search's bot spec")
        sp.add_argument("--json", default=None, help="write the report here too")
    return p


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = _parser().parse_args(argv)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    if args.command == "thresholds":
        report = thresholds_report(measure_losses(args.games, args.seed, args.every,
                                                  args.iterations, log, args.strong))
    elif args.command == "quality":
        report = quality(args.games, args.seed, args.iterations, args.per_game, log,
                         args.strong, args.weak)
    else:
        report = speed(args.seed, args.iterations, args.factor, log, args.strong)
    report = {"command": args.command, "iterations": args.iterations,
              "thresholds": THRESHOLDS.to_json(), **report,
              "elapsed": round(time.perf_counter() - t0, 1)}
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return report


if __name__ == "__main__":
    main()
