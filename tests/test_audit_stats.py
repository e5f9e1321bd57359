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
    compositions,
    holm,
    hypergeometric_null,
    mixture_power_bound,
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


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 400_000),
    st.integers(-50, 3000),
    st.integers(0, 2**32 - 1),
    st.sampled_from([(32, 4, 2), (24, 4, 2), (36, 4, 2)]),
)
def test_the_total_talon_aces_sum_skips_only_doubles_of_no_weight(deals, shift, seed, shape):
    """The sum runs over the two-ace counts whose probability is not 0 in floating point: the tail over every count
    (the definition) to the last digits, for honest counts and for counts with talons stacked or starved."""
    pmf = hypergeometric_null(*shape).pmf
    p0, p1, p2 = pmf
    counts = np.random.default_rng(seed).multinomial(deals, pmf)
    moved = int(np.clip(shift, -counts[1], counts[0]))  # talons with no ace given one, or one taken
    counts += np.array([-moved, moved, 0])
    observed = int(counts[1] + 2 * counts[2])
    every = np.arange(deals + 1)
    full = sps.binom.pmf(every, deals, p2) @ sps.binom.sf(observed - 2 * every - 1, deals - every, p1 / (p0 + p1))
    assert talon_aces_total_pvalue(counts, pmf) == pytest.approx(min(1.0, full), rel=1e-9, abs=1e-300)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3))
def test_compositions_are_every_split_once(total, parts):
    rows = compositions(total, parts)
    assert (rows.sum(axis=1) == total).all() and (rows >= 0).all()
    assert len({tuple(r) for r in rows}) == len(rows) == comb(total + parts - 1, parts - 1)


def test_the_power_bound_is_the_level_without_a_cheat_and_beats_the_total_test():
    honest = hypergeometric_null(32, 4, 2).pmf
    stacked = np.array([0.0, 28 / 31, 3 / 31])  # an ace placed in the talon, the other card any of the 31
    assert mixture_power_bound(honest, stacked, 0.0, 40, 0.01) == pytest.approx(0.01)
    # The exact total-aces test at the same level, randomised on its boundary, is one of the tests the bound
    # covers: its power is computed from the exact laws of the total under both hypotheses.
    deals, level = 60, 0.01
    for rate in (0.1, 0.25):
        cheated = (1 - rate) * honest + rate * stacked
        law0, law1 = np.array([1.0]), np.array([1.0])
        for _ in range(deals):
            law0, law1 = np.convolve(law0, honest), np.convolve(law1, cheated)
        tail0 = np.cumsum(law0[::-1])[::-1]
        k = int(np.flatnonzero(tail0 <= level)[0])
        total_power = law1[k:].sum() + law1[k - 1] * (level - tail0[k]) / law0[k - 1]
        bound = mixture_power_bound(honest, stacked, rate, deals, level)
        assert total_power <= bound + 1e-9
        assert bound < 1.0
    assert mixture_power_bound(honest, stacked, 0.1, 100, 0.01) < mixture_power_bound(honest, stacked, 0.25, 100, 0.01)


def test_the_power_bound_matches_a_simulated_neyman_pearson_test():
    """A check by simulation of the exact bound: the likelihood ratio test at its exact honest quantile."""
    rng = np.random.default_rng(4)
    honest = np.array([0.5, 0.3, 0.2])
    cheat = np.array([0.0, 0.2, 0.8])
    rate, deals, level = 0.3, 30, 0.05
    weights = np.log(((1 - rate) * honest + rate * cheat) / honest)
    h0 = rng.multinomial(deals, honest, size=200_000) @ weights
    h1 = rng.multinomial(deals, (1 - rate) * honest + rate * cheat, size=200_000) @ weights
    cut = np.quantile(h0, 1 - level)
    simulated = np.mean(h1 > cut + 1e-12) + np.mean(np.isclose(h1, cut)) * (
        (level - np.mean(h0 > cut + 1e-12)) / max(np.mean(np.isclose(h0, cut)), 1e-12)
    )
    assert mixture_power_bound(honest, cheat, rate, deals, level) == pytest.approx(simulated, abs=0.01)


def test_the_power_bound_refuses_laws_that_do_not_fit():
    with pytest.raises(AuditError, match="pmfs"):
        mixture_power_bound(np.array([0.5, 0.5]), np.array([1.0]), 0.1, 5, 0.01)
    with pytest.raises(AuditError, match="level"):
        mixture_power_bound(np.array([0.5, 0.5]), np.array([0.0, 1.0]), 0.1, 5, 1.5)
