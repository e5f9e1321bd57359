"""Sequential detection: after which of his deals did a dealer first become suspicious?

Each deal gives the talon's aces, with a hypergeometric law under honest dealing and a stated cheating law (an
ace put into a talon place in a share of deals). Two detectors read the per-deal log-likelihood ratios:

* CUSUM (Page): ``S_t = max(0, S_{t-1} + llr_t)``, alarm when ``S_t > h``; ``h`` is calibrated by simulating honest
  dealers so that the chance of any alarm within a horizon of deals is a stated false-alarm rate.
* A mixture e-process: the likelihood ratio averaged over a grid of cheating rates. Under the null it is a
  non-negative martingale with mean 1, so by Ville's inequality ``P(ever >= 1/alpha) <= alpha`` at any horizon,
  without calibration.
"""

from __future__ import annotations

import functools

import numpy as np

from fairdeal.audit.kernels import cusum_peaks
from fairdeal.audit.stats import DiscreteNull, hypergeometric_null
from fairdeal.deal import get_pattern
from fairdeal.errors import AuditError

DEFAULT_RATES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)


def stacking_law(null: DiscreteNull, deck_size: int, talon_cards: int, rate: float) -> np.ndarray:
    """Talon aces when, in a share ``rate`` of deals, one ace is put into a talon place and the rest is honest."""
    if not 0.0 < rate <= 1.0:
        raise AuditError(f"a cheating rate must lie in (0, 1], got {rate}")
    rest = hypergeometric_null(deck_size - 1, 3, talon_cards - 1).pmf
    stacked = np.zeros(len(null.pmf))
    stacked[1 : 1 + len(rest)] = rest[: len(null.pmf) - 1]
    return (1 - rate) * null.pmf + rate * stacked


@functools.lru_cache(maxsize=32)
def llr_table(deck_size: int, talon_cards: int, rates: tuple[float, ...]) -> np.ndarray:
    """``(rates, aces)``: the per-deal log-likelihood ratio of each cheating rate against honest dealing."""
    null = hypergeometric_null(deck_size, 4, talon_cards)
    with np.errstate(divide="ignore"):
        table = np.stack([np.log(stacking_law(null, deck_size, talon_cards, r)) - np.log(null.pmf) for r in rates])
    table.setflags(write=False)
    return table


def cusum_path(scores: np.ndarray) -> np.ndarray:
    """``S_t = max(0, S_{t-1} + x_t)`` along the last axis at array speed: ``S_t = P_t - min(0, min_{k<=t} P_k)``."""
    prefix = np.cumsum(scores, axis=-1)
    return prefix - np.minimum(0.0, np.minimum.accumulate(prefix, axis=-1))


def eprocess_path(
    aces: np.ndarray, deck_size: int, talon_cards: int, rates: tuple[float, ...] = DEFAULT_RATES
) -> np.ndarray:
    """The running log of the mixture e-value after each deal, along the last axis (equal weights over ``rates``)."""
    grid = llr_table(deck_size, talon_cards, rates)
    paths = np.cumsum(grid[:, np.asarray(aces, dtype=np.int64)], axis=-1)
    # log-sum-exp over the rates by hand: scipy's general one takes ten times as long on a million deals.
    top = paths.max(axis=0)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        returned: np.ndarray = top + np.log(np.exp(paths - top).sum(axis=0)) - np.log(len(rates))
    return returned


def calibrate_threshold(
    llr: np.ndarray, null: np.ndarray, horizon: int, false_alarm: float, rng: np.random.Generator
) -> float:
    """CUSUM threshold: simulated honest dealers' peak within ``horizon`` deals exceeds it ``false_alarm`` of the time.

    Simulated in slices of time so memory stays small; the quantile is taken from above (alarm is ``S > h``), so
    the simulated rate is at most the stated one.
    """
    if not 0.0 < false_alarm < 1.0 or horizon < 1:
        raise AuditError("calibration needs 0 < false_alarm < 1 and a positive horizon")
    draws = int(np.clip(40_000_000 // max(horizon, 1), 2_000, 20_000))
    level = np.zeros(draws)
    peak = np.zeros(draws)
    edges = np.cumsum(null)[:-1]
    for start in range(0, horizon, 500):
        cusum_peaks(llr, edges, rng.random((draws, min(500, horizon - start))), level, peak)
    return float(np.quantile(peak, 1.0 - false_alarm, method="higher"))


@functools.lru_cache(maxsize=64)
def calibrated_threshold(
    pattern_name: str, talon_cards: int, cheat_rate: float, horizon: int, false_alarm: float, seed: int
) -> float:
    """The calibrated CUSUM threshold, computed once per table shape and horizon (the simulation is the cost)."""
    deck_size = get_pattern(pattern_name).deck.size
    llr = llr_table(deck_size, talon_cards, (cheat_rate,))[0]
    null = hypergeometric_null(deck_size, 4, talon_cards).pmf
    return calibrate_threshold(llr, null, horizon, false_alarm, np.random.default_rng(seed))
