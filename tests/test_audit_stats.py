"""Exact statistics of the auditor: null laws, p-values, combination, multiple testing, mergeable tallies."""

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
    count_aces,
    fisher,
    hand_value_null,
    holm,
    monte_carlo_pvalue,
    stouffer,
    subset_sum_null,
    talon_aces_null,
    talon_rank,
    talon_value_null,
    value_total,
)
from fairdeal.audit.tally import DealerTally, merge, tally_hands
from fairdeal.cards import DeckKind, from_ascii_list
from fairdeal.deal import deal_batch, get_pattern
from fairdeal.errors import AuditError

pvalue_lists = st.lists(st.floats(min_value=1e-12, max_value=1.0), min_size=1, max_size=30)


def honest_orders(m: int, rng: np.random.Generator) -> np.ndarray:
    return np.argsort(rng.random((m, 32)), axis=1).astype(np.uint8)


def test_two_aces_in_the_talon_is_6_in_496():
    # Seed 004: «в прикуп отправляют седьмую и восьмую карты» — two of 32 cards; C(4,2)/C(32,2) = 6/496.
    law = talon_aces_null()
    assert [Fraction(x).limit_denominator(1000) for x in law.pmf] == [Fraction(378, 496), Fraction(112, 496), Fraction(6, 496)]
    assert law.pvalue(2) == pytest.approx(6 / 496, rel=1e-12)
    assert law.pvalue(0) == pytest.approx(1.0)


def test_talon_value_law_matches_the_496_pairs():
    values = DeckKind.PIQUET32.codes() % 8
    sums = np.array([a + b for a, b in combinations(values, 2)])
    law = talon_value_null()
    assert len(sums) == 496
    for total in range(15):
        assert law.prob(total) == pytest.approx(np.count_nonzero(sums == total) / 496, abs=1e-15)


def test_hand_value_mean_is_ten_average_cards():
    assert hand_value_null().mean == pytest.approx(10 * 3.5)
    assert hand_value_null().pmf.sum() == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 7), min_size=1, max_size=9), st.data())
def test_subset_sum_law_is_exact_enumeration(values, data):
    k = data.draw(st.integers(0, len(values)))
    law = subset_sum_null(np.array(values), k)
    counts = np.zeros(len(law.pmf))
    for chosen in combinations(values, k):
        counts[sum(chosen)] += 1
    assert np.allclose(law.pmf * comb(len(values), k), counts)


def test_talon_rank_counts_231_pairs():
    hand = from_ascii_list("7S 8S 9S 10S JS QS KS 7C 8C 9C".split())
    rank = talon_rank(from_ascii_list(["AD", "AH"]), hand)
    assert rank.pairs == comb(22, 2) == 231
    # Four aces lie outside the hand (A♠ A♣ A♦ A♥): six pairs reach the top total 14.
    assert rank.at_least[0] == 6 and rank.pvalue[0] == pytest.approx(6 / 231)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_talon_rank_is_brute_force_rank(seed):
    order = honest_orders(1, np.random.default_rng(seed))[0]
    hand, talon = order[:10], order[10:12]
    outside = [c for c in DeckKind.PIQUET32.codes() if c not in hand]
    totals = [a % 8 + b % 8 for a, b in combinations(outside, 2)]
    expected = sum(t >= value_total(talon) for t in totals)
    assert talon_rank(talon, hand).at_least[0] == expected


def test_talon_rank_rejects_a_talon_card_in_the_hand():
    hand = from_ascii_list("AS 8S 9S 10S JS QS KS 7C 8C 9C".split())
    with pytest.raises(AuditError):
        talon_rank(from_ascii_list(["AS", "AH"]), hand)
    with pytest.raises(AuditError, match="twice"):
        talon_rank(from_ascii_list(["AH", "AH"]), hand)


def test_monte_carlo_pvalue_has_the_plus_one():
    assert monte_carlo_pvalue(5, np.array([1, 2, 5, 6])) == pytest.approx(3 / 5)
    assert monte_carlo_pvalue(99, np.zeros(999)) == pytest.approx(1 / 1000)


@settings(max_examples=30, deadline=None)
@given(pvalue_lists)
def test_fisher_and_stouffer_agree_with_scipy(ps):
    p = np.array(ps)
    assert fisher(p).pvalue == pytest.approx(sps.combine_pvalues(p, method="fisher").pvalue, rel=1e-9, abs=1e-300)
    assert stouffer(p).pvalue == pytest.approx(sps.combine_pvalues(p, method="stouffer").pvalue, rel=1e-7, abs=1e-300)


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
    for law, observed in ((talon_aces_null(), count_aces(talon)), (talon_value_null(), value_total(talon))):
        p = law.randomized_pvalue(observed, rng.random(len(talon)))
        assert sps.kstest(p, "uniform").pvalue > 1e-3
        assert np.mean(law.pvalue(observed) <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(p))


def test_honest_talon_rank_is_a_valid_pvalue():
    rng = np.random.default_rng(11)
    hands, talons = deal_batch(honest_orders(20_000, rng), get_pattern("russian"))
    p = talon_rank(talons[:, 0], hands[:, 0]).pvalue
    for level in (0.01, 0.05, 0.2):
        assert np.mean(p <= level) <= level + 3 * np.sqrt(level / len(p))


tallies = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 14), st.floats(1e-6, 1.0)), max_size=12)


def tally_of(rows) -> DealerTally:
    aces, values, ps = (np.array(col) for col in zip(*rows)) if rows else (np.array([], int),) * 3
    return tally_hands(aces, values, 7.0, 10.0, ps.astype(float))


@settings(max_examples=50, deadline=None)
@given(tallies, tallies, tallies)
def test_tallies_merge_shard_by_shard(a, b, c):
    whole = tally_of(a + b + c)
    merged = merge(merge(tally_of(a), tally_of(b)), tally_of(c))
    other_way = merge(tally_of(c), merge(tally_of(b), tally_of(a)))
    for got in (merged, other_way):
        assert got.hands == whole.hands and got.talon_ace_counts == whole.talon_ace_counts
        assert got.fisher_sum == pytest.approx(whole.fisher_sum) and got.stouffer_sum == pytest.approx(whole.stouffer_sum)
        assert got.talon_value_sum == whole.talon_value_sum and got.smallest_pvalue == whole.smallest_pvalue
    assert merge(DealerTally(), whole) == whole


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=12))
def test_total_talon_aces_test_is_exact(aces):
    tally = tally_hands(np.array(aces), np.zeros(len(aces)), 0.0, 0.0)
    pmf = np.array([1.0])
    for _ in aces:
        pmf = np.convolve(pmf, talon_aces_null().pmf)
    assert tally.talon_aces_test().pvalue == pytest.approx(pmf[sum(aces):].sum(), rel=1e-9)


def test_tally_fisher_equals_direct_fisher():
    p = np.array([0.2, 0.03, 0.7, 0.5])
    tally = tally_hands(np.zeros(4, int), np.zeros(4), 0.0, 0.0, p)
    assert tally.fisher().pvalue == pytest.approx(fisher(p).pvalue)
    assert tally.stouffer().pvalue == pytest.approx(stouffer(p).pvalue)


@settings(max_examples=60, deadline=None)
@given(pvalue_lists, st.floats(0.01, 0.2))
def test_adjustments_from_only_the_small_pvalues_are_exact(ps, alpha):
    p = np.array(ps)
    kept = p[p <= alpha]
    full_holm, full_bh = holm(p), benjamini_hochberg(p)
    part_holm, part_bh = holm(kept, total=len(p)), benjamini_hochberg(kept, total=len(p))
    assert np.allclose(part_holm, full_holm[p <= alpha])
    exact = part_bh <= alpha
    assert np.allclose(part_bh[exact], full_bh[p <= alpha][exact])
    assert (full_bh[p <= alpha][~exact] > alpha).all()
