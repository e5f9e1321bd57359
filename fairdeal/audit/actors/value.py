"""What a hand is worth to whoever holds it: the one place the actor tests value cards.

For now a hand is worth its high-card points (ace 4, king 3, queen 2, jack 1): aces weigh most, as the
cardsharp's aims do, and the count is the bridge players' well-tried measure of strength. It is additive over
cards, so every cut depth of many hands is valued in one matrix product; the benefit model (issue 17, item 1)
replaces ``receiver_values`` as a whole.
"""

from __future__ import annotations

import functools

import numpy as np

from fairdeal.audit.kernels import depth_values as kernel_values
from fairdeal.cards import NUM_CODES, Rank, rank_of

HIGH_CARD_POINTS = {Rank.ACE: 4, Rank.KING: 3, Rank.QUEEN: 2, Rank.JACK: 1}


@functools.lru_cache(maxsize=1)
def card_points() -> np.ndarray:
    """Points of every card code (float32: sums of a few dozen small integers stay exact)."""
    ranks = rank_of(np.arange(NUM_CODES))
    points = np.zeros(NUM_CODES, dtype=np.float32)
    for rank, value in HIGH_CARD_POINTS.items():
        points[ranks == int(rank)] = value
    points.setflags(write=False)  # one array for every caller
    return points


def receiver_values(decks: np.ndarray, targets: np.ndarray, receivers: int) -> np.ndarray:
    """The value each receiver gets from each deck order.

    ``decks``: ``(..., n)`` card codes, top first; ``targets``: ``(n,)`` receiver of each deck position (the
    pattern's hands, then its talons). Returns ``(..., receivers)``.
    """
    onehot = (np.asarray(targets)[:, None] == np.arange(receivers)[None, :]).astype(np.float32)
    returned: np.ndarray = card_points()[np.asarray(decks, dtype=np.int64)] @ onehot
    return returned


def decks_by_depth(pre: np.ndarray, after: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """``(cases, depths, n)``: the deck dealt from had the cut been each depth (``cut d`` puts position ``p + d``
    at ``p``; the actions after it then gather by ``after``)."""
    n = pre.shape[1]
    index = (after[:, None, :] + depths[None, :, None]) % n
    returned: np.ndarray = np.take_along_axis(pre[:, None, :], index, axis=2)
    return returned


def depth_values(
    pre: np.ndarray, after: np.ndarray, depths: np.ndarray, targets: np.ndarray, receivers: int
) -> np.ndarray:
    """``(cases, depths, receivers)``: what each receiver would get from each cut depth, the cutter test's one
    question of value (``receiver_values`` of ``decks_by_depth``, the same numbers).

    Points are additive, so the decks are never built: a cut rotates the points, and the actions after it only
    move which receiver each rotated place feeds (``targets[after^-1]``), the same for every depth; the sums run
    in C (``kernels.depth_values``).
    """
    return kernel_values(pre, after, depths, targets, card_points(), receivers)
