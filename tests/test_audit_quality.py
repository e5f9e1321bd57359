"""Shuffle quality against the known order, and the randomness logged actions can carry."""

import math
from fractions import Fraction
from itertools import pairwise, permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit.quality import (
    MEASURES,
    action_bits,
    deal_bits,
    guessing_null,
    guessing_score,
    longest_preserved_block,
    permutation_quality,
    preserved_adjacencies,
    randomness_budget,
    reversed_adjacencies,
    riffle_distance,
    rising_sequence_count,
)
from fairdeal.deal import get_pattern
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Cut, Overhand, Riffle
from fairdeal.shuffle.theory import total_variation

RUSSIAN = get_pattern("russian")
perms32 = st.permutations(list(range(32))).map(np.array)


def all_perms(n: int) -> np.ndarray:
    return np.array(list(permutations(range(n))))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_rising_sequence_mean_is_n_plus_one_over_two(n):
    counts = rising_sequence_count(all_perms(n))
    assert counts.mean() == pytest.approx((n + 1) / 2)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("cyclic", [False, True])
def test_guessing_score_law_under_uniform_is_exact(n, cyclic):
    scores = guessing_score(all_perms(n), cyclic=cyclic)
    assert np.allclose(np.bincount(scores, minlength=n + 1) / math.factorial(n), guessing_null(n).pmf)
    assert guessing_null(n).mean == pytest.approx(sum(1 / k for k in range(1, n + 1)))


def test_runs_leave_reversed_pairs_and_a_cut_keeps_the_cycle():
    # Seed 004: «"4" – тасовка по одной карте четырёх карт ... порядок следования тасованных карт меняется на обратный».
    run = parse_notation("4").permutation(32)
    assert reversed_adjacencies(run) == 3 and preserved_adjacencies(run) == 27
    cut = parse_notation("cut 12").permutation(32)
    assert preserved_adjacencies(cut) == 30 and preserved_adjacencies(cut, cyclic=True) == 32
    assert longest_preserved_block(cut) == 20 and longest_preserved_block(cut, cyclic=True) == 32
    assert rising_sequence_count(cut) == 2 and rising_sequence_count(cut, rotation_invariant=True) == 1
    assert guessing_score(np.arange(32)) == 32


def longest_block_by_hand(p) -> int:
    best = run = 1
    for a, b in pairwise(p):
        run = run + 1 if b == a + 1 else 1
        best = max(best, run)
    return best


@settings(max_examples=60, deadline=None)
@given(perms32, st.integers(1, 31), st.integers(1, 31))
def test_cyclic_measures_forgive_cuts(p, before_cut, after_cut):
    assert longest_preserved_block(p) == longest_block_by_hand(list(p))
    cut_before, cut_after = Cut(before_cut).permutation(32), Cut(after_cut).permutation(32)
    moved = cut_before[p][cut_after]  # cut, the shuffle p, cut again
    for measure in (preserved_adjacencies, reversed_adjacencies, longest_preserved_block):
        assert measure(moved, cyclic=True) == measure(p, cyclic=True)


@settings(max_examples=40, deadline=None)
@given(st.permutations(list(range(8))).map(np.array), st.integers(1, 7), st.integers(1, 7))
def test_rotation_invariant_rising_sequences_forgive_cuts(p, before_cut, after_cut):
    moved = Cut(before_cut).permutation(8)[p][Cut(after_cut).permutation(8)]
    assert rising_sequence_count(moved, rotation_invariant=True) == rising_sequence_count(p, rotation_invariant=True)
    assert rising_sequence_count(p, rotation_invariant=True) <= rising_sequence_count(p)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.permutations(list(range(n)))).map(np.array))
def test_rotation_invariant_rising_sequences_are_the_least_over_every_pair_of_cuts(p):
    n = len(p)
    least = min(
        rising_sequence_count(np.roll((p - before_cut) % n, -after_cut))
        for before_cut in range(n)
        for after_cut in range(n)
    )
    assert rising_sequence_count(p, rotation_invariant=True) == least


def test_batch_quality_matches_single_hands():
    rng = np.random.default_rng(1)
    perms = np.array([rng.permutation(32) for _ in range(5)])
    report = permutation_quality(perms)
    assert report.measures.shape == (5, len(MEASURES))
    for i, p in enumerate(perms):
        assert report.measure("preserved")[i] == preserved_adjacencies(p)
        assert report.measure("cyclic_guessing")[i] == guessing_score(p, cyclic=True)
        assert report.measure("rising")[i] == rising_sequence_count(p)
        assert report.measure("cyclic_rising")[i] == rising_sequence_count(p, rotation_invariant=True)


def test_honest_guessing_pvalues_are_valid():
    rng = np.random.default_rng(2)
    after = np.argsort(rng.random((20_000, 32)), axis=1)
    p = permutation_quality(after).cyclic_guessing_pvalue
    for level in (0.01, 0.05, 0.2):
        assert np.mean(p <= level) <= level + 3 * np.sqrt(level / len(p))


def test_card_by_card_and_logged_actions_carry_no_randomness():
    pattern = "LR" * 8 + "R" * 16
    budget = randomness_budget(parse_notation(f"2 4 2 8 riffle 8 {pattern} cut 12"), RUSSIAN)
    assert budget.per_action == (0.0,) * 6 and budget.total == 0.0 and not budget.can_randomise_deal
    unlogged = randomness_budget(parse_notation("riffle ? riffle ? riffle ? riffle ? cut ?"), RUSSIAN)
    assert unlogged.per_action[0] == pytest.approx(math.log2(2**32 - 32))
    assert unlogged.per_action[-1] == pytest.approx(math.log2(32 - 8 + 1))
    assert unlogged.total == pytest.approx(math.log2(math.factorial(32)))
    assert unlogged.can_randomise_deal


def test_deal_bits_counts_distinct_deals():
    ways = math.factorial(32) // (math.factorial(10) ** 3 * 2)
    assert deal_bits(RUSSIAN) == pytest.approx(math.log2(ways))


def test_outcome_counts_by_enumeration_on_six_cards():
    n = 6
    riffles = {
        tuple(Riffle(pat.count("L"), pat).permutation(n)) for pat in ("".join(x) for x in product("LR", repeat=n))
    }
    assert len(riffles) == 2**n - n == pytest.approx(2 ** action_bits(Riffle(None, None), n))
    overhands = set()
    for cuts in product([0, 1], repeat=n - 1):
        edges = [0] + [i + 1 for i, c in enumerate(cuts) if c] + [n]
        overhands.add(tuple(Overhand(tuple(np.diff(edges).tolist())).permutation(n)))
    assert len(overhands) == 2 ** (n - 1) == pytest.approx(2 ** action_bits(Overhand(None), n))


def test_riffle_distance_calls_bayer_diaconis():
    assert riffle_distance(parse_notation("riffle ? 4 riffle ? cut 8"), 32) == total_variation(32, 2)
    assert riffle_distance(parse_notation("2 4"), 32) == 1 - Fraction(1, math.factorial(32))
