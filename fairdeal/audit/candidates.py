"""The hands the report may draw, chosen while the statistical pass reads them.

The report shows, for each dealer the verdict names, the hands that weigh most in his flagged tests. Which
dealers and which tests is known only after the verdict, so every block keeps a small table for every dealer and
every receiver (each seat, and the talons): its heaviest hands, the first hands cut at each depth, what each seat
received and who took the talons. Blocks merge into tables of the same bounded size in any grouping (a block
file, a store's row groups, a cluster's tree), so drawing the evidence needs no second read of the log: the
report picks from these tables and fetches just the chosen lines (``report.evidence``).

A hand's weight for a receiver is ``100 * aces + value`` (value: the sum of its cards' ranks, 7 = 0 ... A = 7),
so more aces always weigh more and the value breaks ties.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from fairdeal.audit.fastpath import Layout
from fairdeal.cards import NUM_CODES, Rank, parse_card, to_ascii_list

KEEP = 12  # rows kept per (dealer, receiver) and per (dealer, depth): twice the hands the report draws
ACE_WEIGHT = 100  # above any hand's value (at most 12 cards of rank 7 or less)
# Columns of ``Candidates.top``: then one weight per seat and the talons.
DEALER, RECEIVER, HAND, LINE, WEIGHTS = 0, 1, 2, 3, 4


@functools.cache
def _card_weights() -> tuple[np.ndarray, np.ndarray]:
    """Per card code: its weight (``ACE_WEIGHT`` for an ace, plus its rank) and whether it is an ace."""
    ranks = np.array([int(parse_card(text).rank) for text in to_ascii_list(range(NUM_CODES))], dtype=np.int64)
    aces = (ranks == int(Rank.ACE)).astype(np.int64)
    return ACE_WEIGHT * aces + ranks, aces


@dataclass(frozen=True)
class Candidates:
    """Bounded per-dealer tables of one block or of a merge; line numbers as its owner numbers them."""

    top: (
        np.ndarray
    )  # (rows, WEIGHTS + seats + 1): dealer, receiver (a seat, or ``seats``: the talons), hand, line, weights
    cuts: np.ndarray  # (rows, 4): dealer, depth of the last cut, hand, line
    depth_counts: np.ndarray  # (dealers, deck + 1): deals by the last cut's depth
    received: np.ndarray  # (dealers, seats, 2): deals where the seat received cards, and the aces it received
    takers: np.ndarray  # (dealers, seats, 2): deals the seat declared, and the aces in those deals' talons

    @staticmethod
    def empty(seats: int, deck: int) -> Candidates:
        return Candidates(
            np.zeros((0, WEIGHTS + seats + 1), np.int64),
            np.zeros((0, 4), np.int64),
            np.zeros((seats, deck + 1), np.int64),
            np.zeros((seats, seats, 2), np.int64),
            np.zeros((seats, seats, 2), np.int64),
        )

    def shifted(self, base: int) -> Candidates:
        """The same tables with their lines counted ``base`` further."""
        top, cuts = self.top.copy(), self.cuts.copy()
        top[:, LINE] += base
        cuts[:, 3] += base
        return Candidates(top, cuts, self.depth_counts, self.received, self.takers)

    def merge(self, other: Candidates) -> Candidates:
        return Candidates(
            _best(np.concatenate([self.top, other.top])),
            _first(np.concatenate([self.cuts, other.cuts])),
            self.depth_counts + other.depth_counts,
            self.received + other.received,
            self.takers + other.takers,
        )


def block_candidates(
    recv: np.ndarray,
    dealers: np.ndarray,
    numbers: np.ndarray,
    lines: np.ndarray,
    depths: np.ndarray,
    declarers: np.ndarray,
    layout: Layout,
) -> Candidates:
    """The tables of one block's dealt hands: ``recv`` their receiver of each card code (``audit.block``),
    ``depths`` their last cut's depth (-1: none), ``declarers`` their declarer's seat (-1: none)."""
    seats, pattern = layout.num_seats, layout.pattern
    deck = pattern.deck.size
    empty = Candidates.empty(seats, deck)
    n = len(dealers)
    if not n:
        return empty
    weight_of, ace_of = _card_weights()
    codes = pattern.deck.codes()
    receivers = layout.receivers
    flat = (np.arange(n)[:, None] * receivers + recv[:, codes]).ravel()
    weights = _per_receiver(flat, np.broadcast_to(weight_of[codes], (n, len(codes))).ravel(), n, receivers)
    aces = _per_receiver(flat, np.broadcast_to(ace_of[codes], (n, len(codes))).ravel(), n, receivers)
    hand_of = layout.slot_hand[dealers][:, :seats]  # (n, seats): the pattern's hand each seat received, -1: none
    dealt = hand_of >= 0
    rows = np.arange(n)[:, None]
    seat_weights = np.where(dealt, weights[rows, np.maximum(hand_of, 0)], 0)
    seat_aces = np.where(dealt, aces[rows, np.maximum(hand_of, 0)], 0)
    talon_weight = weights[:, pattern.hands :].sum(axis=1)
    talon_aces = aces[:, pattern.hands :].sum(axis=1)
    table = np.concatenate([seat_weights, talon_weight[:, None]], axis=1)
    received = np.zeros_like(empty.received)
    np.add.at(received[:, :, 0], dealers, dealt.astype(np.int64))
    np.add.at(received[:, :, 1], dealers, seat_aces)
    takers = np.zeros_like(empty.takers)
    declared = (declarers >= 0) & (declarers < seats)
    np.add.at(takers[:, :, 0], (dealers[declared], declarers[declared]), 1)
    np.add.at(takers[:, :, 1], (dealers[declared], declarers[declared]), talon_aces[declared])
    top = [np.column_stack([dealers, np.full(n, k), numbers, lines, table])[table[:, k] > 0] for k in range(seats + 1)]
    cut = depths >= 0
    counts = np.zeros_like(empty.depth_counts)
    np.add.at(counts, (dealers[cut], np.minimum(depths[cut], deck)), 1)
    return Candidates(
        _best(np.concatenate(top)),
        _first(np.column_stack([dealers, depths, numbers, lines])[cut]),
        counts,
        received,
        takers,
    )


def _per_receiver(flat: np.ndarray, values: np.ndarray, n: int, receivers: int) -> np.ndarray:
    summed = np.bincount(flat, weights=values, minlength=n * receivers)
    return np.rint(summed).astype(np.int64).reshape(n, receivers)


def _best(rows: np.ndarray) -> np.ndarray:
    """The ``KEEP`` heaviest rows of each (dealer, receiver); ties to the lower hand number, then the earlier line
    (the order the report draws them in)."""
    if not len(rows):
        return rows
    weight = rows[np.arange(len(rows)), WEIGHTS + rows[:, RECEIVER]]
    order = np.lexsort((rows[:, LINE], rows[:, HAND], -weight, rows[:, RECEIVER], rows[:, DEALER]))
    return rows[order][_ranks(rows[order][:, [DEALER, RECEIVER]]) < KEEP]


def _first(rows: np.ndarray) -> np.ndarray:
    """The ``KEEP`` first rows (by line) of each (dealer, depth)."""
    if not len(rows):
        return rows
    order = np.lexsort((rows[:, 3], rows[:, 1], rows[:, 0]))
    return rows[order][_ranks(rows[order][:, :2]) < KEEP]


def _ranks(groups: np.ndarray) -> np.ndarray:
    """Each sorted row's place within its run of equal group keys."""
    starts = np.r_[True, (groups[1:] != groups[:-1]).any(axis=1)]
    index = np.arange(len(groups))
    return index - np.maximum.accumulate(np.where(starts, index, 0))


def join_candidates(a: Candidates | None, b: Candidates | None) -> Candidates | None:
    """``a`` then ``b``, either possibly absent (a merge that has seen no dealt hand yet)."""
    if a is None or b is None:
        return a if b is None else b
    return a.merge(b)
