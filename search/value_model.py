"""The learned value model: estimated final money as a linear function of features.

One weight vector per (players, round, phase) bucket, fitted by ridge regression on
self-play games (:mod:`search.selfplay`) to each player's final money. Because it is
fitted on positions at every point of the turn order, its estimates are consistent
whether a leaf stops before or after a player's turn, which a hand-weighted formula
is not. The shipped model is ``search/data/value_model.json``; rebuild it with
``mombasa train-value`` (see ``docs/search.md``).

>>> import engine
>>> model = default_model()
>>> s = engine.new_game(players=3, seed=2)
>>> len(model.predict(s))
3
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from functools import cache
from operator import mul
from pathlib import Path
from typing import Any

import numpy as np

from engine import State, default_catalogue, score
from search.dataset import Dataset
from search.features import FEATURES, bucket, player_features
from search.residual_net import ResidualNet, train_residual

DEFAULT_PATH = Path(__file__).parent / "data" / "value_model.json"
Bucket = tuple[int, int, int]


class ValueModelError(ValueError):
    """A model file that cannot be used (names what is wrong)."""


@dataclass
class ValueModel:
    """Weights per bucket; ``predict`` gives every player's estimated final money."""

    weights: dict[Bucket, tuple[float, ...]]
    meta: dict[str, Any] = field(default_factory=dict)
    # Optional non-linear correction fitted to the linear part's residuals.
    residual: ResidualNet | None = None
    # Nearest-bucket answers for unfitted buckets; never written to the model file.
    _fallback: dict[Bucket, tuple[float, ...]] = field(default_factory=dict, repr=False,
                                                       compare=False)

    def predict(self, s: State) -> list[float]:
        """Estimated final money per player (the exact totals once the game is over)."""
        if s.is_over():
            return [float(sc.total) for sc in score(s)]
        b = bucket(s)
        w = self.weights_for(b)
        rows = player_features(s)
        linear = [sum(map(mul, w, row)) for row in rows]
        if self.residual is None:
            return linear
        extra = self.residual.predict(residual_inputs(np.array(rows), b))
        return [x + float(e) for x, e in zip(linear, extra, strict=True)]

    def linear_rows(self, features: np.ndarray, buckets: np.ndarray) -> np.ndarray:
        """The linear part's estimate for recorded rows (features and bucket per row)."""
        out = np.empty(len(features))
        for key in {tuple(int(x) for x in row) for row in buckets}:
            mask = np.all(buckets == np.array(key), axis=1)
            out[mask] = features[mask] @ np.array(self.weights_for((key[0], key[1], key[2])))
        return out

    def weights_for(self, b: Bucket) -> tuple[float, ...]:
        """The weights of bucket ``b``, or of the nearest fitted bucket (same player
        count first, then the closest round, then the same phase)."""
        w = self.weights.get(b)
        if w is None:
            w = self._fallback.get(b)
            if w is None:
                same = [k for k in self.weights if k[0] == b[0]] or list(self.weights)
                key = min(same, key=lambda k: (abs(k[0] - b[0]), abs(k[1] - b[1]),
                                               k[2] != b[2]))
                w = self._fallback[b] = self.weights[key]
        return w

    # -- files ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": "mombasa-value-model/1",
            "features": list(FEATURES),
            "meta": self.meta,
            "buckets": {f"{n}/{r}/{ph}": list(w)
                        for (n, r, ph), w in sorted(self.weights.items())},
        }
        if self.residual is not None:
            out["residual"] = self.residual.to_json()
        return out

    @staticmethod
    def from_json(raw: dict[str, Any]) -> ValueModel:
        if not isinstance(raw, dict):
            raise ValueModelError(f"expected a JSON object of format "
                                  f"'mombasa-value-model/1', got {type(raw).__name__}")
        if raw.get("format") != "mombasa-value-model/1":
            raise ValueModelError(f"format: expected 'mombasa-value-model/1', "
                                  f"got {raw.get('format')!r}")
        fitted = raw.get("features")
        # Features are only ever appended: a model fitted before one was added weighs
        # it 0 (its estimates unchanged); any other difference needs a refit.
        if not isinstance(fitted, list) or not fitted or fitted != list(
                FEATURES[:len(fitted)]) or (fitted != list(FEATURES)
                                            and raw.get("residual") is not None):
            raise ValueModelError("features: the model was fitted on other features "
                                  "than search.features.FEATURES; retrain it")
        added = (0.0,) * (len(FEATURES) - len(fitted))
        weights: dict[Bucket, tuple[float, ...]] = {}
        for key, w in raw.get("buckets", {}).items():
            parts = key.split("/")
            if len(parts) != 3 or not all(x.isdigit() for x in parts):
                raise ValueModelError(f"buckets: key {key!r} is not players/round/phase")
            if not isinstance(w, list) or len(w) != len(fitted):
                got = len(w) if isinstance(w, list) else type(w).__name__
                raise ValueModelError(f"buckets.{key}: {got} weights for "
                                      f"{len(fitted)} features")
            weights[(int(parts[0]), int(parts[1]), int(parts[2]))] = tuple(
                map(float, w)) + added
        if not weights:
            raise ValueModelError("buckets: empty")
        residual = None
        if raw.get("residual") is not None:
            try:
                residual = ResidualNet.from_json(raw["residual"], len(FEATURES) + 3)
            except ValueError as exc:
                raise ValueModelError(str(exc)) from None
        return ValueModel(weights, dict(raw.get("meta", {})), residual)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @staticmethod
    def load(path: str | Path) -> ValueModel:
        try:
            raw = json.loads(Path(path).read_text())
        except OSError as exc:  # strerror alone: the path is named once, in front
            raise ValueModelError(f"{path}: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueModelError(f"{path}: not a JSON file ({exc})") from None
        try:
            return ValueModel.from_json(raw)
        except ValueModelError as exc:
            raise ValueModelError(f"{path}: {exc}") from None


def model_path() -> Path:
    """The file the ``learned`` evaluator reads: ``MOMBASA_VALUE_MODEL``, else the shipped
    model."""
    return Path(os.environ.get("MOMBASA_VALUE_MODEL") or DEFAULT_PATH)


def file_fingerprint(path: Path) -> str:
    """A short hash of a model file's bytes: two files with the same fingerprint are the
    same model.

    >>> file_fingerprint(DEFAULT_PATH) == file_fingerprint(DEFAULT_PATH)
    True
    """
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@cache
def model_fingerprint() -> str:
    """The fingerprint of the model file in use (:func:`model_path`), so a record of play
    (an arena journal) can say which evaluator played it.

    >>> len(model_fingerprint())
    16
    """
    return file_fingerprint(model_path())


@cache
def default_model() -> ValueModel:
    """The model the ``learned`` evaluator uses, loaded once per process: the file named
    by the ``MOMBASA_VALUE_MODEL`` environment variable, else the shipped one.

    A model fitted on other catalogue values than the ones in play (an owner's own
    copy, ``MOMBASA_CATALOGUE``) still works but misprices what changed: that is logged
    once, with how to refit (docs/search.md)."""
    path = model_path()
    try:
        model = ValueModel.load(path)
    except ValueModelError as exc:
        if os.environ.get("MOMBASA_VALUE_MODEL"):
            raise ValueModelError(
                f"MOMBASA_VALUE_MODEL: {exc}; name a model file written by `mombasa "
                "train-value`, or unset it to use the shipped model") from None
        # The shipped file is part of the package: without it every search would fail.
        raise ValueModelError(
            f"the shipped value model is missing or damaged ({exc}): reinstall "
            "mombasa-advisor") from None
    fitted_on = model.meta.get("catalogue")
    in_play = default_catalogue().fingerprint
    if fitted_on is not None and fitted_on != in_play:
        logging.getLogger(__name__).warning(
            "value model %s was fitted on catalogue %s, but catalogue %s is in play: "
            "its estimates may misprice the changed values; refit with "
            "benchmarks/train_recipe.py (docs/search.md)", path, fitted_on, in_play)
    return model


@cache
def model_file(path: str) -> ValueModel:
    """The model in file ``path``, loaded once per process (a search's ``model=``
    setting: :class:`search.mcts.SearchConfig`); :class:`ValueModelError` names what is
    wrong with it."""
    return ValueModel.load(path)


def residual_inputs(rows: np.ndarray, b: Bucket | np.ndarray) -> np.ndarray:
    """The residual network's inputs: feature rows plus (round / 7, phase, players)
    of their bucket (one bucket for all rows, or one bucket row per row)."""
    extra = np.asarray(b, dtype=float)
    if extra.ndim == 1:
        extra = np.broadcast_to(extra, (rows.shape[0], 3))
    extra = np.stack([extra[:, 1] / 7.0, extra[:, 2], extra[:, 0]], axis=1)
    return np.concatenate([rows, extra], axis=1)


# Money a player can no longer lose: the diamond and bookkeeping values passed (markers
# never move back). Their weights are fixed at 1 (the fit explains the rest of the final
# money), so no estimate can prefer standing still on those tracks to moving on. Fitted
# freely, a route the training games never used got a weight of any sign (-1.9 per pound
# of bookkeeping in round 2 of the first shipped model), and the bots never tried it.
ANCHORED = ("diamond_value", "bookkeeping_value")


def fit(data: Dataset, ridge: float = 1.0, min_rows: int = 200,
        meta: dict[str, Any] | None = None) -> ValueModel:
    """Ridge regression per bucket (features scaled; the bias is not penalised).

    Buckets with fewer than ``min_rows`` rows are left out; prediction then falls back
    to the nearest fitted bucket.
    """
    weights: dict[Bucket, tuple[float, ...]] = {}
    keys = {tuple(int(x) for x in row) for row in data.buckets}
    for key in sorted(keys):
        mask = np.all(data.buckets == np.array(key), axis=1)
        if mask.sum() < min_rows:
            continue
        weights[(key[0], key[1], key[2])] = anchored_fit(
            data.features[mask], data.targets[mask], ridge)
    if not weights:
        raise ValueModelError(f"no bucket has {min_rows} rows: play more games")
    return ValueModel(weights, meta or {})


def fit_residual(model: ValueModel, data: Dataset, hidden: int = 32, epochs: int = 30,
                 seed: int = 0) -> ResidualNet:
    """Fit the non-linear correction to what ``model``'s linear part leaves unexplained
    on ``data`` (early stopping on every 10th game)."""
    linear = model.linear_rows(data.features, data.buckets)
    x = residual_inputs(data.features, data.buckets)
    return train_residual(x, data.targets - linear, data.games, hidden=hidden,
                          epochs=epochs, seed=seed)


# Resources a player can only be better off holding more of (other things equal): their
# weights may not be negative. Fitted freely on games of bots of unequal strength, a
# resource that mostly the weaker bot collected (the ink walk of the bookkeeping
# specialist, say) gets a negative weight: the fit reads "who is playing" off it, and
# a search using it would steer away from that resource. The slot-unlock gaps are the
# opposite (further away is never better): their weights may not be positive.
NOT_NEGATIVE = ("cash", "share_money", "track_progress", "book_run_value", "books_ahead",
                "ink_walk_value", "meetable_run_value", "merchants", "merchant_now",
                "now_bookkeeping", "own_bookkeeping", "markers", "comeback_units")
NOT_POSITIVE = ("diamond_unlock_gap", "ink_unlock_gap")


def anchored_fit(x: np.ndarray, y: np.ndarray, ridge: float) -> tuple[float, ...]:
    """:func:`ridge_fit` with the :data:`ANCHORED` features' weights fixed at 1 and the
    signs of :data:`NOT_NEGATIVE` / :data:`NOT_POSITIVE` kept (a feature whose weight
    comes out with the wrong sign is fixed at 0 and the rest refitted, until none
    does: an active-set approximation of sign-constrained least squares)."""
    anchored = [FEATURES.index(name) for name in ANCHORED]
    sign = dict.fromkeys((FEATURES.index(n) for n in NOT_NEGATIVE), 1.0)
    sign.update(dict.fromkeys((FEATURES.index(n) for n in NOT_POSITIVE), -1.0))
    residual = y - x[:, anchored].sum(axis=1)
    zero: set[int] = set()
    while True:
        free = [i for i in range(x.shape[1]) if i not in anchored and i not in zero]
        w = np.zeros(x.shape[1])
        w[anchored] = 1.0
        w[free] = ridge_fit(x[:, free], residual, ridge)
        wrong = [i for i in free if i in sign and w[i] * sign[i] < 0]
        if not wrong:
            return tuple(float(v) for v in w)
        zero.add(min(wrong, key=lambda i: w[i] * sign[i]))  # the most wrong first


def ridge_fit(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """Least squares with an L2 penalty of ``ridge`` on standardised columns."""
    scale = np.sqrt(np.mean(x * x, axis=0))
    scale[scale == 0] = 1.0
    xs = x / scale
    penalty = np.full(x.shape[1], ridge)
    penalty[0] = 0.0  # the bias column
    a = xs.T @ xs + np.diag(penalty)
    w = np.linalg.solve(a, xs.T @ y)
    return w / scale
