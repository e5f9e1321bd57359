"""The bulk audit's per-hand loops in C (``_kernels.c``): numpy in, numpy out.

Each one replaces a block-wide numpy computation that walked a few dozen cards or steps per hand in many small
array passes; ``tests/test_audit_kernels.py`` checks every one against its numpy or by-definition reference.
"""

from __future__ import annotations

import numpy as np

from fairdeal.audit import _kernels

MEASURE_COUNT = 10  # quality.MEASURES


def _int64(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.int64)


def apply_ops(kinds: np.ndarray, args: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """The deck orders (``(rows, n)``) after each row's ops, as int64."""
    rows, n = orders.shape
    out = np.empty((rows, n), dtype=np.int64)
    if rows and n:
        _kernels.apply_ops(_int64(kinds.reshape(rows, -1)), _int64(args.reshape(rows, -1)), _int64(orders), out, n)
    return out


def undone_windows(
    kinds: np.ndarray, args: np.ndarray, lengths: np.ndarray, labels: np.ndarray
) -> list[tuple[int, int, int, bool]]:
    """``(row, start, stop, identity)`` of each row's shortest windows of steps that restore every receiver's
    cards (``identity``: the whole deck), rows in order, each row's windows by start."""
    if not len(lengths) or not len(labels):
        return []
    rows = len(lengths)
    return _kernels.undone_windows(
        _int64(kinds.reshape(rows, -1)),
        _int64(args.reshape(rows, -1)),
        _int64(lengths),
        np.ascontiguousarray(labels, dtype=np.uint8),
    )


def quality_measures(perms: np.ndarray) -> np.ndarray:
    """``(rows, 10)``: the measures of ``quality.MEASURES`` for each relative permutation row."""
    rows, n = perms.shape
    out = np.empty((rows, MEASURE_COUNT), dtype=np.int64)
    if rows:
        _kernels.quality_measures(_int64(perms), out, n)
    return out


def rank_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(below, ties)`` along axis 1 of float32 ``(cases, depths, beneficiaries)`` values."""
    cases, depths, width = values.shape
    below = np.empty(values.shape, dtype=np.int64)
    ties = np.empty(values.shape, dtype=np.int64)
    if cases and depths and width:
        _kernels.rank_counts(np.ascontiguousarray(values, dtype=np.float32), below, ties, depths, width)
    return below, ties


def depth_values(
    pre: np.ndarray, after: np.ndarray, depths: np.ndarray, targets: np.ndarray, points: np.ndarray, receivers: int
) -> np.ndarray:
    """``(cases, depths, receivers)`` float32: the whole-number ``points`` (per card code) each receiver gets when
    each case's deck ``pre`` is cut at each depth and then gathered by ``after`` (``new = old[after]``)."""
    cases = len(pre)
    out = np.empty((cases, len(depths), receivers), dtype=np.float32)
    if cases and len(depths):
        _kernels.depth_values(
            _int64(pre),
            _int64(after),
            _int64(depths),
            _int64(targets),
            np.ascontiguousarray(points, dtype=np.float32),
            out,
            receivers,
        )
    return out


def score_sums(
    below: np.ndarray,
    ties: np.ndarray,
    index: np.ndarray,
    weight: np.ndarray,
    table: np.ndarray,
    rows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(chosen, by_depth, squares)`` over cuts of ``(cases, depths, beneficiaries)`` rank counts (those named by
    ``rows``, in order; all by default): the score ``table[below, ties]`` (two tails) times ``weight``
    (``(cases, beneficiaries)``) summed at the chosen depth ``index`` (``(beneficiaries, 2)``), and at every depth
    with its square (``(depths, beneficiaries, 2)``)."""
    cases, depths, width = below.shape
    chosen = np.zeros((width, 2))
    by_depth = np.zeros((depths, width, 2))
    squares = np.zeros((depths, width, 2))
    selected = np.arange(cases, dtype=np.int64) if rows is None else _int64(rows)
    if len(selected):
        _kernels.score_sums(
            _int64(below),
            _int64(ties),
            _int64(index),
            np.ascontiguousarray(weight, dtype=np.float64),
            np.ascontiguousarray(table, dtype=np.float64),
            chosen,
            by_depth,
            squares,
            selected,
            depths,
            width,
        )
    return chosen, by_depth, squares


def cusum_peaks(
    scores: np.ndarray, edges: np.ndarray, uniform: np.ndarray, level: np.ndarray, peak: np.ndarray
) -> None:
    """Carry each simulated dealer's CUSUM ``level`` and its ``peak`` (float64, updated in place) over his row of
    ``uniform`` draws (``(dealers, steps)``); a draw below ``edges[0]`` is category 0, and so on (``edges`` the
    ascending cumulative law but its last sum), each adding ``scores[category]``: ``level = max(0, level + s)``."""
    rows, steps = uniform.shape
    if level.dtype != np.float64 or peak.dtype != np.float64 or not level.flags.c_contiguous or len(level) != rows:
        raise ValueError("cusum_peaks: level and peak are contiguous float64 arrays, one entry a row")
    if len(edges) != len(scores) - 1 or (np.diff(edges) < 0).any():
        raise ValueError("cusum_peaks: one ascending edge between each two categories")
    _kernels.cusum_peaks(
        np.ascontiguousarray(scores, dtype=np.float64),
        np.ascontiguousarray(edges, dtype=np.float64),
        np.ascontiguousarray(uniform, dtype=np.float64),
        level,
        peak,
        steps,
    )


def feature_counts(
    recv: np.ndarray,
    dealers: np.ndarray,
    target_of: np.ndarray,
    active: np.ndarray,
    per_code: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    counts: np.ndarray,
) -> None:
    """Add each deal's feature values for every target to ``counts`` (``(seats, targets, 4, width)`` int64, in
    place): ``recv`` ``(deals, codes)`` receivers (-1: not dealt), ``target_of`` ``(seats, receivers)`` the target
    of a receiver's cards when that seat deals (-1: none), ``active`` ``(seats, targets)`` the targets counted, and
    ``per_code`` each code's ace flag, suit, points and low flag."""
    codes = recv.shape[1]
    seats, targets, features, width = counts.shape
    if counts.dtype != np.int64 or not counts.flags.c_contiguous or features != 4:
        raise ValueError("feature_counts: counts is a contiguous int64 array of four features")
    ace, suit, points, low = per_code
    _kernels.feature_counts(
        np.ascontiguousarray(recv, dtype=np.int8),
        _int64(dealers),
        _int64(target_of),
        np.ascontiguousarray(active, dtype=np.uint8),
        np.ascontiguousarray(ace, dtype=np.uint8),
        _int64(suit),
        _int64(points),
        np.ascontiguousarray(low, dtype=np.uint8),
        counts,
        codes,
        seats,
        target_of.shape[1],
        targets,
        width,
    )
