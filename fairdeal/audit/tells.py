"""The shuffle's own tells, hand by hand, folded into per-dealer sums that merge block by block.

Two tests per dealer join the verdict's Holm/BH family; both need the gathered order and a fully logged shuffle.

* **A shuffle too weak for its riffles** (the lazy shuffle). Null: a shuffle that includes riffles is meant to
  randomise the deck, so relative to the gathered order the deck after it is uniform; the cyclic guessing score
  (``quality.guessing_score``: cards named correctly by someone who knows the gathered order) then has the exact
  law of a sum of independent Bernoulli(1/k). Per hand the exact p-value is at most ``LAZY_LEVEL`` with
  probability at most ``LAZY_LEVEL``, so a dealer's count of such hands is stochastically below
  Binomial(hands, ``LAZY_LEVEL``): the tail of that binomial is his p-value. Shuffles of runs and cuts only make
  no claim to randomise (seed 004's card-by-card runs): they are judged by the talon and hand tests instead.
* **Aces brought together** (a stack aimed at a cut the cardsharp cannot control). Statistic: the ace pairs the
  shuffle made neighbours (cyclically, so the cut does not matter) that were not neighbours in the gathered
  order. Null: honest shuffles of the same effort from the same gathered order (each logged action replaced by
  its honest model, ``shuffle.models.sample_honest_batch``: a riffle by a GSR riffle, a run of k by an overhand
  of the top k, a cut by a uniform legal cut). The Monte Carlo p-value breaks ties at random, so it is exactly
  uniform when the logged actions follow their models, and conservative for card-by-card runs (a reversal makes
  at most two new neighbours, an overhand of the same cards more); Fisher across the dealer's hands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.quality import guessing_null, guessing_score
from fairdeal.audit.summary import BlockContext, BlockSummary
from fairdeal.cards import NUM_CODES
from fairdeal.errors import FairdealError
from fairdeal.shuffle.models import sample_honest_batch
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Riffle, ShuffleSequence

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands

LAZY_LEVEL = 0.001
TOGETHER_DRAWS = 99
TINY = np.finfo(float).tiny

LAZY_NULL = (
    f"a shuffle with riffles randomises: cyclic guessing score exact under a uniform deck; hands with "
    f"p <= {LAZY_LEVEL} at most Binomial(hands, {LAZY_LEVEL})"
)
TOGETHER_NULL = (
    f"honest shuffles of the same effort from the gathered order ({TOGETHER_DRAWS} draws a hand, ties "
    "broken at random): new ace neighbours per hand; Fisher"
)


def new_neighbours(before: np.ndarray, after: np.ndarray, aces: np.ndarray) -> np.ndarray:
    """Ace pairs cyclically adjacent in each row of ``after`` that were not adjacent in ``before``."""

    def pair_keys(orders: np.ndarray) -> np.ndarray:
        nxt = np.roll(orders, -1, axis=-1)
        both = aces[orders] & aces[nxt]
        return np.where(both, np.minimum(orders, nxt) * NUM_CODES + np.maximum(orders, nxt), -1)

    old = pair_keys(before)
    old = old[old >= 0]
    new = pair_keys(np.atleast_2d(after))
    returned: np.ndarray = np.count_nonzero((new >= 0) & ~np.isin(new, old), axis=-1)
    return returned


def together_pvalue(
    before: np.ndarray,
    sequence: ShuffleSequence,
    aces: np.ndarray,
    rng: np.random.Generator,
    min_each_side: int,
    draws: int = TOGETHER_DRAWS,
) -> float:
    """The hand's randomized Monte Carlo p-value of new ace neighbours against same-effort honest shuffles."""
    n = len(before)
    observed = new_neighbours(before, before[sequence.permutation(n)], aces)[0]
    simulated = new_neighbours(before, before[sample_honest_batch(sequence, rng, n, draws, min_each_side)], aces)
    above, ties = np.count_nonzero(simulated > observed), np.count_nonzero(simulated == observed)
    return float(max((above + rng.random() * (ties + 1)) / (draws + 1), TINY))


def fold_tells(
    hands: Hands,
    orders: np.ndarray,
    dealers: np.ndarray,
    aces: np.ndarray,
    context: BlockContext,
    summary: BlockSummary,
    rng: np.random.Generator,
) -> None:
    """Both tells for every hand of a block whose gathered order and whole shuffle are logged."""
    n = orders.shape[1]
    riffled_perms, riffled_dealers = [], []
    sums = summary.sums
    for k, (_, record) in enumerate(hands):
        shuffle = record.logged_shuffle
        if shuffle is None or orders[k, 0] < 0:
            continue
        try:
            sequence = parse_notation(shuffle)
            perm = sequence.permutation(n)
        except FairdealError:
            continue  # the replay has already reported it (malformed, or a cut this deck cannot make)
        if not sequence.is_known:
            continue
        dealer = int(dealers[k])
        p = together_pvalue(orders[k], sequence, aces, rng, context.min_each_side)
        sums.together_fisher[dealer] += -2.0 * np.log(p)
        sums.together_tests[dealer] += 1
        if any(isinstance(action.op, Riffle) for action in sequence):
            riffled_perms.append(perm)
            riffled_dealers.append(dealer)
    if riffled_perms:
        pvalues = guessing_null(n).pvalue(guessing_score(np.array(riffled_perms), cyclic=True))
        np.add.at(sums.lazy_tests, riffled_dealers, 1)
        np.add.at(sums.lazy_low, riffled_dealers, (pvalues <= LAZY_LEVEL).astype(np.int64))
