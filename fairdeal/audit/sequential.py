"""Sequential detection: after which of his deals did a dealer first become suspicious?

Each dealt hand gives a small categorical observation (e.g. aces in the talon: 0, 1 or 2) with a known law under
honest shuffling and a law under a stated cheating model. Two detectors read the per-hand log-likelihood ratios:

* CUSUM (Page): ``S_t = max(0, S_{t-1} + llr_t)``, alarm when ``S_t > h``; ``h`` is calibrated by simulating honest
  dealers so that the chance of any alarm within a horizon of hands is a stated false-alarm rate.
* A mixture e-process: the likelihood ratio averaged over a grid of cheating rates. Under the null it is a
  non-negative martingale with mean 1, so by Ville's inequality ``P(ever >= 1/alpha) <= alpha`` at any horizon,
  without calibration; its logarithms add up, so shards merge by addition.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from fairdeal.audit.stats import DiscreteNull, talon_aces_null
from fairdeal.errors import AuditError


@dataclass(frozen=True)
class CategoricalTest:
    """A null and an alternative pmf on the categories ``0..k-1`` of one per-hand observation."""

    null: np.ndarray
    alternative: np.ndarray
    description: str = ""

    @property
    def llr(self) -> np.ndarray:
        """``log(alt / null)`` per category; a category impossible under the alternative gets ``-inf``."""
        with np.errstate(divide="ignore"):
            return np.log(self.alternative) - np.log(self.null)

    def scores(self, observations: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.int64)
        if obs.size and (obs.min() < 0 or obs.max() >= len(self.null)):
            raise AuditError(f"observations must lie in 0..{len(self.null) - 1}")
        return self.llr[obs]


def ace_stacking_test(rate: float, null: DiscreteNull | None = None) -> CategoricalTest:
    """Talon aces when the dealer, in a share ``rate`` of his deals, puts one ace into a talon place.

    The other talon place is then an honest draw from the 31 other cards, 3 of them aces.
    """
    if not 0.0 < rate <= 1.0:
        raise AuditError(f"a cheating rate must lie in (0, 1], got {rate}")
    base = (null or talon_aces_null()).pmf
    stacked = np.array([0.0, 28 / 31, 3 / 31])
    return CategoricalTest(base, (1 - rate) * base + rate * stacked, f"an ace stacked into the talon in {rate:.0%} of deals")


def cusum_paths(llr: np.ndarray) -> np.ndarray:
    """CUSUM statistics along the last axis (one row per dealer); vectorised over rows, sequential over hands."""
    scores = np.atleast_2d(np.asarray(llr, dtype=float))
    paths = np.empty_like(scores)
    level = np.zeros(len(scores))
    for t in range(scores.shape[1]):
        level = np.maximum(0.0, level + scores[:, t])
        paths[:, t] = level
    return paths if np.ndim(llr) > 1 else paths[0]


def first_alarm(statistic_path: np.ndarray, threshold: float) -> np.ndarray:
    """Index of the first hand whose statistic exceeds ``threshold`` (per row), ``-1`` when none does."""
    path = np.asarray(statistic_path)
    over = path > threshold
    hit = over.any(axis=-1)
    return np.where(hit, np.argmax(over, axis=-1), -1)


@dataclass(frozen=True)
class CusumDetector:
    """A CUSUM with its threshold and the honest-dealer false-alarm rate it was calibrated to."""

    test: CategoricalTest
    threshold: float
    horizon: int
    false_alarm: float
    draws: int

    def alarm_at(self, observations: np.ndarray) -> np.ndarray:
        """The first suspicious hand (0-based, per row of observations), ``-1`` when the dealer stays clean."""
        return first_alarm(cusum_paths(self.test.scores(observations)), self.threshold)


def calibrate_cusum(
    test: CategoricalTest, horizon: int, false_alarm: float, draws: int, rng: np.random.Generator
) -> CusumDetector:
    """Pick ``h`` so that simulated honest dealers cross it within ``horizon`` hands at most ``false_alarm`` of the time.

    The law of the maximum is discrete, so ``h`` is the empirical (1 - rate) quantile taken from above and the
    alarm is strict (``S > h``): the simulated rate is then at most the stated one.
    """
    if not 0.0 < false_alarm < 1.0 or horizon < 1 or draws < 1:
        raise AuditError("calibration needs 0 < false_alarm < 1, a positive horizon and positive draws")
    honest = rng.choice(len(test.null), size=(draws, horizon), p=test.null)
    peaks = cusum_paths(test.scores(honest)).max(axis=1)
    threshold = float(np.quantile(peaks, 1.0 - false_alarm, method="higher"))
    return CusumDetector(test, threshold, horizon, false_alarm, draws)


@dataclass(frozen=True)
class CusumSegment:
    """What a run of hands does to a CUSUM, whatever level it starts from: a mergeable summary.

    Each step ``s -> max(0, s + x)`` has the form ``s -> max(a, s + b)`` and such maps compose into the same form,
    so a segment is summarised by its end map ``(end_floor, end_shift)`` and the map to its running peak
    ``(peak_floor, peak_shift)``. Shards of one dealer's hands merge in order with ``merge``.
    """

    hands: int = 0
    end_floor: float = 0.0
    end_shift: float = 0.0
    peak_floor: float = -np.inf
    peak_shift: float = -np.inf

    @staticmethod
    def of(scores: np.ndarray) -> "CusumSegment":
        segment = CusumSegment()
        for x in np.asarray(scores, dtype=float):
            segment = segment.merge(CusumSegment(1, 0.0, x, 0.0, x))
        return segment

    def end(self, start: float = 0.0) -> float:
        return max(self.end_floor, start + self.end_shift)

    def peak(self, start: float = 0.0) -> float:
        """The highest statistic inside the segment (``-inf`` for an empty one)."""
        return max(self.peak_floor, start + self.peak_shift)

    def merge(self, later: "CusumSegment") -> "CusumSegment":
        return CusumSegment(
            self.hands + later.hands,
            max(later.end_floor, self.end_floor + later.end_shift),
            self.end_shift + later.end_shift,
            max(self.peak_floor, later.peak_floor, self.end_floor + later.peak_shift),
            max(self.peak_shift, self.end_shift + later.peak_shift),
        )


DEFAULT_RATES = np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0])


@dataclass(frozen=True)
class MixtureEProcess:
    """Log-likelihood ratios summed per cheating rate of a grid; merges by addition, in any order."""

    rates: tuple[float, ...]
    log_products: tuple[float, ...]
    hands: int = 0

    @staticmethod
    def empty(rates: np.ndarray = DEFAULT_RATES) -> "MixtureEProcess":
        return MixtureEProcess(tuple(float(r) for r in rates), (0.0,) * len(rates))

    def merge(self, other: "MixtureEProcess") -> "MixtureEProcess":
        if self.rates != other.rates:
            raise AuditError("cannot merge e-processes over different grids of rates")
        summed = tuple(a + b for a, b in zip(self.log_products, other.log_products))
        return MixtureEProcess(self.rates, summed, self.hands + other.hands)

    @property
    def log_evalue(self) -> float:
        return float(logsumexp(self.log_products) - np.log(len(self.rates)))

    @property
    def pvalue(self) -> float:
        """``min(1, 1/E)``: a valid p-value at any stopping time (Ville)."""
        return float(min(1.0, np.exp(-self.log_evalue)))


def ace_llr_grid(rates: np.ndarray = DEFAULT_RATES) -> np.ndarray:
    """``(rates, categories)`` table of per-hand log-likelihood ratios for talon aces."""
    return _llr_grid(tuple(float(r) for r in rates))


@functools.lru_cache(maxsize=32)
def _llr_grid(rates: tuple[float, ...]) -> np.ndarray:
    grid = np.stack([ace_stacking_test(r).llr for r in rates])
    grid.setflags(write=False)
    return grid


def eprocess_paths(observations: np.ndarray, rates: np.ndarray = DEFAULT_RATES) -> np.ndarray:
    """Running log e-values, one row per dealer (vectorised over dealers and hands)."""
    obs = np.atleast_2d(np.asarray(observations, dtype=np.int64))
    cumulative = np.cumsum(ace_llr_grid(rates)[:, obs], axis=-1)
    paths = logsumexp(cumulative, axis=0) - np.log(len(rates))
    return paths if np.ndim(observations) > 1 else paths[0]


def eprocess_of(observations: np.ndarray, rates: np.ndarray = DEFAULT_RATES) -> MixtureEProcess:
    obs = np.asarray(observations, dtype=np.int64)
    sums = ace_llr_grid(rates)[:, obs].sum(axis=-1)
    return MixtureEProcess(tuple(float(r) for r in rates), tuple(float(s) for s in sums), int(obs.size))
