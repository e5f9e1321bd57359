"""Tails and point masses of the textbook laws the audit tests against, from ``scipy.special``.

``scipy.stats`` gives the same tails (its normal, chi-square, Poisson and binomial tails call these very functions,
to the last bit), but importing it costs about half a second: a twentieth of a million-hand audit and most of a small
one's start-up. The binomial law is built from the ratios of neighbouring masses and the hypergeometric one
counted exactly in integers; ``scipy.stats`` computes these two another way, so they agree with it to ten digits
(and with the exact masses to twelve or more).
"""

from __future__ import annotations

from math import comb

import numpy as np
import numpy.typing as npt
from scipy import special


def normal_sf(z: npt.ArrayLike) -> np.ndarray:
    """``P(Z > z)`` for a standard normal ``Z``."""
    returned: np.ndarray = special.ndtr(-np.asarray(z, dtype=float))
    return returned


def normal_isf(q: npt.ArrayLike) -> np.ndarray:
    """The ``z`` with ``P(Z > z) = q``."""
    returned: np.ndarray = -special.ndtri(np.asarray(q, dtype=float))
    return returned


def normal_ppf(q: npt.ArrayLike) -> np.ndarray:
    """The ``z`` with ``P(Z <= z) = q``."""
    returned: np.ndarray = special.ndtri(np.asarray(q, dtype=float))
    return returned


def chi2_sf(x: npt.ArrayLike, df: npt.ArrayLike) -> np.ndarray:
    """``P(X > x)`` for ``X`` chi-square with ``df`` degrees of freedom."""
    returned: np.ndarray = special.chdtrc(np.asarray(df, dtype=float), np.asarray(x, dtype=float))
    return returned


def poisson_sf(k: npt.ArrayLike, mu: npt.ArrayLike) -> np.ndarray:
    """``P(X > k)`` for ``X`` Poisson with mean ``mu`` (1 below 0)."""
    k, mu = np.broadcast_arrays(np.floor(np.asarray(k, dtype=float)), np.asarray(mu, dtype=float))
    returned: np.ndarray = np.where(k < 0, 1.0, special.pdtrc(np.maximum(k, 0.0), mu))
    return returned


def binomial_sf(k: npt.ArrayLike, n: npt.ArrayLike, p: npt.ArrayLike) -> np.ndarray:
    """``P(X > k)`` for ``X`` binomial with ``n`` trials of chance ``p`` (1 below 0, 0 from ``n`` on)."""
    k, n, p = np.broadcast_arrays(np.floor(np.asarray(k, dtype=float)), np.asarray(n, dtype=float), np.asarray(p))
    inside = (k >= 0) & (k < n)
    tail = special.betainc(np.where(inside, k + 1, 1.0), np.where(inside, n - k, 1.0), p)
    returned: np.ndarray = np.where(inside, tail, np.where(k < 0, 1.0, 0.0))
    return returned


def binomial_law(n: int, p: float) -> np.ndarray:
    """``P(X = k)`` for ``k = 0 .. n``, ``X`` binomial with ``n`` trials of chance ``p``.

    Each mass from its neighbour by their ratio, ``(n - j) / (j + 1) * p / (1 - p)``, out from the mode, then all
    of them divided by their sum: the sum is of positive terms, so the masses keep twelve digits or more even
    far out in the tails (where the tails themselves, ``betainc``, keep fewer for a large ``n``)."""
    law = np.zeros(n + 1)
    if p <= 0.0 or p >= 1.0:
        law[0 if p <= 0.0 else n] = 1.0
        return law
    mode = min(int(np.floor((n + 1) * p)), n)
    j = np.arange(n, dtype=float)
    ratios = (n - j) / (j + 1.0) * (p / (1.0 - p))  # P(X = j + 1) / P(X = j)
    with np.errstate(over="ignore", under="ignore"):
        law[mode] = 1.0
        law[mode + 1 :] = np.cumprod(ratios[mode:])
        law[:mode] = 1.0 / np.cumprod(ratios[:mode][::-1])[::-1]
    returned: np.ndarray = law / law.sum()
    return returned


def hypergeometric_pmf(population: int, marked: int, drawn: int) -> np.ndarray:
    """``P(K = k)`` for ``k = 0 .. min(marked, drawn)``: ``K`` marked among ``drawn`` of ``population`` without
    replacement, each the correctly rounded quotient of two exact counts."""
    ways = comb(population, drawn)
    return np.array(
        [comb(marked, k) * comb(population - marked, drawn - k) / ways for k in range(min(marked, drawn) + 1)]
    )
