"""A binomial logistic model with fixed effects, and the score test of one added indicator.

The honest model says a player's error (or pass) rate depends on who he is and on the situation (his place after
the declarer, the kind of hand, how many cards he could choose from), not on who declares. The score test asks
whether the decisions against one declarer depart from that model, with the player's own level fitted — so a
weak player is compared with himself, and a place effect every player shares is not laid at anyone's door.
Decisions within a hand are not independent: the variance is inflated by the Pearson dispersion when above one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairdeal.audit.tails import normal_sf

RIDGE = 1e-3  # keeps a level with no errors at all finite (a player who never errs is a large negative effect)
ITERATIONS = 50


@dataclass(frozen=True)
class Fit:
    design: np.ndarray  # rows x effects
    trials: np.ndarray
    successes: np.ndarray
    p: np.ndarray
    information: np.ndarray  # X'WX + ridge
    dispersion: float


@dataclass(frozen=True)
class Score:
    z: float
    pvalue: float  # two-sided
    observed: float
    expected: float


def design(columns: list[list[str]]) -> np.ndarray:
    """An intercept and one indicator per level of each factor but its first (rows x effects)."""
    rows = len(columns[0]) if columns else 0
    parts = [np.ones((rows, 1))]
    for factor in columns:
        levels = sorted(set(factor))
        index = {v: i for i, v in enumerate(levels)}
        codes = np.array([index[v] for v in factor], dtype=np.int64)
        block = np.zeros((rows, max(len(levels) - 1, 0)))
        for j in range(1, len(levels)):
            block[:, j - 1] = codes == j
        parts.append(block)
    return np.hstack(parts)


def fit(x: np.ndarray, trials: np.ndarray, successes: np.ndarray) -> Fit:
    """Iteratively reweighted least squares (Newton's method) for the binomial logit."""
    ridge = np.full(x.shape[1], RIDGE)
    ridge[0] = 0.0
    beta = np.zeros(x.shape[1])
    rate = (successes.sum() + 0.5) / (trials.sum() + 1.0)
    beta[0] = np.log(rate / (1 - rate))
    for _ in range(ITERATIONS):
        p = 1 / (1 + np.exp(-(x @ beta)))
        w = trials * p * (1 - p)
        information = x.T @ (x * w[:, None]) + np.diag(ridge)
        gradient = x.T @ (successes - trials * p) - ridge * beta
        step = np.linalg.solve(information, gradient)
        beta += step
        if np.abs(step).max() < 1e-9:
            break
    p = 1 / (1 + np.exp(-(x @ beta)))
    w = trials * p * (1 - p)
    information = x.T @ (x * w[:, None]) + np.diag(ridge)
    pearson = float(((successes - trials * p) ** 2 / np.maximum(w, 1e-12)).sum())
    free = max(len(trials) - x.shape[1], 1)
    return Fit(x, trials, successes, p, information, max(1.0, pearson / free))


def score_test(model: Fit, indicator: np.ndarray) -> Score:
    """The score test of adding ``indicator`` (0/1 per row) to the fitted model, two-sided."""
    w = model.trials * model.p * (1 - model.p)
    residual = model.successes - model.trials * model.p
    u = float(indicator @ residual)
    cross = model.design.T @ (w * indicator)
    variance = float(indicator @ (w * indicator) - cross @ np.linalg.solve(model.information, cross))
    observed = float(indicator @ model.successes)
    expected = observed - u
    if variance <= 1e-9:
        return Score(0.0, 1.0, observed, expected)
    z = u / np.sqrt(variance * model.dispersion)
    return Score(float(z), min(1.0, 2 * float(normal_sf(abs(z)))), observed, expected)
