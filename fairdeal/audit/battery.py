"""The GLI-style battery for digitally dealt logs: is the deal generator uniform and memoryless?

Four tests over the whole log, each with an exact or asymptotic null under uniform independent deals:

* card x receiver chi-square: how often each card lands in each hand (counted from the dealer) or the talon.
  Within one deal the cards compete for places (sampling without replacement), which inflates the Pearson
  statistic by ``N / (N - 1)``; after that correction it is chi-squared with ``(N - 1)(R - 1)`` degrees of freedom.
* runs test (Wald-Wolfowitz) on a card-derived binary sequence, one symbol per deal: is the first hand's value
  above its null median? Too few or too many runs mean the generator remembers.
* serial matches between consecutive deals: the number of cards that go to the same receiver in deal t and t+1.
  Its mean and variance given one deal do not depend on that deal, so successive terms are uncorrelated.
* repeated deals: exact duplicates (a deal packs into one 64-bit key); under uniform deals the number of
  duplicate pairs is Poisson with mean ``C(n, 2) / D``, D the number of distinct deals.
Every part is a sum or a boundary pair, so blocks of the log merge in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb, lgamma

import numpy as np

from fairdeal.audit.stats import subset_sum_null
from fairdeal.audit.tails import chi2_sf, normal_sf, poisson_sf


@dataclass(frozen=True)
class BatteryPart:
    """One block's contribution (in log order): sums, plus the first and last deal for the boundary terms."""

    cells: np.ndarray  # (cards, receivers) counts
    ones: int  # symbols 1 of the runs sequence
    zeros: int
    runs: int
    first_symbol: int
    last_symbol: int
    matches: int  # Σ same-receiver cards over consecutive pairs inside the block
    pairs: int
    first_deal: np.ndarray  # receivers of each card code (-1: not in the deck)
    last_deal: np.ndarray


def battery_part(recv: np.ndarray, symbols: np.ndarray, receivers: int) -> BatteryPart | None:
    """The battery's sums for the deals ``recv`` (``(m, codes)``, in log order) and their runs symbols."""
    if not len(recv):
        return None
    in_deck = recv[0] >= 0
    cards = recv[:, in_deck].astype(np.int64)
    codes = np.broadcast_to(np.arange(cards.shape[1]), cards.shape)
    cells = np.bincount((codes * receivers + cards).ravel(), minlength=cards.shape[1] * receivers)
    sym = np.asarray(symbols, dtype=np.int64)
    runs = 1 + int(np.count_nonzero(sym[1:] != sym[:-1]))
    matches = int(np.count_nonzero(cards[1:] == cards[:-1]))
    return BatteryPart(
        cells.reshape(-1, receivers),
        int(sym.sum()),
        int(len(sym) - sym.sum()),
        runs,
        int(sym[0]),
        int(sym[-1]),
        matches,
        len(cards) - 1,
        recv[0].copy(),
        recv[-1].copy(),
    )


def join(a: BatteryPart | None, b: BatteryPart | None) -> BatteryPart | None:
    """``a`` followed by ``b`` in the log."""
    if a is None or b is None:
        return a or b
    boundary = int(np.count_nonzero((a.last_deal == b.first_deal) & (a.last_deal >= 0)))
    return BatteryPart(
        a.cells + b.cells,
        a.ones + b.ones,
        a.zeros + b.zeros,
        a.runs + b.runs - (a.last_symbol == b.first_symbol),
        a.first_symbol,
        b.last_symbol,
        a.matches + b.matches + boundary,
        a.pairs + b.pairs + 1,
        a.first_deal,
        b.last_deal,
    )


@dataclass(frozen=True)
class BatteryTest:
    name: str
    statistic: float
    pvalue: float
    count: int
    null: str


def match_moments(sizes: list[int]) -> tuple[float, float]:
    """Mean and variance of the cards sharing a receiver in two independent uniform deals (receiver sizes)."""
    n = sum(sizes)
    mean = sum(s * s for s in sizes) / n
    pair_same = sum((s * (s - 1)) ** 2 for s in sizes) / (n * (n - 1))
    pair_apart = sum(a * a * b * b for i, a in enumerate(sizes) for j, b in enumerate(sizes) if i != j) / (n * (n - 1))
    return mean, mean + pair_same + pair_apart - mean * mean


def distinct_deals(sizes: list[int]) -> float:
    return float(np.exp(lgamma(sum(sizes) + 1) - sum(lgamma(s + 1) for s in sizes)))


def battery_tests(part: BatteryPart | None, sizes: list[int], duplicate_pairs: int, deals: int) -> list[BatteryTest]:
    """The four tests; ``sizes`` are the receivers' card counts (hands then talons)."""
    if part is None or deals < 2:
        return []
    n, receivers = sum(sizes), len(sizes)
    expected = (part.ones + part.zeros) * np.outer(np.ones(n), np.array(sizes) / n)
    pearson = float(((part.cells - expected) ** 2 / expected).sum()) * (n - 1) / n
    dof = (n - 1) * (receivers - 1)
    tests = [
        BatteryTest(
            "card x receiver chi-square",
            pearson,
            float(chi2_sf(pearson, dof)),
            deals,
            f"uniform deals: chi-squared with {dof} degrees of freedom after the N/(N-1) correction",
        )
    ]
    n1, n0 = part.ones, part.zeros
    if n1 and n0:
        total = n1 + n0
        mean = 1 + 2 * n1 * n0 / total
        var = 2 * n1 * n0 * (2 * n1 * n0 - total) / (total * total * (total - 1))
        z = (part.runs - mean) / np.sqrt(var) if var > 0 else 0.0
        tests.append(
            BatteryTest(
                "runs of the first hand's value above median",
                float(z),
                float(2 * normal_sf(abs(z))),
                total,
                "independent deals: Wald-Wolfowitz runs, normal, two-sided",
            )
        )
    mean, var = match_moments(sizes)
    z = (part.matches - part.pairs * mean) / np.sqrt(part.pairs * var)
    tests.append(
        BatteryTest(
            "serial matches between consecutive deals",
            float(z),
            float(2 * normal_sf(abs(z))),
            part.pairs,
            f"independent deals: {mean:.3f} shared placements per pair, two-sided",
        )
    )
    lam = comb(deals, 2) / distinct_deals(sizes)
    tests.append(
        BatteryTest(
            "repeated deals",
            float(duplicate_pairs),
            float(poisson_sf(duplicate_pairs - 1, lam)) if duplicate_pairs else 1.0,
            deals,
            f"uniform deals: duplicate pairs Poisson with mean {lam:.2e}",
        )
    )
    return tests


def median_split(values: np.ndarray, hand_size: int) -> int:
    """The null median of a hand's value: the symbol is ``value > median``."""
    law = subset_sum_null(np.asarray(values), hand_size)
    return int(np.searchsorted(np.cumsum(law.pmf), 0.5))


def deal_keys(recv: np.ndarray, receivers: int) -> np.ndarray:
    """One 64-bit key per deal (exact when receivers <= 4 and the deck <= 32 cards, a hash otherwise)."""
    cards = recv[:, recv[0] >= 0].astype(np.uint64)
    base = np.uint64(4 if receivers <= 4 else receivers)
    weights = base ** np.arange(cards.shape[1], dtype=np.uint64)
    with np.errstate(over="ignore"):
        returned: np.ndarray = (cards * weights).sum(axis=1, dtype=np.uint64)
        return returned


__all__ = [
    "BatteryPart",
    "BatteryTest",
    "battery_part",
    "battery_tests",
    "deal_keys",
    "distinct_deals",
    "join",
    "match_moments",
    "median_split",
]
