"""Sparse stacking: did the talon hold more aces at one cut depth of a dealer's deals than chance allows?

A dealer who stacks an ace into the talon in a few of his deals needs the cut to land where he placed it: a cut
made by an accomplice at an agreed depth, or forced by a crimp. Summed over all his deals, a stacked deal in ten is
diluted by the nine honest ones; grouped by the last cut's depth, the stacked deals pile up in one group. Under
honest dealing the deal is uniform whatever the depth (the cutter does not see the cards), so given the depths the
talon's ace counts are independent draws of the hypergeometric law: the total ``S_d`` of the deals cut at depth
``d`` has the law of a sum of ``n_d`` such draws (exact, by convolution), and its upper tail is ``p_d``. The test's
statistic is ``min_d p_d``; its exact law given the depths is ``P(min <= t) = 1 - prod_d (1 - G_d(t))``, ``G_d(t)``
the largest tail of ``S_d`` at most ``t``. A cutter's habits (any law of depths) do not move it.

The accomplice's depth also piles up: it holds his cuts on top of its honest share. So the same statistic is also
taken over the depths that hold the most of the dealer's deals alone — a choice made from the depths, which honest
aces do not depend on, so that depth's tail needs no correction for the others it was chosen from. The test is the
smaller of the two, Bonferroni-corrected (times two): a stacker whose depth is the most frequent one is caught with a
few stacked deals, and one whose accomplice's depth hides among a habitual cutter's is still caught by the scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.cards import NUM_CODES, Rank, rank_of

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fairdeal.audit.fastpath import Layout
    from fairdeal.audit.summary import Sums

ACE_MASK = np.asarray(rank_of(np.arange(NUM_CODES)) == int(Rank.ACE))
NULL = (
    "honest deals: the deal uniform whatever the cut depth, so given the depths each deal's talon aces are "
    "hypergeometric and independent; per depth the exact tail of their total, the smallest over the depths with "
    "its exact law, and the smallest over the depths holding the most deals (chosen from the depths alone) with "
    "its own; twice the smaller (Bonferroni; one-sided: more aces)"
)


def fold_depth_aces(sums: Sums, recv: np.ndarray, dealers: np.ndarray, depths: np.ndarray, layout: Layout) -> None:
    """Add a block's deals to ``sums.depth_aces[dealer, depth, talon aces]`` (deals with a last cut of known depth)."""
    pattern = layout.pattern
    aces = np.count_nonzero((recv >= pattern.hands) & ACE_MASK[None, : recv.shape[1]], axis=1)
    width = sums.depth_aces.shape[1]
    known = (depths >= 0) & (depths < width)
    top = sums.depth_aces.shape[2] - 1
    np.add.at(sums.depth_aces, (dealers[known], depths[known], np.minimum(aces[known], top)), 1)


@dataclass(frozen=True)
class DepthTest:
    """One dealer's test: the depth whose talons held the most surprising aces, and the exact p-value of the min."""

    dealer: int
    deals: int
    depth: int
    cut: int  # deals cut at that depth
    aces: int  # aces their talons held
    expected: float
    pvalue: float


# Law values below this are dropped from the ends as the convolutions go: the tails lose less than 1e-290 in all.
NEGLIGIBLE = 1e-300
BLOCK = 32  # the smallest run of deals convolved as one law; longer runs are powers of two of it


@dataclass(frozen=True)
class TotalTails:
    """``P(S >= s)`` for ``S`` the total of some deals, kept only where the law is not negligible (O(sqrt n) space).

    ``tails[i]`` is the tail at ``start + i``; below ``start`` the tail is ``tails[0]`` (the whole mass, 1 to
    within 1e-290), above the end it is 0.
    """

    start: int
    tails: np.ndarray

    def at(self, total: int) -> float:
        i = total - self.start
        return float(self.tails[max(i, 0)]) if i < len(self.tails) else 0.0

    def largest_at_most(self, level: float) -> float:
        """The largest attainable tail not above ``level`` (0 if none)."""
        return float(self.tails[self.tails <= level].max(initial=0.0))


Law = tuple[int, np.ndarray]  # (the smallest total kept, the law from there on)


def _sum_law(a: Law, b: Law) -> Law:
    """The law of the sum of two independent totals, its negligible ends trimmed."""
    law = np.convolve(a[1], b[1])
    kept = np.flatnonzero(law >= NEGLIGIBLE)
    return a[0] + b[0] + int(kept[0]), law[kept[0] : kept[-1] + 1]


def total_tails(pmf: np.ndarray, deals: Iterable[int]) -> dict[int, TotalTails]:
    """The tails of the total of ``n`` independent draws of ``pmf`` (on 0..len-1), for each ``n`` in ``deals``.

    One run up to the largest ``n`` serves every smaller one (a log's dealers and depths share it). The run from
    one wanted ``n`` to the next adds the laws of ``BLOCK * 2**j`` deals (each the square of the one before) and of
    the rest, fewer than ``BLOCK``; the law's negligible ends are trimmed as it grows, so a law of ``n`` deals has
    O(sqrt n) terms and the run costs O(n) where deal-by-deal convolution would take O(n sqrt n).
    """
    few = [np.array([1.0])]  # the laws of 0..BLOCK-1 deals
    for _ in range(BLOCK - 1):
        few.append(np.convolve(few[-1], pmf))
    blocks: list[Law] = [_sum_law((0, few[-1]), (0, pmf))]  # BLOCK * 2**j deals
    out: dict[int, TotalTails] = {}
    law: Law = (0, np.array([1.0]))
    n = 0
    for target in sorted({int(count) for count in deals if count > 0}):
        runs, rest = divmod(target - n, BLOCK)
        while runs >> len(blocks):
            blocks.append(_sum_law(blocks[-1], blocks[-1]))
        for j in reversed(range(runs.bit_length())):
            if runs >> j & 1:
                law = _sum_law(law, blocks[j])
        if rest:
            law = _sum_law(law, (0, few[rest]))
        n = target
        out[target] = TotalTails(law[0], np.minimum(np.cumsum(law[1][::-1])[::-1], 1.0))
    return out


def depth_test(dealer: int, counts: np.ndarray, pmf: np.ndarray, laws: dict[int, TotalTails]) -> DepthTest | None:
    """The test over ``counts[depth, aces]`` (one dealer's deals) under the per-deal ace law ``pmf``; ``laws`` holds
    the tails of every depth's number of deals (``total_tails``)."""
    per_depth = counts.sum(axis=1)
    cut = np.flatnonzero(per_depth)
    if not len(cut):
        return None
    support = np.arange(counts.shape[1])
    tails = {int(d): laws[int(per_depth[d])] for d in cut}
    observed = {int(d): int(counts[d] @ support) for d in cut}
    pvalues = {d: tails[d].at(observed[d]) for d in tails}
    most = per_depth[cut].max()
    piled = [d for d in tails if per_depth[d] == most]
    scanned, best_scanned = _smallest_tail(tails, pvalues, list(tails))
    on_pile, best_piled = _smallest_tail(tails, pvalues, piled)
    best = best_piled if on_pile < scanned else best_scanned
    pvalue = 2.0 * min(scanned, on_pile)
    mean = float(support[: len(pmf)] @ pmf)
    return DepthTest(
        dealer,
        int(per_depth.sum()),
        best,
        int(per_depth[best]),
        observed[best],
        float(per_depth[best]) * mean,
        float(min(1.0, max(pvalue, np.finfo(float).tiny))),
    )


def depth_tests(sums: Sums, layout: Layout, pmf: np.ndarray) -> list[DepthTest]:
    """Every dealer's test, where his deals log a cut of known depth."""
    laws = total_tails(pmf, sums.depth_aces.sum(axis=2).ravel().tolist())
    out = []
    for dealer in range(layout.num_seats):
        test = depth_test(dealer, sums.depth_aces[dealer], pmf, laws)
        if test is not None:
            out.append(test)
    return out


def _smallest_tail(tails: dict[int, TotalTails], pvalues: dict[int, float], depths: list[int]) -> tuple[float, int]:
    """The exact p-value of the smallest tail over ``depths``, and the depth that has it."""
    best = min(depths, key=lambda d: (pvalues[d], d))
    t = pvalues[best]
    # Each depth's chance of a tail at most t: the largest attainable tail not above it (discrete law).
    chances = [tails[d].largest_at_most(t * (1 + 1e-9)) for d in depths]
    return -float(np.expm1(np.sum(np.log1p(-np.minimum(chances, 1.0 - 1e-16))))), best
