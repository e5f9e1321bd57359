"""A block's feature histograms: per (dealer, target, feature), how many deals gave the target each value.

Targets are the seats, then the talon (all talon cards together, bought by one player). Histograms are integers,
so any split of a log into blocks, workers or dask partitions adds up to the same counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.features.laws import WIDTH, feature_values

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
    """Add a block's deals (``(m, codes)`` receivers) to ``sums.feature_counts``."""
    pattern = layout.pattern
    features = np.arange(sums.feature_counts.shape[2])
    for dealer in np.unique(dealers):
        rows = recv[dealers == dealer]
        for target, receiver, _ in target_cards(layout, int(dealer)):
            held = rows >= pattern.hands if receiver < 0 else rows == receiver
            cells = features * WIDTH + np.minimum(feature_values(held, pattern.deck), WIDTH - 1)
            counts = np.bincount(cells.reshape(-1), minlength=len(features) * WIDTH)
            sums.feature_counts[dealer, target] += counts.reshape(len(features), WIDTH)
