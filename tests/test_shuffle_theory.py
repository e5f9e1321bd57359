"""Exact Bayer-Diaconis distances, checked against the published table and against brute-force enumeration."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.errors import ShuffleError
from fairdeal.shuffle import (
    Riffle,
    arrangement_probability,
    compose,
    eulerian_row,
    riffle_permutation,
    riffle_table,
    rising_sequence_distribution,
    rising_sequences,
    separation,
    total_variation,
)

# Bayer & Diaconis (1992), "Trailing the dovetail shuffle to its lair", total variation for 52 cards.
PUBLISHED_TV_52 = [1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043]


def test_reproduces_the_published_52_card_table():
    assert [round(float(row.tv), 3) for row in riffle_table(52, 10)] == PUBLISHED_TV_52


def test_eulerian_rows():
    assert eulerian_row(1) == (1,)
    assert eulerian_row(4) == (1, 11, 11, 1)
    assert eulerian_row(5) == (1, 26, 66, 26, 1)
    for n in range(1, 12):
        assert sum(eulerian_row(n)) == math.factorial(n)


@pytest.mark.parametrize("n, k", [(1, 0), (5, 1), (8, 3), (52, 7), (13, 20)])
def test_rising_sequence_distribution_sums_to_one(n, k):
    assert sum(rising_sequence_distribution(n, k)) == 1


def _exact_distribution_by_enumeration(n: int, k: int) -> Counter:
    """Every GSR riffle is one of the 2^n L/R patterns, each with probability 2^-n: enumerate k of them."""
    riffles = [riffle_permutation(np.array(bits, dtype=bool)) for bits in itertools.product((True, False), repeat=n)]
    weight = Fraction(1, 2 ** (k * n))
    counts: Counter = Counter()
    for chosen in itertools.product(riffles, repeat=k):
        counts[tuple(compose(*chosen).tolist())] += weight
    return counts


@pytest.mark.parametrize("n, k", [(3, 1), (4, 1), (4, 2), (5, 2), (3, 3)])
def test_formula_matches_enumeration_of_all_riffles(n, k):
    distribution = _exact_distribution_by_enumeration(n, k)
    for perm in itertools.permutations(range(n)):
        expected = arrangement_probability(n, k, rising_sequences(np.array(perm)))
        assert distribution.get(perm, Fraction(0)) == expected
    uniform = Fraction(1, math.factorial(n))
    tv = sum(abs(distribution.get(p, Fraction(0)) - uniform) for p in itertools.permutations(range(n))) / 2
    assert tv == total_variation(n, k)
    least = min(distribution.get(p, Fraction(0)) for p in itertools.permutations(range(n)))
    assert 1 - math.factorial(n) * least == separation(n, k)


def test_distances_shrink_with_more_riffles():
    rows = riffle_table(32, 15)
    assert all(a.tv >= b.tv and a.separation >= b.separation for a, b in itertools.pairwise(rows))
    assert rows[-1].tv < Fraction(1, 100)
    assert all(row.separation >= row.tv for row in rows)


def test_rising_sequences_of_simple_arrangements():
    assert rising_sequences(np.arange(10)) == 1
    assert rising_sequences(np.arange(10)[::-1]) == 10
    assert rising_sequences(Riffle(3, "LRRLRLRR").permutation(8)) == 2


def _rising_sequences_by_passes(deck: list[int]) -> int:
    """The magician's count: sweep the deck top to bottom picking labels 0, 1, 2, ... in turn; count sweeps."""
    wanted, sweeps = 0, 0
    while wanted < len(deck):
        sweeps += 1
        for label in deck:
            if label == wanted:
                wanted += 1
    return sweeps


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 30), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_rising_sequences_of_a_batch_equal_per_row_counts(n, m, seed):
    batch = np.argsort(np.random.default_rng(seed).random((m, n)), axis=1)
    counts = rising_sequences(batch)
    assert counts.tolist() == [rising_sequences(row) for row in batch]
    assert counts.tolist() == [_rising_sequences_by_passes(row.tolist()) for row in batch]


@pytest.mark.parametrize(
    "call",
    [
        lambda: total_variation(0, 3),
        lambda: separation(5, -1),
        lambda: arrangement_probability(4, 1, 5),
        lambda: riffle_table(8, 0),
        lambda: rising_sequences(np.zeros((2, 2, 2), dtype=int)),
    ],
)
def test_bad_arguments_raise_shuffle_error(call):
    with pytest.raises(ShuffleError):
        call()
