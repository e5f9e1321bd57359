"""The hands that carry the evidence, picked after the verdict from what the statistical pass kept.

For each dealer the verdict names (and each dealer of a flagged beneficiary), the hands the report draws: first
the hands of his findings (a deal the logged shuffle cannot give, a targeted hand), then the hands that weigh most
in his flagged tests — the talons with the most aces and the highest value for the talon tests, the beneficiary's
richest hands for the hand tests, the cuts at the repeated depth. The pass also counted what each seat received
from every dealer (aces) and who took each dealer's talons, for the "who benefited from whom" sentences. Only the
drawn lines are read again.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fairdeal.audit.candidates import DEALER, HAND, LINE, RECEIVER, WEIGHTS, Candidates
from fairdeal.audit.features import tests as features
from fairdeal.audit.verdict import DEALER_FINDINGS, Verdict
from fairdeal.bounded import quote
from fairdeal.cards import parse_card
from fairdeal.deal import get_pattern
from fairdeal.errors import FairdealError
from fairdeal.log.reader import decode_line
from fairdeal.log.records import HandRecord
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Action, Cut

HANDS_PER_DEALER = 6  # hands drawn per suspect dealer (the rest are in the tables and the JSON)
TALON_KINDS = (
    frozenset(
        {
            "talon-aces",
            "talon-aces-eprocess",
            "talon-aces-depth",
            "talon-value",
            "talon-same-effort",
            "talon-rank",
            "aces-together",
        }
    )
    | features.TALON_KINDS
)
SEAT_KINDS = frozenset({"hand-value", "hand-same-effort"}) | features.SEAT_KINDS
Fetch = Callable[[set[int]], dict[int, bytes]]  # line numbers to their raw lines


@dataclass(frozen=True)
class DrawnHand:
    """One hand as the report draws it: every seat's cards by player name, the talon(s), who dealt and cut."""

    line: int
    hand: int
    dealer: str
    cutter: str | None  # None: no cut logged
    seats: tuple[tuple[str, tuple[str, ...]], ...]  # (player, cards as "AS") in seat order; [] for a seat out
    talons: tuple[tuple[str, ...], ...]
    shuffle: str | None
    why: str  # what it carries: a finding kind, "talon", "seat:PLAYER" or "cut:DEPTH" (``narrative`` words it)
    declarer: str | None = None


@dataclass(frozen=True)
class SeatCount:
    """What one seat received when one dealer dealt: deals, aces, and the aces honest dealing gives."""

    dealer: str
    player: str
    deals: int
    aces: int
    expected: float


@dataclass(frozen=True)
class TalonTaker:
    """Who took a suspect dealer's talons as declarer, and how many aces were in them."""

    dealer: str
    player: str
    deals: int
    aces: int


@dataclass(frozen=True)
class Evidence:
    hands: tuple[DrawnHand, ...]
    seat_counts: tuple[SeatCount, ...]
    talon_takers: tuple[TalonTaker, ...] = ()

    def for_dealer(self, dealer: str) -> tuple[DrawnHand, ...]:
        return tuple(h for h in self.hands if h.dealer == dealer)

    def seat_count(self, dealer: str, player: str) -> SeatCount | None:
        return next((c for c in self.seat_counts if c.dealer == dealer and c.player == player), None)


def evidence_dealers(verdict: Verdict) -> tuple[str, ...]:
    """Suspect dealers and the dealers of flagged beneficiaries: the people whose hands the report draws."""
    names = set(verdict.suspects())
    names |= {t.dealer for t in verdict.flagged() if t.dealer and t.kind in SEAT_KINDS}
    return tuple(sorted(names))


def choose_evidence(candidates: Candidates | None, verdict: Verdict, fetch: Fetch) -> Evidence:
    """The hands that carry the verdict's evidence, picked from the pass's tables (``audit.candidates``); only the
    chosen lines are read again (``fetch``: line numbers to their raw lines)."""
    dealers = evidence_dealers(verdict)
    if not dealers or candidates is None:
        return Evidence((), ())
    players = verdict.players
    picks = {name: _picks(candidates, verdict, name) for name in dealers}
    wanted = {line for chosen in picks.values() for line, _ in chosen}
    records = {line: record for line, raw in fetch(wanted).items() if (record := _hand_record(raw, line)) is not None}
    chosen = [
        _drawn(records[line], line, players, why)
        for name in dealers
        for line, why in picks[name]
        if line in records and records[line].deal
    ]
    pattern = get_pattern(verdict.pattern)
    per_hand = 4 * pattern.cards_per_hand / pattern.deck.size
    indices = [players.index(name) for name in dealers]
    seat_counts = tuple(
        SeatCount(players[d], players[s], int(deals), int(aces), int(deals) * per_hand)
        for d in indices
        for s, (deals, aces) in enumerate(candidates.received[d])
        if deals
    )
    takers = tuple(
        TalonTaker(players[d], players[s], int(deals), int(aces))
        for d in indices
        for s, (deals, aces) in enumerate(candidates.takers[d])
        if deals
    )
    return Evidence(tuple(_in_hand_order(chosen, dealers)), seat_counts, takers)


def _picks(candidates: Candidates, verdict: Verdict, dealer: str) -> list[tuple[int, str]]:
    """``(line, why)`` of one dealer's hands to draw: his findings' hands first, then in turn the heaviest hands
    under his flagged tests and the hands cut at his most repeated depth; one line per hand number."""
    players = verdict.players
    seat = players.index(dealer)
    kinds = {t.kind for t in verdict.flagged() if t.dealer == dealer}
    beneficiaries = {t.player for t in verdict.flagged() if t.dealer == dealer and t.kind in SEAT_KINDS and t.player}
    found: dict[int, tuple[int, str]] = {}
    for line, hand, who, f in sorted(verdict.findings, key=lambda item: item[0]):
        if who == dealer and (f.kind in DEALER_FINDINGS or f.kind == "targeted-hand") and len(found) < HANDS_PER_DEALER:
            found.setdefault(hand, (line, f.kind))
    receivers = ([len(players)] if kinds & TALON_KINDS else []) + [
        players.index(name) for name in sorted(beneficiaries, key=players.index)
    ]
    best = _heaviest(candidates.top, seat, receivers, set(found), players)
    cuts = _repeated_cut(candidates, seat, set(found)) if "cut-depth" in kinds else []
    turns = [pick for pair in itertools.zip_longest(best, cuts) for pick in pair if pick is not None]
    unique: dict[int, tuple[int, str]] = {}
    for hand, pick in [*found.items(), *turns]:
        unique.setdefault(hand, pick)
    return list(unique.values())[:HANDS_PER_DEALER]


def _heaviest(
    top: np.ndarray, dealer: int, receivers: list[int], skip: set[int], players: tuple[str, ...]
) -> list[tuple[int, tuple[int, str]]]:
    """``(hand, (line, why))`` of the dealer's heaviest hands: a hand weighs what its heaviest wanted receiver
    holds (the talons first, then the seats in order, a later one only when strictly heavier)."""
    rows = top[(top[:, DEALER] == dealer) & np.isin(top[:, RECEIVER], receivers)]
    weighed: dict[int, tuple[int, int, int, str]] = {}
    for row in rows:
        line, hand = int(row[LINE]), int(row[HAND])
        if hand in skip or line in weighed:
            continue
        weight, why = 0, ""
        for k in receivers:
            if (w := int(row[WEIGHTS + k])) > weight:
                weight, why = w, "talon" if k == len(players) else f"seat:{players[k]}"
        weighed[line] = (weight, hand, line, why)
    ranked = sorted((w for w in weighed.values() if w[0] > 0), key=lambda w: (-w[0], w[1], w[2]))
    return [(hand, (line, why)) for _, hand, line, why in ranked[:HANDS_PER_DEALER]]


def _repeated_cut(candidates: Candidates, dealer: int, skip: set[int]) -> list[tuple[int, tuple[int, str]]]:
    """The dealer's first hands cut at the depth he cut at most often (the shallower of equals)."""
    counts = candidates.depth_counts[dealer]
    if not counts.any():
        return []
    depth = int(np.argmax(counts))  # argmax takes the first of equal counts: the shallowest
    rows = candidates.cuts[
        (candidates.cuts[:, 0] == dealer) & (np.minimum(candidates.cuts[:, 1], len(counts) - 1) == depth)
    ]
    picked = [(int(hand), (int(line), f"cut:{int(cut)}")) for _, cut, hand, line in rows if int(hand) not in skip]
    return picked[:HANDS_PER_DEALER]


def _in_hand_order(chosen: list[DrawnHand], dealers: tuple[str, ...]) -> list[DrawnHand]:
    return [hand for name in dealers for hand in sorted((h for h in chosen if h.dealer == name), key=lambda h: h.hand)]


def _hand_record(raw: bytes, line: int) -> HandRecord | None:
    try:
        record = decode_line(raw.rstrip(b"\r\n"), line)
    except FairdealError:
        return None  # the verdict reports the line as malformed
    return record if isinstance(record, HandRecord) else None


def _drawn(record: HandRecord, line: int, players: tuple[str, ...], why: str) -> DrawnHand:
    assert record.deal  # only dealt hands are drawn
    seats = tuple((players[s], _named(cards)) for s, cards in enumerate(record.deal.hands[: len(players)]))
    shuffle = record.shuffle if isinstance(record.shuffle, str) else None
    declarer = None
    if record.contract and 0 <= record.contract.declarer < len(players):
        declarer = players[record.contract.declarer]
    return DrawnHand(
        line,
        record.hand,
        players[record.dealer],
        _cutter(shuffle, record.dealer, players),
        seats,
        tuple(_named(t) for t in record.deal.talons),
        shuffle,
        why,
        declarer,
    )


def _named(cards: list[str]) -> tuple[str, ...]:
    """Cards as the log writes them (``AS``): the reader takes ``as`` or ``AS\\n`` for the ace, the report shows the
    card; anything else is quoted on one line."""
    named = []
    for text in cards:
        try:
            named.append(parse_card(text).ascii)
        except FairdealError:
            named.append(quote(text))
    return tuple(named)


def _cuts(shuffle: str | None) -> list[Action]:
    if not shuffle:
        return []
    try:
        return [a for a in parse_notation(shuffle) if isinstance(a.op, Cut)]
    except FairdealError:
        return []  # the replay reports a shuffle it cannot read


def _cutter(shuffle: str | None, dealer: int, players: tuple[str, ...]) -> str | None:
    """Who made the last logged cut (an action with no actor is the dealer's)."""
    cuts = _cuts(shuffle)
    if not cuts:
        return None
    actor = cuts[-1].actor
    if actor is None:
        return players[dealer]
    if isinstance(actor, int):
        return players[actor] if 0 <= actor < len(players) else f"seat {actor}"
    return actor
