"""Fitting the value model from self-play, with a held-out check against the formula.

Games are split by game number: every ``holdout``-th game is kept out of the fit and
used to measure the mean absolute error of the final-money estimate, per round, for the
fitted model and for the hand formula (:func:`search.evaluator.estimate_money`, recorded
beside the features). The model returned is then refitted on all games.

>>> from search.selfplay import generate
>>> data = generate("policy", games=6, players=(2,), seed=1)
>>> model, report = train(data, min_rows=20)
>>> report.rows > 0 and report.learned_mae > 0
True
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from engine import default_catalogue
from search.dataset import Dataset
from search.value_model import ValueModel, fit, fit_residual, residual_inputs


@dataclass
class TrainingReport:
    """Held-out mean absolute errors (pounds of final money), overall and per round."""

    rows: int
    games: int
    learned_mae: float
    hand_mae: float
    by_round: dict[int, tuple[float, float]] = field(default_factory=dict)  # learned, hand
    linear_mae: float = 0.0  # the linear part alone (equal to learned_mae without a net)
    linear_by_round: dict[int, float] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [f"held-out: {self.games} games, {self.rows} rows; mean absolute error of "
               f"final money: learned {self.learned_mae:.2f} (linear part alone "
               f"{self.linear_mae:.2f}), hand {self.hand_mae:.2f}"]
        for r, (lm, hm) in sorted(self.by_round.items()):
            out.append(f"  round {r}: learned {lm:.2f}, linear part "
                       f"{self.linear_by_round.get(r, lm):.2f}, hand {hm:.2f}")
        return out


def predict_rows(model: ValueModel, data: Dataset) -> np.ndarray:
    """The model's estimate for every row of ``data``."""
    out = model.linear_rows(data.features, data.buckets)
    if model.residual is not None:
        out += model.residual.predict(residual_inputs(data.features, data.buckets))
    return out


def train(data: Dataset, ridge: float = 1.0, holdout: int = 5, min_rows: int = 200,
          meta: dict[str, object] | None = None, hidden: int = 0,
          epochs: int = 30, toward_search: float = 0.0) -> tuple[ValueModel, TrainingReport]:
    """Fit on all but every ``holdout``-th game, report on those, then fit on all.

    ``hidden`` > 0 adds the non-linear correction (:mod:`search.residual_net`) with that
    many hidden units; the report then also gives the linear part's error alone.
    ``toward_search`` > 0 fits to targets moved that share of the way from the final
    money to the search's expectation where one was recorded
    (:meth:`Dataset.blended_targets`); the held-out error is still against the final
    money. The
    model's ``meta["catalogue"]`` is the fingerprint of this process's catalogue (fit
    under the ``MOMBASA_CATALOGUE`` the data were played with)."""
    test = data.games % holdout == 0
    fit_data = replace(data, targets=data.blended_targets(toward_search))
    train_part, test_part = fit_data.subset(~test), data.subset(test)
    if len(test_part.targets) == 0 or len(train_part.targets) == 0:
        raise ValueError("train: too few games for a held-out split")
    model = fit(train_part, ridge=ridge, min_rows=min_rows)
    linear_err = np.abs(predict_rows(model, test_part) - test_part.targets)
    err = linear_err
    if hidden:
        model.residual = fit_residual(model, train_part, hidden=hidden, epochs=epochs)
        err = np.abs(predict_rows(model, test_part) - test_part.targets)
    hand = np.abs(test_part.hand - test_part.targets)
    rounds = test_part.buckets[:, 1]
    report = TrainingReport(
        rows=len(err), games=len(set(test_part.games.tolist())),
        learned_mae=float(err.mean()), hand_mae=float(hand.mean()),
        linear_mae=float(linear_err.mean()),
        by_round={int(r): (float(err[rounds == r].mean()), float(hand[rounds == r].mean()))
                  for r in sorted(set(rounds.tolist()))},
        linear_by_round={int(r): float(linear_err[rounds == r].mean())
                         for r in sorted(set(rounds.tolist()))},
    )
    info = dict(meta or {})
    info.update(catalogue=default_catalogue().fingerprint, rows=len(data.targets),
                games=len(set(data.games.tolist())), ridge=ridge,
                heldout_mae_learned=round(report.learned_mae, 3),
                heldout_mae_hand=round(report.hand_mae, 3))
    if hidden:
        info.update(hidden=hidden, heldout_mae_linear_part=round(report.linear_mae, 3))
    if toward_search:
        info.update(toward_search=toward_search)
    final = fit(fit_data, ridge=ridge, min_rows=min_rows, meta=info)
    if hidden:
        final.residual = fit_residual(final, fit_data, hidden=hidden, epochs=epochs)
    return final, report
