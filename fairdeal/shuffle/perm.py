"""Permutation arrays: the one convention every deck operation shares.

A permutation ``p`` of ``n`` positions acts on a deck order by ``new_order = old_order[p]``: the card that
ends at position ``i`` (0 = top) is the one that was at position ``p[i]``. A batch of ``m`` orders is an
``(m, n)`` array and is shuffled in one step by ``orders[:, p]``.
"""

from __future__ import annotations

import numpy as np

from fairdeal.errors import ShuffleError


def identity(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.intp)


def check_permutation(p: np.ndarray, n: int | None = None) -> np.ndarray:
    """Return ``p`` as an ``intp`` array after checking it holds each of ``0..n-1`` exactly once."""
    arr = np.asarray(p)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ShuffleError(f"a permutation must be a 1-d integer array, got shape {arr.shape} of {arr.dtype}")
    size = len(arr) if n is None else n
    if len(arr) != size:
        raise ShuffleError(f"a permutation of {size} positions needs {size} entries, got {len(arr)}")
    if size and (arr.min() < 0 or arr.max() >= size or np.unique(arr).size != size):
        raise ShuffleError(f"not a permutation of 0..{size - 1}")
    return arr.astype(np.intp, copy=False)


def compose(*perms: np.ndarray) -> np.ndarray:
    """The single permutation equal to applying ``perms`` left to right (first one first).

    Applying ``p`` then ``q`` gives ``(old[p])[q] == old[p[q]]``, so the product is ``p[q]``.
    """
    if not perms:
        raise ShuffleError("compose needs at least one permutation")
    result = np.asarray(perms[0], dtype=np.intp)
    for q in perms[1:]:
        if len(q) != len(result):
            raise ShuffleError(f"cannot compose permutations of {len(result)} and {len(q)} positions")
        result = result[q]
    return result


def inverse(p: np.ndarray) -> np.ndarray:
    """The permutation that undoes ``p``: ``compose(p, inverse(p))`` is the identity."""
    inv = np.empty(len(p), dtype=np.intp)
    inv[p] = np.arange(len(p), dtype=np.intp)
    return inv


def apply_permutation(order: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Shuffle one order (1-d) or a batch (2-d, one order per row) by ``p``."""
    arr = np.asarray(order)
    if arr.shape[-1] != len(p):
        raise ShuffleError(f"a permutation of {len(p)} positions cannot shuffle a deck of {arr.shape[-1]} cards")
    shuffled: np.ndarray
    if arr.ndim == 1:
        shuffled = arr[p]
        return shuffled
    if arr.ndim == 2:
        shuffled = arr[:, p]
        return shuffled
    raise ShuffleError(f"expected one order (1-d) or a batch of orders (2-d), got {arr.ndim}-d")


def riffle_permutation(from_top: np.ndarray) -> np.ndarray:
    """Interleave two packets: ``from_top[..., i]`` says whether new position ``i`` takes the top packet's next card.

    The top packet holds as many cards as there are True entries; each packet keeps its order. A 2-d
    ``from_top`` gives one riffle permutation per row.
    """
    from_top = np.asarray(from_top, dtype=bool)
    split = from_top.sum(axis=-1, keepdims=True)
    from_top_rank = np.cumsum(from_top, axis=-1) - 1
    from_bottom_rank = np.cumsum(~from_top, axis=-1) - 1
    return np.where(from_top, from_top_rank, split + from_bottom_rank).astype(np.intp)
