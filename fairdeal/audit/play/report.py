"""The play pass of ``fairdeal audit --play``: every hand of a log priced, the play tests, and what was skipped."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from fairdeal.audit.play.evidence import CardChoice, PendingWhist, SolveCache, WhistChoice, hand_evidence, price_whists
from fairdeal.audit.play.signals import PairRow, card_tests, pair_rows, whist_tests
from fairdeal.errors import AuditError, FairdealError
from fairdeal.log.header import header_convention
from fairdeal.log.reader import read_log
from fairdeal.log.records import HandRecord, TableRecord

if TYPE_CHECKING:
    from fairdeal.audit.verdict import TestResult, Verdict
    from fairdeal.rules.convention import Convention


@dataclass(frozen=True)
class PlayReport:
    hands: int
    cards: tuple[CardChoice, ...]
    whists: tuple[WhistChoice, ...]
    tests: tuple[TestResult, ...]
    pairs: tuple[PairRow, ...]
    skipped: dict[str, int]  # reason -> hands
    solves: int
    cache_hits: int
    cut_off: int
    cpu_seconds: float

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    def notes(self) -> list[str]:
        out = [
            (
                f"play signals: {self.hands:,} hands, {len(self.cards):,} defenders' cards priced by the double-dummy "
                f"solver ({self.solves:,} solves, {self.cache_hits:,} from the cache, {self.cut_off:,} cut off at the "
                f"node limit), {len(self.whists):,} whist decisions; {self.hands_per_second:,.0f} hands/s (CPU)"
            )
        ]
        out += [f"play signals skipped {n:,} hand(s): {why}" for why, n in sorted(self.skipped.items())]
        return out


def analyse_records(records: Iterable[Mapping[str, Any]], convention: Convention, players: Sequence[str]) -> PlayReport:
    """The play pass over hand records (the log's JSON fields)."""
    started = time.process_time()
    cache = SolveCache()
    cards: list[CardChoice] = []
    pending: list[PendingWhist] = []
    skipped: Counter[str] = Counter()
    hands = cut = 0
    for fields in records:
        hands += 1
        evidence, whist = hand_evidence(fields, convention, len(players), cache)
        cards += evidence.cards
        cut += evidence.cut_off
        if whist is not None:
            pending.append(whist)
        if evidence.skipped is not None:
            skipped[_reason(evidence.skipped)] += 1
    whists = price_whists(pending)
    tests = card_tests(cards, players) + whist_tests(whists, players)
    return PlayReport(
        hands,
        tuple(cards),
        tuple(whists),
        tuple(tests),
        tuple(pair_rows(cards)),
        dict(skipped),
        cache.solves,
        cache.hits,
        cut,
        time.process_time() - started,
    )


def _reason(text: str) -> str:
    """A skip reason without the hand's own details, so that like hands count together."""
    return text.split(":", 1)[0] if text.startswith("not replayable") else text


def check_play(path: str | Path) -> PlayReport:
    """The play pass over a log file: lines the reader rejects are left to the rest of the audit."""
    header: TableRecord | None = None
    records: list[dict[str, Any]] = []
    for item in read_log(path):
        if header is None:
            if not item.ok or not isinstance(item.record, TableRecord):
                raise AuditError(f"{path}: line {item.line}: the play signals need the table header first")
            header = item.record
        elif item.ok and isinstance(item.record, HandRecord):
            records.append(msgspec.to_builtins(item.record))
    if header is None:
        raise AuditError(f"{path}: an empty log")
    try:
        convention = header_convention(header)
    except FairdealError as exc:
        raise AuditError(f"{path}: the play signals cannot rebuild the convention: {exc}") from None
    return analyse_records(records, convention, header.players)


def play_suspects(verdict: Verdict) -> list[tuple[str, str | None, TestResult]]:
    """(actor, beneficiary, test) of each play test flagged at the family-wise level."""
    return [(t.actor, t.beneficiary, t) for t in verdict.flagged() if t.actor is not None]
