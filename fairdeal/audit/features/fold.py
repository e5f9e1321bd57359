"""A block's feature histograms: per (dealer, target, feature), how many deals gave the target each value.

Targets are the seats, then the talon (all talon cards together, bought by one player). Histograms are integers,
so any split of a log into blocks, workers or dask partitions adds up to the same counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.features.laws import code_features
from fairdeal.audit.kernels import feature_counts

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Layout
    from fairdeal.audit.summary import Sums


def target_cards(layout: Layout, dealer: int) -> list[tuple[int, int, int]]:
    """``(target, receiver, cards)`` for each seat holding a hand when ``dealer`` deals, then the talon
    (receiver -1: every talon card)."""
    pattern = layout.pattern
    seats = layout.num_seats
    out = [(s, int(h), pattern.cards_per_hand) for s, h in enumerate(layout.slot_hand[dealer, :seats]) if h >= 0]
    if pattern.talons:
        out.append((seats, -1, pattern.talons * pattern.talon_size))
    return out


def fold_features(sums: Sums, recv: np.ndarray, dealers: np.ndarray, layout: Layout) -> None:
    """Add a block's deals (``(m, codes)`` receivers) to ``sums.feature_counts`` (in C, every target at once)."""
    pattern = layout.pattern
    seats, targets = sums.feature_counts.shape[:2]
    target_of = np.full((seats, pattern.hands + pattern.talons), -1, dtype=np.int64)
    active = np.zeros((seats, targets), dtype=np.uint8)
    for dealer in range(seats):
        for target, receiver, _ in target_cards(layout, dealer):
            if receiver < 0:
                target_of[dealer, pattern.hands :] = target
            else:
                target_of[dealer, receiver] = target
            active[dealer, target] = 1
    feature_counts(recv, dealers, target_of, active, code_features(pattern.deck), sums.feature_counts)
