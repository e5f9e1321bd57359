"""Unbiased Fisher-Yates driven by an XOF byte stream: rejection sampling, no modulo bias, no byte reuse.

Step ``i = n-1 .. 1`` draws ``j`` uniform in ``0..i`` from the next byte ``b`` of the stream: with
``m = i + 1`` and ``limit = 256 - 256 % m`` (the largest multiple of ``m`` not above 256), ``b`` is accepted
iff ``b < limit`` and then ``j = b % m`` — every residue has exactly ``limit / m`` preimages, so ``j`` is
exactly uniform; a rejected byte is discarded and the next one read. Then ``order[i]`` and ``order[j]`` swap.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fairdeal.errors import ProtocolError

STREAM_BYTES = 64  # a 32-card shuffle needs 31 bytes plus rejections; overflow extends the stream


def accept_limit(modulus: int) -> int:
    if not 1 <= modulus <= 256:
        raise ProtocolError(f"a one-byte draw needs a modulus in 1..256, got {modulus}")
    return 256 - 256 % modulus


def draws_from_stream(stream: bytes, size: int) -> tuple[list[int], int] | None:
    """The draws ``j`` for steps ``i = size-1..1`` and the bytes used, or ``None`` if the stream ran out."""
    draws, pos = [], 0
    for i in range(size - 1, 0, -1):
        modulus, limit = i + 1, accept_limit(i + 1)
        while pos < len(stream) and stream[pos] >= limit:
            pos += 1
        if pos == len(stream):
            return None
        draws.append(stream[pos] % modulus)
        pos += 1
    return draws, pos


def apply_draws(start: np.ndarray, draws: list[int]) -> np.ndarray:
    order = np.array(start, copy=True)
    for i, j in zip(range(len(order) - 1, 0, -1), draws):
        order[i], order[j] = order[j], order[i]
    return order


def shuffle(start: np.ndarray, read: Callable[[int], bytes]) -> np.ndarray:
    """Shuffle ``start`` with bytes from ``read(length)`` (a prefix-stable XOF), extending it as needed."""
    length = STREAM_BYTES
    while True:
        result = draws_from_stream(read(length), len(start))
        if result is not None:
            return apply_draws(start, result[0])
        length *= 2


CHUNK_ROWS = 1 << 15  # rows shuffled together: large enough for numpy, small enough to stay in cache


def shuffle_batch(start: np.ndarray, streams: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shuffle ``start`` once per row of ``streams`` (uint8, shape (B, L)), vectorised over the batch.

    Returns ``(orders, ok)``: ``orders[b]`` is the shuffle of row ``b`` wherever ``ok[b]``; a row whose
    bytes ran out (``ok`` False) must be redone with a longer stream by the caller.
    """
    streams = np.ascontiguousarray(streams, dtype=np.uint8)
    orders = np.tile(np.asarray(start, dtype=np.uint8), (len(streams), 1))
    ok = np.ones(len(streams), dtype=bool)
    for first in range(0, len(streams), CHUNK_ROWS):
        rows = slice(first, first + CHUNK_ROWS)
        _shuffle_chunk(orders[rows], streams[rows], ok[rows])
    return orders, ok


def _shuffle_chunk(orders: np.ndarray, streams: np.ndarray, ok: np.ndarray) -> None:
    """In place: each row keeps a cursor into its own bytes; only rows that hit a rejected byte loop again."""
    batch, length = streams.shape
    size = orders.shape[1]
    flat_bytes, flat_orders = streams.reshape(-1), orders.reshape(-1)
    end = np.arange(1, batch + 1, dtype=np.int64) * length
    cursor = end - length
    order_base = np.arange(batch, dtype=np.int64) * size
    for i in range(size - 1, 0, -1):
        modulus, limit = i + 1, accept_limit(i + 1)
        byte = flat_bytes[np.minimum(cursor, end - 1)]
        if limit < 256:
            pending = np.flatnonzero(byte >= limit)
            while pending.size:
                cursor[pending] += 1
                alive = cursor[pending] < end[pending]
                ok[pending[~alive]] = False
                pending = pending[alive]
                fresh = flat_bytes[cursor[pending]]
                byte[pending] = fresh
                pending = pending[fresh >= limit]
        cursor += 1
        target = order_base + byte % modulus
        held = orders[:, i].copy()
        orders[:, i] = flat_orders[target]
        flat_orders[target] = held
    ok &= cursor <= end
