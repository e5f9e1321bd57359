"""The exact per-hand statistics of honest dealing, computed for a whole block of deals at once.

Null models (stated in the report): an honest deal is a uniformly random deal of the deck, so the talon's aces
are hypergeometric, its value and each hand's value follow the exact subset-sum laws, and the talon is a uniform
pair of the cards outside any one seat's hand. Per-hand p-values break ties with a uniform draw, so they are
exactly uniform under the null and Fisher's combination of them is exact. The tie-breaking draws come from the
deal itself (``DealDraws``): a fixed-seed stream would give every log the same draws, and conditionally on fixed
draws a discrete p-value is not uniform, so each log's Fisher test would have its own real level, not alpha; the
deal's own draws also make the verdict independent of how the log is split into blocks.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from fairdeal.audit.battery import battery_part, deal_keys, join, median_split
from fairdeal.audit.fastpath import Layout
from fairdeal.audit.stats import DiscreteNull, card_values, hypergeometric_null, subset_sum_null
from fairdeal.audit.summary import BlockContext, BlockSummary
from fairdeal.cards import NUM_CODES, Rank, rank_of
from fairdeal.deal import get_pattern

if TYPE_CHECKING:
    from fairdeal.deal import DealPattern

ACE = int(Rank.ACE)
TINY = np.finfo(float).tiny
_MIX = np.random.default_rng(20261202).integers(1, 2**63, size=NUM_CODES, dtype=np.uint64) | np.uint64(1)


class Uniforms(Protocol):
    def random(self, size: int) -> np.ndarray: ...


class DealDraws:
    """Uniform draws that are a pseudo-random function of each deal (a 64-bit mix of its receivers): the same in
    every worker and block split, different from log to log."""

    def __init__(self, recv: np.ndarray) -> None:
        with np.errstate(over="ignore"):
            self._key = ((recv.astype(np.uint64) + np.uint64(1)) * _MIX[None, : recv.shape[1]]).sum(
                axis=1, dtype=np.uint64
            )
        self._drawn = 0

    def random(self, size: int) -> np.ndarray:
        assert size == len(self._key)  # one draw per deal each time
        self._drawn += 1
        with np.errstate(over="ignore"):
            x = self._key + np.uint64(self._drawn) * np.uint64(0x9E3779B97F4A7C15)
            x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            x ^= x >> np.uint64(31)
        returned: np.ndarray = (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        return returned


@dataclass(frozen=True)
class Laws:
    """The exact per-hand nulls of a pattern."""

    talon_aces: DiscreteNull
    talon_value: DiscreteNull
    hand_value: DiscreteNull
    values: np.ndarray  # value of each card code (0 for codes outside the deck)
    aces: np.ndarray  # ace mask by code
    median: int
    in_deck: np.ndarray  # mask by code


def laws_for(layout: Layout) -> Laws:
    return _laws(layout.pattern.name)


@functools.lru_cache(maxsize=16)
def _laws(pattern_name: str) -> Laws:
    pattern = get_pattern(pattern_name)
    deck = pattern.deck.codes()
    values = np.zeros(NUM_CODES, dtype=np.int64)
    values[deck] = card_values(deck)
    talon_cards = pattern.talons * pattern.talon_size
    return Laws(
        hypergeometric_null(pattern.deck.size, 4, talon_cards, "aces in the talon"),
        subset_sum_null(card_values(deck), talon_cards, "value of the talon"),
        subset_sum_null(card_values(deck), pattern.cards_per_hand, "value of a hand"),
        values,
        (rank_of(np.arange(NUM_CODES)) == ACE) & np.isin(np.arange(NUM_CODES), deck),
        median_split(card_values(deck), pattern.cards_per_hand),
        np.isin(np.arange(NUM_CODES), deck),
    )


def randomized_upper(law: DiscreteNull, observed: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """``P(X > x) + U P(X = x)``: exactly uniform under the law, kept inside (0, 1]."""
    returned: np.ndarray = np.clip(law.randomized_pvalue(observed, uniform), TINY, 1.0)
    return returned


def hand_seats(layout: Layout) -> np.ndarray:
    """``(dealers, hands)``: the seat holding each hand index (-1 for a dummy)."""
    seats = np.full((layout.num_seats, layout.pattern.hands), -1, dtype=np.int64)
    for dealer in range(layout.num_seats):
        for slot, hand in enumerate(layout.slot_hand[dealer]):
            if hand >= 0 and slot < layout.num_seats:
                seats[dealer, hand] = slot
    return seats


def fold_deals(
    summary: BlockSummary,
    recv: np.ndarray,
    dealers: np.ndarray,
    numbers: np.ndarray,
    layout: Layout,
    context: BlockContext,
) -> None:
    """Fold deals (``(m, codes)`` receivers, in log order) into a summary: sums, sequences, battery. The
    tie-breaking draws are the deals' own (``DealDraws``)."""
    laws = laws_for(layout)
    pvalues = hand_pvalues(recv, layout, laws, DealDraws(recv))
    sums = summary.sums
    talon = recv >= layout.pattern.hands
    aces = np.count_nonzero(talon & laws.aces[None, :], axis=1)
    np.add.at(sums.ace_counts, (dealers, aces), 1)
    np.add.at(sums.talon_value, dealers, (laws.values[None, :] * talon).sum(axis=1))
    seats = hand_seats(layout)[dealers]
    for (kind, hand), p in pvalues.items():
        if hand < 0:
            continue
        fisher, count = (
            (sums.hand_fisher, sums.hand_tests) if kind == "hand value" else (sums.rank_fisher, sums.rank_tests)
        )
        np.add.at(fisher, (dealers, seats[:, hand]), -2.0 * np.log(p))
        np.add.at(count, (dealers, seats[:, hand]), 1)
    sums.uniform_pvalues += len(recv)
    summary.hand_numbers = np.concatenate([summary.hand_numbers, numbers])
    summary.dealers = np.concatenate([summary.dealers, dealers.astype(np.int16)])
    summary.talon_aces = np.concatenate([summary.talon_aces, aces.astype(np.int8)])
    if context.digital:
        summary.keys = np.concatenate([summary.keys, deal_keys(recv, layout.receivers)])
        first_value = (laws.values[None, :] * (recv == 0)).sum(axis=1)
        part = battery_part(recv, (first_value > laws.median).astype(np.int64), layout.receivers)
        summary.battery = join(summary.battery, part)


def hand_pvalues(recv: np.ndarray, layout: Layout, laws: Laws, rng: Uniforms) -> dict[tuple[str, int], np.ndarray]:
    """Per-hand randomized p-values, exactly uniform for honest deals: ``{("hand value" | "talon rank", hand): p}``.

    Also ``("talon aces", -1)`` and ``("talon value", -1)`` (not folded: their totals are tested exactly).
    """
    pattern = layout.pattern
    m = len(recv)
    talon = recv >= pattern.hands
    # One integer product a receiver, not an (m, codes) temporary summed.
    values = laws.values.astype(np.int64)
    talon_value = talon.astype(np.int8) @ values
    out = {
        ("talon aces", -1): randomized_upper(
            laws.talon_aces, np.count_nonzero(talon & laws.aces[None, :], axis=1), rng.random(m)
        ),
        ("talon value", -1): randomized_upper(laws.talon_value, talon_value, rng.random(m)),
    }
    single_pair = pattern.talons * pattern.talon_size == 2
    for hand in pattern.player_hands:
        held = recv == hand
        value = held.astype(np.int8) @ values
        out["hand value", hand] = randomized_upper(laws.hand_value, value, rng.random(m))
        if single_pair:
            out["talon rank", hand] = talon_rank_pvalues(held, talon_value, laws, pattern, rng.random(m))
    return out


def talon_rank_pvalues(
    held: np.ndarray, talon_value: np.ndarray, laws: Laws, pattern: DealPattern, uniform: np.ndarray
) -> np.ndarray:
    """Where the talon's value stands among every pair of the cards outside one seat's hand (exact, randomized).

    The seat sees its own hand, so under honest dealing the talon is a uniform pair of the other cards. Pairs are
    counted by value from the outside cards' value histogram: ``c_a c_b`` pairs of values a < b, ``C(c_a, 2)`` of a, a.
    """
    top = int(laws.values.max())
    outside = laws.in_deck[None, :] & ~held
    # Outside cards by value, every value in one integer product (numpy's own loop: no BLAS threads per block).
    by_value = (laws.values[:, None] == np.arange(top + 1)[None, :]).astype(np.int64)
    hist = (outside.astype(np.int64) @ by_value).astype(np.float64)
    by_sum = np.zeros((len(held), 2 * top + 1))
    for a in range(top + 1):
        by_sum[:, 2 * a] += hist[:, a] * (hist[:, a] - 1) / 2
        for b in range(a + 1, top + 1):
            by_sum[:, a + b] += hist[:, a] * hist[:, b]
    pairs = by_sum[0].sum()
    above_table = np.cumsum(by_sum[:, ::-1], axis=1)[:, ::-1]  # pairs with sum >= s
    t = talon_value.astype(np.int64)
    rows = np.arange(len(held))
    tied = by_sum[rows, t]
    above = above_table[rows, t] - tied
    returned: np.ndarray = np.clip((above + uniform * tied) / pairs, TINY, 1.0)
    return returned
