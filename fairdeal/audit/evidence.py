"""Per-hand evidence: e-values hand by hand, combined across a dealer's hands into an anytime-valid test.

Two sources give each hand an e-value (a non-negative number whose mean is at most 1 under honest play):

* the replay (``benign``): a mismatching deal's likelihood ratio against honest log errors, a false cut's one
  over the chance honest cuts cancel; a hand that matches its logged shuffle has e-value 1;
* targeting (``targeting.conformal_evalue``): the likelihood ratio of the talon's aces under stacking, as a
  share of its total over the hand's own same-effort draws (exchangeable with the deal when honest).

A dealer's hands, in log order, are bet on with a fraction ``lambda`` of the wealth: ``prod (1 - lambda +
lambda e_i)``, averaged over ``BETS``. Under honest play each factor has mean at most 1 given the past, so the
average is a test supermartingale, and by Ville's inequality ``P(ever >= 1/alpha) <= alpha``: ``1 / max`` is a
p-value at any stopping point. The hands with the largest e-values are those that carry the evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

BETS = (0.05, 0.1, 0.2, 0.5, 0.9)
SHOWN_HANDS = 20
REPLAY, TARGETING = "replay", "targeting"


@dataclass(frozen=True)
class HandEvidence:
    """One hand's contribution: where it is, its e-value and what gave it."""

    line: int
    hand: int
    e_value: float
    reason: str  # what gave it: "deal", "false cut", "talon aces against same-effort shuffles"


@dataclass(frozen=True)
class DealerEvidence:
    """One dealer's e-process over one source: its peak, the p-value it gives, and the hands that carry it."""

    dealer: str
    source: str  # REPLAY or TARGETING
    weighed: int  # hands with an e-value other than 1 (replay) or with same-effort draws (targeting)
    max_log_e: float  # natural log of the peak of the mixture
    final_log_e: float
    hands: tuple[HandEvidence, ...]  # the largest e-values above 1, largest first (at most SHOWN_HANDS)

    @property
    def pvalue(self) -> float:
        return float(min(1.0, np.exp(-self.max_log_e)))


def log_wealth(e_values: np.ndarray, bets: tuple[float, ...] = BETS) -> np.ndarray:
    """The running natural log of the bet mixture ``mean_lambda prod (1 - lambda + lambda e_i)`` after each hand."""
    e = np.asarray(e_values, dtype=float)
    if not len(e):
        return np.zeros(0)
    with np.errstate(divide="ignore"):
        steps = np.log1p(np.array(bets)[:, None] * (np.minimum(e, 1e300)[None, :] - 1.0))
    returned: np.ndarray = logsumexp(np.cumsum(steps, axis=1), axis=0) - np.log(len(bets))
    return returned


def dealer_evidence(
    dealer: str, source: str, lines: np.ndarray, hands: np.ndarray, e_values: np.ndarray, reasons: list[str]
) -> DealerEvidence:
    """A dealer's e-process over his hands' e-values (any order: they are put in log order here)."""
    order = np.argsort(lines, kind="stable")
    e = np.asarray(e_values, dtype=float)[order]
    path = log_wealth(e)
    top = [int(i) for i in order[np.argsort(-e, kind="stable")] if e_values[i] > 1.0][:SHOWN_HANDS]
    shown = tuple(HandEvidence(int(lines[i]), int(hands[i]), float(e_values[i]), reasons[i]) for i in top)
    peak = float(max(0.0, path.max())) if len(path) else 0.0
    final = float(path[-1]) if len(path) else 0.0
    return DealerEvidence(dealer, source, len(e), peak, final, shown)
