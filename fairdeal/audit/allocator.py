"""How a process that audits blocks sets up its memory: glibc's thresholds, and the cyclic collector per task."""

from __future__ import annotations

import ctypes

from fairdeal.collector import without_collector as without_collector  # the audit's blocks pause it per task

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def tune_allocator() -> bool:
    """Keep freed memory for the next block's arrays: trim above 64 MiB, map above 32 MiB, where glibc's sliding
    thresholds would settle. Without it each large array is mapped afresh and its pages zeroed by the kernel
    (a block's audit faults four times as many pages), and dask's nanny, which sets ``MALLOC_TRIM_THRESHOLD_`` to
    64 KiB, makes a block 2.5x slower. False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(M_TRIM_THRESHOLD, 64 << 20)) and bool(libc.mallopt(M_MMAP_THRESHOLD, 32 << 20))
