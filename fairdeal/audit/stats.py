"""Exact null distributions of what a dealer could aim at, p-values, their combination and multiple testing.

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
from scipy import stats as sps

from fairdeal.cards import NUM_CODES, DeckKind, Rank, rank_of
from fairdeal.errors import AuditError

ACE = int(Rank.ACE)


def card_values(cards: np.ndarray) -> np.ndarray:
    """Each card's value: its rank index, 7 → 0 … A → 7 (works on any array of codes)."""
    return rank_of(np.asarray(cards, dtype=np.int64))


def count_aces(cards: np.ndarray) -> np.ndarray:
    """Aces along the last axis: one number per hand or talon of a batch."""
    return np.count_nonzero(card_values(cards) == ACE, axis=-1)


def value_total(cards: np.ndarray) -> np.ndarray:
    """Sum of card values along the last axis."""
    return card_values(cards).sum(axis=-1)


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
        return np.minimum(tail[xs], 1.0)

    def randomized_pvalue(self, x: np.ndarray | int, uniform: np.ndarray | float) -> np.ndarray:
        """``P(X > x) + U·P(X = x)``: exactly uniform under the null, so p-values of many hands can be KS-tested."""
        return self.pvalue(np.asarray(x) + 1) + np.asarray(uniform) * self.prob(x)

    def sample(self, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        return rng.choice(len(self.pmf), size=size, p=self.pmf)


@functools.lru_cache(maxsize=256)
def hypergeometric_null(population: int, successes: int, draws: int, description: str = "") -> DiscreteNull:
    """How many of ``successes`` marked cards a uniform ``draws``-subset of ``population`` holds."""
    if not 0 <= successes <= population or not 0 <= draws <= population:
        raise AuditError(f"a hypergeometric law needs 0 <= marked, drawn <= population, got {successes}, {draws} of {population}")
    law = sps.hypergeom(population, successes, draws)
    return DiscreteNull(law.pmf(np.arange(min(successes, draws) + 1)), description)


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


@functools.lru_cache(maxsize=64)
def talon_aces_null(deck: DeckKind = DeckKind.PIQUET32, talon_size: int = 2) -> DiscreteNull:
    """Aces in an honest talon: hypergeometric (4 aces among 32 cards, 2 drawn: ``P(2) = 6/496``)."""
    return hypergeometric_null(deck.size, 4, talon_size, f"aces in a {talon_size}-card talon of {deck.value}")


@functools.lru_cache(maxsize=64)
def talon_value_null(deck: DeckKind = DeckKind.PIQUET32, talon_size: int = 2) -> DiscreteNull:
    return subset_sum_null(card_values(deck.codes()), talon_size, f"value of a {talon_size}-card talon of {deck.value}")


@functools.lru_cache(maxsize=64)
def hand_value_null(deck: DeckKind = DeckKind.PIQUET32, hand_size: int = 10) -> DiscreteNull:
    return subset_sum_null(card_values(deck.codes()), hand_size, f"value of a {hand_size}-card hand of {deck.value}")


@dataclass(frozen=True)
class TalonRank:
    """Where the talon stands among every pair that could have lain there given one seat's known hand."""

    value: np.ndarray       # the talon's value total, per hand
    at_least: np.ndarray    # pairs (the talon's own included) whose total is >= the talon's
    pairs: int              # C(22, 2) = 231 for a 32-card deck and a 10-card hand
    pvalue: np.ndarray      # at_least / pairs: exact, given that seat's hand

    @property
    def percentile(self) -> np.ndarray:
        """Share of possible pairs strictly below the talon's total, in percent."""
        return 100.0 * (1.0 - self.at_least / self.pairs)


def talon_rank(talons: np.ndarray, seat_hands: np.ndarray, deck: DeckKind = DeckKind.PIQUET32) -> TalonRank:
    """Rank each talon (``(m, 2)`` or ``(2,)``) among the pairs of the cards outside the matching seat's hand.

    A seat that sees its own ten cards knows the talon is a uniform pair of the other 22 under honest
    shuffling, so the rank of the talon's total among those C(22, 2) = 231 pairs is an exact conditional p-value.
    """
    tal = np.atleast_2d(np.asarray(talons, dtype=np.int64))
    held = np.atleast_2d(np.asarray(seat_hands, dtype=np.int64))
    if len(tal) != len(held):
        raise AuditError(f"{len(tal)} talons but {len(held)} seat hands")
    if tal.shape[1] != 2 or (tal[:, 0] == tal[:, 1]).any():
        raise AuditError(f"a talon here is two different cards, got shape {tal.shape} or a card twice")
    outside = _cards_outside(held, deck)
    if (np.take_along_axis(_membership(outside), tal, axis=1) == 0).any():
        raise AuditError("a talon card is also in the seat's hand")
    vals = card_values(outside)
    i, j = np.triu_indices(vals.shape[1], k=1)
    sums = vals[:, i] + vals[:, j]
    observed = value_total(tal)
    at_least = np.count_nonzero(sums >= observed[:, None], axis=1)
    return TalonRank(observed, at_least, len(i), at_least / len(i))


def _membership(cards: np.ndarray) -> np.ndarray:
    if cards.size and (cards.min() < 0 or cards.max() >= NUM_CODES):
        raise AuditError(f"card codes must lie in 0..{NUM_CODES - 1}")
    member = np.zeros((len(cards), NUM_CODES), dtype=np.int8)
    np.put_along_axis(member, cards, 1, axis=1)
    return member


def _cards_outside(held: np.ndarray, deck: DeckKind) -> np.ndarray:
    codes = deck.codes().astype(np.int64)
    in_hand = _membership(held)[:, codes].astype(bool)
    if (in_hand.sum(axis=1) != held.shape[1]).any():
        raise AuditError(f"every seat hand must hold {held.shape[1]} distinct cards of the {deck.value} deck")
    return np.broadcast_to(codes, in_hand.shape)[~in_hand].reshape(len(held), len(codes) - held.shape[1])


def monte_carlo_pvalue(observed: np.ndarray | float, simulated: np.ndarray) -> np.ndarray:
    """``(1 + #{sim >= obs}) / (1 + N)`` along the last axis of ``simulated``: never zero, valid at any N."""
    sims = np.asarray(simulated)
    obs = np.asarray(observed)[..., None]
    return (1.0 + np.count_nonzero(sims >= obs, axis=-1)) / (1.0 + sims.shape[-1])


def check_pvalues(pvalues: np.ndarray) -> np.ndarray:
    p = np.asarray(pvalues, dtype=float)
    if p.size and (np.isnan(p).any() or p.min() <= 0.0 or p.max() > 1.0):
        raise AuditError("p-values must lie in (0, 1]; a zero p-value means a Monte Carlo p-value lost its +1")
    return p


@dataclass(frozen=True)
class Combined:
    statistic: float
    pvalue: float
    count: int


def fisher(pvalues: np.ndarray) -> Combined:
    """Fisher's method: ``-2 Σ log p`` is chi-squared with ``2k`` degrees of freedom under the null."""
    p = check_pvalues(pvalues)
    stat = float(-2.0 * np.log(p).sum())
    return Combined(stat, float(sps.chi2.sf(stat, 2 * p.size)) if p.size else 1.0, p.size)


def stouffer(pvalues: np.ndarray) -> Combined:
    """Stouffer's method: ``Σ z / √k`` with ``z = Φ⁻¹(1 - p)`` is standard normal under the null."""
    p = check_pvalues(pvalues)
    if not p.size:
        return Combined(0.0, 1.0, 0)
    z = float(sps.norm.isf(p).sum() / np.sqrt(p.size))
    return Combined(z, float(sps.norm.sf(z)), p.size)


def _family(p: np.ndarray, total: int | None) -> int:
    m = p.size if total is None else total
    if m < p.size:
        raise AuditError(f"a family of {m} tests cannot hold {p.size} p-values")
    return m


def holm(pvalues: np.ndarray, total: int | None = None) -> np.ndarray:
    """Holm's step-down adjusted p-values: reject where ``adjusted <= alpha`` keeps the family-wise error at alpha.

    ``total``: the family's size when only its smallest p-values are passed (a streaming audit keeps those
    below alpha); the adjusted values of the ones passed are then exact.
    """
    p = check_pvalues(pvalues)
    m = _family(p, total)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(p.size)) * p[order])
    adjusted = np.empty(p.size)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def benjamini_hochberg(pvalues: np.ndarray, total: int | None = None) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values): reject where ``adjusted <= q`` keeps the FDR at q.

    With ``total`` larger than the p-values passed (all omitted ones exceed every one passed and ``q``), an
    adjusted value ``<= q`` is exact; a larger one is only known to exceed ``q``.
    """
    p = check_pvalues(pvalues)
    m = _family(p, total)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, p.size + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty(p.size)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted
