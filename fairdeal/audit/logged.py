"""A block's logged shuffles as read once for the per-hand passes (quality, targeting): for each hand, how much
randomness its logged actions can carry, and for a shuffle logged with every detail, its permutation.

Runs and cuts with depths come from the replay's op tables (``fastpath.CompiledShuffle``) and are permuted for the
whole block at once; they are fixed permutations, so they carry no randomness. Any other notation is parsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.fastpath import CompiledShuffle, apply_compiled
from fairdeal.audit.quality import randomness_budget, riffle_distance, unrecorded_riffles
from fairdeal.deal import DealPattern
from fairdeal.errors import FairdealError
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import ShuffleSequence

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands


@dataclass(frozen=True)
class LoggedShuffles:
    """Per hand row of a block: the logged actions' randomness; for fully logged shuffles, the permutation."""

    bits: np.ndarray  # (hands,) upper bound in bits; NaN where no readable shuffle is logged
    riffles: np.ndarray  # (hands,) riffles logged without their pattern (random per GSR)
    riffle_tv: np.ndarray  # (hands,) exact Bayer-Diaconis distance to uniform of those riffles; NaN: none read
    can_randomise: np.ndarray  # (hands,) the bound reaches the number of distinct deals
    known: np.ndarray  # rows whose whole shuffle is logged with its details
    perms: np.ndarray  # (len(known), n): ``after = before[perm]``


def read_logged(
    hands: Hands, simple: np.ndarray, compiled: CompiledShuffle | None, pattern: DealPattern, min_each_side: int
) -> LoggedShuffles:
    """Read every hand's logged shuffle once (``simple``: rows the replay compiled into ``compiled``)."""
    n = pattern.deck.size
    m = len(hands)
    bits = np.full(m, np.nan)
    riffles = np.zeros(m, dtype=np.int64)
    tv = np.full(m, np.nan)
    can_randomise = np.zeros(m, dtype=bool)
    known, perms = [], []
    if len(simple):
        assert compiled is not None  # the replay compiled the simple rows
        bits[simple] = 0.0
        tv[simple] = float(riffle_distance(ShuffleSequence(()), n))
        known.append(simple)
        perms.append(apply_compiled(np.broadcast_to(np.arange(n), (len(simple), n)), compiled))
    is_simple = np.zeros(m, dtype=bool)
    is_simple[simple] = True
    other = []
    for k in np.flatnonzero(~is_simple):
        record = hands[k][1]
        shuffle = record.logged_shuffle
        if shuffle is None:
            continue
        try:
            sequence = parse_notation(shuffle)
            budget = randomness_budget(sequence, pattern, min_each_side)
            perm = sequence.permutation(n) if sequence.is_known else None  # an action may not fit the deck
        except FairdealError:
            continue  # the replay has reported it
        bits[k] = budget.total
        riffles[k] = unrecorded_riffles(sequence)
        tv[k] = float(riffle_distance(sequence, n))
        can_randomise[k] = budget.can_randomise_deal
        if perm is not None:
            other.append(k)
            perms.append(perm[None, :])
    if other:
        known.append(np.array(other, dtype=np.int64))
    rows = np.concatenate(known) if known else np.zeros(0, dtype=np.int64)
    table = np.concatenate(perms).astype(np.int64) if perms else np.zeros((0, n), dtype=np.int64)
    order = np.argsort(rows, kind="stable")
    return LoggedShuffles(bits, riffles, tv, can_randomise, rows[order], table[order])
