"""Exact nulls (hypergeometric aces, subset-sum values), the exact talon-aces total and multiple testing."""

from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fairdeal.audit.stats import (
    benjamini_hochberg,
    card_values,
    holm,
    hypergeometric_null,
    subset_sum_null,
    talon_aces_total_pvalue,
)
from fairdeal.cards import DeckKind
from fairdeal.deal import deal_batch, get_pattern
from fairdeal.errors import AuditError

pvalue_lists = st.lists(st.floats(min_value=1e-12, max_value=1.0), min_size=1, max_size=30)
ACES_IN_TALON = hypergeometric_null(32, 4, 2)
TALON_VALUE = subset_sum_null(card_values(DeckKind.PIQUET32.codes()), 2)
HAND_VALUE = subset_sum_null(card_values(DeckKind.PIQUET32.codes()), 10)


def honest_orders(m: int, rng: np.random.Generator) -> np.ndarray:
    return np.argsort(rng.random((m, 32)), axis=1).astype(np.uint8)


def test_two_aces_in_the_talon_is_6_in_496():
    # Seed 004: «в прикуп отправляют седьмую и восьмую карты» — two of 32 cards; C(4,2)/C(32,2) = 6/496.
    law = ACES_IN_TALON
    assert [Fraction(x).limit_denominator(1000) for x in law.pmf] == [
        Fraction(378, 496),
        Fraction(112, 496),
        Fraction(6, 496),
    ]
    assert law.pvalue(2) == pytest.approx(6 / 496, rel=1e-12)
    assert law.pvalue(0) == pytest.approx(1.0)


def test_talon_value_law_matches_the_496_pairs():
    values = DeckKind.PIQUET32.codes() % 8
    sums = np.array([a + b for a, b in combinations(values, 2)])
    assert len(sums) == 496
    for total in range(15):
        assert TALON_VALUE.prob(total) == pytest.approx(np.count_nonzero(sums == total) / 496, abs=1e-15)


def test_hand_value_mean_is_ten_average_cards():
    assert HAND_VALUE.mean == pytest.approx(10 * 3.5)
    assert HAND_VALUE.pmf.sum() == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 7), min_size=1, max_size=9), st.data())
def test_subset_sum_law_is_exact_enumeration(values, data):
    k = data.draw(st.integers(0, len(values)))
    law = subset_sum_null(np.array(values), k)
    counts = np.zeros(len(law.pmf))
    for chosen in combinations(values, k):
        counts[sum(chosen)] += 1
    assert np.allclose(law.pmf * comb(len(values), k), counts)


@settings(max_examples=60, deadline=None)
@given(pvalue_lists)
def test_multiple_testing_adjustments(ps):
    p = np.array(ps)
    h, b = holm(p), benjamini_hochberg(p)
    assert np.allclose(b, sps.false_discovery_control(p, method="bh"))
    assert (h >= p - 1e-15).all() and (b >= p - 1e-15).all() and (h >= b - 1e-12).all()
    order = np.argsort(p, kind="stable")
    assert (np.diff(h[order]) >= -1e-15).all()
    # Holm at level alpha rejects the k smallest while p_(i) <= alpha / (m - i).
    alpha, m = 0.05, len(p)
    sorted_p = p[order]
    k = 0
    while k < m and sorted_p[k] <= alpha / (m - k):
        k += 1
    assert np.count_nonzero(h <= alpha) == k


def test_pvalues_outside_the_unit_interval_are_refused():
    with pytest.raises(AuditError, match="p-values"):
        holm(np.array([0.0, 0.5]))


def test_honest_talon_pvalues_are_uniform():
    rng = np.random.default_rng(7)
    _, talons = deal_batch(honest_orders(20_000, rng), get_pattern("russian"))
    talon = talons[:, 0]
    values = card_values(talon)
    for law, observed in ((ACES_IN_TALON, np.count_nonzero(values == 7, axis=1)), (TALON_VALUE, values.sum(axis=1))):
        p = law.randomized_pvalue(observed, rng.random(len(talon)))
        assert sps.kstest(p, "uniform").pvalue > 1e-3
        assert np.mean(law.pvalue(observed) <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(p))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=12))
def test_total_talon_aces_test_is_exact(aces):
    pmf = np.array([1.0])
    for _ in aces:
        pmf = np.convolve(pmf, ACES_IN_TALON.pmf)
    counts = np.bincount(aces, minlength=3)
    assert talon_aces_total_pvalue(counts, ACES_IN_TALON.pmf) == pytest.approx(pmf[sum(aces) :].sum(), rel=1e-9)
    assert talon_aces_total_pvalue(np.zeros(3), ACES_IN_TALON.pmf) == 1.0
    with pytest.raises(AuditError, match="two-card talon"):
        talon_aces_total_pvalue(np.zeros(4), np.ones(4) / 4)
