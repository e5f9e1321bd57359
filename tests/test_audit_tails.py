"""The audit's tails from scipy.special against scipy.stats: the same numbers, to the last bit where scipy.stats
calls the same function; the binomial law to thirteen digits of the exact one, the hypergeometric law exact."""

from decimal import Decimal, getcontext
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fairdeal.audit import tails

SEEDS = st.integers(0, 2**32 - 1)


@settings(max_examples=50, deadline=None)
@given(SEEDS)
def test_the_normal_and_chi_square_tails_are_scipy_stats_to_the_last_bit(seed):
    rng = np.random.default_rng(seed)
    z, q = rng.normal(size=200) * rng.choice([1.0, 10.0]), rng.random(200)
    x, df = rng.exponential(20.0, size=200), rng.integers(1, 400, size=200)
    assert np.array_equal(tails.normal_sf(z), sps.norm.sf(z))
    assert np.array_equal(tails.normal_isf(q), sps.norm.isf(q))
    assert np.array_equal(tails.normal_ppf(q), sps.norm.ppf(q))
    assert np.array_equal(tails.chi2_sf(x, df), sps.chi2.sf(x, df))
    assert float(tails.normal_sf(1.5)) == float(sps.norm.sf(1.5))


@settings(max_examples=50, deadline=None)
@given(SEEDS)
def test_the_poisson_and_binomial_tails_are_scipy_stats_to_the_last_bit(seed):
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 100_000, size=300)
    p = rng.choice([rng.random(), 0.0, 1.0, 1e-9], size=300, p=[0.85, 0.05, 0.05, 0.05])
    k = np.round(rng.normal(n * p, 3 * np.sqrt(n * p * (1 - p)) + 2)).astype(np.int64)  # below 0 and above n too
    assert np.array_equal(tails.binomial_sf(k, n, p), sps.binom.sf(k, n, p))
    mu = rng.exponential(10.0, size=300)
    j = rng.integers(-3, 60, size=300)
    assert np.array_equal(tails.poisson_sf(j, mu), sps.poisson.sf(j, mu))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 500_000), st.one_of(st.just(0.0), st.floats(1e-300, 1.0)), SEEDS)  # scipy.stats overflows below
def test_the_binomial_law_is_scipy_stats_to_ten_digits(n, p, seed):
    rng = np.random.default_rng(seed)
    k = np.unique(np.clip(np.round(rng.normal(n * p, 10 * np.sqrt(n * p * (1 - p)) + 3, size=400)), 0, n))
    law = tails.binomial_law(n, p)
    assert len(law) == n + 1 and law.sum() == pytest.approx(1.0, rel=1e-12)
    assert np.allclose(law[k.astype(np.int64)], sps.binom.pmf(k, n, p), rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize(
    "n,p,k",
    [
        (353_685, 0.00010590392865880394, 134),
        (353_685, 0.00010590392865880394, 37),
        (1305, 0.578125, 1271),
        (40, 0.5, 3),
    ],
)
def test_the_binomial_law_is_exact_to_thirteen_digits(n, p, k):
    """Against the mass in 60-digit decimals (the first case is one where the tails' difference keeps ten)."""
    getcontext().prec = 60
    chance = Decimal(Fraction(p).numerator) / Decimal(Fraction(p).denominator)
    exact = Decimal(comb(n, k)) * chance**k * (1 - chance) ** (n - k)
    assert abs(Decimal(float(tails.binomial_law(n, p)[k])) - exact) <= exact * Decimal("1e-13")


@pytest.mark.parametrize("n,p", [(0, 0.3), (7, 0.0), (7, 1.0), (1, 0.5), (30, 0.25)])
def test_small_binomial_laws_are_the_definition(n, p):
    exact = [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    assert tails.binomial_law(n, p) == pytest.approx(exact, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("population,marked,drawn", [(32, 4, 2), (32, 4, 10), (24, 4, 4), (52, 13, 13), (5, 5, 5)])
def test_the_hypergeometric_law_is_exact(population, marked, drawn):
    law = tails.hypergeometric_pmf(population, marked, drawn)
    ways = comb(population, drawn)
    for k, mass in enumerate(law):
        assert mass == float(Fraction(comb(marked, k) * comb(population - marked, drawn - k), ways))
    assert law == pytest.approx(sps.hypergeom(population, marked, drawn).pmf(np.arange(len(law))), rel=1e-14)
