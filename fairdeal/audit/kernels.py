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
