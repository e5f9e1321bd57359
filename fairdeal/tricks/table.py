"""Simulated tables: honest dealers and one cardsharp, written to a game log exactly like a real evening.

The gathering rule (how the next deck order comes out of the last hand, known to everyone who watched): the
tricks are gathered face up in the order they were played — each trick's talon card first when a raspasy trick
was led from the talon, then its cards in play order — so the first card played ends on top; the cards nobody
played (the discard, the talon of a game, the hands of a conceded game) go under them in the order they were
dealt. The first hand of an evening starts from a deck order drawn at random (the cards as an earlier game left
them). Without a played record (the fast tables used to measure power) the gathered order is a fresh random
order: the dealer knows it either way, which is all a cardsharp needs.

Each hand the dealer shuffles and his right-hand neighbour cuts (``cut@SEAT d``). An honest dealer shuffles by
``HonestDealer``; the cardsharp uses his technique in a share ``rate`` of his deals and shuffles honestly in
the others. The log gets ``order_before`` and ``shuffle`` from the deal evidence, as ``play_match`` writes them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from msgspec import UNSET

from fairdeal.cards import from_ascii_list, to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.deal_source import DealEvidence, Plays
from fairdeal.engine.match import MatchResult, play_match, with_pulya_size
from fairdeal.errors import TrickError
from fairdeal.log.records import Dealing, DealRecord, HandRecord, Record, TableRecord
from fairdeal.systems import get_convention
from fairdeal.tricks.base import Technique
from fairdeal.tricks.honest import HonestDealer
from fairdeal.tricks.plan import DECK_SIZE, RUSSIAN, TrickPlan

EVENING_PULYA = 10_000  # an evening of a fixed number of hands: the pulya must not close before it ends


def gathered_order(dealt_order: np.ndarray, tricks: list[Mapping[str, Any]]) -> np.ndarray:
    """The next hand's deck before shuffling, by the gathering rule of this module."""
    played: list[int] = []
    for trick in tricks:
        if "talon_card" in trick:
            played.append(int(from_ascii_list([trick["talon_card"]])[0]))
        played.extend(int(c) for c in from_ascii_list(trick["cards"]))
    seen = set(played)
    if len(seen) != len(played):
        raise TrickError("a card was played twice in the gathered tricks")
    rest = [int(c) for c in dealt_order if int(c) not in seen]
    return np.array(played + rest, dtype=np.uint8)


def right_neighbour(dealer: int, seats: int) -> int:
    """The seat that cuts: the dealer's right-hand neighbour (seats go clockwise)."""
    return (dealer - 1) % seats


@dataclass(frozen=True)
class Cheat:
    """A cardsharp's habit: his seat, his technique, the share of his deals he uses it in, his partner."""

    seat: int
    trick: Technique
    rate: float = 1.0
    partner: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise TrickError(f"a cheating rate lies in [0, 1], got {self.rate}")


@dataclass(frozen=True)
class DealtHand:
    """What really happened at one deal (for demos and tests; the log holds only what an observer saw)."""

    hand: int
    dealer: int
    cheated: bool
    plan: TrickPlan | None
    shuffle: str
    order_before: np.ndarray = field(compare=False)
    dealt_order: np.ndarray = field(compare=False)


class TableSource:
    """A ``DealSource`` for a physical table: the gathered order, the shuffle in notation, the cheat's plans."""

    def __init__(
        self, seats: int, rng: np.random.Generator, cheat: Cheat | None = None, honest: HonestDealer = HonestDealer()
    ):
        if cheat is not None and not 0 <= cheat.seat < seats:
            raise TrickError(f"the cheat's seat {cheat.seat} is not at a table of {seats}")
        self.seats = seats
        self.rng = rng
        self.cheat = cheat
        self.honest = honest
        self.history: list[DealtHand] = []
        self._next_order = rng.permutation(DECK_SIZE).astype(np.uint8)

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        before = self._next_order
        cutter = right_neighbour(dealer, self.seats)
        plan = None
        if self.cheat is not None and dealer == self.cheat.seat and self.rng.random() < self.cheat.rate:
            goal = self.cheat.trick.table_goal(dealer, self.seats, cutter, self.cheat.partner)
            plan = self.cheat.trick.plan(before, goal, self.rng)
            shuffle, dealt = plan.notation, plan.dealt_order
        else:
            sequence = self.honest.shuffle(self.rng, DECK_SIZE, cutter)
            shuffle, dealt = sequence.notation(), before[sequence.permutation(DECK_SIZE)]
        self.history.append(DealtHand(hand, dealer, plan is not None, plan, shuffle, before, dealt))
        evidence = {"dealing": "physical", "order_before": to_ascii_list(before), "shuffle": shuffle}
        return DealEvidence(hand, dealer, dealt, evidence)

    def finish(self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None) -> dict[str, Any]:
        """Gather the cards for the next hand: by the rule above, or at random when no play was recorded."""
        last = self.history[-1]
        if last.hand != hand:
            raise TrickError(f"hand {hand} is not the hand being dealt ({last.hand})")
        if record is not None and "tricks" in record:
            self._next_order = gathered_order(last.dealt_order, list(record["tricks"]))
        else:
            self._next_order = self.rng.permutation(DECK_SIZE).astype(np.uint8)
        return {}


def play_evening(
    players: tuple[str, ...],
    hands: int,
    seed: int,
    *,
    cheat: Cheat | None = None,
    honest: HonestDealer = HonestDealer(),
    system: str = "sochi",
    log: str | Path | None = None,
) -> tuple[MatchResult, TableSource]:
    """An evening of ``hands`` hands played by heuristic bots through the engine's match loop and log writer."""
    convention = with_pulya_size(get_convention(system), EVENING_PULYA)
    source = TableSource(len(players), np.random.default_rng(seed), cheat, honest)
    bots = [HeuristicBot() for _ in players]
    result = play_match(convention, players, bots, source=source, max_hands=hands, log=log)
    return result, source


def table_header(
    players: tuple[str, ...], system: str = "sochi", dealing: Dealing = "physical", started: str | None = None
) -> TableRecord:
    return TableRecord(
        format="fairdeal-log",
        version=1,
        system=system,
        players=list(players),
        deck=RUSSIAN.deck.value,
        deal_pattern=RUSSIAN.name,
        dealing=dealing,
        started=UNSET if started is None else started,
    )


def quick_records(
    players: tuple[str, ...],
    hands: int,
    rng: np.random.Generator,
    *,
    cheat: Cheat | None = None,
    honest: HonestDealer = HonestDealer(),
    source: TableSource | None = None,
) -> Iterator[Record]:
    """The header and ``hands`` records holding only the order, the shuffle and the deal (no play): for
    measuring the auditor's power quickly. Pass ``source`` to keep its history."""
    table = source or TableSource(len(players), rng, cheat, honest)
    yield table_header(players)
    for number in range(1, hands + 1):
        dealer = (number - 1) % len(players)
        dealt = table.deal(number, dealer)
        table.finish(number, None)
        split = deal_order(dealt.order, RUSSIAN)
        seat_hands = [to_ascii_list(h) for h in deal_by_seat(split, RUSSIAN, dealer, len(players))]
        yield HandRecord(
            hand=number,
            dealer=dealer,
            order_before=dealt.evidence["order_before"],
            shuffle=dealt.evidence["shuffle"],
            deal=DealRecord(hands=seat_hands, talons=[to_ascii_list(t) for t in split.talons]),
        )
