"""Exact distance to uniform after k GSR riffles (Bayer-Diaconis), and rising sequences of permutations.

After ``k`` GSR riffles of ``n`` cards, an arrangement with ``r`` rising sequences has probability
``C(2^k + n - r, n) / 2^(k n)``; ``A(n, r - 1)`` arrangements (an Eulerian number) have ``r`` rising
sequences. Everything is computed in Python integers and ``Fraction``; floats only for display.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fairdeal.errors import ShuffleError


def _require(n: int, k: int) -> None:
    if n < 1:
        raise ShuffleError(f"the deck needs at least one card, got {n}")
    if k < 0:
        raise ShuffleError(f"the number of riffles cannot be negative, got {k}")


@functools.lru_cache(maxsize=16)
def eulerian_row(n: int) -> tuple[int, ...]:
    """``A(n, d)`` for ``d = 0..n-1``: permutations of ``n`` with ``d`` descents (= ``d + 1`` rising sequences)."""
    if n < 1:
        raise ShuffleError(f"Eulerian numbers need n >= 1, got {n}")
    row = [1]
    for size in range(2, n + 1):
        padded = [0] + row + [0]
        row = [(d + 1) * padded[d + 1] + (size - d) * padded[d] for d in range(size)]
    return tuple(row)


def arrangement_probability(n: int, k: int, rising: int) -> Fraction:
    """Probability of one given arrangement with ``rising`` rising sequences after ``k`` GSR riffles."""
    _require(n, k)
    if not 1 <= rising <= n:
        raise ShuffleError(f"a permutation of {n} has 1..{n} rising sequences, not {rising}")
    return Fraction(math.comb(2**k + n - rising, n), 2 ** (k * n))


def rising_sequence_distribution(n: int, k: int) -> list[Fraction]:
    """``P(R = r)`` for ``r = 1..n`` (list index ``r - 1``) after ``k`` GSR riffles."""
    _require(n, k)
    return [count * arrangement_probability(n, k, d + 1) for d, count in enumerate(eulerian_row(n))]


def total_variation(n: int, k: int) -> Fraction:
    """Exact total-variation distance to uniform after ``k`` GSR riffles of ``n`` cards."""
    _require(n, k)
    factorial, scale = math.factorial(n), 2 ** (k * n)
    # Over the common denominator 2^(kn) n!: |C(...) n! - 2^(kn)| per arrangement.
    total = sum(
        count * abs(math.comb(2**k + n - (d + 1), n) * factorial - scale) for d, count in enumerate(eulerian_row(n))
    )
    return Fraction(total, 2 * scale * factorial)


def separation(n: int, k: int) -> Fraction:
    """Exact separation distance ``1 - n! min_pi P(pi)``; the least likely arrangements have n rising sequences."""
    _require(n, k)
    return 1 - math.factorial(n) * arrangement_probability(n, k, n)


@dataclass(frozen=True)
class RiffleRow:
    riffles: int
    tv: Fraction
    separation: Fraction


def riffle_table(n: int, max_riffles: int) -> list[RiffleRow]:
    """Rows ``k = 1..max_riffles`` of exact TV and separation distances for ``n`` cards."""
    if max_riffles < 1:
        raise ShuffleError(f"the table needs at least one riffle, got {max_riffles}")
    return [RiffleRow(k, total_variation(n, k), separation(n, k)) for k in range(1, max_riffles + 1)]


def rising_sequences(perms: np.ndarray) -> int | np.ndarray:
    """Rising sequences of a permutation (or of each row of a batch), in the ``new = old[p]`` convention.

    The cards are labelled by their old positions; a rising sequence is a maximal run of consecutive labels
    lying in increasing position order, so the count is 1 + the labels ``j`` whose successor ``j + 1``
    lies above ``j`` in the new deck.
    """
    arr = np.asarray(perms)
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0:
        raise ShuffleError(f"expected a permutation or a batch of them, got shape {arr.shape}")
    where = np.argsort(arr, axis=-1)
    counts = 1 + (np.diff(where, axis=-1) < 0).sum(axis=-1)
    return int(counts) if arr.ndim == 1 else counts
