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
    """Rows of (bucket, features) with the final money of the row's player."""

    buckets: np.ndarray  # (rows, 3) int: players, round, phase
    features: np.ndarray  # (rows, features) float
    targets: np.ndarray  # (rows,) float: the player's final money
    games: np.ndarray  # (rows,) int: which game the row came from (for held-out splits)
    hand: np.ndarray  # (rows,) float: the hand formula's estimate, for comparison

    def subset(self, mask: np.ndarray) -> Dataset:
        return Dataset(self.buckets[mask], self.features[mask], self.targets[mask],
                       self.games[mask], self.hand[mask])

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
        return Dataset(
            np.concatenate([p.buckets for p in parts]),
            np.concatenate([p.features for p in parts]),
            np.concatenate([p.targets for p in parts]),
            np.concatenate(games) if games else np.zeros(0, dtype=np.int32),
            np.concatenate([p.hand for p in parts]),
        )

    def save(self, path: str) -> None:
        np.savez_compressed(path, buckets=self.buckets, features=self.features,
                            targets=self.targets, games=self.games, hand=self.hand)

    @staticmethod
    def load(path: str) -> Dataset:
        with np.load(path) as z:
            if "hand" not in z:
                raise ValueError(f"{path}: no 'hand' column (recorded by an older version)")
            return Dataset(z["buckets"], z["features"], z["targets"], z["games"], z["hand"])
