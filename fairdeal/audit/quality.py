"""How well a hand was shuffled, judged against the deck order before shuffling (the gathered last hand).

Everything reads the *relative permutation* ``p`` with ``after = before[p]``: ``p[i]`` is where the card now at
position ``i`` lay before the shuffle. An unshuffled deck is the identity; what survives of it is what a dealer
who watched the cards gathered can still exploit. Rotation-invariant measures forgive cuts: a cut moves the top
to the bottom but keeps the deck's cyclic order, which is exactly what a false shuffle followed by a cut keeps.

A second question is how much chance the logged actions could have put in at all: a card-by-card run, a riffle
logged with its pattern, a cut logged with its depth — each is one fixed permutation and contributes no
randomness; only actions logged without details (``riffle ?``, ``cut ?``, ``overhand ?``) could have been random.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fairdeal.audit.kernels import quality_measures
from fairdeal.audit.stats import DiscreteNull
from fairdeal.deal import DealPattern
from fairdeal.errors import AuditError
from fairdeal.shuffle.models import CODEX_MIN_EACH_SIDE
from fairdeal.shuffle.ops import Cut, Overhand, Riffle, ShuffleOp, ShuffleSequence
from fairdeal.shuffle.theory import rising_sequences, total_variation


def _steps(p: np.ndarray, cyclic: bool) -> np.ndarray:
    """Label differences between neighbours (mod n when cyclic; then the bottom card neighbours the top)."""
    arr = np.atleast_2d(p)
    n = arr.shape[1]
    if cyclic:
        returned: np.ndarray = (np.roll(arr, -1, axis=1) - arr) % n
        return returned
    return np.diff(arr, axis=1)


def _shaped(values: np.ndarray, p: np.ndarray) -> np.ndarray | int:
    return values if np.ndim(p) > 1 else int(values[0])


def preserved_adjacencies(p: np.ndarray, cyclic: bool = False) -> np.ndarray | int:
    """Neighbours that were neighbours before, in the same order (a cut keeps all ``n`` cyclic ones)."""
    step = 1 % np.shape(p)[-1] if cyclic else 1
    return _shaped((_steps(p, cyclic) == step).sum(axis=1), p)


def reversed_adjacencies(p: np.ndarray, cyclic: bool = False) -> np.ndarray | int:
    """Neighbours that were neighbours before, now in reverse order (what a card-by-card run leaves)."""
    step = np.shape(p)[-1] - 1 if cyclic else -1
    return _shaped((_steps(p, cyclic) == step).sum(axis=1), p)


def longest_preserved_block(p: np.ndarray, cyclic: bool = False) -> np.ndarray | int:
    """Length of the longest stretch of cards still together in their old order (cyclically: across the cut)."""
    arr = np.atleast_2d(p)
    n = arr.shape[1]
    kept = _steps(arr, cyclic) == 1 % n
    if cyclic:
        if n == 1:
            return _shaped(np.ones(len(arr), dtype=np.int64), p)
        all_kept = kept.all(axis=1)
        kept = np.concatenate([kept, kept], axis=1)  # a block may wrap from the bottom to the top
    run = np.zeros(len(arr), dtype=np.int64)
    best = np.zeros(len(arr), dtype=np.int64)
    for column in kept.T:
        run = np.where(column, run + 1, 0)
        best = np.maximum(best, run)
    blocks = np.minimum(best + 1, n)
    if cyclic:
        blocks = np.where(all_kept, n, blocks)
    return _shaped(blocks, p)


def rising_sequence_count(p: np.ndarray, rotation_invariant: bool = False) -> np.ndarray | int:
    """Rising sequences (theory module's count); rotation-invariant: the least over cuts before and after.

    A cut before the shuffle relabels the cards cyclically, so it only chooses which cyclic successor pair
    ``(j, j + 1 mod n)`` is not counted: the least over those cuts is ``1 + breaks - [any break]``, where a break
    is a successor lying above its card. A cut of depth ``a`` after the shuffle makes the pair at positions
    ``(x, y)`` a break exactly when ``a`` lies in the cyclic interval ``(x, y]``: the breaks of every cut at once
    are the coverage counts of those intervals.
    """
    arr = np.atleast_2d(p)
    if not rotation_invariant:
        return _shaped(np.atleast_1d(rising_sequences(arr)), p)
    m, n = arr.shape
    where = np.argsort(arr, axis=1)
    start = where + 1  # the interval covers start .. start + length - 1 (mod n)
    length = (np.roll(where, -1, axis=1) - where) % n
    base = (np.arange(m) * 2 * n)[:, None]
    marks = np.bincount((base + start).ravel(), minlength=2 * m * n)
    marks -= np.bincount((base + start + length).ravel(), minlength=2 * m * n)[: 2 * m * n]
    cover = np.cumsum(marks.reshape(m, 2 * n), axis=1)
    breaks = cover[:, :n] + cover[:, n:]
    return _shaped((1 + breaks - (breaks > 0)).min(axis=1), p)


def guessing_score(p: np.ndarray, cyclic: bool = False) -> np.ndarray | int:
    """Correct guesses of Diaconis' guess-the-next-card game played by someone who knows the old order.

    The guesser names the old successor of the card just shown when it is still unseen, else the unseen
    card that lay highest (cyclic: the successor wraps from the bottom card to the top one, forgiving a cut).
    Against a uniform shuffle each guess hits with probability 1/(cards left), whatever came before.
    """
    arr = np.atleast_2d(p)
    m, n = arr.shape
    rows = np.arange(m)
    seen = np.zeros((m, n + 1), dtype=bool)
    seen[:, n] = True  # a sentinel: "no successor" counts as seen
    score = np.zeros(m, dtype=np.int64)
    guess = np.zeros(m, dtype=np.int64)
    for t in range(n):
        shown = arr[:, t]
        score += shown == guess
        seen[rows, shown] = True
        successor = (shown + 1) % n if cyclic else shown + 1
        first_unseen = np.argmin(seen[:, :n], axis=1)
        guess = np.where(seen[rows, successor], first_unseen, successor)
    return _shaped(score, p)


def guessing_null(n: int) -> DiscreteNull:
    """Exact law of the guessing score under a uniform shuffle: a sum of independent Bernoulli(1/k), k = 1..n."""
    if n < 1:
        raise AuditError(f"a deck needs at least one card, got {n}")
    pmf = np.array([1.0])
    for k in range(1, n + 1):
        pmf = np.convolve(pmf, [1 - 1 / k, 1 / k])
    return DiscreteNull(pmf, f"guessing score against a uniform {n}-card shuffle")


MEASURES = (
    "preserved",
    "reversed",
    "longest_block",
    "rising",
    "guessing",
    "cyclic_preserved",
    "cyclic_reversed",
    "cyclic_longest_block",
    "cyclic_rising",
    "cyclic_guessing",
)


@dataclass(frozen=True)
class QualityReport:
    """Per-hand shuffle-quality measures over a batch of hands (``MEASURES`` in that order)."""

    measures: np.ndarray  # (hands, len(MEASURES)) integer counts
    cyclic_guessing_pvalue: np.ndarray  # exact P(score >= observed) under a uniform shuffle

    def measure(self, name: str) -> np.ndarray:
        return self.measures[:, MEASURES.index(name)]


def permutation_quality(p: np.ndarray) -> QualityReport:
    """All per-hand measures of a batch of relative permutations (``after = before[p]``, one per row), by the C
    kernel (``kernels.quality_measures``: the functions above, hand by hand, in one pass)."""
    p = np.atleast_2d(p)
    measures = quality_measures(p)
    return QualityReport(measures, guessing_null(p.shape[1]).pvalue(measures[:, MEASURES.index("cyclic_guessing")]))


# --- How much randomness the logged actions could carry -----------------------------------------------------


def action_bits(op: ShuffleOp, n: int, min_each_side: int = CODEX_MIN_EACH_SIDE) -> float:
    """log2 of the number of distinct outcomes the logged action could have had.

    A logged op with its details is one permutation: 0 bits. ``riffle ?``: a GSR riffle reaches ``2^n - n``
    arrangements. ``cut ?``: one of the legal depths. ``overhand ?``: each of the ``2^(n-1)`` packet splits
    gives a different arrangement.
    """
    if op.is_known:
        return 0.0
    if isinstance(op, Riffle):
        return math.log2(2**n - n)
    if isinstance(op, Cut):
        return math.log2(max(1, n - 2 * min_each_side + 1))
    if isinstance(op, Overhand):
        return float(n - 1)
    raise AuditError(f"no outcome count for the unlogged action {op.notation()!r}")


@dataclass(frozen=True)
class RandomnessBudget:
    per_action: tuple[float, ...]
    ceiling: float  # log2(n!): a uniform shuffle
    deal_bits: float  # log2 of the distinct deals the pattern can produce

    @property
    def total(self) -> float:
        """An upper bound: the sequence reaches at most the product of its actions' outcome counts."""
        return min(sum(self.per_action), self.ceiling)

    @property
    def can_randomise_deal(self) -> bool:
        return self.total >= self.deal_bits


def randomness_budget(
    sequence: ShuffleSequence, pattern: DealPattern, min_each_side: int = CODEX_MIN_EACH_SIDE
) -> RandomnessBudget:
    n = pattern.deck.size
    bits = tuple(action_bits(action.op, n, min_each_side) for action in sequence)
    return RandomnessBudget(bits, math.log2(math.factorial(n)), deal_bits(pattern))


def deal_bits(pattern: DealPattern) -> float:
    """log2 of ``n! / (hand!^hands · talon!^talons)``: the distinct deals, order within a hand not counting."""
    ways = math.factorial(pattern.deck.size)
    ways //= math.factorial(pattern.cards_per_hand) ** pattern.hands
    if pattern.talons:
        ways //= math.factorial(pattern.talon_size) ** pattern.talons
    return math.log2(ways)


def unrecorded_riffles(sequence: ShuffleSequence) -> int:
    return sum(1 for action in sequence if isinstance(action.op, Riffle) and not action.op.is_known)


def riffle_distance(sequence: ShuffleSequence, n: int) -> Fraction:
    """Exact total-variation distance to uniform of the sequence's unrecorded GSR riffles (Bayer-Diaconis).

    Logged ops are fixed permutations and do not move the distance; with no unrecorded riffle the outcome is
    one arrangement, at distance ``1 - 1/n!``.
    """
    return _riffles_distance(n, unrecorded_riffles(sequence))


@functools.lru_cache(maxsize=64)
def _riffles_distance(n: int, riffles: int) -> Fraction:
    return total_variation(n, riffles)
