"""Exact null distributions of what a dealer could aim at, the exact talon-aces total, and multiple testing.

Under honest shuffling every deck order is equally likely, so the talon is a uniform random pair of the deck and
a hand a uniform random ten: the number of aces is hypergeometric and a card total is a sum over a uniform
k-subset, whose law we compute exactly by dynamic programming. A card's *value* is its rank index
(7 → 0 … A → 7), so a value total ranks hands by the height of their cards.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from math import comb

import numpy as np

from fairdeal.audit.tails import binomial_law, binomial_sf, hypergeometric_pmf
from fairdeal.cards import rank_of
from fairdeal.errors import AuditError


def card_values(cards: np.ndarray) -> np.ndarray:
    """Each card's value: its rank index, 7 → 0 … A → 7 (works on any array of codes)."""
    return rank_of(np.asarray(cards, dtype=np.int64))


@dataclass(frozen=True)
class DiscreteNull:
    """A law on the integers ``0..len(pmf)-1``; p-values are upper tails ``P(X >= x)``."""

    pmf: np.ndarray
    description: str = ""

    def __post_init__(self) -> None:
        # Laws are cached and shared, so their table must not change under anyone's feet.
        frozen = np.array(self.pmf, dtype=float)
        frozen.setflags(write=False)
        object.__setattr__(self, "pmf", frozen)

    @property
    def support(self) -> np.ndarray:
        return np.arange(len(self.pmf))

    @property
    def mean(self) -> float:
        return float(self.support @ self.pmf)

    @property
    def variance(self) -> float:
        return float((self.support - self.mean) ** 2 @ self.pmf)

    def prob(self, x: np.ndarray | int) -> np.ndarray:
        """``P(X = x)``, zero off the support."""
        xs = np.asarray(x, dtype=np.int64)
        inside = (xs >= 0) & (xs < len(self.pmf))
        return np.where(inside, self.pmf[np.clip(xs, 0, len(self.pmf) - 1)], 0.0)

    def pvalue(self, x: np.ndarray | int) -> np.ndarray:
        """``P(X >= x)``: small when ``x`` is unusually high (valid, conservative for a discrete law)."""
        tail = np.concatenate([np.cumsum(self.pmf[::-1])[::-1], [0.0]])
        xs = np.clip(np.asarray(x, dtype=np.int64), 0, len(self.pmf))
        returned: np.ndarray = np.minimum(tail[xs], 1.0)
        return returned

    def randomized_pvalue(self, x: np.ndarray | int, uniform: np.ndarray | float) -> np.ndarray:
        """``P(X > x) + U·P(X = x)``: exactly uniform under the null, so p-values of many hands can be KS-tested."""
        returned: np.ndarray = self.pvalue(np.asarray(x) + 1) + np.asarray(uniform) * self.prob(x)
        return returned


@functools.lru_cache(maxsize=256)
def hypergeometric_null(population: int, successes: int, draws: int, description: str = "") -> DiscreteNull:
    """How many of ``successes`` marked cards a uniform ``draws``-subset of ``population`` holds."""
    if not 0 <= successes <= population or not 0 <= draws <= population:
        raise AuditError(
            f"a hypergeometric law needs 0 <= marked, drawn <= population, got {successes}, {draws} of {population}"
        )
    return DiscreteNull(hypergeometric_pmf(population, successes, draws), description)


def subset_sum_null(values: np.ndarray, k: int, description: str = "") -> DiscreteNull:
    """Exact law of the sum of a uniform random ``k``-subset of ``values`` (non-negative integers).

    ``ways[j, s]`` counts the j-subsets with sum s among the cards seen so far; each card either joins or not.
    Counts stay below 2**53 for any deck we know, so float arithmetic is exact.
    """
    vals = np.asarray(values, dtype=np.int64)
    if vals.ndim != 1 or (vals < 0).any():
        raise AuditError("subset sums need a 1-d array of non-negative integer values")
    if not 0 <= k <= len(vals):
        raise AuditError(f"cannot choose {k} of {len(vals)} cards")
    top = int(np.sort(vals)[::-1][:k].sum())
    ways = np.zeros((k + 1, top + 1))
    ways[0, 0] = 1.0
    for v in vals:
        ways[1:, v:] += ways[:-1, : top + 1 - v].copy()
    return DiscreteNull(ways[k] / comb(len(vals), k), description)


def talon_aces_total_pvalue(counts: np.ndarray, pmf: np.ndarray) -> float:
    """Exact ``P(N1 + 2 N2 >= observed)`` for a two-card talon over independent honest deals.

    ``counts[k]``: deals whose talon held k aces (k = 0, 1, 2), ``pmf`` their per-deal law. ``N2`` (two-ace
    talons) is binomial and, given it, ``N1`` is binomial among the other deals, so the tail is one sum over
    the possible ``N2``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if len(counts) != 3 or len(pmf) != 3:
        raise AuditError("the exact talon-aces total is for a two-card talon (0, 1 or 2 aces)")
    hands = int(counts.sum())
    if not hands:
        return 1.0
    p0, p1, p2 = pmf
    observed = int(counts[1] + 2 * counts[2])
    weight = binomial_law(hands, p2)
    doubles = np.flatnonzero(weight)  # the others weigh 0 in floating point
    tail = binomial_sf(observed - 2 * doubles - 1, hands - doubles, p1 / (p0 + p1))
    return float(min(1.0, weight[doubles] @ tail))


def check_pvalues(pvalues: np.ndarray) -> np.ndarray:
    p = np.asarray(pvalues, dtype=float)
    if p.size and (np.isnan(p).any() or p.min() <= 0.0 or p.max() > 1.0):
        raise AuditError("p-values must lie in (0, 1]")
    return p


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: reject where ``adjusted <= alpha`` keeps the family-wise error at alpha."""
    p = check_pvalues(pvalues)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty(p.size)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def benjamini_hochberg(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values): reject where ``adjusted <= q`` keeps the FDR at q."""
    p = check_pvalues(pvalues)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * p.size / np.arange(1, p.size + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty(p.size)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def compositions(total: int, parts: int) -> np.ndarray:
    """``(m, parts)``: every way to write ``total`` as an ordered sum of ``parts`` non-negative integers."""
    if parts < 1 or total < 0:
        raise AuditError(f"cannot split {total} into {parts} parts")
    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    grids = np.meshgrid(*[np.arange(total + 1)] * (parts - 1), indexing="ij")
    head = np.stack([g.ravel() for g in grids], axis=1)
    head = head[head.sum(axis=1) <= total]
    returned: np.ndarray = np.column_stack([head, total - head.sum(axis=1)])
    return returned


def mixture_power_bound(null_pmf: np.ndarray, cheat_pmf: np.ndarray, rate: float, deals: int, level: float) -> float:
    """The power of the most powerful level-``level`` test of honest deals against a cheat acting in a share
    ``rate`` of them, when each deal shows one of a few categories: ``null_pmf`` honest, ``cheat_pmf`` cheated.

    The counts per category are sufficient; under either hypothesis they are multinomial (the cheated law being
    the mixture ``(1 - rate) null + rate cheat``). Neyman-Pearson: reject on the largest likelihood ratios first,
    randomising on the boundary, so the level is exact. No test on these categories has more power.
    """
    p0 = np.asarray(null_pmf, dtype=float)
    p1 = (1 - rate) * p0 + rate * np.asarray(cheat_pmf, dtype=float)
    if p0.shape != p1.shape or not np.isclose(p0.sum(), 1) or not np.isclose(p1.sum(), 1) or (p0 <= 0).any():
        raise AuditError("the laws must be pmfs on the same categories, the honest one positive everywhere")
    if not 0 < level < 1:
        raise AuditError(f"the level must lie in (0, 1), got {level}")
    counts = compositions(deals, len(p0))
    from scipy.special import gammaln

    base = gammaln(deals + 1) - gammaln(counts + 1).sum(axis=1)
    with np.errstate(divide="ignore"):
        log1 = np.log(p1)
    h0 = np.exp(base + counts @ np.log(p0))
    h1 = np.exp(base + np.where(counts > 0, counts * log1[None, :], 0.0).sum(axis=1))
    ratio = np.where(h1 > 0, np.log(np.maximum(h1, TINY_P)) - np.log(np.maximum(h0, TINY_P)), -np.inf)
    order = np.argsort(-ratio, kind="stable")
    spent = np.cumsum(h0[order])
    inside = int(np.searchsorted(spent, level, side="right"))
    power = float(h1[order][:inside].sum())
    if inside < len(order):
        left = level - (spent[inside - 1] if inside else 0.0)
        power += float(h1[order][inside]) * left / float(h0[order][inside])
    return min(power, 1.0)


TINY_P = float(np.finfo(float).tiny)
