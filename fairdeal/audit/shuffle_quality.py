"""Shuffle quality per hand, relative to the gathered order, for a whole block at once.

For every hand whose shuffle is logged: the randomness its actions can carry (bits; a card-by-card run or a
recorded riffle none, an unrecorded riffle per GSR) and the exact Bayer-Diaconis distance of its unrecorded
riffles. For a shuffle logged with every detail, the measures of ``quality`` on its permutation (rising
sequences, preserved and reversed adjacencies, the longest preserved block, the guessing score, and their
rotation-invariant versions). Per-dealer sums always; per-hand rows when the report keeps them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.logged import LoggedShuffles
from fairdeal.audit.quality import MEASURES, permutation_quality
from fairdeal.audit.summary import BlockContext, BlockSummary, HandTable

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands


def fold_quality(
    hands: Hands, dealers: np.ndarray, logged: LoggedShuffles, context: BlockContext, summary: BlockSummary
) -> None:
    sums = summary.sums
    read = np.flatnonzero(~np.isnan(logged.bits))
    np.add.at(sums.budget_hands, dealers[read], 1)
    np.add.at(sums.zero_bits, dealers[read], (logged.bits[read] == 0).astype(np.int64))
    np.add.at(sums.bits_total, dealers[read], logged.bits[read])
    known = logged.known
    report = permutation_quality(logged.perms) if len(known) else None
    if report is not None:
        np.add.at(sums.quality_hands, dealers[known], 1)
        np.add.at(sums.quality_totals, dealers[known], report.measures)
        np.add.at(sums.guessing_counts, (dealers[known], report.measure("cyclic_guessing")), 1)
    if not context.per_hand or not len(read):
        return
    measures = np.full((len(hands), len(MEASURES)), -1, dtype=np.int64)
    guessing_p = np.full(len(hands), np.nan)
    if report is not None:
        measures[known] = report.measures
        guessing_p[known] = report.cyclic_guessing_pvalue
    columns = {
        "line": np.array([hands[k][0] for k in read], dtype=np.int64),
        "hand": np.array([hands[k][1].hand for k in read], dtype=np.int64),
        "dealer": dealers[read].astype(np.int64),
        "bits": logged.bits[read],
        "unrecorded_riffles": logged.riffles[read],
        "riffle_tv": logged.riffle_tv[read],
        "can_randomise_deal": logged.can_randomise[read],
        "measures": measures[read],
        "guessing_p": guessing_p[read],
    }
    summary.tables["quality"] = HandTable(columns)
