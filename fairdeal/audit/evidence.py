"""What one audited hand contributes, and the per-dealer and per-player evidence it folds into.

``audit_hand`` judges a single hand record; ``DealerEvidence`` and ``PlayerEvidence`` hold only counts and sums,
so they merge shard by shard (the CUSUM segment in hand order, everything else in any order).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from fairdeal.audit.replay import CutDepthTally, Finding, replay_findings
from fairdeal.audit.sequential import CategoricalTest, CusumSegment, MixtureEProcess, eprocess_of
from fairdeal.audit.stats import talon_value_null
from fairdeal.audit.tally import DealerTally, tally_hands
from fairdeal.audit.targeting import TailTest, Targeting, target_cross_match, target_uniform, target_with_order
from fairdeal.cards import from_ascii_list
from fairdeal.deal import Deal, DealPattern, deal_from_seats, seats_of_hands
from fairdeal.log.records import UNSET, HandRecord
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import ShuffleSequence

CROSS_MATCH_MIN = 19      # other shuffles needed before a cross-match p-value can reach 0.05


@dataclass(frozen=True)
class AuditOptions:
    draws: int = 199                 # Monte Carlo draws per hand for the same-effort null
    min_each_side: int = 4           # legal cut minimum (Codex)
    alpha: float = 0.05              # family-wise level (Holm) and FDR level (Benjamini-Hochberg)
    cheat_rate: float = 0.25         # the CUSUM's alternative: an ace stacked into the talon in this share of deals
    horizon: int = 300               # the CUSUM's false-alarm rate holds over this many deals per dealer
    cross_window: int = 100          # the dealer's recent shuffles kept for the cross-match test
    seed: int = 0
    max_findings: int = 1000         # replay findings and malformed lines kept for the report (all are counted)


@dataclass(frozen=True)
class HandAudit:
    """One hand's results: ``pvalue`` is the talon-aces test under the strongest null the log allows.

    The ``uniform_*`` p-values break ties at random, so they are exactly uniform under the null: those are the
    ones combined across hands (Fisher on the conservative discrete p-values, mostly 1, would never fire).
    """

    hand: int
    dealer: int
    talon_aces: int
    talon_value: int
    pvalue: float
    uniform_pvalue: float
    cross_uniform_pvalue: float | None
    seat_value_pvalues: tuple[tuple[int, float], ...]   # per seat, tie-broken (uniform under the null)
    findings: tuple[Finding, ...]
    cut_depths: CutDepthTally | None


@dataclass(frozen=True)
class DealerEvidence:
    tally: DealerTally = DealerTally()
    cusum: CusumSegment = CusumSegment()
    eprocess: MixtureEProcess = field(default_factory=MixtureEProcess.empty)
    cross: DealerTally = DealerTally()
    cuts: CutDepthTally | None = None

    def merge(self, later: "DealerEvidence") -> "DealerEvidence":
        cuts = self.cuts if later.cuts is None else later.cuts if self.cuts is None else self.cuts.merge(later.cuts)
        return DealerEvidence(
            self.tally.merge(later.tally), self.cusum.merge(later.cusum), self.eprocess.merge(later.eprocess),
            self.cross.merge(later.cross), cuts,
        )


def hand_evidence(audit: HandAudit, test: CategoricalTest) -> DealerEvidence:
    """The dealer evidence of a single hand; ``test`` scores the talon aces for the CUSUM."""
    law = talon_value_null()
    scores = test.scores(np.array([audit.talon_aces]))
    tally = tally_hands(np.array([audit.talon_aces]), np.array([audit.talon_value]), law.mean, law.variance,
                        np.array([audit.uniform_pvalue]))
    cross = tally_hands(np.zeros(0, dtype=int), np.zeros(0), 0.0, 0.0,
                        np.array([] if audit.cross_uniform_pvalue is None else [audit.cross_uniform_pvalue]))
    return DealerEvidence(tally, CusumSegment.of(scores), eprocess_of(np.array([audit.talon_aces])), cross, audit.cut_depths)


class RecentShuffles:
    """Each dealer's last few logged shuffle permutations, for the cross-match test (bounded memory)."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.by_dealer: dict[int, deque[np.ndarray]] = {}

    def others(self, dealer: int) -> np.ndarray | None:
        kept = self.by_dealer.get(dealer)
        return np.array(kept) if kept and len(kept) >= CROSS_MATCH_MIN else None

    def add(self, dealer: int, permutation: np.ndarray) -> None:
        self.by_dealer.setdefault(dealer, deque(maxlen=self.window)).append(permutation)


def received_deal(record: HandRecord, pattern: DealPattern, num_seats: int) -> Deal:
    hands = [from_ascii_list(h) for h in record.deal.hands]
    talons = [from_ascii_list(t) for t in record.deal.talons]
    return deal_from_seats(hands, talons, pattern, record.dealer, num_seats)


def audit_hand(
    record: HandRecord,
    pattern: DealPattern,
    num_seats: int,
    rng: np.random.Generator,
    options: AuditOptions,
    recent: RecentShuffles,
) -> HandAudit:
    """Judge one hand: replay and shuffle tells when the order and shuffle are logged, then the talon and hands."""
    deal = received_deal(record, pattern, num_seats)
    hands = np.array([deal.hands])
    talons = np.array([deal.talons])
    sequence, findings, cross, cuts = None, (), None, None
    if record.shuffle is not UNSET:
        sequence = parse_notation(record.shuffle)
        cuts = CutDepthTally.of(sequence, pattern.deck.size)
    targeting: Targeting
    if sequence is not None and record.order_before is not UNSET:
        before = from_ascii_list(record.order_before)
        findings = replay_findings(before, sequence, deal, pattern, options.min_each_side)
        targeting = target_with_order(before[None], sequence, hands, talons, pattern, rng, options.draws,
                                      options.min_each_side)
        cross = _cross_match(before, sequence, pattern, recent, record.dealer, rng)
    else:
        targeting = target_uniform(hands, talons, pattern)
    seats = seats_of_hands(pattern, record.dealer, num_seats)
    hand_values = _tie_broken(targeting.hand_value, rng)
    seat_values = tuple((seat, float(hand_values[h])) for h, seat in enumerate(seats) if seat is not None)
    return HandAudit(
        record.hand, record.dealer, int(targeting.talon_aces.observed[0, 0]), int(targeting.talon_value.observed[0, 0]),
        float(targeting.talon_aces.pvalue[0, 0]), float(_tie_broken(targeting.talon_aces, rng)[0]), cross,
        seat_values, findings, cuts,
    )


def _tie_broken(test: TailTest, rng: np.random.Generator) -> np.ndarray:
    """The first row's tie-broken p-values, kept inside (0, 1] for Fisher's logarithm."""
    row = test.randomized(rng.random(test.observed.shape))[0]
    return np.clip(row, np.finfo(float).tiny, 1.0)


def _cross_match(
    before, sequence: ShuffleSequence, pattern, recent: RecentShuffles, dealer: int, rng: np.random.Generator
) -> float | None:
    """Tie-broken cross-match p-value of the talon aces, once the dealer has enough other known shuffles."""
    if not sequence.is_known:
        return None
    own = sequence.permutation(pattern.deck.size)
    others = recent.others(dealer)
    recent.add(dealer, own)
    if others is None:
        return None
    return float(_tie_broken(target_cross_match(before, own, others, pattern).talon_aces, rng)[0])

