"""The bulk audit's C kernels (``fairdeal.audit.kernels``) against their numpy and by-definition references, on
random inputs: op tables, permutations and depth values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit import kernels
from fairdeal.audit.actors.cutter import _counted_ranks, _score_table, _sorted_ranks, tail_scores
from fairdeal.audit.actors.value import card_points, decks_by_depth, receiver_values
from fairdeal.audit.fastpath import CUT, NO_OP, RUN, step_index
from fairdeal.audit.quality import (
    MEASURES,
    guessing_score,
    longest_preserved_block,
    preserved_adjacencies,
    reversed_adjacencies,
    rising_sequence_count,
)
from fairdeal.deal import get_pattern


@st.composite
def op_tables(draw, max_n: int = 40):
    n = draw(st.integers(1, max_n))
    rows = draw(st.integers(1, 6))
    steps = draw(st.integers(0, 12))
    kinds = np.array(draw(st.lists(st.sampled_from([NO_OP, RUN, CUT]), min_size=rows * steps, max_size=rows * steps)))
    args = np.array(draw(st.lists(st.integers(0, n), min_size=rows * steps, max_size=rows * steps)))
    return n, kinds.reshape(rows, steps).astype(np.int64), args.reshape(rows, steps).astype(np.int64)


def gathered(orders: np.ndarray, kinds: np.ndarray, args: np.ndarray) -> np.ndarray:
    """The numpy replay: one gather by ``step_index`` per step."""
    n = orders.shape[1]
    current = orders
    for s in range(kinds.shape[1]):
        current = np.take_along_axis(current, step_index(kinds[:, s], args[:, s], n), axis=1)
    return current


@settings(max_examples=300, deadline=None)
@given(op_tables(), st.integers(0, 2**32 - 1))
def test_apply_ops_is_the_numpy_replay(table, seed):
    n, kinds, args = table
    rng = np.random.default_rng(seed)
    orders = np.array([rng.permutation(n) for _ in range(len(kinds))], dtype=np.int64)
    assert (kernels.apply_ops(kinds, args, orders) == gathered(orders, kinds, args)).all()


def test_an_op_that_does_not_fit_the_deck_is_refused_with_its_row_and_action():
    kinds = np.array([[RUN, CUT], [CUT, CUT]], dtype=np.int64)
    args = np.array([[3, 2], [1, 9]], dtype=np.int64)
    with pytest.raises(ValueError, match="row 1, action 2"):
        kernels.apply_ops(kinds, args, np.tile(np.arange(8), (2, 1)))


def windows_by_prefixes(kinds: np.ndarray, args: np.ndarray, labels: np.ndarray) -> list[tuple[int, int, int, bool]]:
    """The shortest windows in plain Python: every prefix's inverse permutation, each stop's latest earlier repeat
    of its receiver labels, kept when no window so far starts at or after it."""
    n = len(labels)
    found = []
    for row in range(len(kinds)):
        busy = np.flatnonzero(kinds[row] != NO_OP)
        length = int(busy[-1]) + 1 if len(busy) else 0
        inverse = np.arange(n)
        inverses = [inverse]
        for s in range(length):
            index = step_index(kinds[row : row + 1, s], args[row : row + 1, s], n)[0]
            inverse = np.argsort(index)[inverse]
            inverses.append(inverse)
        keys = [tuple(labels[i]) for i in inverses]
        inner = -1
        for stop in range(2, length + 1):
            starts = [j for j in range(stop - 1) if keys[j] == keys[stop]]
            if starts and starts[-1] > inner:
                start = starts[-1]
                found.append((row, start, stop, bool((inverses[start] == inverses[stop]).all())))
                inner = start
    return found


@settings(max_examples=300, deadline=None)
@given(op_tables(max_n=12), st.data())
def test_undone_windows_are_those_of_the_prefix_keys(table, data):
    n, kinds, args = table
    labels = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.uint8)
    busy = kinds != NO_OP
    steps = kinds.shape[1]
    lengths = np.where(busy.any(axis=1), steps - np.argmax(busy[:, ::-1], axis=1), 0) if steps else np.zeros(0)
    got = kernels.undone_windows(kinds, args, lengths.astype(np.int64), labels)
    assert got == windows_by_prefixes(kinds, args, labels)


def numpy_measures(perms: np.ndarray) -> np.ndarray:
    columns = (
        preserved_adjacencies(perms),
        reversed_adjacencies(perms),
        longest_preserved_block(perms),
        rising_sequence_count(perms),
        guessing_score(perms),
        preserved_adjacencies(perms, cyclic=True),
        reversed_adjacencies(perms, cyclic=True),
        longest_preserved_block(perms, cyclic=True),
        rising_sequence_count(perms, rotation_invariant=True),
        guessing_score(perms, cyclic=True),
    )
    return np.stack([np.asarray(c, dtype=np.int64) for c in columns], axis=1)


@st.composite
def permutations(draw):
    n = draw(st.integers(1, 40))
    rows = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    perms = []
    for _ in range(rows):
        # Some rows keep much of the old order (cuts and runs of the identity), where the measures are extreme.
        shape = draw(st.sampled_from(["random", "cut", "reversed", "identity"]))
        depth = draw(st.integers(0, n - 1))
        base = np.arange(n)
        perm = {
            "random": rng.permutation(n),
            "cut": np.roll(base, -depth),
            "reversed": np.concatenate([base[:depth][::-1], base[depth:]]),
            "identity": base,
        }[shape]
        perms.append(perm)
    return np.array(perms, dtype=np.int64)


@settings(max_examples=300, deadline=None)
@given(permutations())
def test_quality_measures_are_the_numpy_measures(perms):
    assert kernels.quality_measures(perms).shape == (len(perms), len(MEASURES))
    assert (kernels.quality_measures(perms) == numpy_measures(perms)).all()


def test_a_row_that_is_not_a_permutation_is_refused():
    with pytest.raises(ValueError, match="row 1 is not a permutation of 3"):
        kernels.quality_measures(np.array([[0, 1, 2], [0, 0, 2]], dtype=np.int64))


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 30),
    st.integers(1, 5),
    st.sampled_from(["whole", "halves", "any", "wide", "huge"]),
    st.integers(0, 2**32 - 1),
)
def test_rank_counts_are_the_histogram_and_the_sort(cases, depths, width, kind, seed):
    """Both ways the kernel counts: whole numbers within its histogram's range, and any others (a wider range,
    fractions, numbers past the integers it casts to)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 12, size=(cases, depths, width)).astype(np.float32)
    if kind == "wide":
        values = rng.integers(-600, 600, size=values.shape).astype(np.float32)
    elif kind == "huge":
        values = (rng.integers(-3, 3, size=values.shape) * 1e12).astype(np.float32)
    elif kind == "halves":
        values /= 2
    elif kind == "any":
        values = rng.normal(size=values.shape).astype(np.float32)
    below, ties = kernels.rank_counts(values)
    sorted_below, sorted_ties = _sorted_ranks(values)
    assert (below == sorted_below).all() and (ties == sorted_ties).all()
    if kind == "whole":
        counted_below, counted_ties = _counted_ranks(values)
        assert (below == counted_below).all() and (ties == counted_ties).all()


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2**32 - 1), st.booleans())
def test_depth_values_are_the_values_of_every_cut_deck(cases, seed, plain):
    pattern = get_pattern("russian")
    n = pattern.deck.size
    rng = np.random.default_rng(seed)
    pre = np.array([rng.permutation(pattern.deck.codes()) for _ in range(cases)], dtype=np.int64)
    after = np.array([np.arange(n) if plain else rng.permutation(n) for _ in range(cases)], dtype=np.int64)
    depths = np.sort(rng.choice(np.arange(1, n), size=rng.integers(1, n), replace=False))
    targets = np.asarray(pattern.targets)
    receivers = pattern.hands + pattern.talons
    got = kernels.depth_values(pre, after, depths, targets, card_points(), receivers)
    assert (got == receiver_values(decks_by_depth(pre, after, depths), targets, receivers)).all()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), st.integers(1, 25), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_score_sums_are_numpys_sums_of_the_tail_scores(cases, depths, width, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 6, size=(cases, depths, width)).astype(np.float32)
    below, ties = _sorted_ranks(values)
    index = rng.integers(0, depths, size=cases)
    weight = rng.integers(0, 2, size=(cases, width)).astype(float)
    weighted = tail_scores(below, ties) * weight[:, None, :, None]
    chosen, by_depth, squares = kernels.score_sums(below, ties, index, weight, _score_table(depths))
    assert (chosen == weighted[np.arange(cases), index].sum(axis=0)).all()
    assert (by_depth == weighted.sum(axis=0)).all()
    assert (squares == (weighted**2).sum(axis=0)).all()


def test_cusum_peaks_carry_the_level_and_refuse_edges_that_do_not_fit():
    scores, edges = np.array([-1.0, 0.5, 2.0]), np.array([0.3, 0.6])
    level, peak = np.array([0.25, 0.0]), np.zeros(2)
    kernels.cusum_peaks(scores, edges, np.array([[0.4, 0.9, 0.1], [0.0, 0.29, 0.6]]), level, peak)
    assert level.tolist() == [1.75, 2.0] and peak.tolist() == [2.75, 2.0]
    with pytest.raises(ValueError, match="one ascending edge"):
        kernels.cusum_peaks(scores, np.array([0.3]), np.zeros((2, 1)), level, peak)
    with pytest.raises(ValueError, match="one ascending edge"):
        kernels.cusum_peaks(scores, np.array([0.6, 0.3]), np.zeros((2, 1)), level, peak)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), st.integers(0, 40), st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_cusum_peaks_draw_by_the_inverse_cdf_and_run_pages_recursion(rows, steps, categories, seed):
    """Each draw's category is the count of edges at or below it, and the level and peak are the step-by-step
    recursion's, to the last bit (a score of -inf resets the level)."""
    rng = np.random.default_rng(seed)
    law = rng.dirichlet(np.ones(categories))
    edges = np.cumsum(law)[:-1]
    scores = rng.normal(size=categories)
    scores[rng.integers(categories)] = -np.inf if rng.random() < 0.3 else scores[0]
    uniform = rng.random((rows, steps))
    level, peak = rng.random(rows), np.zeros(rows)
    expected_level, expected_peak = level.copy(), peak.copy()
    for r in range(rows):
        for u in uniform[r]:
            category = int(sum(u >= e for e in edges))
            expected_level[r] = max(0.0, expected_level[r] + scores[category])
            expected_peak[r] = max(expected_peak[r], expected_level[r])
    kernels.cusum_peaks(scores, edges, uniform, level, peak)
    assert level.tolist() == expected_level.tolist() and peak.tolist() == expected_peak.tolist()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(1, 12), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_score_sums_over_chosen_rows_are_those_of_the_rows_cut_out(cases, depths, width, seed):
    """One cutter's rows read in place give the sums of his rows copied out, to the last bit."""
    rng = np.random.default_rng(seed)
    below, ties = _sorted_ranks(rng.integers(0, 6, size=(cases, depths, width)).astype(np.float32))
    index = rng.integers(0, depths, size=cases)
    weight = rng.integers(0, 2, size=(cases, width)).astype(float)
    rows = np.flatnonzero(rng.random(cases) < 0.5)
    table = _score_table(depths)
    in_place = kernels.score_sums(below, ties, index, weight, table, rows)
    copied = kernels.score_sums(below[rows], ties[rows], index[rows], weight[rows], table)
    assert all((a == b).all() for a, b in zip(in_place, copied))
    with pytest.raises(ValueError, match=f"row {cases} of {cases} cuts"):
        kernels.score_sums(below, ties, index, weight, table, np.array([cases]))
