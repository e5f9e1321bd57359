"""Independent checks of many documents on several processes.

The items are shared with the workers by ``fork`` (nothing is pickled on the way in, so a check may close over
keys and pins); each worker returns its chunk's results, pickled, and they come back in the items' order.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

LEAST_PER_WORKER = 16  # below this a process costs more than it saves

_JOB: tuple[Callable[[Sequence[Any]], list[Any]], Sequence[Any]] | None = None


def default_workers() -> int:
    return os.cpu_count() or 1


def in_chunks(
    check: Callable[[Sequence[T]], list[R]], items: Sequence[T], workers: int, least: int = LEAST_PER_WORKER
) -> list[R]:
    """``check`` over contiguous chunks of ``items`` on up to ``workers`` forked processes, the results joined in
    order; in this process when there are too few items or the platform cannot fork."""
    count = min(workers, len(items) // max(least, 1))
    if count < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return check(items)
    global _JOB
    _JOB = (check, items)
    step = -(-len(items) // count)
    try:
        with multiprocessing.get_context("fork").Pool(count) as pool:
            parts = pool.map(_run, [(start, min(start + step, len(items))) for start in range(0, len(items), step)])
    finally:
        _JOB = None
    return [result for part in parts for result in part]


def _run(bounds: tuple[int, int]) -> list[Any]:
    assert _JOB is not None
    check, items = _JOB
    return check(items[bounds[0] : bounds[1]])
