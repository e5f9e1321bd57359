"""Work that makes many short-lived objects and no cycles, done with Python's cyclic collector paused: an audit
block's tuples, a verifier's decoded transcripts (trees of dicts and lists, held until their checks are done, that
the collector would walk again and again as they pile up)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")


def without_collector(work: Callable[[_T], _R], task: _T) -> _R:
    """``work(task)`` with the cyclic collector paused (and resumed after, if it was running): reference counting
    still frees everything as it goes; only the collector's passes, wasted where there are no cycles, are saved."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return work(task)
    finally:
        if enabled:
            gc.enable()
