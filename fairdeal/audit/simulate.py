"""Simulated evenings for calibrating and testing the auditor: honest dealers and one ace-stacking dealer.

Every hand starts from a uniformly random gathered order. An honest dealer runs a few card-by-card packets of
random sizes (seed 004's "2", "4", ...) chosen without looking, and his right neighbour cuts at a uniform legal
depth. The cardsharp, in a share of his deals, instead picks an ace and runs it to where his accomplice's
habitual cut will carry it into the talon: reversing the top k brings card k to the top, reversing the top
t + 1 then leaves it at position t, and the cut of depth d moves position (6 + d) mod 32 to the talon place 6.
Records carry the order, the shuffle and the deal only (the other fields of a hand are optional in the log).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairdeal.cards import Rank, rank_of, to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order, get_pattern
from fairdeal.errors import AuditError
from fairdeal.log.records import DealRecord, HandRecord, TableRecord
from fairdeal.shuffle.notation import parse_notation

PATTERN = get_pattern("russian")
FIRST_TALON_PLACE = int(PATTERN.talon_positions[0, 0])


@dataclass(frozen=True)
class Evening:
    players: tuple[str, ...] = ("Anna", "Boris", "Vera")
    cheater: int | None = None        # seat of the ace-stacking dealer
    rate: float = 0.25                # share of his deals he stacks
    accomplice_depth: int = 11        # the cut his right neighbour makes when he stacks


def header(evening: Evening) -> TableRecord:
    return TableRecord(
        format="fairdeal-log", version=1, system="sochi", players=list(evening.players), deck=PATTERN.deck.value,
        deal_pattern=PATTERN.name, dealing="physical", pulya=20,
    )


def honest_shuffle(rng: np.random.Generator, cutter: int) -> str:
    runs = [str(int(k)) for k in rng.integers(2, 13, size=int(rng.integers(2, 6)))]
    return " ".join(runs + [f"cut@{cutter} {int(rng.integers(4, 29))}"])


def stacking_shuffle(before: np.ndarray, rng: np.random.Generator, cutter: int, depth: int) -> str:
    """Runs bringing one ace to the place the accomplice's cut of ``depth`` turns into the first talon card."""
    n = len(before)
    target = (FIRST_TALON_PLACE + depth) % n
    aces = np.flatnonzero(rank_of(before) == int(Rank.ACE))
    at = int(rng.choice(aces))
    runs = [k for k in (at + 1, target + 1) if k > 1]
    return " ".join([str(k) for k in runs] + [f"cut@{cutter} {depth}"])


def simulated_hand(rng: np.random.Generator, evening: Evening, number: int) -> HandRecord:
    seats = len(evening.players)
    dealer = (number - 1) % seats
    cutter = (dealer - 1) % seats
    before = rng.permutation(PATTERN.deck.codes())
    if dealer == evening.cheater and rng.random() < evening.rate:
        shuffle = stacking_shuffle(before, rng, cutter, evening.accomplice_depth)
    else:
        shuffle = honest_shuffle(rng, cutter)
    after = before[parse_notation(shuffle).permutation(PATTERN.deck.size)]
    dealt = deal_order(after, PATTERN)
    hands = [to_ascii_list(h) for h in deal_by_seat(dealt, PATTERN, dealer, seats)]
    return HandRecord(
        hand=number, dealer=dealer, order_before=to_ascii_list(before), shuffle=shuffle,
        deal=DealRecord(hands=hands, talons=[to_ascii_list(t) for t in dealt.talons]),
    )


def simulated_records(rng: np.random.Generator, evening: Evening, hands: int):
    """The header, then ``hands`` hand records, one at a time."""
    if evening.cheater is not None and not 0 <= evening.cheater < len(evening.players):
        raise AuditError(f"the cheater must be a seat 0..{len(evening.players) - 1}")
    yield header(evening)
    for number in range(1, hands + 1):
        yield simulated_hand(rng, evening, number)
