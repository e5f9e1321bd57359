"""Per-dealer evidence as counts and sums that merge shard by shard: ``merge(a, b)`` is order-free and exact.

A tally answers the across-hand questions — does this dealer's talon hold more aces, or his hands more value,
than chance allows — from sufficient statistics only, so a log of any length is audited in constant memory and
shards audited apart combine into the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from fairdeal.audit.stats import Combined, check_pvalues, talon_aces_null
from fairdeal.errors import AuditError

TALON_ACE_CATEGORIES = 3


@dataclass(frozen=True)
class DealerTally:
    """Sufficient statistics of one dealer's hands (all fields add under ``merge``)."""

    hands: int = 0
    talon_ace_counts: tuple[int, ...] = (0,) * TALON_ACE_CATEGORIES   # hands with 0, 1, 2 aces in the talon
    talon_value_sum: float = 0.0
    talon_value_null_mean: float = 0.0     # Σ null means: the exact expectation of talon_value_sum
    talon_value_null_var: float = 0.0      # Σ null variances
    tests: int = 0                         # per-hand p-values folded in
    fisher_sum: float = 0.0                # Σ -2 log p
    stouffer_sum: float = 0.0              # Σ Φ⁻¹(1 - p)
    smallest_pvalue: float = 1.0

    def merge(self, other: "DealerTally") -> "DealerTally":
        return merge(self, other)

    @property
    def talon_aces(self) -> int:
        return int(np.dot(self.talon_ace_counts, np.arange(TALON_ACE_CATEGORIES)))

    def talon_aces_test(self) -> Combined:
        """Exact test of the total talon aces ``N1 + 2·N2`` over independent honest hands.

        ``N2`` (two-ace talons) is binomial and, given it, ``N1`` is binomial among the other hands, so the tail is
        one sum over the possible ``N2``.
        """
        if not self.hands:
            return Combined(0.0, 1.0, 0)
        p0, p1, p2 = talon_aces_null().pmf
        doubles = np.arange(self.hands + 1)
        weight = sps.binom.pmf(doubles, self.hands, p2)
        singles_needed = self.talon_aces - 2 * doubles
        tail = sps.binom.sf(singles_needed - 1, self.hands - doubles, p1 / (p0 + p1))
        return Combined(float(self.talon_aces), float(min(1.0, weight @ tail)), self.hands)

    def talon_value_test(self) -> Combined:
        """Normal approximation to the total talon value against its exact null mean and variance."""
        if self.talon_value_null_var <= 0.0:
            return Combined(0.0, 1.0, self.hands)
        z = (self.talon_value_sum - self.talon_value_null_mean) / np.sqrt(self.talon_value_null_var)
        return Combined(float(z), float(sps.norm.sf(z)), self.hands)

    def fisher(self) -> Combined:
        if not self.tests:
            return Combined(0.0, 1.0, 0)
        return Combined(self.fisher_sum, float(sps.chi2.sf(self.fisher_sum, 2 * self.tests)), self.tests)

    def stouffer(self) -> Combined:
        if not self.tests:
            return Combined(0.0, 1.0, 0)
        z = self.stouffer_sum / np.sqrt(self.tests)
        return Combined(float(z), float(sps.norm.sf(z)), self.tests)


def merge(a: DealerTally, b: DealerTally) -> DealerTally:
    """The tally of the union of two disjoint sets of hands."""
    return DealerTally(
        a.hands + b.hands,
        tuple(x + y for x, y in zip(a.talon_ace_counts, b.talon_ace_counts)),
        a.talon_value_sum + b.talon_value_sum,
        a.talon_value_null_mean + b.talon_value_null_mean,
        a.talon_value_null_var + b.talon_value_null_var,
        a.tests + b.tests,
        a.fisher_sum + b.fisher_sum,
        a.stouffer_sum + b.stouffer_sum,
        min(a.smallest_pvalue, b.smallest_pvalue),
    )


def tally_hands(
    talon_aces: np.ndarray,
    talon_values: np.ndarray,
    value_null_mean: float | np.ndarray,
    value_null_var: float | np.ndarray,
    pvalues: np.ndarray | None = None,
) -> DealerTally:
    """Tally a batch of one dealer's hands at once (arrays of per-hand numbers)."""
    aces = np.asarray(talon_aces, dtype=np.int64)
    values = np.asarray(talon_values, dtype=float)
    if aces.shape != values.shape:
        raise AuditError(f"{aces.size} talon ace counts but {values.size} talon values")
    if aces.size and (aces.min() < 0 or aces.max() >= TALON_ACE_CATEGORIES):
        raise AuditError(f"talon ace counts must lie in 0..{TALON_ACE_CATEGORIES - 1}")
    p = check_pvalues(np.array([]) if pvalues is None else pvalues)
    return DealerTally(
        hands=int(aces.size),
        talon_ace_counts=tuple(int(c) for c in np.bincount(aces, minlength=TALON_ACE_CATEGORIES)),
        talon_value_sum=float(values.sum()),
        talon_value_null_mean=float(np.broadcast_to(value_null_mean, values.shape).sum()),
        talon_value_null_var=float(np.broadcast_to(value_null_var, values.shape).sum()),
        tests=int(p.size),
        fisher_sum=float(-2.0 * np.log(p).sum()),
        stouffer_sum=float(sps.norm.isf(p).sum()),
        smallest_pvalue=float(p.min()) if p.size else 1.0,
    )
