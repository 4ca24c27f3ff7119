"""A small non-linear correction on top of the linear value model (numpy only).

The linear model prices each resource at a fixed rate per (players, round, phase)
bucket. Mombasa's values interact: a bookkeeper is worth little without books whose
needs the hand can meet, a share is worth more while its company still has posts to
place, cards in resting decks only matter if there are slots and rounds to play them.
A one-hidden-layer network fitted to what the linear model leaves unexplained (the
residual) learns such interactions, and the sum stays anchored by the linear part.

Inputs: the features (:data:`search.features.FEATURES`, standardised) plus the round
(scaled to 0-1), the phase and the player count, so one network serves every bucket.
Trained with Adam on the squared error, with early stopping on held-out games.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(2000, 3))
>>> y = np.maximum(x[:, 0], 0) * x[:, 1]            # an interaction a line cannot fit
>>> net = train_residual(x, y, np.arange(2000) % 10, hidden=16, epochs=60, seed=0)
>>> bool(np.mean((net.predict(x) - y) ** 2) < 0.5 * np.var(y))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class ResidualNet:
    """relu(x' W1 + b1) w2 + b2, with x' = (x - mean) / scale."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The correction for each row of ``x`` (rows x inputs)."""
        h = (x - self.mean) / self.scale @ self.w1 + self.b1
        np.maximum(h, 0.0, out=h)
        result: np.ndarray = h @ self.w2 + self.b2
        return result

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "w1": self.w1.tolist(), "b1": self.b1.tolist(), "w2": self.w2.tolist(),
                "b2": self.b2}

    @staticmethod
    def from_json(raw: dict[str, Any], inputs: int) -> ResidualNet:
        """Read a network, checking every shape (``ValueError`` names the field)."""
        try:
            net = ResidualNet(np.array(raw["mean"], dtype=float),
                              np.array(raw["scale"], dtype=float),
                              np.array(raw["w1"], dtype=float),
                              np.array(raw["b1"], dtype=float),
                              np.array(raw["w2"], dtype=float), float(raw["b2"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"residual: {exc}") from None
        hidden = net.b1.shape[0] if net.b1.ndim == 1 else -1
        for name, arr, shape in (("mean", net.mean, (inputs,)), ("scale", net.scale, (inputs,)),
                                 ("w1", net.w1, (inputs, hidden)), ("w2", net.w2, (hidden,))):
            if arr.shape != shape:
                raise ValueError(f"residual.{name}: shape {arr.shape}, expected {shape}")
        if np.any(net.scale == 0):
            raise ValueError("residual.scale: zero entries")
        return net


def train_residual(x: np.ndarray, y: np.ndarray, groups: np.ndarray, hidden: int = 32,
                   epochs: int = 30, batch: int = 512, lr: float = 3e-3,
                   l2: float = 1e-4, seed: int = 0, holdout: int = 10) -> ResidualNet:
    """Fit the network to ``y`` (the linear model's residuals). Rows whose group (game
    number) is a multiple of ``holdout`` are the early-stopping set; the weights of
    the epoch with the lowest error on them are returned."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    xs = (x - mean) / scale
    val = groups % holdout == 0
    if not val.any() or val.all():
        val = np.zeros(len(y), dtype=bool)
        val[:: max(2, holdout)] = True
    xt, yt, xv, yv = xs[~val], y[~val], xs[val], y[val]
    n_in = x.shape[1]
    params = [rng.normal(0, np.sqrt(2.0 / n_in), (n_in, hidden)), np.zeros(hidden),
              rng.normal(0, np.sqrt(1.0 / hidden), hidden), np.zeros(1)]
    params[3][0] = float(yt.mean())
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0

    def val_error(ps: list[np.ndarray]) -> float:
        h = np.maximum(xv @ ps[0] + ps[1], 0.0)
        return float(np.mean((h @ ps[2] + ps[3][0] - yv) ** 2))

    best = (val_error(params), [p.copy() for p in params])
    for _ in range(epochs):
        order = rng.permutation(len(yt))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            xb, yb = xt[idx], yt[idx]
            pre = xb @ params[0] + params[1]
            h = np.maximum(pre, 0.0)
            err = h @ params[2] + params[3][0] - yb
            g_out = 2.0 * err / len(yb)
            grads = [np.zeros(0)] * 4
            grads[2] = h.T @ g_out + l2 * params[2]
            grads[3] = np.array([g_out.sum()])
            g_h = np.outer(g_out, params[2]) * (pre > 0)
            grads[0] = xb.T @ g_h + l2 * params[0]
            grads[1] = g_h.sum(axis=0)
            step += 1
            for i, g in enumerate(grads):
                m[i] = beta1 * m[i] + (1 - beta1) * g
                v[i] = beta2 * v[i] + (1 - beta2) * g * g
                mh = m[i] / (1 - beta1 ** step)
                vh = v[i] / (1 - beta2 ** step)
                params[i] = params[i] - lr * mh / (np.sqrt(vh) + eps)
        err_v = val_error(params)
        if err_v < best[0]:
            best = (err_v, [p.copy() for p in params])
    w1, b1, w2, b2 = best[1]
    return ResidualNet(mean, scale, w1, b1, w2, float(b2[0]))


__all__ = ["ResidualNet", "train_residual"]
