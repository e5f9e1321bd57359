import gc

import pytest

from fairdeal.audit.allocator import tune_allocator, without_collector


def test_the_allocator_is_tuned_on_glibc():
    assert tune_allocator() is True  # Debian's glibc takes both thresholds


def test_a_task_runs_with_the_collector_paused_and_restores_it():
    seen = []
    assert without_collector(lambda x: seen.append(gc.isenabled()) or x * 2, 21) == 42
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        without_collector(lambda x: x, 1)
        assert not gc.isenabled()  # a caller that had paused it keeps it paused
    finally:
        gc.enable()


def test_a_failing_task_restores_the_collector():
    def fail(_: int) -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        without_collector(fail, 1)
    assert gc.isenabled()
