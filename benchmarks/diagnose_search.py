"""Why does more thinking (not) play better? Measurements of the search, for docs/search.md.

Measurements on the shipped search settings (``SearchConfig`` defaults):

* ``agreement``: on action decisions sampled from greedy games, how often the step the
  search picks changes when the budget grows 4x, against how often it changes with the
  same budget and another seed (the search's own noise). If 4x changes the pick no more
  often than a reseed does, more time only buys a different sample of the same noise.
* ``profile``: where an iteration's time goes (determinization, the tree, rollouts and
  the solvers in them, the evaluator), by cProfile over a few searches.
* ``reach``: how often an iteration's path through the tree reaches the end of the round
  (the search's horizon) before it leaves the tree, at 1x and 4x the budget: where it
  does, the extra iterations only sample the same round-end leaves again.
* ``firstlook``: at budgets N/4, N and 4N, how often the search's pick is the step its
  root's first look (each candidate step completed by the quiet policy and evaluated
  once, before any iteration) ranks best, and how often the pick changes from one
  budget to the next: where the first look decides, more iterations cannot buy much.
* ``spread``: how much the root's first look depends on the determinization: at each
  position the first look is taken on ``k`` determinizations (the search's own, for
  seeds 0..k-1), and the report gives the mean standard deviation of a candidate's
  first-look lead across them and the share of determinizations whose best first look
  is not the most common one. Zero means the hidden part does not reach the first look.
* ``optimism``: at budgets N/4, N and 4N, how far above the best first look the search
  rates its own pick (the root's mean lead of the picked step minus the best first
  look's lead, in pounds). A search that selects among more lines rates its pick higher
  even where the pick is no better (the optimizer's curse), so a rise with the budget
  hints that the leaf's tempo correction should grow with it.
* ``budget``: what a time budget buys in iterations: at each position the search runs
  for ``t`` and for ``factor*t`` seconds (alternating which runs first, so drift in the
  machine's speed falls on both); the report gives the mean iterations of each, their
  ratio and the iterations per second. A ratio below ``factor`` means the longer search
  pays more per iteration (deeper trees, the fixed first look), so a time series gives
  the larger budget less than the iteration match of the same budgets.
* ``collector``: what pausing Python's cyclic garbage collector during a search
  (``search.collector``) buys in a game, where the heap holds more than one search's
  tree (the engine's and solvers' caches, the kept subtree): MCTS self-play at
  ``t`` seconds a decision, the pause on for every other search and off for the rest;
  the report gives, for each half, the searches, their mean iterations per second,
  the seconds spent in collections per second of search, and the collections by
  generation.
* ``plans``: how many cards a plan holds. In games between two bots of ``spec``, at
  each player's first Planning step of a round: the free slots, the cards the bot's own
  plan placed, and the mean cards placed from the same state by the two models the
  search could picture a hidden plan with (``policy_step`` at its default noise, and
  ``plan_step``; 20 samples each). A model that places fewer cards than players do
  pictures the other's plan weaker than it is.
* ``perfect``: the information-set search against the same search given the true state
  (every determinization is the real position: the others' plans and tiles and the
  coming draws are known). A diagnostic upper bound on what hidden information costs;
  never used for advice.

    python -m benchmarks.diagnose_search agreement --positions 60 --iterations 400
    python -m benchmarks.diagnose_search profile --iterations 1000
    python -m benchmarks.diagnose_search reach --positions 40 --iterations 1000
    python -m benchmarks.diagnose_search firstlook --positions 40 --iterations 1000
    python -m benchmarks.diagnose_search spread --positions 40
    python -m benchmarks.diagnose_search optimism --positions 40 --iterations 1000
    python -m benchmarks.diagnose_search budget --positions 40 --seconds 0.15
    python -m benchmarks.diagnose_search collector --games 2 --seconds 0.25
    python -m benchmarks.diagnose_search plans --games 3 --spec greedy:eval=learned
    python -m benchmarks.diagnose_search perfect --games 40 --iterations 400
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import pstats
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace

import search.bots as bots_module
import search.mcts as mcts_module
from engine import (
    Move,
    Observation,
    State,
    Step,
    apply_move,
    new_game,
    observe,
    winners,
)
from search.arena import play_game
from search.bot_specs import make_bot
from search.bots import MCTSBot
from search.collector import collector_paused
from search.mcts import MCTS, SearchConfig
from search.policy import plan_step, policy_step


def sample_positions(count: int, seed: int = 100, share: float = 0.15,
                     keep: Callable[[Observation], bool] | None = None,
                     bot_seed: int = 0) -> list[Observation]:
    """About ``share`` of the decisions ``keep`` accepts (default: action decisions
    with more than two legal steps), from 2-player greedy self-play (learned
    evaluator), as seen by the player to act."""
    rng = random.Random(seed)
    out: list[Observation] = []
    game = 0
    while len(out) < count:
        s = new_game(players=2, seed=seed + game)
        bots = [make_bot("greedy:eval=learned", seed=bot_seed + game * 2 + i) for i in range(2)]
        game += 1
        while not s.is_over() and len(out) < count:
            d = s.decision
            if d.kind == "chance":
                s = s.apply(s.sample_chance())
                continue
            obs = observe(s, d.player)
            if keep is None:  # (this order of the draws gives the documented positions)
                if d.kind == "action" and rng.random() < share and len(s.legal_steps()) > 2:
                    out.append(obs)
            elif rng.random() < share and keep(obs):
                out.append(obs)
            s = apply_move(s, bots[d.player].choose(obs))
    return out


def budget(positions: int, seconds: float, factor: int = 4) -> dict[str, float]:
    """Mean iterations of a ``seconds`` and a ``factor*seconds`` search on the same
    positions, their ratio and the iterations per second of each."""
    obs_list = sample_positions(positions)
    times = {"short": seconds, "long": seconds * factor}
    iterations = dict.fromkeys(times, 0)
    elapsed = dict.fromkeys(times, 0.0)
    for i, obs in enumerate(obs_list):
        for label in (times if i % 2 == 0 else reversed(times)):
            result = MCTS(SearchConfig(time=times[label], seed=1000 + i)).search(obs)
            iterations[label] += result.iterations
            elapsed[label] += result.elapsed
    n = len(obs_list)
    return {
        "positions": n,
        "short_seconds": times["short"],
        "long_seconds": times["long"],
        "short_iterations": iterations["short"] / n,
        "long_iterations": iterations["long"] / n,
        "ratio": iterations["long"] / max(1, iterations["short"]),
        "short_per_second": iterations["short"] / elapsed["short"],
        "long_per_second": iterations["long"] / elapsed["long"],
    }


def agreement(positions: int, iterations: int, factor: int = 4) -> dict[str, float]:
    """Share of positions where the picked step differs: budget N seed a vs seed b, and
    N vs factor*N."""
    obs_list = sample_positions(positions)
    reseed = grow = 0
    for i, obs in enumerate(obs_list):
        base = SearchConfig(iterations=iterations, seed=1000 + i)
        a = MCTS(base).search(obs).best
        b = MCTS(replace(base, seed=5000 + i)).search(obs).best
        c = MCTS(replace(base, iterations=iterations * factor, seed=9000 + i)).search(obs).best
        reseed += a != b
        grow += a != c
    n = len(obs_list)
    return {"positions": n, "changed_by_reseed": reseed / n, f"changed_by_{factor}x": grow / n}


def profile(iterations: int, positions: int = 6) -> pstats.Stats:
    """cProfile of ``positions`` searches of ``iterations`` iterations each."""
    obs_list = sample_positions(positions, seed=300)
    prof = cProfile.Profile()
    prof.enable()
    for i, obs in enumerate(obs_list):
        MCTS(SearchConfig(iterations=iterations, seed=i)).search(obs)
    prof.disable()
    return pstats.Stats(prof)


PARTS = {  # cumulative times: a part's callees count in it (iteration = everything)
    "one iteration (all of the below)": "_iterate",
    "determinize": "determinize",
    "rollout to the leaf's horizon": "_rollout",
    "evaluator at the leaf": "evaluate",
    "  of which features": "player_features",
    "solvers (expansion, books, ink jar), tree and rollout": "_plans",
    "candidate steps (solvers included)": "candidate_steps",
    "legal steps (tree and rollout)": "legal_steps",
    "applying steps (tree and rollout)": "apply_unchecked",
    "UCB selection": "_select",
    "move ordering (step_score)": "step_score",
    "root priors (greedy first look)": "_give_priors",
}


def profile_table(stats: pstats.Stats) -> list[tuple[str, float, float]]:
    """(part, cumulative seconds, share of the searches' time) per part of PARTS."""
    raw = stats.stats  # type: ignore[attr-defined]
    total = sum(v[3] for k, v in raw.items() if k[2] == "search")
    out = []
    for label, func in PARTS.items():
        cum = sum(v[3] for k, v in raw.items() if k[2] == func)
        out.append((label, cum, cum / total if total else 0.0))
    return out


class ReachCountingMCTS(MCTS):
    """The search, counting the iterations whose tree path ended at the round's end
    (their rollout starts past the horizon; diagnostic only)."""

    def __init__(self, config: SearchConfig) -> None:
        super().__init__(config)
        self.leaves = 0
        self.at_round_end = 0
        self._in_priors = False

    def _give_priors(self, state: State, node: mcts_module.Node, player: int,
                     legal: list[Step], horizon: int, k: int) -> None:
        self._in_priors = True  # a prior's first look is not an iteration's leaf
        try:
            super()._give_priors(state, node, player, legal, horizon, k)
        finally:
            self._in_priors = False

    def _rollout(self, state: State, horizon: int, rng: random.Random,
                 me: int = -1, mover: int = -1) -> State:
        if not self._in_priors:
            self.leaves += 1
            self.at_round_end += mcts_module._past_horizon(state, horizon)
        return super()._rollout(state, horizon, rng, me, mover)


def reach(positions: int, iterations: int, factor: int = 4) -> list[dict[str, float]]:
    """Per budget (N and factor*N): the mean share of iterations whose tree path reaches
    the round's end, and the share of positions where most of them do."""
    obs_list = sample_positions(positions, seed=300)
    out = []
    for budget in (iterations, iterations * factor):
        shares = []
        for i, obs in enumerate(obs_list):
            search = ReachCountingMCTS(SearchConfig(iterations=budget, seed=i))
            search.search(obs)
            shares.append(search.at_round_end / max(1, search.leaves))
        out.append({"iterations": budget, "positions": len(shares),
                    "mean_share_at_round_end": sum(shares) / len(shares),
                    "positions_mostly_at_round_end": sum(x > 0.5 for x in shares) / len(shares)})
    return out


def _lead(money: list[float], me: int) -> float:
    """The lead of ``me`` over the best other player."""
    return money[me] - max(x for i, x in enumerate(money) if i != me)


def first_look_leads(obs: Observation, config: SearchConfig) -> dict[Step, float]:
    """Each root candidate's first look (``MCTS.first_look``): its mean lead over the
    best opponent, in pounds."""
    root = MCTS(config).first_look(obs)
    return {step: _lead([x / child.n for x in child.m], obs.viewer)
            for step, child in root.children.items()}


def first_look_pick(obs: Observation, config: SearchConfig) -> Step:
    """The root candidate the search's first look ranks best, by lead over the best
    opponent."""
    leads = first_look_leads(obs, config)
    return max(leads, key=leads.__getitem__)


def firstlook(positions: int, iterations: int, factor: int = 4) -> dict[str, float]:
    """At budgets N/factor, N and factor*N: the share of positions whose pick is the
    first look's best step, and the share whose pick changes from one budget to the
    next (``changed_a_to_b``)."""
    obs_list = sample_positions(positions)
    budgets = (max(1, iterations // factor), iterations, iterations * factor)
    same = dict.fromkeys(budgets, 0)
    changed = [0, 0]
    for i, obs in enumerate(obs_list):
        base = SearchConfig(iterations=iterations, seed=1000 + i)
        look = first_look_pick(obs, base)
        picks = [MCTS(replace(base, iterations=b)).search(obs).best for b in budgets]
        for b, pick in zip(budgets, picks, strict=True):
            same[b] += pick == look
        changed[0] += picks[0] != picks[1]
        changed[1] += picks[1] != picks[2]
    n = len(obs_list)
    out: dict[str, float] = {"positions": n}
    for b in budgets:
        out[f"first_look_pick_at_{b}"] = same[b] / n
    out[f"changed_{budgets[0]}_to_{budgets[1]}"] = changed[0] / n
    out[f"changed_{budgets[1]}_to_{budgets[2]}"] = changed[1] / n
    return out


def spread(positions: int, determinizations: int = 8) -> dict[str, float]:
    """Mean standard deviation (pounds) of a candidate's first-look lead across
    ``determinizations`` determinizations, and the share of determinizations whose best
    first look differs from the most common best."""
    return first_look_spread(sample_positions(positions), determinizations)


def first_look_spread(obs_list: list[Observation],
                      determinizations: int = 8) -> dict[str, float]:
    """:func:`spread` at the given observations."""
    sds: list[float] = []
    off_mode = 0
    for obs in obs_list:
        leads: dict[Step, list[float]] = {}
        picks: list[Step] = []
        for k in range(determinizations):
            look = first_look_leads(obs, SearchConfig(iterations=1, seed=k))
            for step, lead in look.items():
                leads.setdefault(step, []).append(lead)
            picks.append(max(look, key=look.__getitem__))
        sds.append(statistics.fmean(statistics.pstdev(v) for v in leads.values()))
        most_common = max(picks, key=picks.count)
        off_mode += sum(p != most_common for p in picks)
    return {"positions": len(obs_list), "determinizations": determinizations,
            "mean_sd_of_first_look_lead": statistics.fmean(sds),
            "share_off_most_common_pick": off_mode / (len(obs_list) * determinizations)}


def optimism(positions: int, iterations: int, factor: int = 4) -> list[dict[str, float]]:
    """Per budget (N/factor, N, factor*N): the mean and standard error, over the
    positions, of the root's lead for its pick minus the best first-look lead."""
    obs_list = sample_positions(positions)
    budgets = (max(1, iterations // factor), iterations, iterations * factor)
    gaps: dict[int, list[float]] = {b: [] for b in budgets}
    for i, obs in enumerate(obs_list):
        me = obs.viewer
        base = SearchConfig(iterations=iterations, seed=1000 + i)
        best_look = max(first_look_leads(obs, base).values())
        for b in budgets:
            pick = MCTS(replace(base, iterations=b)).search(obs).lines[0]
            gaps[b].append(_lead(pick.money, me) - best_look)
    rows = []
    for b in budgets:
        g = gaps[b]
        se = statistics.stdev(g) / len(g) ** 0.5 if len(g) > 1 else 0.0
        rows.append({"iterations": b, "positions": len(g),
                     "mean_pick_over_first_look": statistics.fmean(g), "standard_error": se})
    return rows


class TrueStateMCTS(MCTSBot):
    """The search handed the true state: every determinization is the real position,
    so the others' plans and tiles and the coming draws are known (diagnostic only)."""

    def choose_true(self, state: State, player: int) -> Move:
        saved = (bots_module.determinize, bots_module.observe, mcts_module.determinize)

        def known(obs: Observation, rng: random.Random) -> State:
            return obs.state

        def see_all(s: State, viewer: int) -> Observation:
            return Observation(viewer, s)

        bots_module.determinize = known  # type: ignore[assignment]
        bots_module.observe = see_all  # type: ignore[assignment]
        mcts_module.determinize = known  # type: ignore[assignment]
        try:
            return self.choose(Observation(player, state))
        finally:
            bots_module.determinize, bots_module.observe, mcts_module.determinize = saved


def perfect(games: int, iterations: int, seed: int = 77) -> dict[str, float]:
    """Wins of the true-state search against the information-set search (seats
    alternated, same iterations and settings)."""
    cfg = SearchConfig(iterations=iterations)
    wins = 0.0
    for g in range(games):
        s = new_game(players=2, seed=seed + g)
        pi_seat = g % 2
        bots = [MCTSBot(replace(cfg, seed=g * 2 + i)) for i in range(2)]
        truth = TrueStateMCTS(replace(cfg, seed=g * 2 + pi_seat))
        while not s.is_over():
            d = s.decision
            if d.kind == "chance":
                s = s.apply(s.sample_chance())
                continue
            if d.player == pi_seat:
                move = truth.choose_true(s, d.player)
            else:
                move = bots[d.player].choose(observe(s, d.player))
            s = apply_move(s, move)
        won = winners(s)
        if pi_seat in won:
            wins += 1 / len(won)
    return {"games": games, "perfect_information_wins": wins, "share": wins / games}


def collector(games: int, seconds: float, seed: int = 500) -> list[dict[str, float]]:
    """Self-play at ``seconds`` a decision with the collector paused in every other
    search: per half, iterations per second and the share of search time spent in
    collections (timed by ``gc.callbacks``)."""
    spent = [0.0]
    counts = [0, 0, 0]
    began = [0.0]

    def timer(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - began[0]
            counts[info["generation"]] += 1

    rows: dict[bool, list[tuple[int, float, float, list[int]]]] = {True: [], False: []}
    plain_search = MCTS.search
    turn = [0]

    def search(self: MCTS, obs: Observation, callback: mcts_module.Callback | None = None,
               root: mcts_module.Node | None = None) -> mcts_module.SearchResult:
        paused = turn[0] % 2 == 0
        turn[0] += 1
        pause = collector_paused if paused else contextlib.nullcontext
        mcts_module.collector_paused = pause  # type: ignore[assignment]
        spent0, counts0 = spent[0], list(counts)
        result = plain_search(self, obs, callback, root)
        rows[paused].append((result.iterations, result.elapsed, spent[0] - spent0,
                             [a - b for a, b in zip(counts, counts0, strict=True)]))
        return result

    gc.callbacks.append(timer)
    MCTS.search = search  # type: ignore[method-assign]
    try:
        spec = f"mcts:time={seconds}"
        for g in range(games):
            play_game([spec, spec], index=g, seed=seed)  # the arena's own game loop
    finally:
        MCTS.search = plain_search  # type: ignore[method-assign]
        mcts_module.collector_paused = collector_paused  # type: ignore[assignment]
        gc.callbacks.remove(timer)
    out = []
    for paused in (True, False):
        r = rows[paused]
        elapsed = sum(x[1] for x in r)
        out.append({
            "paused": paused, "searches": len(r),
            "iterations_per_second": sum(x[0] for x in r) / elapsed,
            "collection_seconds_per_search_second": sum(x[2] for x in r) / elapsed,
            **{f"generation_{k}": sum(x[3][k] for x in r) for k in range(3)},
        })
    return out


def plans(games: int, spec: str, samples: int = 20, seed: int = 100) -> dict[str, float]:
    """Cards placed a player-round by ``spec`` and, from the same states, by the two plan
    models (means over the player-rounds of ``games`` two-player games)."""
    # policy_step at its default noise: how the search made hidden plans until
    # 2026-12-05 (docs/search.md, "How the search pictures a plan").
    models = {"policy_step": policy_step, "plan_step": plan_step}
    totals = {"free_slots": 0.0, "bot": 0.0, **{name: 0.0 for name in models}}
    rounds = 0
    for g in range(games):
        s = new_game(players=2, seed=seed + g)
        bots = [make_bot(spec, seed=seed + 2 * g + i) for i in range(2)]
        planned: set[tuple[int, int]] = set()
        while not s.is_over():
            d = s.decision
            if d.kind == "chance":
                s = s.apply(s.sample_chance())
                continue
            if d.kind == "plan" and (s.round, d.player) not in planned:
                planned.add((s.round, d.player))
                rounds += 1
                totals["free_slots"] += len({st.b for st in s.legal_steps() if st.kind == "plan"})
                for name, model in models.items():
                    rng = random.Random(seed + rounds)
                    for _ in range(samples):
                        t = s
                        while t.decision.kind == "plan" and t.decision.player == d.player:
                            step = model(t, rng)
                            totals[name] += (step.kind == "plan") / samples
                            t = t.apply(step)
            move = bots[d.player].choose(observe(s, d.player))
            if d.kind == "plan":
                totals["bot"] += sum(st.kind == "plan" for st in move.steps)
            s = apply_move(s, move)
    return {"player_rounds": rounds, **{k: v / max(rounds, 1) for k, v in totals.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("agreement", "profile", "reach", "firstlook", "spread",
                                     "optimism", "budget", "collector", "plans", "perfect"))
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--iterations", type=int, default=400)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=0.15)
    ap.add_argument("--spec", default="greedy:eval=learned")
    args = ap.parse_args()
    if args.what == "agreement":
        print(agreement(args.positions, args.iterations))
    elif args.what == "profile":
        for label, cum, share in profile_table(profile(args.iterations)):
            print(f"{label:48} {cum:7.2f} s  {100 * share:5.1f}%")
    elif args.what == "reach":
        for row in reach(args.positions, args.iterations):
            print(row)
    elif args.what == "firstlook":
        print(firstlook(args.positions, args.iterations))
    elif args.what == "spread":
        print(spread(args.positions))
    elif args.what == "optimism":
        for row in optimism(args.positions, args.iterations):
            print(row)
    elif args.what == "budget":
        print(budget(args.positions, args.seconds))
    elif args.what == "collector":
        for row in collector(args.games, args.seconds):
            print(row)
    elif args.what == "plans":
        print(plans(args.games, args.spec))
    else:
        print(perfect(args.games, args.iterations))


if __name__ == "__main__":
    main()
