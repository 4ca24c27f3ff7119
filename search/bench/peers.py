"""Side-by-side speed with peer systems, in one process on one machine
(``mombasa bench --peers``; ``make bench-peers`` in a source checkout).

Measured, interleaved round by round (so machine noise hits every contender alike),
repeated, reported as medians and ratios:

* state copy: our ``State.clone()`` vs ``copy.deepcopy`` of our state (the catalogue
  shared through the memo, i.e. only the game state) vs catanatron's ``Game.copy()``;
* random playouts: our steps/s and games/s (4 players) vs catanatron's decisions/s in
  random 4-player games vs OpenSpiel's C++ ``hearts`` steps/s (a compiled reference);
* search: our MCTS iterations/s vs OpenSpiel's MCTSBot and ISMCTSBot simulations/s on
  our game through the adapter, same positions, same time;
* solvers: our expansion (8 and 4 points) and bookkeeping (1-4 points) solve times,
  cache cleared before each (the inputs of :mod:`search.bench.speed`).

Needs the ``peers`` extra (catanatron, open-spiel), imported only when a comparison
runs (:func:`require_peers` says which package is missing and how to install it).
``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import engine
from search.bench.positions import mid_game, random_game
from search.extras import MissingExtra, require

Result = dict[str, list[float]]
PURPOSE = "the peer comparison"


def require_peers() -> None:
    """Raise :class:`search.extras.MissingExtra` (naming the ``peers`` extra) unless
    catanatron and OpenSpiel can be imported."""
    require("catanatron", "peers", PURPOSE)
    require("pyspiel", "peers", PURPOSE, package="open-spiel")


def _timeit(fn: Callable[[], Any], min_time: float = 0.2) -> float:
    """Seconds per call, looping until ``min_time`` has passed."""
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / n


def copy_round(out: Result, ours: engine.State, catan: Any) -> None:
    memo = {id(ours.cat): ours.cat}
    out.setdefault("clone_us", []).append(_timeit(ours.clone, 0.1) * 1e6)
    out.setdefault("deepcopy_us", []).append(
        _timeit(lambda: copy.deepcopy(ours, dict(memo)), 0.2) * 1e6)
    out.setdefault("catanatron_copy_us", []).append(_timeit(catan.copy, 0.2) * 1e6)


def playout_round(out: Result, seed: int, seconds: float) -> None:
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        steps += random_game(4, seed + games)
        games += 1
    dt = time.perf_counter() - t0
    out.setdefault("our_steps_per_s", []).append(steps / dt)
    out.setdefault("our_games_per_s", []).append(games / dt)
    out.setdefault("our_steps_per_game", []).append(steps / games)

    from catanatron import Color, Game, RandomPlayer

    decisions = cgames = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        colors = (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)
        g = Game([RandomPlayer(c) for c in colors], seed=seed + cgames)
        g.play()
        decisions += len(g.state.actions)
        cgames += 1
    dt = time.perf_counter() - t0
    out.setdefault("catanatron_decisions_per_s", []).append(decisions / dt)
    out.setdefault("catanatron_games_per_s", []).append(cgames / dt)

    import numpy as np
    import pyspiel

    hearts = pyspiel.load_game("hearts")
    rng = np.random.default_rng(seed)
    hsteps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        st = hearts.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                actions, probs = zip(*st.chance_outcomes(), strict=True)
                st.apply_action(int(rng.choice(actions, p=probs)))
            else:
                legal = st.legal_actions()
                st.apply_action(legal[int(rng.integers(len(legal)))])
            hsteps += 1
    out.setdefault("openspiel_hearts_steps_per_s", []).append(hsteps / (time.perf_counter() - t0))


def search_round(out: Result, positions: list[engine.State], seconds: float) -> None:
    from search.mcts import MCTS, SearchConfig
    from search.openspiel_bots import simulations_per_second

    ours, os_mcts, os_ismcts = [], [], []
    for k, s in enumerate(positions):
        obs = engine.observe(s, s.decision.player)
        r = MCTS(SearchConfig(time=seconds, seed=k)).search(obs)
        ours.append(r.iterations_per_second)
        os_mcts.append(simulations_per_second("openspiel-mcts", obs, seconds, seed=k))
        os_ismcts.append(simulations_per_second("openspiel-ismcts", obs, seconds, seed=k))
    out.setdefault("our_mcts_it_per_s", []).append(statistics.median(ours))
    out.setdefault("openspiel_mcts_sims_per_s", []).append(statistics.median(os_mcts))
    out.setdefault("openspiel_ismcts_sims_per_s", []).append(statistics.median(os_ismcts))


def solver_round(out: Result) -> None:
    from search.bench.speed import bookkeeping_inputs, expansion_inputs
    from search.solvers import best_bookkeeping, best_expansions
    from search.solvers.bookkeeping import clear_cache as clear_books
    from search.solvers.expansion import clear_cache as clear_expansion

    for points, key in ((8, "expansion_8_ms"), (4, "expansion_4_ms")):
        times = []
        for s, company in expansion_inputs():
            clear_expansion()
            t0 = time.perf_counter()
            best_expansions(s, company, points=points)
            times.append((time.perf_counter() - t0) * 1e3)
        out.setdefault(key, []).append(statistics.median(times))
    times = []
    for s in bookkeeping_inputs():
        clear_books()
        t0 = time.perf_counter()
        best_bookkeeping(s)
        times.append((time.perf_counter() - t0) * 1e3)
    out.setdefault("bookkeeping_ms", []).append(statistics.median(times))


RATIOS = (
    ("deepcopy / clone", "deepcopy_us", "clone_us"),
    ("catanatron copy / our clone", "catanatron_copy_us", "clone_us"),
    ("our steps/s / catanatron decisions/s", "our_steps_per_s", "catanatron_decisions_per_s"),
    ("our steps/s / OpenSpiel C++ hearts steps/s", "our_steps_per_s",
     "openspiel_hearts_steps_per_s"),
    ("our MCTS it/s / OpenSpiel MCTSBot sims/s", "our_mcts_it_per_s",
     "openspiel_mcts_sims_per_s"),
    ("our MCTS it/s / OpenSpiel ISMCTSBot sims/s", "our_mcts_it_per_s",
     "openspiel_ismcts_sims_per_s"),
)


STEPS_PER_REPEAT = 4  # copy, playouts, search, solvers: the ticks of one repeat


def run(repeats: int, seconds: float, tick: Callable[[], None] = lambda: None
        ) -> dict[str, Any]:
    """``repeats`` interleaved rounds of every measurement, ``seconds`` each where it
    is timed by the clock; ``tick`` follows each measurement (a progress bar)."""
    from catanatron import Color, Game, RandomPlayer

    ours = mid_game(4, 1, 4)
    catan = Game([RandomPlayer(c) for c in (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)],
                 seed=1)
    for _ in range(60):  # a mid-game Catan position
        catan.play_tick()
    positions = [mid_game(2, seed, 3) for seed in (1, 2, 3)]
    out: Result = {}
    for r in range(repeats):
        copy_round(out, ours, catan)
        tick()
        playout_round(out, 1000 * r, seconds)
        tick()
        search_round(out, positions, seconds)
        tick()
        solver_round(out)
        tick()
    medians = {k: statistics.median(v) for k, v in out.items()}
    ratios = {name: medians[a] / medians[b] for name, a, b in RATIOS}
    return {"repeats": repeats, "seconds": seconds, "medians": medians, "ratios": ratios,
            "samples": out}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Speed of our engine and search vs peers.")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    ap.add_argument("--quick", action="store_true", help="repeats=2, seconds=0.3")
    ap.add_argument("--json", help="write all samples here")
    args = ap.parse_args(argv)
    try:
        require_peers()
    except MissingExtra as exc:
        raise SystemExit(str(exc)) from None
    repeats, seconds = (2, 0.3) if args.quick else (args.repeats, args.seconds)
    random.seed(0)
    report = run(repeats, seconds)
    print(f"peer comparison: {repeats} interleaved repeats, {seconds} s per measurement")
    for key, value in report["medians"].items():
        print(f"  {key:34s} {value:14,.2f}")
    print("ratios (medians):")
    for key, value in report["ratios"].items():
        print(f"  {key:46s} {value:10,.1f}x")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
