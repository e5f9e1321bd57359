"""What a hand is worth to whoever holds it: the one place the actor tests value cards.

For now a hand is worth its high-card points (ace 4, king 3, queen 2, jack 1): aces weigh most, as the
cardsharp's aims do, and the count is the bridge players' well-tried measure of strength. It is additive over
cards, so every cut depth of many hands is valued in one matrix product; the benefit model (issue 17, item 1)
replaces ``receiver_values`` as a whole.
"""

from __future__ import annotations

import numpy as np

from fairdeal.cards import NUM_CODES, Rank, rank_of

HIGH_CARD_POINTS = {Rank.ACE: 4, Rank.KING: 3, Rank.QUEEN: 2, Rank.JACK: 1}


def card_points() -> np.ndarray:
    """Points of every card code (float32: sums of a few dozen small integers stay exact)."""
    ranks = rank_of(np.arange(NUM_CODES))
    points = np.zeros(NUM_CODES, dtype=np.float32)
    for rank, value in HIGH_CARD_POINTS.items():
        points[ranks == int(rank)] = value
    return points


def receiver_values(decks: np.ndarray, targets: np.ndarray, receivers: int) -> np.ndarray:
    """The value each receiver gets from each deck order.

    ``decks``: ``(..., n)`` card codes, top first; ``targets``: ``(n,)`` receiver of each deck position (the
    pattern's hands, then its talons). Returns ``(..., receivers)``.
    """
    onehot = (np.asarray(targets)[:, None] == np.arange(receivers)[None, :]).astype(np.float32)
    returned: np.ndarray = card_points()[np.asarray(decks, dtype=np.int64)] @ onehot
    return returned
