"""Sequential detectors: CUSUM at array speed with a simulated threshold, the mixture e-process (anytime-valid)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit.sequential import (
    calibrate_threshold,
    calibrated_threshold,
    cusum_path,
    eprocess_path,
    llr_table,
    stacking_law,
)
from fairdeal.audit.stats import hypergeometric_null
from fairdeal.errors import AuditError

NULL = hypergeometric_null(32, 4, 2).pmf


def test_cusum_by_hand():
    assert cusum_path(np.array([1.0, -2.0, 3.0, 0.5, -1.0])).tolist() == [1.0, 0.0, 3.0, 3.5, 2.5]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=40))
def test_cusum_at_array_speed_is_the_recursion(scores):
    level, expected = 0.0, []
    for x in scores:
        level = max(0.0, level + x)
        expected.append(level)
    assert np.allclose(cusum_path(np.array(scores)), expected)


def test_the_llr_table_compares_each_rate_with_honest_dealing():
    table = llr_table(32, 2, (0.25, 1.0))
    assert np.allclose(np.exp(table[0]) * NULL, stacking_law(hypergeometric_null(32, 4, 2), 32, 2, 0.25))
    assert table[1, 0] == -np.inf and table[1, 2] > table[0, 2] > 0
    with pytest.raises(AuditError, match="cheating rate"):
        llr_table(32, 2, (0.0,))


def test_calibrated_cusum_keeps_its_false_alarm_rate_and_catches_a_stacker():
    rng = np.random.default_rng(3)
    llr = llr_table(32, 2, (0.25,))[0]
    h = calibrate_threshold(llr, NULL, 200, 0.05, rng)
    honest = rng.choice(3, size=(2000, 200), p=NULL)
    peaks = np.array([cusum_path(llr[row]).max() for row in honest])
    assert np.mean(peaks > h) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 2000)
    cheat = rng.choice(3, size=(200, 200), p=stacking_law(hypergeometric_null(32, 4, 2), 32, 2, 0.5))
    assert np.mean([cusum_path(llr[row]).max() > h for row in cheat]) > 0.9
    assert calibrated_threshold("russian", 2, 0.25, 200, 0.05, 0) == calibrated_threshold(
        "russian", 2, 0.25, 200, 0.05, 0
    )
    with pytest.raises(AuditError, match="calibration"):
        calibrate_threshold(llr, NULL, 0, 0.05, rng)


def test_the_eprocess_is_anytime_valid_on_honest_dealers():
    rng = np.random.default_rng(4)
    alpha = 0.05
    crossed = [eprocess_path(rng.choice(3, size=300, p=NULL), 32, 2).max() >= np.log(1 / alpha) for _ in range(1000)]
    assert np.mean(crossed) <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / 1000)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=40))
def test_the_eprocess_is_the_mean_of_the_likelihood_ratios_over_the_grid(aces):
    rates = (0.1, 0.5, 1.0)
    products = [np.prod(np.exp(llr_table(32, 2, (r,))[0][aces])) for r in rates]
    assert np.exp(eprocess_path(np.array(aces), 32, 2, rates)[-1]) == pytest.approx(np.mean(products), rel=1e-9)


def test_the_eprocess_of_a_grid_that_rules_out_the_deals_is_zero_not_nan():
    """A rate of 1 says every talon holds an ace: a talon without one makes its likelihood ratio 0 from then on."""
    path = eprocess_path(np.array([1, 0, 2]), 32, 2, (1.0,))
    assert np.isfinite(path[0]) and np.isneginf(path[1:]).all()


@pytest.mark.parametrize("rate", [0.25, 1.0])
def test_the_calibration_at_array_speed_is_the_step_by_step_peak(rate):
    """The kernel gives exactly the peaks of ``S_t = max(0, S_{t-1} + x_t)`` run deal by deal in numpy; a rate of 1
    has a ratio of 0 (log -inf) for an empty talon, which resets the sum."""
    llr = llr_table(32, 2, (rate,))[0]
    fast = calibrate_threshold(llr, NULL, 1234, 0.05, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    draws = int(np.clip(40_000_000 // 1234, 2_000, 20_000))
    level, peak = np.zeros(draws), np.zeros(draws)
    for start in range(0, 1234, 500):
        width = min(500, 1234 - start)
        scores = llr[np.searchsorted(np.cumsum(NULL), rng.random((draws, width)), side="right").clip(0, 2)]
        for t in range(width):
            level = np.maximum(0.0, level + scores[:, t])
            np.maximum(peak, level, out=peak)
    assert fast == float(np.quantile(peak, 0.95, method="higher"))
