"""The recipe of the shipped value model: which games, which bots, which seeds.

Each round plays a mix of tables (self-play of one bot, and route specialists against
it, so that every route to money appears in the data), records every position with
:func:`search.selfplay.play_recorded`, and saves the rows. The model is then fitted on
all rounds so far (``mombasa train-value --games 0 --data ... --out ...`` does the same
fit). Round 1 plays with the hand formula (no model is needed); later rounds with the
model of the round before (``MOMBASA_VALUE_MODEL``), including the search itself.

    python -m benchmarks.train_recipe --round 1 --out r1.npz
    python -m benchmarks.train_recipe --fit m1.json r1.npz
    MOMBASA_VALUE_MODEL=m1.json python -m benchmarks.train_recipe --round 2 --out r2.npz
    python -m benchmarks.train_recipe --fit search/data/value_model.json r1.npz r2.npz

Round 3 (measured, not in the shipped fit: benchmarks/strength/search-journal.md, 2026-12-05,
"The search's own games in the fit") plays the shipped search with the shipped model:

    python -m benchmarks.train_recipe --round 3 --out r3.npz
    python -m benchmarks.train_recipe --fit m13.json r1.npz r3.npz

Round 4 (issue 56, search-bootstrapped targets: journal 2026-12-06, "Toward what a
deeper search says") plays two-player self-play of the shipped search at 500 iterations
a step; every position a search decided records what that search expected each player
to end with, and ``--toward-search S`` fits to targets moved ``S`` of the way from the
final money to it:

    python -m benchmarks.train_recipe --round 4 --seed 56 --out r4.npz
    python -m benchmarks.train_recipe --fit mq.json r4.npz --toward-search 0.5 \\
        --keep-from search/data/value_model.json

Round 5 (issue 56, a second search-bootstrapped round: journal 2026-12-08) plays the
search of a round-4 model (given by ``MOMBASA_VALUE_MODEL``) at 500 iterations without
the bookkeeping drive, against itself, the three specialists and greedy: a second round
of that search's self-play alone fed its lean toward books back into the fit.

    MOMBASA_VALUE_MODEL=mq.json python -m benchmarks.train_recipe --round 5 --out r5.npz

``--jobs`` runs games on the local process pool; ``--ray ADDRESS`` on a Ray cluster
(same records for the same seeds either way). ``--scale`` multiplies every table's game
count (0.05 for a smoke run).
"""

from __future__ import annotations

import argparse
import time

from search.dataset import Dataset
from search.selfplay import SelfplayTask, play_tasks
from search.value_model import ValueModel

# (seat specs, games); seats rotate by one every game. {g}: the round's greedy bot.
# {m}: the round-2 search. The shipped model was fitted on games of the search without
# the bookkeeping drive and with selection on the money lead (docs/search.md), so the
# recipe names drive=0 and select=lead to rebuild it.
SEARCH = "mcts:iterations=200,drive=0,select=lead"
# {s}: the round-3 search, the shipped one (the plan model, the drive, select=mix), played
# with the model of rounds 1-2: its own games, so the fit sees the positions it now reaches.
SEARCH3 = "mcts:iterations=300"
# {q}: round 4, the shipped search at 500 iterations, two players: positions with the
# expectation of a search deeper than the evaluator's own look (search-bootstrapped).
SEARCH4 = "mcts:iterations=500"
# {w}: round 5, the same search without the bookkeeping drive, against itself and a
# wider mix of opponents, so the records do not all come from one search's lean.
SEARCH5 = "mcts:iterations=500,drive=0"
# The searches' placeholders ({g}, the round's greedy bot, depends on the round).
SEARCHES = {"{m}": SEARCH, "{s}": SEARCH3, "{q}": SEARCH4, "{w}": SEARCH5}
ROUNDS: dict[int, tuple[str, list[tuple[list[str], int]]]] = {
    1: ("hand", [
        (["{g}", "{g}"], 200),
        (["bookkeeper:eval=hand", "{g}"], 100),
        (["diamonds:eval=hand", "{g}"], 100),
        (["shares:eval=hand", "{g}"], 100),
        (["bookkeeper:eval=hand", "diamonds:eval=hand"], 60),
        (["{g}", "{g}", "{g}"], 60),
        (["bookkeeper:eval=hand", "diamonds:eval=hand", "{g}"], 60),
        (["{g}", "{g}", "{g}", "{g}"], 40),
        (["bookkeeper:eval=hand", "diamonds:eval=hand", "shares:eval=hand", "{g}"], 40),
    ]),
    2: ("learned", [
        (["{m}", "{m}"], 240),
        (["{m}", "bookkeeper"], 40),
        (["{m}", "diamonds"], 40),
        (["{m}", "shares"], 40),
        (["{g}", "{g}"], 100),
        (["bookkeeper", "{g}"], 60),
        (["diamonds", "{g}"], 60),
        (["{m}"] * 3, 40),
        (["bookkeeper", "diamonds", "{g}"], 40),
        (["{m}"] * 4, 30),
        (["bookkeeper", "diamonds", "shares", "{g}"], 30),
    ]),
    3: ("learned", [
        (["{s}", "{s}"], 240),
        (["{s}", "bookkeeper"], 40),
        (["{s}", "diamonds"], 40),
        (["{s}", "shares"], 40),
        (["{s}", "{g}"], 60),
        (["{s}"] * 3, 40),
        (["{s}", "bookkeeper", "diamonds"], 20),
        (["{s}"] * 4, 30),
    ]),
    4: ("learned", [
        (["{q}", "{q}"], 300),
    ]),
    5: ("learned", [
        (["{w}", "{w}"], 150),
        (["{w}", "bookkeeper"], 40),
        (["{w}", "diamonds"], 40),
        (["{w}", "shares"], 40),
        (["{w}", "{g}"], 40),
    ]),
}


def round_tasks(number: int, seed: int, scale: float = 1.0,
                explore: float = 0.1) -> list[SelfplayTask]:
    """The games of recipe round ``number``, in record order."""
    evaluator, tables = ROUNDS[number]
    greedy = f"greedy:eval={evaluator}"
    tasks: list[SelfplayTask] = []
    for specs, games in tables:
        specs = [greedy if s == "{g}" else SEARCHES.get(s, s) for s in specs]
        for g in range(max(1, round(games * scale))):
            rot = g % len(specs)
            seats = specs[rot:] + specs[:rot]
            game_id = len(tasks)
            tasks.append((seats, seed * 1_000_003 + game_id, explore, game_id))
    return tasks


def play(tasks: list[SelfplayTask], jobs: int = 1, ray: str | None = None) -> Dataset:
    """Play and record ``tasks`` (in order) locally or on Ray."""
    if ray:
        from search.distributed import play_tasks_ray

        return play_tasks_ray(tasks, ray)
    return play_tasks(tasks, jobs)


def with_buckets_of(model: ValueModel, other: ValueModel, name: str) -> ValueModel:
    """``model`` with the buckets it lacks taken from ``other`` (a fit on two-player
    games keeps another model's three- and four-player weights)."""
    kept = {b: w for b, w in other.weights.items() if b not in model.weights}
    meta = {**model.meta, "buckets_from": {"model": name.rsplit("/", 1)[-1],
                                           "buckets": len(kept)}}
    return ValueModel({**kept, **model.weights}, meta, model.residual)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--round", type=int, choices=sorted(ROUNDS))
    ap.add_argument("--out", help="where to save the round's records (.npz)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ray", default=None, help="auto, an address, or local")
    ap.add_argument("--fit", nargs="+", metavar=("MODEL", "DATA"),
                    help="fit a model on the data files and save it to MODEL")
    ap.add_argument("--hidden", type=int, default=0,
                    help="hidden units of the residual network (0: linear only)")
    ap.add_argument("--keep-from", metavar="MODEL",
                    help="take the buckets the data do not fit (other player counts) "
                         "from this model file")
    ap.add_argument("--toward-search", type=float, default=0.0, metavar="S",
                    help="fit to targets moved S (0..1) of the way from the final money "
                         "to the recorded search's expectation")
    args = ap.parse_args()
    if args.fit:
        from search.training import train

        out, *files = args.fit
        if not files:
            ap.error("--fit: give the model file and at least one data file")
        data = Dataset.concat([Dataset.load(f) for f in files])
        model, report = train(data, hidden=args.hidden, toward_search=args.toward_search,
                              meta={"recipe": "benchmarks/train_recipe.py",
                                    "data": [f.rsplit("/", 1)[-1] for f in files]})
        print("\n".join(report.lines()))
        if args.keep_from:
            model = with_buckets_of(model, ValueModel.load(args.keep_from), args.keep_from)
        model.save(out)
        print(f"saved {out}")
        return
    if args.round is None or not args.out:
        ap.error("give --round N --out FILE, or --fit MODEL DATA...")
    tasks = round_tasks(args.round, args.seed or args.round * 11, args.scale)
    t0 = time.perf_counter()
    data = play(tasks, args.jobs, args.ray)
    data.save(args.out)
    print(f"round {args.round}: {len(tasks)} games, {len(data.targets)} rows, "
          f"{time.perf_counter() - t0:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
