"""Per (dealer -> seat) and (dealer -> the buyer's talon): did the dealer's deals put a feature he can steer in
its extreme tail more often than chance allows?

For each target, the features a cheat aims with: a seat's aces and longest suit (feeding a partner or himself,
or sinking an opponent), the talon's high-card points and low cards (a rich or a junk talon). Each tail
(``laws.FeatureLaw``: ``value >= high``, ``value <= low``, exact chances under uniform dealing) is counted over
the dealer's deals; under honest dealing the count is binomial with that chance, exactly. Each test is
two-sided over its two tails (twice the smaller exact binomial tail, so conservative), and names the dealer,
the target and the direction: more aces, a longer suit or more points fed the holder; more low cards sank it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.features.fold import target_cards
from fairdeal.audit.features.laws import ACES, FEATURES, LONGEST, LOW, POINTS, FeatureLaw, feature_law
from fairdeal.audit.tails import binomial_sf

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fairdeal.audit.fastpath import Layout
    from fairdeal.audit.summary import Sums

SEAT_FEATURES = (ACES, LONGEST)
TALON_FEATURES = (POINTS, LOW)
SINKING = frozenset({LOW})  # features whose excess hurts the holder
SLUGS = {ACES: "aces", LONGEST: "longest", POINTS: "points", LOW: "low"}
SEAT_KINDS = frozenset(f"seat-{SLUGS[f]}-{tail}" for f in SEAT_FEATURES for tail in ("high", "low"))
TALON_KINDS = frozenset(f"talon-{SLUGS[f]}-{tail}" for f in TALON_FEATURES for tail in ("high", "low"))
NULL = (
    "honest deals: each target's cards a uniform subset of the deck, so the chance of each tail of the feature is "
    "exact (hypergeometric, subset-sum, suit splits) and its count over the dealer's deals binomial; twice the "
    "smaller exact tail, two-sided"
)


@dataclass(frozen=True)
class FeatureTest:
    """One (dealer, target, feature) question: the tail that stands out, its count and its p-value."""

    dealer: int
    target: int  # a seat, or the number of seats for the talon
    feature: int
    deals: int
    tail: str  # "high" or "low": the tail with the smaller p-value
    bound: int  # the tail's bound: value >= bound (high) or <= bound (low)
    observed: int  # deals in that tail
    expected: float
    pvalue: float

    @property
    def direction(self) -> str:
        return "fed" if (self.tail == "high") != (self.feature in SINKING) else "sunk"

    @property
    def kind(self) -> str:
        """The report's template for this test: ``seat-aces-high``, ``talon-low-high``, ..."""
        return f"{'seat' if self.feature in SEAT_FEATURES else 'talon'}-{SLUGS[self.feature]}-{self.tail}"

    @property
    def label(self) -> str:
        sign = ">=" if self.tail == "high" else "<="
        return f"{FEATURES[self.feature]} {sign} {self.bound}, tail count, two-sided"


def feature_tests(sums: Sums, layout: Layout) -> list[FeatureTest]:
    """Every (dealer, target, feature) test the histograms allow."""
    out = []
    for dealer in range(layout.num_seats):
        for target, receiver, cards in target_cards(layout, dealer):
            chosen = TALON_FEATURES if receiver < 0 else SEAT_FEATURES
            for feature in chosen:
                counts = sums.feature_counts[dealer, target, feature]
                if counts.sum():
                    out.append(
                        tail_test(dealer, target, feature, counts, feature_law(layout.pattern.deck, cards, feature))
                    )
    return out


def tail_test(dealer: int, target: int, feature: int, counts: np.ndarray, law: FeatureLaw) -> FeatureTest:
    """The two tails' exact binomial p-values; the smaller one, doubled, is the test's."""
    n = int(counts.sum())
    high, low = int(counts[law.high :].sum()), int(counts[: law.low + 1].sum())
    p_high = float(binomial_sf(high - 1, n, law.p_high))
    p_low = float(binomial_sf(low - 1, n, law.p_low))
    up = p_high <= p_low
    return FeatureTest(
        dealer,
        target,
        feature,
        n,
        "high" if up else "low",
        law.high if up else law.low,
        high if up else low,
        n * (law.p_high if up else law.p_low),
        min(1.0, 2.0 * min(p_high, p_low)),
    )


def names(test: FeatureTest, players: Sequence[str]) -> tuple[str, str | None]:
    """(the dealer's name, the seat's name or None for the talon)."""
    return players[test.dealer], players[test.target] if test.target < len(players) else None
