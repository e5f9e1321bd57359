"""Independent checks of many documents on several processes.

The items are shared with the workers by ``fork`` (nothing is pickled on the way in, so a check may close over
keys and pins); this process checks the first chunk itself while each forked worker checks one of the others and
sends its results back, pickled, through a pipe; they come back in the items' order. A pool would cost more to
start and stop than a few hundred documents take to check.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fairdeal.errors import WorkerFailed

T = TypeVar("T")
R = TypeVar("R")

LEAST_PER_WORKER = 16  # below this a process costs more than it saves


def default_workers() -> int:
    return os.cpu_count() or 1


def in_chunks(
    check: Callable[[Sequence[T]], list[R]], items: Sequence[T], workers: int, least: int = LEAST_PER_WORKER
) -> list[R]:
    """``check`` over contiguous chunks of ``items`` on up to ``workers`` processes (this one and forked ones),
    the results joined in order; all in this process when there are too few items or the platform cannot fork.
    An exception a worker raises is raised here."""
    count = min(workers, len(items) // max(least, 1))
    if count < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return check(items)
    step = -(-len(items) // count)
    bounds = [(start, min(start + step, len(items))) for start in range(0, len(items), step)]
    forked = [_fork(check, items[start:end]) for start, end in bounds[1:]]
    try:
        first = check(items[bounds[0][0] : bounds[0][1]])
    finally:
        parts = [_collect(*worker) for worker in forked]
    return [*first, *(result for part in parts for result in part)]


def _fork(check: Callable[[Sequence[T]], list[R]], chunk: Sequence[T]) -> tuple[int, int]:
    """A forked worker checking ``chunk``; its process id and the pipe its pickled outcome comes through."""
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    os.close(read)  # the worker: check, send, and leave without running this process's exit handlers
    code = 0
    try:
        try:
            outcome: tuple[bool, Any] = (True, check(chunk))
        except BaseException as exc:  # every failure goes back, to be raised in the parent
            outcome = (False, exc)
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # what cannot be pickled travels as the text of the exception at fault
            failed = exc if outcome[0] else outcome[1]
            data = pickle.dumps((False, WorkerFailed(f"{type(failed).__name__}: {failed}")))
        with os.fdopen(write, "wb") as out:
            out.write(data)
    except BaseException:  # nothing may escape into the code the child shares with the parent
        code = 1
    finally:
        os._exit(code)


def _collect(pid: int, read: int) -> list[Any]:
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        raise WorkerFailed(f"a verify worker stopped without an answer (exit status {status})")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    results: list[Any] = value
    return results
