"""Exact laws of what a uniformly dealt set of cards holds: its aces, its longest suit, its high-card points and
its low cards (the deck's two lowest ranks), and the tails a test of steering counts.

A hand or talon of ``k`` cards is a uniform ``k``-subset of the deck: aces and low cards are hypergeometric, the
high-card points (A 4, K 3, Q 2, J 1) follow the exact subset-sum law, and the longest suit's law sums the
multivariate hypergeometric weights of every suit split ``c1 + c2 + c3 + c4 = k``.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from math import comb

import numpy as np

from fairdeal.audit.stats import hypergeometric_null, subset_sum_null
from fairdeal.cards import CARDS_PER_SUIT, NUM_CODES, DeckKind, Rank, Suit, rank_of
from fairdeal.errors import AuditError

FEATURES = ("aces", "longest suit", "high-card points", "low cards")
ACES, LONGEST, POINTS, LOW = range(len(FEATURES))
WIDTH = 41  # values 0..40 cover every feature of any hand (the 16 honours make 40 points)
TAIL = 0.01  # each tail is the most extreme values whose honest chance is at least this: a forced extreme stands out
LOW_RANKS = 2
POINTS_OF_RANK = {Rank.ACE: 4, Rank.KING: 3, Rank.QUEEN: 2, Rank.JACK: 1}


@dataclass(frozen=True)
class FeatureLaw:
    """One feature's honest law for ``k`` cards, and the tails a test counts: ``value >= high``, ``value <= low``."""

    pmf: np.ndarray  # on 0..WIDTH-1
    high: int
    low: int

    @property
    def p_high(self) -> float:
        return float(self.pmf[self.high :].sum())

    @property
    def p_low(self) -> float:
        return float(self.pmf[: self.low + 1].sum())


def card_points(deck: DeckKind) -> np.ndarray:
    """High-card points by card code (0 off the deck)."""
    ranks = rank_of(np.arange(NUM_CODES))
    points = np.array([POINTS_OF_RANK.get(Rank(int(r)), 0) for r in ranks], dtype=np.int64)
    return np.where(_in_deck(deck), points, 0)


def _in_deck(deck: DeckKind) -> np.ndarray:
    return np.isin(np.arange(NUM_CODES), deck.codes())


def _low_mask(deck: DeckKind) -> np.ndarray:
    ranks = rank_of(np.arange(NUM_CODES))
    lowest = int(deck.lowest_rank)
    return _in_deck(deck) & (ranks >= lowest) & (ranks < lowest + LOW_RANKS)


@functools.lru_cache(maxsize=8)
def code_features(deck: DeckKind) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per card code what ``feature_values`` counts: an ace, its suit, its high-card points, a low card."""
    codes = np.arange(NUM_CODES)
    ace = (rank_of(codes) == int(Rank.ACE)).astype(np.uint8)
    return ace, codes // CARDS_PER_SUIT, card_points(deck), _low_mask(deck).astype(np.uint8)


def feature_values(held: np.ndarray, deck: DeckKind) -> np.ndarray:
    """``(m, len(FEATURES))`` feature values of ``(m, NUM_CODES)`` held-card masks."""
    held = np.asarray(held, dtype=bool)
    out = np.empty((len(held), len(FEATURES)), dtype=np.int64)
    out[:, ACES] = np.count_nonzero(held & (rank_of(np.arange(NUM_CODES)) == int(Rank.ACE))[None, :], axis=1)
    # Codes run suit by suit, CARDS_PER_SUIT each: a reshape gives the suit lengths.
    out[:, LONGEST] = held.reshape(len(held), len(Suit), CARDS_PER_SUIT).sum(axis=2).max(axis=1)
    out[:, POINTS] = held.astype(np.int64) @ card_points(deck)
    out[:, LOW] = np.count_nonzero(held & _low_mask(deck)[None, :], axis=1)
    return out


def longest_suit_pmf(suit_size: int, suits: int, k: int) -> np.ndarray:
    """The law of the longest suit of a uniform ``k``-subset of ``suits`` suits of ``suit_size`` cards."""
    if not 0 <= k <= suit_size * suits:
        raise AuditError(f"cannot choose {k} of {suit_size * suits} cards")
    pmf = np.zeros(suit_size + 1)
    for split in itertools.product(range(suit_size + 1), repeat=suits):
        if sum(split) == k:
            pmf[max(split)] += np.prod([comb(suit_size, c) for c in split], dtype=float)
    returned: np.ndarray = pmf / comb(suit_size * suits, k)
    return returned


def _padded(pmf: np.ndarray) -> np.ndarray:
    out = np.zeros(WIDTH)
    out[: len(pmf)] = pmf
    return out


def tails(pmf: np.ndarray, tail: float = TAIL) -> tuple[int, int]:
    """``(high, low)``: the largest ``high`` with ``P(X >= high) >= tail``, the smallest ``low`` with
    ``P(X <= low) >= tail``."""
    upper = np.cumsum(pmf[::-1])[::-1]
    lower = np.cumsum(pmf)
    return int(np.flatnonzero(upper >= tail - 1e-12)[-1]), int(np.flatnonzero(lower >= tail - 1e-12)[0])


@functools.lru_cache(maxsize=64)
def feature_law(deck: DeckKind, k: int, feature: int) -> FeatureLaw:
    """The honest law of ``FEATURES[feature]`` for ``k`` cards dealt uniformly from ``deck``."""
    n = deck.size
    if feature == ACES:
        pmf = hypergeometric_null(n, len(Suit), k).pmf
    elif feature == LOW:
        pmf = hypergeometric_null(n, len(Suit) * LOW_RANKS, k).pmf
    elif feature == POINTS:
        pmf = subset_sum_null(card_points(deck)[deck.codes()], k).pmf
    elif feature == LONGEST:
        pmf = longest_suit_pmf(n // len(Suit), len(Suit), k)
    else:
        raise AuditError(f"no feature number {feature}")
    full = _padded(np.asarray(pmf, dtype=float))
    high, low = tails(full)
    return FeatureLaw(full, high, low)
