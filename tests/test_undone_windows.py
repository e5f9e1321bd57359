"""The auditor's search for shuffle steps that undo each other: linear in the steps, and the same windows as the
definition (every window composed and compared), checked against a direct implementation of it."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairdeal.audit.fastpath import CUT, NO_OP, RUN, CompiledShuffle, step_index, undone_windows
from fairdeal.errors import NotationError
from fairdeal.shuffle.notation import MAX_ACTIONS, parse_notation


def by_definition(compiled: CompiledShuffle, targets: np.ndarray) -> list[tuple[int, int, int, bool]]:
    """Shortest first, a window of two steps or more whose product keeps every receiver's cards, unless it holds
    a window already reported."""
    rows, steps = compiled.kinds.shape
    n = len(targets)
    found, reported = [], set()
    for length in range(2, steps + 1):
        for start in range(steps - length + 1):
            stop = start + length
            for row in range(rows):
                if (compiled.kinds[row, stop - 1 :] != NO_OP).sum() == 0 and compiled.kinds[row, stop - 1] == NO_OP:
                    continue
                if (compiled.kinds[row, start:stop] == NO_OP).any():
                    continue
                perm = np.arange(n)
                for s in range(start, stop):
                    perm = perm[step_index(compiled.kinds[row : row + 1, s], compiled.args[row : row + 1, s], n)[0]]
                if not (targets[perm] == targets).all():
                    continue
                if any(r == row and start <= a and b <= stop for r, a, b in reported):
                    continue
                reported.add((row, start, stop))
                found.append((row, start, stop, bool((perm == np.arange(n)).all())))
    return found


@st.composite
def shuffles(draw):
    rows = draw(st.integers(1, 3))
    steps = draw(st.integers(0, 9))
    kinds = np.full((rows, steps), NO_OP)
    args = np.zeros((rows, steps), dtype=np.int64)
    for row in range(rows):
        for s in range(draw(st.integers(0, steps))):
            kinds[row, s] = draw(st.sampled_from([RUN, CUT]))
            args[row, s] = draw(st.integers(1, 3)) if kinds[row, s] == RUN else draw(st.integers(1, 7))
    targets = np.array(draw(st.lists(st.integers(0, 2), min_size=8, max_size=8)))
    return CompiledShuffle(kinds, args, np.full((rows, steps), -1)), targets


@given(shuffles())
def test_the_linear_search_finds_the_windows_of_the_definition(case):
    compiled, targets = case
    assert sorted(undone_windows(compiled, targets)) == sorted(by_definition(compiled, targets))


def test_a_shuffle_longer_than_the_limit_is_a_notation_error():
    assert len(parse_notation(" ".join(["1"] * MAX_ACTIONS)).actions) == MAX_ACTIONS
    with pytest.raises(NotationError, match="more than 1,000 actions"):
        parse_notation(" ".join(["1"] * (MAX_ACTIONS + 1)))
