"""Was this deal aimed? The talon and each hand against honest shuffling of the same effort.

With the gathered order and the logged shuffle known, the null is conditional: the same number and kinds of
actions, each replaced by its honest model (``model_for``: a run of k by an overhand of the top k, a cut by a
uniform legal cut, a riffle by a GSR riffle), applied to the same starting order. A run that carries the aces
from where they were gathered to the talon places is one fixed permutation; honest hands of the same effort
almost never put them there, so a single hand stands out. The Monte Carlo p-value
``(1 + #{sim >= obs}) / (1 + N)`` is valid at any N. Without the order or the shuffle the null is the uniform
deck, and the p-values are exact (hypergeometric and subset-sum laws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairdeal.audit.stats import (
    DiscreteNull,
    card_values,
    count_aces,
    hand_value_null,
    hypergeometric_null,
    talon_value_null,
    value_total,
)
from fairdeal.deal import DealPattern, deal_batch
from fairdeal.errors import AuditError
from fairdeal.shuffle.models import CODEX_MIN_EACH_SIDE, DEFAULT_MEAN_PACKET, sample_honest_batch
from fairdeal.shuffle.ops import ShuffleSequence

DEFAULT_DRAWS = 999
CHUNK_CELLS = 4_000_000   # simulated cards held at once: bounds memory for large batches


@dataclass(frozen=True)
class TailTest:
    """An upper-tail test per hand: ``pvalue = above + at``, where ``above`` is the null weight strictly above the
    observation and ``at`` the weight tied with it (for Monte Carlo the observation counts as one tie)."""

    observed: np.ndarray
    above: np.ndarray
    at: np.ndarray

    @property
    def pvalue(self) -> np.ndarray:
        return np.minimum(self.above + self.at, 1.0)

    def randomized(self, uniform: np.ndarray) -> np.ndarray:
        """Ties broken by ``uniform`` draws: exactly uniform under the null, for calibration checks."""
        return self.above + np.asarray(uniform) * self.at

    @staticmethod
    def monte_carlo(observed: np.ndarray, greater: np.ndarray, ties: np.ndarray, draws: int) -> "TailTest":
        return TailTest(observed, greater / (draws + 1.0), (ties + 1.0) / (draws + 1.0))

    @staticmethod
    def exact(observed: np.ndarray, law: DiscreteNull) -> "TailTest":
        return TailTest(observed, law.pvalue(observed + 1), law.prob(observed))


@dataclass(frozen=True)
class Targeting:
    """Per-hand tests for a batch of ``m`` hands: talons ``(m, talons)``, hands ``(m, hands)`` in pattern order."""

    talon_aces: TailTest
    talon_value: TailTest
    hand_value: TailTest
    draws: int                     # Monte Carlo draws per hand; 0 for the exact uniform-deck null
    null: str


def target_with_order(
    orders_before: np.ndarray,
    sequence: ShuffleSequence,
    hands: np.ndarray,
    talons: np.ndarray,
    pattern: DealPattern,
    rng: np.random.Generator,
    draws: int = DEFAULT_DRAWS,
    min_each_side: int = CODEX_MIN_EACH_SIDE,
    mean_packet: float = DEFAULT_MEAN_PACKET,
) -> Targeting:
    """Monte Carlo p-values for hands that share one logged ``sequence`` (fresh honest draws for every hand).

    ``orders_before``: ``(m, n)``; ``hands``: ``(m, hands, cards)`` and ``talons``: ``(m, talons, size)`` as
    received, in the pattern's hand order.
    """
    before, observed_hands, observed_talons = _check_batch(orders_before, hands, talons, pattern)
    if draws < 1:
        raise AuditError(f"a Monte Carlo test needs at least one draw, got {draws}")
    n = pattern.deck.size
    m = len(before)
    observed = _statistics(observed_hands, observed_talons)
    greater = [np.zeros(o.shape, dtype=np.int64) for o in observed]
    ties = [np.zeros(o.shape, dtype=np.int64) for o in observed]
    per_chunk = max(1, CHUNK_CELLS // (draws * n))
    for start in range(0, m, per_chunk):
        rows = slice(start, min(m, start + per_chunk))
        size = rows.stop - rows.start
        perms = sample_honest_batch(sequence, rng, n, size * draws, min_each_side, mean_packet).reshape(size, draws, n)
        simulated_orders = np.take_along_axis(before[rows, None, :], perms, axis=2).reshape(size * draws, n)
        sim_hands, sim_talons = deal_batch(simulated_orders, pattern)
        simulated = _statistics(sim_hands, sim_talons)
        for k, (sim, obs) in enumerate(zip(simulated, observed)):
            sim = sim.reshape(size, draws, *obs.shape[1:])
            greater[k][rows] = np.count_nonzero(sim > obs[rows][:, None], axis=1)
            ties[k][rows] = np.count_nonzero(sim == obs[rows][:, None], axis=1)
    tests = [TailTest.monte_carlo(o, g, t, draws) for o, g, t in zip(observed, greater, ties)]
    return Targeting(*tests, draws, f"{draws} honest draws of '{sequence.notation()}' from the gathered order")


def target_uniform(hands: np.ndarray, talons: np.ndarray, pattern: DealPattern) -> Targeting:
    """Exact p-values against a uniformly shuffled deck (no order or no shuffle in the log)."""
    _, observed_hands, observed_talons = _check_batch(None, hands, talons, pattern)
    talon_aces, talon_value, hand_value = _statistics(observed_hands, observed_talons)
    values = card_values(pattern.deck.codes())
    aces_in_deck = int(np.count_nonzero(values == values.max()))
    aces_law = hypergeometric_null(pattern.deck.size, aces_in_deck, pattern.talon_size)
    talon_law = talon_value_null(pattern.deck, pattern.talon_size)
    hand_law = hand_value_null(pattern.deck, pattern.cards_per_hand)
    return Targeting(
        TailTest.exact(talon_aces, aces_law), TailTest.exact(talon_value, talon_law),
        TailTest.exact(hand_value, hand_law), 0, f"exact: a uniformly shuffled {pattern.deck.value} deck",
    )


def _statistics(hands: np.ndarray, talons: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return count_aces(talons), value_total(talons), value_total(hands)


def _check_batch(
    orders_before: np.ndarray | None, hands: np.ndarray, talons: np.ndarray, pattern: DealPattern
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    h = np.asarray(hands, dtype=np.int64)
    t = np.asarray(talons, dtype=np.int64)
    want_h = (pattern.hands, pattern.cards_per_hand)
    want_t = (pattern.talons, pattern.talon_size)
    if h.ndim != 3 or h.shape[1:] != want_h or t.ndim != 3 or t.shape[1:] != want_t or len(h) != len(t):
        raise AuditError(
            f"pattern {pattern.name} needs hands of shape (m, {want_h[0]}, {want_h[1]}) and talons of shape "
            f"(m, {want_t[0]}, {want_t[1]}); got {h.shape} and {t.shape}"
        )
    if orders_before is None:
        return None, h, t
    before = np.asarray(orders_before, dtype=np.int64)
    if before.shape != (len(h), pattern.deck.size):
        raise AuditError(f"expected {len(h)} orders of {pattern.deck.size} cards, got shape {before.shape}")
    return before, h, t



def target_cross_match(
    order_before: np.ndarray,
    sequence_permutation: np.ndarray,
    other_permutations: np.ndarray,
    pattern: DealPattern,
) -> Targeting:
    """Was the shuffle chosen for *this* deck? The hand's own shuffle against the dealer's other shuffles.

    An honest dealer chooses his shuffle without regard to the gathered order, so his logged shuffles are
    exchangeable with respect to it: applied to this hand's gathered order, his other hands' shuffles are draws
    from the null. A cardsharp's runs are tailored to each order and lose their aim on another hand's deck.
    ``other_permutations``: ``(J, n)`` permutations of the same dealer's other hands (``new = old[p]``).
    """
    before = np.asarray(order_before, dtype=np.int64)
    own = np.asarray(sequence_permutation, dtype=np.intp)
    others = np.atleast_2d(np.asarray(other_permutations, dtype=np.intp))
    n = pattern.deck.size
    if before.shape != (n,) or own.shape != (n,) or others.shape[1:] != (n,) or not len(others):
        raise AuditError(f"a cross-match needs one order, its permutation and at least one other permutation of {n}")
    hands, talons = deal_batch(before[own][None, :], pattern)
    observed = _statistics(hands, talons)
    sim_hands, sim_talons = deal_batch(before[others], pattern)
    simulated = _statistics(sim_hands, sim_talons)
    draws = len(others)
    tests = [
        TailTest.monte_carlo(obs, np.count_nonzero(sim > obs, axis=0)[None], np.count_nonzero(sim == obs, axis=0)[None], draws)
        for obs, sim in zip(observed, simulated)
    ]
    return Targeting(*tests, draws, f"the dealer's {draws} other shuffles applied to this hand's gathered order")
