"""The hands that carry the evidence, read from the log once more after the verdict.

For each dealer the verdict names (and each dealer of a flagged beneficiary), the hands the report draws: first
the hands of his findings (a deal the logged shuffle cannot give, a targeted hand), then the hands that weigh most
in his flagged tests — the talons with the most aces and the highest value for the talon tests, the beneficiary's
richest hands for the hand tests, the cuts at the repeated depth. The same read counts what each seat received
from those dealers (aces) and who took the suspect dealers' talons, for the "who benefited from whom" sentences.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from fairdeal.audit.features import tests as features
from fairdeal.audit.verdict import DEALER_FINDINGS, Verdict
from fairdeal.cards import Rank, parse_card
from fairdeal.deal import get_pattern
from fairdeal.errors import FairdealError
from fairdeal.log.reader import decode_line, iter_lines
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
Step = Callable[[int, int], None]
_DEALER = re.compile(rb'"dealer"\s*:\s*(\d+)')
_LAST_CUT = re.compile(r"^.*(?:^|\s)(cut[@\s].*)$", re.DOTALL)  # greedy: the group starts at the last cut token


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


def gather_evidence(path: str | Path, verdict: Verdict, step: Step | None = None) -> Evidence:
    """Read the log at ``path`` once and pick the hands that carry the verdict's evidence."""
    dealers = evidence_dealers(verdict)
    if not dealers:
        return Evidence((), ())
    players = verdict.players
    pattern = get_pattern(verdict.pattern)
    picks = {name: _Picks(verdict, name) for name in dealers}
    wanted = {str(players.index(name)).encode() for name in dealers}
    per_hand = 4 * pattern.cards_per_hand / pattern.deck.size
    counts: dict[tuple[int, int], list[int]] = {}
    takers: dict[tuple[int, int], list[int]] = {}
    total = max(Path(path).stat().st_size, 1)
    done = 0
    for line, raw in iter_lines(path):
        done += len(raw)
        if step is not None and line % 4096 == 0:
            step(done, total)
        if not _may_be_dealt_by(raw, wanted):
            continue
        record = _hand_record(raw, line)
        if record is None or not 0 <= record.dealer < len(players) or not record.deal:
            continue
        hands = record.deal.hands[: len(players)]
        for seat, cards in enumerate(hands):
            if cards:  # a seat that sat out received nothing
                tally = counts.setdefault((record.dealer, seat), [0, 0])
                tally[0] += 1
                tally[1] += _aces(cards)
        chooser = picks.get(players[record.dealer])
        if chooser is None:
            continue
        talon_aces = sum(_aces(t) for t in record.deal.talons)
        if record.contract and 0 <= record.contract.declarer < len(players):
            taken = takers.setdefault((record.dealer, record.contract.declarer), [0, 0])
            taken[0] += 1
            taken[1] += talon_aces
        chooser.offer(record, line, talon_aces)
    if step is not None:
        step(total, total)
    chosen = [hand for name in dealers for hand in picks[name].chosen()]
    seat_counts = tuple(
        SeatCount(players[d], players[s], deals, aces, deals * per_hand)
        for (d, s), (deals, aces) in sorted(counts.items())
    )
    taker_rows = tuple(
        TalonTaker(players[d], players[s], deals, aces) for (d, s), (deals, aces) in sorted(takers.items())
    )
    return Evidence(tuple(chosen), seat_counts, taker_rows)


class _Picks:
    """One dealer's best hands under each of his flagged kinds of evidence, kept bounded while the log streams."""

    def __init__(self, verdict: Verdict, dealer: str) -> None:
        self.players = verdict.players
        self.kinds = {t.kind for t in verdict.flagged() if t.dealer == dealer}
        self.beneficiaries = {
            t.player for t in verdict.flagged() if t.dealer == dealer and t.kind in SEAT_KINDS and t.player
        }
        self.findings = {
            hand: f.kind
            for _, hand, who, f in reversed(verdict.findings)
            if who == dealer and (f.kind in DEALER_FINDINGS or f.kind == "targeted-hand")
        }
        self.found: list[DrawnHand] = []
        self.best: list[tuple[float, int, int, DrawnHand]] = []  # min-heap of (weight, -hand, -line, hand)
        self.by_depth: dict[int, list[DrawnHand]] = {}  # the first hands cut at each depth
        self.depth_counts: dict[int, int] = {}

    def offer(self, record: HandRecord, line: int, talon_aces: int) -> None:
        """Weigh one of the dealer's hands; it is drawn (its cut parsed, its cards copied) only when kept."""
        assert record.deal  # only dealt hands are offered
        if record.hand in self.findings:
            if len(self.found) < HANDS_PER_DEALER:
                self.found.append(_drawn(record, line, self.players, self.findings[record.hand]))
            return
        weight, why = 0.0, ""
        if self.kinds & TALON_KINDS:
            weight, why = talon_aces + sum(_value(t) for t in record.deal.talons) / 100, "talon"
        for seat, cards in enumerate(record.deal.hands[: len(self.players)]):
            if self.players[seat] in self.beneficiaries and (w := _aces(cards) + _value(cards) / 100) > weight:
                weight, why = w, f"seat:{self.players[seat]}"
        key = (weight, -record.hand, -line)  # the line breaks ties: a log may repeat a hand's number
        if weight > 0 and (len(self.best) < HANDS_PER_DEALER or key > self.best[0][:3]):
            item = (*key, _drawn(record, line, self.players, why))
            if len(self.best) < HANDS_PER_DEALER:
                heapq.heappush(self.best, item)
            else:
                heapq.heapreplace(self.best, item)
        shuffle = record.shuffle if isinstance(record.shuffle, str) else None
        depth = _cut_depth(shuffle) if "cut-depth" in self.kinds else None
        if depth is not None:
            at = self.by_depth.setdefault(depth, [])
            if len(at) < HANDS_PER_DEALER:
                at.append(_drawn(record, line, self.players, f"cut:{depth}"))
            self.depth_counts[depth] = self.depth_counts.get(depth, 0) + 1

    def chosen(self) -> list[DrawnHand]:
        """The findings' hands first, then the heaviest hands and the repeated cuts in turn, in hand order."""
        best = [h for *_, h in sorted(self.best, key=lambda item: item[:3], reverse=True)]
        cuts: list[DrawnHand] = []
        if self.by_depth:
            cuts = self.by_depth[max(self.depth_counts, key=lambda d: (self.depth_counts[d], -d))]
        turns = [h for pair in itertools.zip_longest(best, cuts) for h in pair if h is not None]
        unique: dict[int, DrawnHand] = {}
        for hand in [*self.found, *turns]:
            unique.setdefault(hand.hand, hand)
        return sorted(list(unique.values())[:HANDS_PER_DEALER], key=lambda h: h.hand)


def _may_be_dealt_by(raw: bytes, wanted: set[bytes]) -> bool:
    """False only when no ``"dealer": N`` of the line names a wanted seat: a cheap filter before decoding, safe
    whatever the order of the fields (the record's own ``dealer`` is one of the matches) or an escaped key."""
    if b"\\u" in raw:
        return True
    return any(m.group(1) in wanted for m in _DEALER.finditer(raw))


def _hand_record(raw: bytes, line: int) -> HandRecord | None:
    try:
        record = decode_line(raw.rstrip(b"\r\n"), line)
    except FairdealError:
        return None  # the verdict reports the line as malformed
    return record if isinstance(record, HandRecord) else None


@functools.lru_cache(maxsize=256)
def _rank(text: str) -> int | None:
    """A card string's rank (7 -> 0 ... A -> 7), cached: a log spells the same 32 cards a million times."""
    try:
        return int(parse_card(text).rank)
    except FairdealError:
        return None  # the validator reports a bad card


def _aces(cards: Iterable[str]) -> int:
    return sum(_rank(text) == Rank.ACE for text in cards)


def _value(cards: Iterable[str]) -> int:
    return sum(r for r in map(_rank, cards) if r is not None)


def _drawn(record: HandRecord, line: int, players: tuple[str, ...], why: str) -> DrawnHand:
    assert record.deal  # only dealt hands are drawn
    seats = tuple((players[s], tuple(cards)) for s, cards in enumerate(record.deal.hands[: len(players)]))
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
        tuple(tuple(t) for t in record.deal.talons),
        shuffle,
        why,
        declarer,
    )


def _cut_depth(shuffle: str | None) -> int | None:
    """The depth of the last logged cut (None: no cut, or one without its depth).

    Read from the shuffle's tail that starts at its last ``cut`` token, cached: a cheating dealer's cuts repeat,
    and parsing each whole shuffle would cost more than the rest of this pass."""
    match = _LAST_CUT.match(shuffle or "")
    return _tail_depth(match.group(1)) if match else None


@functools.lru_cache(maxsize=4096)
def _tail_depth(tail: str) -> int | None:
    known = [a.op.depth for a in _cuts(tail) if isinstance(a.op, Cut)]
    return known[-1] if known else None


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
