"""Recorded positions for fitting the value model: features, bucket and final money.

>>> import numpy as np
>>> d = Dataset(np.zeros((2, 3), dtype=np.int16), np.ones((2, 4)), np.array([50., 70.]),
...             np.array([0, 1]), np.array([48., 80.]))
>>> d.subset(d.games == 1).targets.tolist()
[70.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Dataset:
    """Rows of (bucket, features) with the final money of the row's player (and,
    where recorded, what a search expected it to be)."""

    buckets: np.ndarray  # (rows, 3) int: players, round, phase
    features: np.ndarray  # (rows, features) float
    targets: np.ndarray  # (rows,) float: the player's final money
    games: np.ndarray  # (rows,) int: which game the row came from (for held-out splits)
    hand: np.ndarray  # (rows,) float: the hand formula's estimate, for comparison
    # (rows,) float: what the mover's search at this position expected the row's player
    # to end with (the root's best line), NaN where no search decided (the explorer's
    # moves, a single legal step, bots that do not search); None when not recorded.
    searched: np.ndarray | None = None

    def subset(self, mask: np.ndarray) -> Dataset:
        return Dataset(self.buckets[mask], self.features[mask], self.targets[mask],
                       self.games[mask], self.hand[mask],
                       None if self.searched is None else self.searched[mask])

    def blended_targets(self, toward_search: float) -> np.ndarray:
        """Targets moved ``toward_search`` (0..1) of the way from the final money to
        the search's expectation, where a search was recorded (search-bootstrapped
        value targets; the final money elsewhere).

        >>> d = Dataset(np.zeros((2, 3)), np.ones((2, 1)), np.array([50., 70.]),
        ...             np.array([0, 0]), np.zeros(2), np.array([60., np.nan]))
        >>> d.blended_targets(0.5).tolist()
        [55.0, 70.0]
        """
        if not 0.0 <= toward_search <= 1.0:
            raise ValueError(f"toward_search: expected a number in [0, 1], got {toward_search}")
        if self.searched is None or toward_search == 0.0:
            return self.targets
        known = np.isfinite(self.searched)
        out = self.targets.copy()
        out[known] += toward_search * (self.searched[known] - self.targets[known])
        return out

    @staticmethod
    def concat(parts: list[Dataset]) -> Dataset:
        """Join datasets, renumbering games so that they stay distinct."""
        offset = 0
        games = []
        for p in parts:
            if not len(p.games):
                continue
            low = int(p.games.min())
            games.append(p.games - low + offset)
            offset += int(p.games.max()) - low + 1
        searched = None
        if any(p.searched is not None for p in parts):
            searched = np.concatenate([p.searched if p.searched is not None
                                       else np.full(len(p.targets), np.nan) for p in parts])
        return Dataset(
            np.concatenate([p.buckets for p in parts]),
            np.concatenate([p.features for p in parts]),
            np.concatenate([p.targets for p in parts]),
            np.concatenate(games) if games else np.zeros(0, dtype=np.int32),
            np.concatenate([p.hand for p in parts]),
            searched,
        )

    def save(self, path: str) -> None:
        arrays = {"buckets": self.buckets, "features": self.features,
                  "targets": self.targets, "games": self.games, "hand": self.hand}
        if self.searched is not None:
            arrays["searched"] = self.searched
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    @staticmethod
    def load(path: str) -> Dataset:
        with np.load(path) as z:
            if "hand" not in z:
                raise ValueError(f"{path}: no 'hand' column (recorded by an older version)")
            return Dataset(z["buckets"], z["features"], z["targets"], z["games"], z["hand"],
                           z.get("searched"))
