"""Does a search's choice agree with a much deeper search? The evaluator measure of
issue 56.

An evaluator's error against the final money is dominated by what chance does later; it
cannot say whether the evaluator orders two close positions the way a search needs. This
measure asks what the search needs: on held-out positions, how often the step a search
of ``B`` iterations picks with a given evaluator (and settings) is the step a search of
``16 x B`` iterations picks (the *reference*, several seeds pooled), and what the
choices cost in that deep search's own values (the *regret*: the deep search's win
chance, and its estimate of the mover's money lead, of its pick minus those of the step
picked; never below 0).

Two steps. ``reference`` samples the positions and runs the deep searches once (the
slow part), writing a JSON file: every position as an observation
(``engine.observation_to_json``), the deep search's pick and, for every root candidate,
its pooled visits, win chance and lead (a candidate the deep searches hardly tried gets
``--cover`` iterations of its own on the first seed's tree, as the game review judges a
played step). ``measure`` then runs any bot spec at any budget on those positions and
reports agreement and regret; ``--model FILE`` judges another value model (the measured
searches' ``SearchConfig.value_model``, unless a spec names its own ``model=``).
``reference --model FILE`` runs the deep searches with that model on the same positions
(they are sampled from the same greedy games whatever the model): a model is best judged
against a reference of its own, since the measure scores closeness to the reference's
evaluator.

``reference --even N`` judges every candidate alone instead (``only=[step]``, ``N``
iterations on each seed): one deep search leaves all but its favourite step at a shallow,
exploring look, whose value sits below the favourite's for that reason alone; at
Planning, where two deep searches rarely agree, that bias is most of the regret.
``--kind plan`` samples Planning decisions only.

The positions are decisions with at least two candidate steps (actions, Planning,
solved decisions) of the player to move in 2-player games between greedy bots with the
learned evaluator, sampled with game seeds no training recipe uses (from 9,000 up), so
they are held out.

    python -m benchmarks.deep_agreement reference --positions 80 --base 1000 --out REF.json
    python -m benchmarks.deep_agreement measure REF.json --spec mcts:iterations=1000
    python -m benchmarks.deep_agreement measure REF.json --spec mcts:iterations=1000 \\
        --model other_model.json --json out.json
    python -m benchmarks.deep_agreement reference --kind plan --positions 40 \\
        --even 4000 --out PLAN.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from benchmarks import diagnose_search
from engine import (
    Observation,
    Step,
    observation_from_json,
    observation_to_json,
)
from search.bot_specs import make_bot
from search.bots import MCTSBot
from search.mcts import MCTS, SearchConfig, SearchResult

T = TypeVar("T")
R = TypeVar("R")
FORMAT = "mombasa-deep-agreement/1"
FIRST_GAME_SEED = 9_000  # above every seed the training recipe and the series use


def _has_choice(obs: Observation) -> bool:
    return len(MCTS(SearchConfig(iterations=1)).candidates(obs)) > 1


def sample_positions(count: int, seed: int = FIRST_GAME_SEED,
                     share: float = 0.12) -> list[Observation]:
    """``count`` decisions with at least two candidate steps, as seen by the player to
    move, from 2-player games of greedy bots (learned evaluator), about ``share`` of
    each game's decisions, spread over the game."""
    return diagnose_search.sample_positions(count, seed, share, keep=_has_choice,
                                            bot_seed=seed)


def _lead(money: list[float], me: int) -> float:
    return money[me] - max(m for i, m in enumerate(money) if i != me)


@dataclass
class _Pool:
    """A candidate's statistics pooled over the deep searches (visit-weighted)."""

    visits: int = 0
    win: float = 0.0
    lead: float = 0.0

    def add(self, visits: int, win: float, lead: float) -> None:
        total = self.visits + visits
        if total:
            self.win = (self.win * self.visits + win * visits) / total
            self.lead = (self.lead * self.visits + lead * visits) / total
        self.visits = total


def deep_reference(obs: Observation, config: SearchConfig, seeds: int,
                   cover: int) -> dict[str, Any]:
    """The deep searches of one position: every candidate's pooled statistics, the
    pooled pick (most visits) and each seed's own pick."""
    me = obs.viewer
    pools: dict[Step, _Pool] = {}
    picks: list[str] = []
    first: SearchResult | None = None
    for k in range(seeds):
        result = MCTS(replace(config, seed=config.seed + 7919 * k)).search(obs)
        first = first or result
        picks.append(result.best.text())
        for line in result.lines:
            pools.setdefault(line.step, _Pool()).add(line.visits, line.win[me],
                                                     _lead(line.money, me))
    assert first is not None
    for step in MCTS(config).candidates(obs):
        pool = pools.setdefault(step, _Pool())
        if pool.visits < cover:
            more = replace(config, iterations=cover - pool.visits, seed=config.seed + 1)
            line = next(ln for ln in MCTS(more).search(obs, root=first.root,
                                                       only=[step]).lines if ln.step == step)
            # the first seed's tree already held this step's earlier visits: replace
            # the pooled figure by the covered line's, which includes them
            pools[step] = _Pool(line.visits, line.win[me], _lead(line.money, me))
    pick = max(pools, key=lambda st: (pools[st].visits, pools[st].win))
    return {
        "pick": pick.text(),
        "seed_picks": picks,
        "candidates": {st.text(): {"visits": p.visits, "win": round(p.win, 5),
                                   "lead": round(p.lead, 3)} for st, p in pools.items()},
    }


def even_reference(obs: Observation, config: SearchConfig, seeds: int) -> dict[str, Any]:
    """Every candidate searched alone (``only=[step]``) with ``config``'s iterations on
    ``seeds`` seeds: the same depth for every step, so no step's value is that of a
    shallower, more exploring subtree than another's (as in one deep search, where the
    most visited step's value climbs toward its best line and the others' stay at their
    first looks). The pick is the best pooled win chance; each seed's pick its own best.
    """
    me = obs.viewer
    steps = MCTS(config).candidates(obs)
    per_seed: list[dict[Step, tuple[float, float]]] = [{} for _ in range(seeds)]
    pools: dict[Step, _Pool] = {}
    for step in steps:
        for k in range(seeds):
            run = replace(config, seed=config.seed + 7919 * k)
            line = next(ln for ln in MCTS(run).search(obs, only=[step]).lines
                        if ln.step == step)
            per_seed[k][step] = (line.win[me], _lead(line.money, me))
            pools.setdefault(step, _Pool()).add(line.visits, line.win[me],
                                                _lead(line.money, me))
    pick = max(pools, key=lambda st: (pools[st].win, pools[st].lead))
    return {
        "pick": pick.text(),
        "seed_picks": [max(seen, key=lambda st: seen[st]).text() for seen in per_seed],
        "candidates": {st.text(): {"visits": p.visits, "win": round(p.win, 5),
                                   "lead": round(p.lead, 3)} for st, p in pools.items()},
    }


def _reference_task(task: tuple[dict[str, Any], dict[str, Any], int, int, bool]
                    ) -> dict[str, Any]:
    raw, config_fields, seeds, cover, even = task
    obs = observation_from_json(raw)
    config = SearchConfig(**config_fields)
    ref = (even_reference(obs, config, seeds) if even
           else deep_reference(obs, config, seeds, cover))
    return {"observation": raw, "kind": obs.state.decision.kind, **ref}


def build_reference(positions: int, base: int, factor: int, seeds: int, cover: int,
                    jobs: int, model: str | None = None, even: int = 0,
                    kind: str | None = None) -> dict[str, Any]:
    """Sample ``positions`` (of decision ``kind`` only, if given) and run the deep
    searches (``factor x base`` iterations, ``seeds`` seeds, the value model file
    ``model`` or the shipped one) on ``jobs`` processes; with ``even`` > 0, every
    candidate gets ``even`` iterations of its own instead (:func:`even_reference`)."""
    if kind is None:
        obs_list = sample_positions(positions)
    else:
        obs_list = diagnose_search.sample_positions(
            positions, FIRST_GAME_SEED, 0.12, bot_seed=FIRST_GAME_SEED,
            keep=lambda obs: obs.state.decision.kind == kind and _has_choice(obs))
    fields: dict[str, Any] = {"iterations": even or base * factor, "seed": 31}
    if model is not None:
        fields["value_model"] = os.path.abspath(model)
    tasks = [(observation_to_json(obs), fields, seeds, cover, even > 0) for obs in obs_list]
    rows = _map(_reference_task, tasks, jobs)
    return {"format": FORMAT, "base": base, "factor": factor, "seeds": seeds,
            "cover": cover, "even": even, "kind": kind or "all",
            "first_game_seed": FIRST_GAME_SEED, "model": model_name(model),
            "positions": rows}


def model_name(model: str | None) -> str:
    """How a reference or report names the model its searches read: the file given,
    else ``MOMBASA_VALUE_MODEL``'s, else ``shipped``."""
    return model or os.environ.get("MOMBASA_VALUE_MODEL") or "shipped"


def _map(fn: Callable[[T], R], tasks: list[T], jobs: int) -> list[R]:
    """``fn`` over ``tasks`` in order, on ``jobs`` processes when more than one."""
    if jobs <= 1:
        return [fn(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, tasks))


def _measure_task(task: tuple[SearchConfig, int, dict[str, Any], int]) -> dict[str, Any]:
    """One position searched with ``seeds`` seeds: each seed's pick, the mean share of
    the root's visits its most visited step got, iterations and seconds (means)."""
    config, index, row, seeds = task
    obs = observation_from_json(row["observation"])
    picks, shares, iterations, elapsed = [], [], [], []
    for k in range(seeds):
        result = MCTS(replace(config, seed=1000 + index + 7919 * k)).search(obs)
        picks.append(result.best.text())
        visits = [line.visits for line in result.lines]
        shares.append(max(visits) / sum(visits))
        iterations.append(result.iterations)
        elapsed.append(result.elapsed)
    return {"pick": picks[0], "seed_picks": picks, "top_share": statistics.fmean(shares),
            "iterations": statistics.fmean(iterations), "elapsed": statistics.fmean(elapsed)}


def judge_picks(reference: dict[str, Any], picks: list[str]) -> dict[str, Any]:
    """Agreement and regret of ``picks`` (one per reference position)."""
    agree = 0
    regret_win: list[float] = []
    regret_lead: list[float] = []
    uncovered = 0
    for row, pick in zip(reference["positions"], picks, strict=True):
        cands = row["candidates"]
        best = cands[row["pick"]]
        agree += pick == row["pick"]
        mine = cands.get(pick)
        if mine is None:
            uncovered += 1
            continue
        regret_win.append(max(0.0, best["win"] - mine["win"]))
        regret_lead.append(max(0.0, best["lead"] - mine["lead"]))
    n = len(picks)
    return {
        "positions": n, "agreement": agree / n,
        "agreement_se": math.sqrt(agree / n * (1 - agree / n) / n),
        "regret_win": statistics.fmean(regret_win) if regret_win else 0.0,
        "regret_win_se": (statistics.stdev(regret_win) / math.sqrt(len(regret_win))
                          if len(regret_win) > 1 else 0.0),
        "regret_lead": statistics.fmean(regret_lead) if regret_lead else 0.0,
        "uncovered": uncovered,
    }


def measure(reference: dict[str, Any], spec: str, jobs: int, model: str | None = None,
            seeds: int = 1, kind: str | None = None) -> dict[str, Any]:
    """Run ``spec``'s search on every reference position (of decision ``kind``, if
    given; with the value model file ``model`` unless the spec names its own):
    agreement and regret of its first seed's picks; with ``seeds`` > 1 also how often
    two of its seeds pick the same step (``self_agreement``: does it settle?)."""
    bot = make_bot(spec, seed=0)
    if not isinstance(bot, MCTSBot):
        raise SystemExit(f"--spec: an mcts bot spec, got {spec!r}")
    config = bot.config
    if model and not config.value_model:
        config = replace(config, value_model=os.path.abspath(model))
    chosen = [(i, row) for i, row in enumerate(reference["positions"])
              if kind is None or row["kind"] == kind]
    if not chosen:
        raise SystemExit(f"--kind: no reference position of kind {kind!r}")
    tasks = [(config, i, row, seeds) for i, row in chosen]
    rows = _map(_measure_task, tasks, jobs)
    report = judge_picks({"positions": [row for _, row in chosen]}, [r["pick"] for r in rows])
    if seeds > 1:
        report["self_agreement"] = reference_noise(
            {"positions": rows})["deep_self_agreement"]
        report["seed_picks"] = [r["seed_picks"] for r in rows]
    model = model_name(bot.config.value_model or model)  # as given, not made absolute
    report.update(spec=spec, model=model, reference_model=reference.get("model", "shipped"),
                  kind=kind or "all", seeds=seeds,
                  top_share=statistics.fmean(r["top_share"] for r in rows),
                  iterations=statistics.fmean(r["iterations"] for r in rows),
                  seconds=statistics.fmean(r["elapsed"] for r in rows),
                  picks=[r["pick"] for r in rows])
    return report


def _model_id(model: str) -> str:
    """A model as a report names it, comparable: ``shipped`` or an absolute path."""
    return model if model == "shipped" else os.path.abspath(model)


def reference_noise(reference: dict[str, Any]) -> dict[str, float]:
    """How often two deep searches of the same position (other seeds) pick the same
    step: the ceiling of any agreement."""
    pairs = same = 0
    for row in reference["positions"]:
        picks = row["seed_picks"]
        for a in range(len(picks)):
            for b in range(a + 1, len(picks)):
                pairs += 1
                same += picks[a] == picks[b]
    return {"seed_pairs": pairs, "deep_self_agreement": same / pairs if pairs else 1.0}


def _load(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise SystemExit(f"{path}: format: expected {FORMAT!r}")
    return raw


# the reference's integer options and their defaults: positions, the budget measured
# (iterations), the deep search's multiple of it, its seeds, the iterations a candidate
# the deep searches hardly tried gets of its own, the iterations every candidate gets
# alone instead of the deep searches (0: deep searches), processes
REFERENCE_OPTIONS = {"positions": 80, "base": 1000, "factor": 16, "seeds": 2, "cover": 100,
                     "even": 0, "jobs": 2}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.deep_agreement",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ref = sub.add_parser("reference", help="sample positions and run the deep searches")
    for option, default in REFERENCE_OPTIONS.items():
        ref.add_argument(f"--{option}", type=int, default=default)
    ref.add_argument("--model", help="a value model file for the deep searches")
    ref.add_argument("--kind", choices=("action", "plan"),
                     help="sample only decisions of this kind")
    ref.add_argument("--out", required=True)
    mea = sub.add_parser("measure", help="agreement and regret of a search")
    mea.add_argument("reference")
    mea.add_argument("--spec", action="append", required=True,
                     help="an mcts bot spec; repeat for several")
    mea.add_argument("--model", help="a value model file for the measured searches")
    mea.add_argument("--seeds", type=int, default=1,
                     help="seeds a position is searched with (> 1: self-agreement)")
    mea.add_argument("--kind", choices=("action", "plan"),
                     help="only the reference positions of this decision kind")
    mea.add_argument("--jobs", type=int, default=2)
    mea.add_argument("--json", dest="json_out")
    args = parser.parse_args(argv)
    if args.command == "reference":
        out = build_reference(args.positions, args.base, args.factor, args.seeds,
                              args.cover, args.jobs, args.model, args.even, args.kind)
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(out, fh)
        print(json.dumps(reference_noise(out)))
        return
    reference = _load(args.reference)
    reports = []
    for spec in args.spec:
        report = measure(reference, spec, args.jobs, args.model, args.seeds, args.kind)
        if _model_id(report["model"]) != _model_id(report["reference_model"]):
            print(f"note: {spec} judged with {report['model']} against a reference "
                  f"searched with {report['reference_model']}: the measure scores "
                  "closeness to the reference's evaluator", file=sys.stderr)
        reports.append(report)
        shown = {k: (round(v, 4) if isinstance(v, float) else v)
                 for k, v in report.items() if k not in ("picks", "seed_picks")}
        print(json.dumps(shown), flush=True)
    print(json.dumps(reference_noise(reference)))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(reports, fh, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
