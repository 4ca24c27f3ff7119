"""The value model's recipe (benchmarks/train_recipe.py): tables, seats, seeds, a fit."""

from __future__ import annotations

import numpy as np

from benchmarks.train_recipe import ROUNDS, play, round_tasks
from search.training import train


def test_every_round_rotates_seats_and_numbers_games_in_order() -> None:
    for number in ROUNDS:
        tasks = round_tasks(number, seed=3, scale=0.05)
        assert [t[3] for t in tasks] == list(range(len(tasks)))
        assert len({t[1] for t in tasks}) == len(tasks)  # one seed per game
        assert all("{" not in spec for t in tasks for spec in t[0])  # no placeholder left
    # Round 1 mixes the three route specialists into the data.
    specs = {spec.split(":")[0] for t in round_tasks(1, seed=3) for spec in t[0]}
    assert {"bookkeeper", "diamonds", "shares", "greedy"} <= specs
    # Round 3 is the shipped search's own games (its defaults: the plan model, the drive).
    round3 = {spec for t in round_tasks(3, seed=3) for spec in t[0]}
    assert "mcts:iterations=300" in round3 and not any("drive=0" in s for s in round3)
    # Round 5 records a search without the drive against a wider mix than its own games.
    round5 = {spec for t in round_tasks(5, seed=3) for spec in t[0]}
    assert {s.split(",")[0] for s in round5} == {
        "mcts:iterations=500", "bookkeeper", "diamonds", "shares", "greedy:eval=learned"}
    assert all("drive=0" in s for s in round5 if s.startswith("mcts"))


def test_a_small_round_plays_the_same_records_locally_and_in_parallel() -> None:
    tasks = [t for t in round_tasks(1, seed=5, scale=0.02) if len(t[0]) == 2][:4]
    one = play(tasks, jobs=1)
    two = play(tasks, jobs=2)
    for column in ("buckets", "features", "targets", "games", "hand"):
        assert np.array_equal(getattr(one, column), getattr(two, column))
    model, report = train(one, min_rows=20)
    assert report.rows > 0 and model.weights
