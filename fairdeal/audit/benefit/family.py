"""Two-sided tests of benefit for the verdict's family: per (dealer → seat), (dealer → the buyer's talon) and
(cutter → seat, talon), is the mean value too high (the seat was fed) or too low (sunk)?

Under honest dealing each deal's value of a target is an independent draw from one law (``fold.honest_null``), so
the sum of its normal scores over n deals has mean ``n μ`` and variance ``n σ²`` of the quantised scores (estimated
on a Monte Carlo sample the scores were not ranked against); the scores are close to standard normal, so the sum's
law is close to normal from a few deals on, and the two-sided p-value is ``2 P(Z > |z|)``. Dealer → another seat is
the pair test (A's deals → B's hands); dealer → himself is helping oneself. A cutter is tested apart only where
his cuts are not all of one dealer's deals: otherwise the dealer's tests ask the same question of the same deals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats as sps

from fairdeal.audit.benefit.fold import honest_null, seated_hands
from fairdeal.audit.benefit.model import SCORE_UNITS, Scoring

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fairdeal.audit.fastpath import Layout
    from fairdeal.audit.summary import Sums

HAND_TEST = "benefit: hand value, two-sided"
TALON_TEST = "benefit: talon's value to its buyer, two-sided"
TALON = "the buyer's talon"
NULL = (
    "honest deals: each deal's value (expected score of the best game or misère, from double-dummy-fitted holding "
    "values) is a draw from one law (Monte Carlo, fixed seed); sum of normal scores, normal law, two-sided"
)


@dataclass(frozen=True)
class BenefitTest:
    """One actor → target question, its evidence and its two-sided p-value."""

    actor_role: str  # "dealer" or "cutter"
    actor: str
    beneficiary: str  # a player's name, or TALON
    deals: int
    z: float
    pvalue: float
    observed: float  # mean value per deal, in points
    expected: float

    @property
    def direction(self) -> str:
        return "fed" if self.z > 0 else "sunk"


def benefit_tests(sums: Sums, layout: Layout, players: Sequence[str], system: str) -> list[BenefitTest]:
    seats = len(players)
    count, normal, points = sums.benefit_count, sums.benefit_normal, sums.benefit_points
    # moments[d, t] = (mean, variance, mean value) of target t's quantised normal score when d deals
    moments = np.zeros((seats, seats + 1, 3))
    for d in range(seats):
        seated = seated_hands(layout, d)
        if not seated or not count[d].any():
            continue
        null = honest_null(layout.pattern.name, seated, Scoring.of_system(system))
        for t in range(seats + 1):
            hand = int(layout.slot_hand[d, t]) if t < seats else -1
            if t == seats or hand >= 0:
                moments[d, t] = null.mean[hand], null.variance[hand], null.mean_value[hand]
    out = []
    for d in range(seats):
        mine = (count[d].sum(axis=0)[None], normal[d].sum(axis=0)[None], points[d].sum(axis=0)[None])
        out += _tests("dealer", players[d], *mine, moments[d][None], players)
    for c in range(seats):
        deals = count[:, c, :].sum(axis=1)
        if np.count_nonzero(deals) > 1:
            out += _tests("cutter", players[c], count[:, c], normal[:, c], points[:, c], moments, players)
    return out


def _tests(
    role: str,
    actor: str,
    count: np.ndarray,
    normal: np.ndarray,
    points: np.ndarray,
    moments: np.ndarray,
    players: Sequence[str],
) -> list[BenefitTest]:
    """Over one actor's deals: sums by (dealer, target) with each dealer's ``moments`` (one row for a dealer)."""
    out = []
    for t in range(count.shape[-1]):
        n = count[:, t].astype(float)
        deals = int(n.sum())
        if not deals:
            continue
        mean = float(n @ moments[:, t, 0])
        variance = float(n @ moments[:, t, 1])
        z = (float(normal[:, t].sum()) - mean) / np.sqrt(variance) if variance > 0 else 0.0
        out.append(
            BenefitTest(
                role,
                actor,
                players[t] if t < len(players) else TALON,
                deals,
                float(z),
                float(min(1.0, 2 * sps.norm.sf(abs(z)))),
                float(points[:, t].sum()) / SCORE_UNITS / deals,
                float(n @ moments[:, t, 2]) / deals,
            )
        )
    return out


def subject(test: BenefitTest) -> str:
    role = f"{test.actor_role} {test.actor}"
    if test.beneficiary == TALON:
        return f"{role} -> {TALON}"
    return f"{role} -> {'himself' if test.beneficiary == test.actor else 'player ' + test.beneficiary}"
