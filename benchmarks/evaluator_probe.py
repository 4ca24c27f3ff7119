"""Probes of the value model's training data: would the estimate gain from more inputs?

The probes read the recipe's data files (``python -m benchmarks.train_recipe --round N
--out FILE``) and look at the two-player buckets only.

``opponent``: is a player's final money, or the lead over the other player, better
predicted when the other player's features stand beside the player's own? Each bucket
is fitted twice by ridge regression (both seats' rows, every 5th game held out), once
on the 31 own features and once on own and other features; the report gives the
held-out mean absolute error of the money and of the lead, per round.

``skill``: does the fit read "who is playing" off the route features? Each bucket is
fitted the shipped way (:func:`search.value_model.anchored_fit`), once as shipped and
once with indicator columns beside the features for which bot played the row and which
bots it faced (the search is the reference). If a route's features mostly described the
weaker bots, their weights would move once the bot is accounted for. The bots of each
game follow from the recipe's round number and seed (``FILE:ROUND:SEED``).

``models``: how far off are model files on the held-out games (every 5th) of the last
data file? Per round: the mean absolute error of the final money, its mean signed error
(the bias: negative when the model expects less money than the players made), and, on
two-player positions, the error of the lead (seat 1's money minus seat 2's), which is
what the search compares. The other files only number the games as the fit did.

``lead``: would a fit on the lead itself do better than the shipped fit on each
player's money? The two-player buckets are fitted the shipped way but on the seats'
feature differences against their money difference (every 5th game held out), for
a few ridge strengths, and the held-out lead error is printed beside that of ``--model``.

    .venv/bin/python -m benchmarks.evaluator_probe opponent r1.npz r2.npz
    .venv/bin/python -m benchmarks.evaluator_probe skill r1.npz:1:11 r2.npz:2:22
    .venv/bin/python -m benchmarks.evaluator_probe models r1.npz r3.npz \
        --model search/data/value_model.json --model m13.json
    .venv/bin/python -m benchmarks.evaluator_probe lead r1.npz r3.npz \
        --model search/data/value_model.json

The findings are in ``docs/search.md`` ("The learned evaluator").
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

import numpy as np

from benchmarks.train_recipe import round_tasks
from search.dataset import Dataset
from search.features import FEATURES
from search.training import predict_rows
from search.value_model import ValueModel, anchored_fit, ridge_fit

# Bots told apart by the skill probe (the spec's name before ':'); the rest, the search
# above all, are the reference.
BOT_KINDS = ("greedy", "bookkeeper", "diamonds", "shares")
# Route features whose weights the skill probe prints.
ROUTE_FEATURES = ("own_bookkeeping", "now_bookkeeping", "ink_walk_value",
                  "meetable_run_value", "books_ahead", "book_run_value", "merchants",
                  "merchant_now")


def two_player_pairs(data: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """Row indices (seat 1, seat 2) of every two-player position: the recorder writes
    one row per seat, in seat order, position after position.

    >>> rows = np.zeros((4, len(FEATURES)))
    >>> data = Dataset(np.array([[2, 1, 1]] * 4), rows, np.zeros(4), np.array([0, 0, 1, 1]),
    ...                np.zeros(4))
    >>> [x.tolist() for x in two_player_pairs(data)]
    [[0, 2], [1, 3]]
    """
    two = np.flatnonzero(data.buckets[:, 0] == 2)
    first, second = two[0::2], two[1::2]
    if len(first) != len(second) or not (
            (data.games[first] == data.games[second]).all()
            and (data.buckets[first] == data.buckets[second]).all()):
        raise ValueError("two-player rows are not in seat pairs: not a recorder's file")
    return first, second


def opponent_gain(data: Dataset, holdout: int = 5,
                  ridge: float = 1.0) -> dict[str, dict[int, float]]:
    """Held-out mean absolute errors per round (0: all rounds) of the money and the lead,
    fitted on own features (``own``) and on own and the other's (``own+other``)."""
    a, b = two_player_pairs(data)
    x, y = data.features, data.targets
    held = data.games[a] % holdout == 0
    out: dict[str, dict[int, float]] = {}
    for variant in ("own", "own+other"):
        money: dict[int, list[np.ndarray]] = {}
        lead: dict[int, list[np.ndarray]] = {}
        keys = sorted({tuple(int(v) for v in k) for k in data.buckets[a]})
        for key in keys:
            m = (data.buckets[a] == np.array(key)).all(axis=1)
            first, second = x[a][m], x[b][m]
            if variant == "own+other":
                first, second = (np.hstack([first, second]), np.hstack([second, first]))
            fit_rows = np.vstack([first[~held[m]], second[~held[m]]])
            if len(fit_rows) < 5 * fit_rows.shape[1]:
                continue
            w = ridge_fit(fit_rows, np.concatenate([y[a][m][~held[m]], y[b][m][~held[m]]]),
                          ridge)
            h = held[m]
            pa, pb = first[h] @ w, second[h] @ w
            ya, yb = y[a][m][h], y[b][m][h]
            money.setdefault(key[1], []).append(np.abs(np.concatenate([pa - ya, pb - yb])))
            lead.setdefault(key[1], []).append(np.abs((pa - pb) - (ya - yb)))
        for name, errs in (("money", money), ("lead", lead)):
            table = {r: float(np.concatenate(v).mean()) for r, v in sorted(errs.items())}
            table[0] = float(np.concatenate([np.concatenate(v) for v in errs.values()]).mean())
            out[f"{variant} {name}"] = table
    return out


def bot_columns(data: Dataset, seats_by_game: Mapping[int, Sequence[str]]) -> np.ndarray:
    """Per row: indicators of the row's own bot kind (:data:`BOT_KINDS`), then the share
    of the other seats held by each kind.

    >>> rows = np.zeros((2, len(FEATURES)))
    >>> data = Dataset(np.array([[2, 1, 1]] * 2), rows, np.zeros(2), np.array([7, 7]),
    ...                np.zeros(2))
    >>> bot_columns(data, {7: ["mcts:iterations=200", "bookkeeper"]}).tolist()
    [[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    """
    kinds = len(BOT_KINDS)
    out = np.zeros((len(data.targets), 2 * kinds))
    i = 0
    while i < len(data.targets):
        seats = [spec.split(":")[0] for spec in seats_by_game[int(data.games[i])]]
        n = len(seats)
        if data.buckets[i, 0] != n:
            raise ValueError(f"row {i}: {data.buckets[i, 0]} players, game has {n} seats")
        for seat, name in enumerate(seats):
            if name not in BOT_KINDS:
                continue
            kind = BOT_KINDS.index(name)
            out[i + seat, kind] = 1.0
            for other in range(n):
                if other != seat:
                    out[i + other, kinds + kind] += 1.0 / (n - 1)
        i += n
    return out


def skill_weights(data: Dataset, bots: np.ndarray, names: Sequence[str] = ROUTE_FEATURES,
                  ridge: float = 1.0) -> list[tuple[tuple[int, int, int], list[float],
                                                    list[float]]]:
    """Per two-player bucket: the weights of ``names`` fitted as shipped, and fitted with
    the bot columns ``bots`` (:func:`bot_columns`) beside the features."""
    idx = [FEATURES.index(n) for n in names]
    out = []
    keys = sorted({tuple(int(v) for v in k) for k in data.buckets if k[0] == 2})
    for key in keys:
        m = (data.buckets == np.array(key)).all(axis=1)
        plain = anchored_fit(data.features[m], data.targets[m], ridge)
        adjusted = anchored_fit(np.hstack([data.features[m], bots[m]]), data.targets[m],
                                ridge)
        out.append(((key[0], key[1], key[2]), [plain[i] for i in idx],
                    [adjusted[i] for i in idx]))
    return out


def by_round(values: np.ndarray, rounds: np.ndarray, mask: np.ndarray) -> dict[int, float]:
    """The mean of ``values`` where ``mask`` holds, per round, and over all (round 0).

    >>> by_round(np.array([1.0, 3.0, 5.0]), np.array([1, 1, 2]), np.array([True] * 3))
    {0: 3.0, 1: 2.0, 2: 5.0}
    """
    out = {0: float(values[mask].mean())}
    for r in sorted(set(rounds[mask].tolist())):
        out[int(r)] = float(values[mask & (rounds == r)].mean())
    return out


def held_out_errors(model: ValueModel, data: Dataset, holdout: int = 5,
                    first_game: int = 0) -> dict[str, dict[int, float]]:
    """Per round (0: all rounds) on the held-out games from ``first_game`` on: ``money``
    (mean absolute error), ``bias`` (mean of estimate minus final money) and ``lead``
    (mean absolute error of seat 1's lead on two-player positions)."""
    held = (data.games % holdout == 0) & (data.games >= first_game)
    error = predict_rows(model, data) - data.targets
    rounds = data.buckets[:, 1]
    a, b = two_player_pairs(data)
    return {"money": by_round(np.abs(error), rounds, held),
            "bias": by_round(error, rounds, held),
            "lead": by_round(np.abs(error[a] - error[b]), rounds[a], held[a])}


def lead_fit_errors(data: Dataset, ridges: Sequence[float] = (1.0, 30.0, 300.0),
                    holdout: int = 5, first_game: int = 0) -> dict[float, dict[int, float]]:
    """Held-out mean absolute error of the two-player lead per round (0: all), for a fit
    of each two-player bucket on the seats' feature differences (the shipped
    :func:`search.value_model.anchored_fit`, bias column kept for a lead by seat),
    per ridge strength. Fitted on the games not held out; scored on the held-out games
    from ``first_game`` on."""
    a, b = two_player_pairs(data)
    diff = data.features[a] - data.features[b]
    diff[:, 0] = 1.0
    lead = data.targets[a] - data.targets[b]
    games, keys = data.games[a], data.buckets[a]
    held = games % holdout == 0
    scored = held & (games >= first_game)
    out: dict[float, dict[int, float]] = {}
    for ridge in ridges:
        estimate = np.zeros(len(lead))
        for key in sorted({tuple(int(v) for v in k) for k in keys}):
            m = (keys == np.array(key)).all(axis=1)
            if (m & ~held).sum() < 5 * diff.shape[1]:
                continue
            w = np.array(anchored_fit(diff[m & ~held], lead[m & ~held], ridge))
            estimate[m] = diff[m] @ w
        out[ridge] = by_round(np.abs(estimate - lead), keys[:, 1], scored)
    return out


def recipe_seats(round_number: int, seed: int) -> dict[int, list[str]]:
    """The seats of every game of a recipe round, by game id."""
    return {task[3]: list(task[0]) for task in round_tasks(round_number, seed)}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("probe", choices=("opponent", "skill", "models", "lead"))
    ap.add_argument("files", nargs="+", help="recipe data files (skill: FILE:ROUND:SEED)")
    ap.add_argument("--model", action="append", default=[],
                    help="a value-model file (models, lead; repeat to compare)")
    args = ap.parse_args(argv)
    if args.probe in ("models", "lead"):
        _compare_models(args.probe, args.files, args.model)
        return
    if args.probe == "opponent":
        data = Dataset.concat([Dataset.load(f) for f in args.files])
        report = opponent_gain(data)
        print("held-out mean absolute error (pounds), two-player rows; round 0 = all")
        for name, table in report.items():
            print(f"{name:16}" + " ".join(f"{r}:{v:6.2f}" for r, v in table.items()))
        return
    parts, columns = [], []
    for spec in args.files:
        try:
            path, number, seed = spec.rsplit(":", 2)
            round_number, round_seed = int(number), int(seed)
        except ValueError:
            raise SystemExit(f"skill: expected FILE:ROUND:SEED, got {spec!r}") from None
        part = Dataset.load(path)
        parts.append(part)
        columns.append(bot_columns(part, recipe_seats(round_number, round_seed)))
    data = Dataset.concat(parts)  # keeps the rows in order, so the columns still match
    print("route weights per two-player bucket, fitted as shipped and with the bots")
    print("bucket   fit      " + " ".join(n[:10].rjust(10) for n in ROUTE_FEATURES))
    for key, plain, adjusted in skill_weights(data, np.vstack(columns)):
        label = "/".join(map(str, key))
        print(f"{label:8} shipped  " + " ".join(f"{v:10.2f}" for v in plain))
        print(f"{label:8} +bots    " + " ".join(f"{v:10.2f}" for v in adjusted))


def _compare_models(probe: str, files: Sequence[str], models: Sequence[str]) -> None:
    if not models:
        raise SystemExit(f"{probe}: give at least one --model FILE")
    parts = [Dataset.load(f) for f in files]
    data = Dataset.concat(parts)
    first_game = int(data.games.max()) + 1 - len(set(parts[-1].games.tolist()))
    held = (data.games % 5 == 0) & (data.games >= first_game)
    print(f"held-out: {len(set(data.games[held].tolist()))} games of {files[-1]}, "
          f"{int(held.sum())} rows; mean absolute error (pounds), round 0 = all")
    for path in models:
        report = held_out_errors(ValueModel.load(path), data, first_game=first_game)
        for name, table in report.items():
            if probe == "lead" and name != "lead":
                continue
            label = f"{path.rsplit('/', 1)[-1][:24]} {name}"
            print(f"{label:32}" + " ".join(f"{r}:{v:7.2f}" for r, v in table.items()))
    if probe == "lead":
        for ridge, table in lead_fit_errors(data, first_game=first_game).items():
            label = f"fit on the lead, ridge {ridge:g}"
            print(f"{label:32}" + " ".join(f"{r}:{v:7.2f}" for r, v in table.items()))


if __name__ == "__main__":
    main()
