"""Targeting, hand by hand: how likely was this deal's outcome under honest shuffling of the same effort?

For a hand whose gathered order and whole shuffle are logged, the statistics are the talon's content (its aces,
then its value: ``aces * (top value + 1) + value``) and each player hand's value. Two nulls:

* **Same effort** (``shuffle.models.sample_honest_batch``): each logged action replaced by its honest model (a run
  of k by an overhand of the top k, a riffle by a GSR riffle, a cut by a uniform legal cut), applied to the same
  gathered order. ``DRAWS`` draws a hand; a statistic with fewer than ``EXTEND_BELOW`` draws at or above the
  observed value earns ``MORE_DRAWS`` more. Its p-value is ``(1 + #{sim >= obs}) / (1 + draws)`` over the draws
  it used; valid, since the extension only happens when the first-stage p-value is already at most
  ``EXTEND_BELOW / (DRAWS + 1)``. The first stage also gives a randomized p-value (ties broken by a uniform draw),
  exactly uniform when the logged actions follow their models: Fisher over a dealer's hands (the talon) and over
  a (dealer, seat)'s hands (the seat's hand value) join the verdict's Holm/BH family.
* **Cross-match** (model-free): the same dealer's other fully logged shuffles of the block applied to this hand's
  gathered order. An honest dealer does not look at the gathered cards, so his shuffle is exchangeable with his
  others; one chosen for this order stands out. Over the statistics, the min-p calibrated on the same pool.
  Reported per hand (hands share draws, so no Fisher).

A hand's p-value: the same-effort p-values' Bonferroni minimum, and where the cross-match ran, twice the smaller
of that and the cross-match's (Bonferroni over the two nulls); Benjamini-Hochberg across hands names the hands
worth a look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.exact import Laws, hand_seats
from fairdeal.audit.fastpath import Layout
from fairdeal.audit.logged import LoggedShuffles
from fairdeal.audit.sequential import DEFAULT_RATES, llr_table
from fairdeal.audit.summary import BlockContext, BlockSummary, HandTable
from fairdeal.errors import FairdealError
from fairdeal.shuffle.models import sample_honest_batch
from fairdeal.shuffle.notation import parse_notation

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands
    from fairdeal.audit.summary import Sums
    from fairdeal.deal import DealPattern
    from fairdeal.shuffle.ops import ShuffleSequence

DRAWS = 99
MORE_DRAWS = 900
EXTEND_BELOW = 2
CROSS_DRAWS = 999
CROSS_MIN = 19
TINY = np.finfo(float).tiny

CROSS_NULL = (
    f"the dealer's other fully logged shuffles of the same block (up to {CROSS_DRAWS}, at least "
    f"{CROSS_MIN}) applied to this hand's gathered order; per hand only"
)
SAME_EFFORT_NULL = (
    f"honest shuffles of the same effort from the same gathered order ({DRAWS} draws a hand, ties "
    "broken at random): talon aces then value, and each seat's hand value; Fisher"
)


@dataclass(frozen=True)
class Statistics:
    """Which positions feed which statistic: column 0 the talon, then one column per player hand."""

    weights: np.ndarray  # (n, 1 + hands): value weight of each position per column
    talon: np.ndarray  # (n,) talon positions
    scale: int  # talon key = aces * scale + value

    @staticmethod
    def of(layout: Layout, laws: Laws) -> Statistics:
        pattern = layout.pattern
        targets = np.asarray(pattern.targets)
        talon = targets >= pattern.hands
        columns = [talon] + [targets == h for h in pattern.player_hands]
        top = int(laws.values.max()) * int(talon.sum())
        return Statistics(np.stack(columns, axis=1).astype(np.int64), talon.astype(np.int64), top + 1)

    def of_deals(self, recv: np.ndarray, laws: Laws, pattern: DealPattern) -> np.ndarray:
        """The same statistics of deals as received (``(m, codes)`` receiver of each card code, -1 outside)."""
        talon = recv >= pattern.hands
        values = laws.values[None, :]
        columns = [(values * talon).sum(axis=1) + np.count_nonzero(talon & laws.aces[None, :], axis=1) * self.scale]
        columns += [(values * (recv == h)).sum(axis=1) for h in pattern.player_hands]
        return np.stack(columns, axis=1)

    def __call__(self, orders: np.ndarray, laws: Laws) -> np.ndarray:
        """``(m, 1 + hands)`` statistics of deck orders ``(m, n)`` (card codes)."""
        sums = laws.values[orders] @ self.weights
        sums[:, 0] += (laws.aces[orders].astype(np.int64) @ self.talon) * self.scale
        stacked: np.ndarray = sums
        return stacked


def same_effort(
    observed: np.ndarray,
    before: np.ndarray,
    sequence: ShuffleSequence,
    stats: Statistics,
    laws: Laws,
    rng: np.random.Generator,
    min_each_side: int,
    first: list[np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Per statistic: the valid p-value (two stages), the randomized first-stage p-value, the draws made; the
    first stage's statistics are appended to ``first`` when given (for the hand's e-value)."""
    n = len(before)
    sims = stats(before[sample_honest_batch(sequence, rng, n, DRAWS, min_each_side)], laws)
    if first is not None:
        first.append(sims)
    above, ties = (sims > observed).sum(axis=0), (sims == observed).sum(axis=0)
    randomized = np.maximum((above + rng.random(len(observed)) * (ties + 1)) / (DRAWS + 1), TINY)
    reached = above + ties
    pvalues = (reached + 1) / (DRAWS + 1)
    extend = reached < EXTEND_BELOW
    if not extend.any():
        return pvalues, randomized, DRAWS
    more = stats(before[sample_honest_batch(sequence, rng, n, MORE_DRAWS, min_each_side)], laws)
    total = reached + (more >= observed).sum(axis=0)
    return np.where(extend, (total + 1) / (DRAWS + MORE_DRAWS + 1), pvalues), randomized, DRAWS + MORE_DRAWS


def cross_match(
    observed: np.ndarray, before: np.ndarray, others: np.ndarray, stats: Statistics, laws: Laws
) -> np.ndarray:
    """The dealer's other shuffles applied to this gathered order: per statistic ``(1 + #{other >= obs}) / (1 +
    others)``, then (last entry) the min-p over statistics calibrated on the same pool (exchangeable, so valid)."""
    pool = np.concatenate([observed[None, :], stats(before[others], laws)])
    size = len(pool)
    ordered = np.sort(pool, axis=0)
    at_least = (
        np.stack([size - np.searchsorted(ordered[:, c], pool[:, c], side="left") for c in range(pool.shape[1])], axis=1)
        / size
    )
    least = at_least.min(axis=1)
    return np.append(at_least[0], np.count_nonzero(least <= least[0]) / size)


def bonferroni(pvalues: np.ndarray) -> np.ndarray:
    """The minimum over the last axis times the number of p-values (NaN: absent), capped at 1; NaN if none."""
    count = np.count_nonzero(~np.isnan(pvalues), axis=-1)
    low = np.where(np.isnan(pvalues), np.inf, pvalues).min(axis=-1)
    returned: np.ndarray = np.minimum(np.where(count > 0, low, np.nan) * np.maximum(count, 1), 1.0)
    return returned


def fold_targeting(
    hands: Hands,
    orders: np.ndarray,
    recv: np.ndarray,
    dealers: np.ndarray,
    logged: LoggedShuffles,
    layout: Layout,
    laws: Laws,
    context: BlockContext,
    summary: BlockSummary,
    rng: np.random.Generator,
) -> None:
    """Both nulls for every hand of a block with a gathered order and a fully logged shuffle; the observed
    statistics are those of the deal as received."""
    stats = Statistics.of(layout, laws)
    observed_all = stats.of_deals(recv, laws, layout.pattern)
    rows = [(i, int(k)) for i, k in enumerate(logged.known) if orders[k, 0] >= 0]
    mates_of = {d: np.array([i for i, k in rows if dealers[k] == d], dtype=np.int64) for d in range(layout.num_seats)}
    done, same, cross = [], [], []
    e_values: list[float] = []
    score = stacking_score(layout.pattern)
    for i, k in rows:
        shuffle = hands[k][1].logged_shuffle
        assert shuffle is not None  # ``logged.known`` rows have their whole shuffle logged
        try:
            sequence = parse_notation(shuffle)
        except FairdealError:
            continue
        dealer = int(dealers[k])
        observed = observed_all[k]
        first: list[np.ndarray] = []
        pvalues, randomized, draws = same_effort(
            observed, orders[k], sequence, stats, laws, rng, context.min_each_side, first
        )
        e_values.append(conformal_evalue(observed[0] // stats.scale, first[0][:, 0] // stats.scale, score))
        mates = mates_of[dealer][mates_of[dealer] != i]
        if len(mates) >= CROSS_MIN:
            start = np.searchsorted(mates, i) % len(mates)
            pick = mates[(start + np.arange(min(CROSS_DRAWS, len(mates)))) % len(mates)]
            cross.append(cross_match(observed, orders[k], logged.perms[pick], stats, laws))
        else:
            cross.append(np.full(len(observed) + 1, np.nan))
        same.append(pvalues)
        _fold_fisher(summary.sums, dealer, randomized, layout)
        done.append((k, draws, int(observed[0] // stats.scale)))
    if done:
        table = _hand_table(hands, dealers, done, np.array(same), np.array(cross), layout)
        summary.tables["targeting"] = HandTable({**table.columns, "e_talon": np.array(e_values)})


def stacking_score(pattern: DealPattern) -> np.ndarray:
    """Per count of talon aces: the likelihood ratio of an ace stacked into the talon (mixed over the rates of
    ``sequential.DEFAULT_RATES``) against honest talons."""
    talon_cards = pattern.talons * pattern.talon_size
    ratios: np.ndarray = np.exp(llr_table(pattern.deck.size, talon_cards, DEFAULT_RATES)).mean(axis=0)
    return ratios


def conformal_evalue(observed: int, simulated: np.ndarray, score: np.ndarray) -> float:
    """The hand's e-value against its own same-effort draws: ``(1 + draws) f(obs) / (f(obs) + sum f(sim))``.

    Under honest shuffling the observed deal is exchangeable with the draws, so its share of the total score has
    mean ``1 / (1 + draws)``: the e-value has mean 1 whatever the score ``f`` (the stacking likelihood ratio)."""
    f = score[np.minimum(np.asarray(simulated, dtype=np.int64), len(score) - 1)]
    mine = float(score[min(int(observed), len(score) - 1)])
    return (len(f) + 1) * mine / (mine + float(f.sum()))


def _fold_fisher(sums: Sums, dealer: int, randomized: np.ndarray, layout: Layout) -> None:
    """The first-stage randomized p-values into the dealer's talon and each (dealer, seat)'s hand-value Fisher sums."""
    sums.targeting_talon_fisher[dealer] += -2.0 * np.log(randomized[0])
    sums.targeting_talon_tests[dealer] += 1
    seats = hand_seats(layout)[dealer]
    for column, hand in enumerate(layout.pattern.player_hands, start=1):
        if seats[hand] >= 0:
            sums.targeting_seat_fisher[dealer, seats[hand]] += -2.0 * np.log(randomized[column])
            sums.targeting_seat_tests[dealer, seats[hand]] += 1


def _hand_table(
    hands: Hands,
    dealers: np.ndarray,
    done: list[tuple[int, int, int]],
    same_p: np.ndarray,
    cross_p: np.ndarray,
    layout: Layout,
) -> HandTable:
    """Per-hand rows: the hand's p-value (both nulls), each null's own, the talon's and each seat's."""
    rows = np.array([k for k, _, _ in done], dtype=np.int64)
    dealer_rows = dealers[rows].astype(np.int64)
    seat_p = np.full((len(rows), layout.num_seats), np.nan)
    seats_of = hand_seats(layout)
    for column, hand in enumerate(layout.pattern.player_hands, start=1):
        seat = seats_of[dealer_rows, hand]
        ok = seat >= 0
        seat_p[np.flatnonzero(ok), seat[ok]] = same_p[ok, column]
    p_same, p_cross = bonferroni(same_p), cross_p[:, -1]
    both = np.minimum(2 * np.minimum(p_same, np.where(np.isnan(p_cross), np.inf, p_cross)), 1.0)
    return HandTable(
        {
            "line": np.array([hands[k][0] for k in rows], dtype=np.int64),
            "hand": np.array([hands[k][1].hand for k in rows], dtype=np.int64),
            "dealer": dealer_rows,
            "draws": np.array([d for _, d, _ in done], dtype=np.int64),
            "talon_aces": np.array([a for _, _, a in done], dtype=np.int64),
            "p": np.where(np.isnan(p_cross), p_same, both),
            "p_same": p_same,
            "p_talon": same_p[:, 0],
            "p_seats": seat_p,
            "p_cross": p_cross,
            "p_cross_talon": cross_p[:, 0],
        }
    )
