"""Synthetic but consistent logs for tests, samples and benchmarks.

Each hand starts from a random gathered order, applies a logged card-by-card shuffle and a cut by the dealer's
right neighbour, deals by the pattern, and plays a simple legal-looking hand (follow suit, else trump, else any
card). Nothing here claims to be good play: it makes records whose every field is present and coherent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from msgspec import UNSET

from fairdeal.cards import DeckKind, rank_of, suit_of, to_ascii_list
from fairdeal.deal import DealPattern, deal_by_seat, deal_order, get_pattern, seats_of_hands
from fairdeal.log.records import (
    BidRecord,
    ContractRecord,
    DealRecord,
    DefenceRecord,
    HandRecord,
    ResultRecord,
    ScoreRecord,
    TableRecord,
    TrickRecord,
)
from fairdeal.shuffle.notation import parse_notation

_STRAINS = ("S", "C", "D", "H", "NT")
_GAME_VALUE = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}


@dataclass(frozen=True)
class SynthTable:
    players: tuple[str, ...] = ("Anna", "Boris", "Vera")
    system: str = "sochi"
    pattern_name: str = "russian"

    @property
    def pattern(self) -> DealPattern:
        return get_pattern(self.pattern_name)

    def header(self) -> TableRecord:
        pattern = self.pattern
        return TableRecord(
            format="fairdeal-log",
            version=1,
            system=self.system,
            players=list(self.players),
            deck=pattern.deck.value,
            deal_pattern=pattern.name,
            dealing="physical",
            pulya=20,
            started="2026-11-29T20:00:00+00:00",
        )


def synth_hand(rng: np.random.Generator, table: SynthTable, number: int) -> HandRecord:
    """One complete hand record; the dealer rotates with the hand number."""
    pattern, seats_n = table.pattern, len(table.players)
    dealer = (number - 1) % seats_n
    before = rng.permutation(pattern.deck.codes())
    shuffle = _random_shuffle(rng, dealer, seats_n, pattern.deck)
    after = before[parse_notation(shuffle).permutation(pattern.deck.size)]
    deal = deal_order(after, pattern)
    by_seat = [[int(c) for c in h] for h in deal_by_seat(deal, pattern, dealer, seats_n)]
    active = [s for s in seats_of_hands(pattern, dealer, seats_n) if s is not None]
    talon = [int(c) for t in deal.talons for c in t]
    fields: dict[str, Any] = {
        "hand": number,
        "dealer": dealer,
        "order_before": to_ascii_list(before),
        "shuffle": shuffle,
        "deal": DealRecord(hands=[to_ascii_list(h) for h in by_seat], talons=[to_ascii_list(t) for t in deal.talons]),
    }
    if rng.random() < 0.2:
        fields.update(_raspasy(rng, by_seat, active, talon, seats_n))
    else:
        fields.update(_game(rng, by_seat, active, talon, seats_n))
    return HandRecord(**fields)


def _random_shuffle(rng: np.random.Generator, dealer: int, seats_n: int, deck: DeckKind) -> str:
    runs = [str(int(k)) for k in rng.integers(2, 9, size=int(rng.integers(1, 6)))]
    cutter = (dealer - 1) % seats_n
    depth = int(rng.integers(4, deck.size - 3))
    return " ".join(runs + [f"cut@{cutter} {depth}"])


def _game(
    rng: np.random.Generator, by_seat: list[list[int]], active: list[int], talon: list[int], seats_n: int
) -> dict[str, Any]:
    declarer = int(rng.choice(active))
    level = int(rng.integers(6, 9))
    trump = int(rng.integers(0, 5))
    bid = f"{level}{_STRAINS[trump]}"
    hand = sorted(by_seat[declarer] + talon, key=lambda c: (rank_of(c), c))
    discard, by_seat[declarer] = hand[:2], hand[2:]
    defenders = [s for s in active if s != declarer]
    calls = [("whist" if rng.random() < 0.7 else "pass") for _ in defenders]
    tricks, won = _play(rng, by_seat, active, None if trump == 4 else trump, active[0], talon=[])
    taken = [won.count(s) for s in range(seats_n)]
    score = [
        ScoreRecord(
            seat=declarer,
            column="pulya" if taken[declarer] >= level else "gora",
            points=_GAME_VALUE[level] * (1 if taken[declarer] >= level else level - taken[declarer]),
        )
    ]
    score += [
        ScoreRecord(seat=s, column="whists", on=declarer, points=taken[s] * _GAME_VALUE[level])
        for s, call in zip(defenders, calls)
        if call == "whist"
    ]
    auction = [BidRecord(seat=s, bid=bid if s == declarer else "pass") for s in active]
    return {
        "auction": auction,
        "talon_shown": True,
        "discard": to_ascii_list(discard),
        "contract": ContractRecord(declarer=declarer, bid=bid),
        "defence": [DefenceRecord(seat=s, call=c) for s, c in zip(defenders, calls)],
        "defence_open": False,
        "tricks": tricks,
        "result": ResultRecord(kind="game", tricks=taken),
        "score": score,
    }


def _raspasy(
    rng: np.random.Generator, by_seat: list[list[int]], active: list[int], talon: list[int], seats_n: int
) -> dict[str, Any]:
    tricks, won = _play(rng, by_seat, active, None, active[0], talon=talon)
    taken = [won.count(s) for s in range(seats_n)]
    return {
        "auction": [BidRecord(seat=s, bid="pass") for s in active],
        "talon_shown": True,
        "tricks": tricks,
        "result": ResultRecord(kind="raspasy", tricks=taken),
        "score": [ScoreRecord(seat=s, column="gora", points=taken[s]) for s in active if taken[s]],
    }


def _play(
    rng: np.random.Generator,
    by_seat: list[list[int]],
    active: list[int],
    trump: int | None,
    leader: int,
    talon: list[int],
) -> tuple[list[TrickRecord], list[int]]:
    hands = {s: list(by_seat[s]) for s in active}
    tricks: list[TrickRecord] = []
    winners: list[int] = []
    for index in range(len(hands[leader])):
        talon_card = talon[index] if index < len(talon) else None
        # Talon cards lead the first tricks of raspasy; then first hand leads (seed 000).
        lead = active[0] if talon_card is not None or (talon and index == len(talon)) else leader
        order = active[active.index(lead) :] + active[: active.index(lead)]
        led_suit = suit_of(talon_card) if talon_card is not None else None
        played: list[int] = []
        for seat in order:
            card = _pick(rng, hands[seat], led_suit, trump)
            led_suit = suit_of(card) if led_suit is None else led_suit
            hands[seat].remove(card)
            played.append(card)
        leader = order[_winning_index(played, led_suit, trump)]
        winners.append(leader)
        talon_name = UNSET if talon_card is None else to_ascii_list([talon_card])[0]
        tricks.append(TrickRecord(lead=lead, cards=to_ascii_list(played), winner=leader, talon_card=talon_name))
    return tricks, winners


def _pick(rng: np.random.Generator, hand: list[int], led_suit: int | None, trump: int | None) -> int:
    for suit in (led_suit, trump):
        same = [c for c in hand if suit is not None and suit_of(c) == suit]
        if same:
            return same[int(rng.integers(len(same)))]
    return hand[int(rng.integers(len(hand)))]


def _winning_index(played: list[int], led_suit: int | None, trump: int | None) -> int:
    def strength(card: int) -> int:
        if trump is not None and suit_of(card) == trump:
            return 20 + rank_of(card)
        return 10 + rank_of(card) if suit_of(card) == led_suit else rank_of(card) - 10

    return max(range(len(played)), key=lambda i: strength(played[i]))
