"""Sequential detectors: CUSUM with a simulated threshold, its mergeable segment form, the mixture e-process."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit.sequential import (
    CusumSegment,
    MixtureEProcess,
    ace_stacking_test,
    calibrate_cusum,
    cusum_paths,
    eprocess_of,
    eprocess_paths,
    first_alarm,
)
from fairdeal.audit.stats import talon_aces_null
from fairdeal.errors import AuditError

scores = st.lists(st.floats(-5, 5, allow_nan=False), max_size=25)


def test_cusum_recursion_by_hand():
    assert cusum_paths(np.array([1.0, -2.0, 3.0, 0.5, -1.0])).tolist() == [1.0, 0.0, 3.0, 3.5, 2.5]
    assert first_alarm(np.array([1.0, 0.0, 3.0, 3.5]), 3.0) == 3
    assert first_alarm(np.array([1.0, 0.0]), 3.0) == -1


@settings(max_examples=80, deadline=None)
@given(scores, scores, scores, st.floats(0, 10))
def test_cusum_segments_merge_like_one_run(a, b, c, start):
    whole = np.array(a + b + c)
    level, peak = start, -np.inf
    for x in whole:
        level = max(0.0, level + x)
        peak = max(peak, level)
    merged = CusumSegment.of(np.array(a)).merge(CusumSegment.of(np.array(b))).merge(CusumSegment.of(np.array(c)))
    regrouped = CusumSegment.of(np.array(a)).merge(CusumSegment.of(np.array(b)).merge(CusumSegment.of(np.array(c))))
    for seg in (merged, regrouped):
        assert seg.hands == len(whole)
        assert seg.end(start) == pytest.approx(level)
        assert seg.peak(start) == pytest.approx(peak) if len(whole) else seg.peak(start) == -np.inf


def test_ace_stacking_alternative_is_a_law():
    test = ace_stacking_test(0.25)
    assert test.alternative.sum() == pytest.approx(1.0)
    assert test.alternative[2] > test.null[2] and test.llr[0] < 0 < test.llr[1]
    with pytest.raises(AuditError):
        ace_stacking_test(0.0)


def test_calibrated_cusum_keeps_its_false_alarm_rate_and_catches_a_stacker():
    rng = np.random.default_rng(3)
    test = ace_stacking_test(0.25)
    detector = calibrate_cusum(test, horizon=200, false_alarm=0.05, draws=4000, rng=rng)
    honest = talon_aces_null().sample((4000, 200), rng)
    rate = np.mean(detector.alarm_at(honest) >= 0)
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    cheat = rng.choice(3, size=(500, 200), p=test.alternative)
    alarms = detector.alarm_at(cheat)
    assert np.mean(alarms >= 0) > 0.9


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2), max_size=30), st.lists(st.integers(0, 2), max_size=30))
def test_eprocess_merges_by_addition(a, b):
    merged = eprocess_of(np.array(a, dtype=int)).merge(eprocess_of(np.array(b, dtype=int)))
    whole = eprocess_of(np.array(a + b, dtype=int))
    assert merged.hands == whole.hands
    assert merged.log_evalue == pytest.approx(whole.log_evalue)
    if a + b:
        assert eprocess_paths(np.array(a + b))[-1] == pytest.approx(whole.log_evalue)
    assert MixtureEProcess.empty().log_evalue == pytest.approx(0.0)


def test_eprocess_is_anytime_valid_on_honest_dealers():
    rng = np.random.default_rng(5)
    honest = talon_aces_null().sample((4000, 300), rng)
    ever = (eprocess_paths(honest) >= np.log(1 / 0.05)).any(axis=1)
    assert ever.mean() <= 0.05
