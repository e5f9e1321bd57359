"""Legality: every hand with its play fields replayed through the engine, and its score lines recomputed.

The replay is the engine (``replay_record``): auction order, a contract below the final bid, following suit and
trumping (a renonce), talon handling, trick winners and the result all go through the hand's state machine,
so an illegal hand fails with the rule that forbids it. Replays are independent per hand and run in worker
processes over blocks of lines; the sheet is sequential (a hand's score depends on the sheet before it), so the
main process scores the replayed outcomes in log order and compares each seat's logged score lines with the
recomputed ones: a line that differs is a cooked sheet. Hands without play fields are counted and skipped.

One broken hand is one finding: after a hand the engine refuses (a corrupted trick, an illegal play) the
recount resynchronises on the log — it continues from that hand's logged score lines and takes the next hand's
logged raspasy streak — so the hands after it are judged against the sheet the table really kept, not against a
recount the broken line has thrown off. A cooked score line is found once: the trailer's settlement is cooked
only when it matches neither the recount nor the sheet as the log wrote it.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from fairdeal.audit.replay import Finding
from fairdeal.audit.scan import BLOCK_BYTES, Header, _blocks_of_file, _renumber, _run_tasks, read_header
from fairdeal.bounded import strip_bom
from fairdeal.cards import DeckKind
from fairdeal.deal import get_pattern
from fairdeal.engine.hand import result
from fairdeal.engine.outcome import HandOutcome
from fairdeal.engine.record import replay_record
from fairdeal.engine.rotation import dealer_of, first_dealer_from
from fairdeal.engine.scoring import penalty_lines
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import ScoreLine, Sheet, new_sheet
from fairdeal.engine.system import system_of
from fairdeal.errors import FairdealError, LogError, one_line
from fairdeal.log.header import header_convention
from fairdeal.log.reader import decode_line, hand_number_of
from fairdeal.log.records import EndRecord, HandRecord, TableRecord
from fairdeal.log.validate import LineOrder, LogValidator, kind_of

if TYPE_CHECKING:
    from fairdeal.rules.convention import Convention

_SEAT = re.compile(r"seat (\d+)")
# One worker task: (log path, offset, length, block index, the raw header line, whether to replay hands).
ReplayTask = tuple[str, int, int, int, bytes, bool]
LegalityFinding = tuple[int, int, str, Finding]  # line, hand, player named, finding


@dataclass(frozen=True)
class Replayed:
    """One hand after the worker's replay: the outcome to score, or why the engine refused it."""

    line: int
    hand: int
    dealer: int
    streak: int | None
    outcome: HandOutcome | None
    refusal: str | None
    score: list[dict[str, Any]] | None
    fields: dict[str, Any] | None  # kept only when the hand must be replayed again with the sheet's streak


@dataclass(frozen=True)
class LegalityReport:
    hands: int  # hand lines seen
    replayed: int  # hands that carried play fields and went through the engine
    seconds: float
    findings: tuple[LegalityFinding, ...]
    notes: tuple[str, ...]
    unreadable: tuple[tuple[int, str], ...] = ()  # lines the full reader rejects (line number, message)

    @property
    def rate(self) -> float:
        return self.replayed / self.seconds if self.seconds > 0 else 0.0


def _convention(header: TableRecord) -> Convention:
    convention = header_convention(header)
    convention.check_players(len(header.players))
    return convention


Fact = tuple[int, str | None, int | None]  # line in the block, its kind (None: unreadable), its hand number


def _replay_block(task: ReplayTask) -> tuple[int, list[Replayed], list[int], list[tuple[int, str]], list[Fact]]:
    path, offset, length, _, header_bytes, replay = task
    header = decode_line(header_bytes, 1)
    assert isinstance(header, TableRecord)  # ``read_header`` accepted this line as the table header
    convention = _convention(header) if replay else None
    seats = len(header.players)
    with open(path, "rb") as stream:
        stream.seek(offset)
        data = stream.read(length)
    out: list[Replayed] = []
    bare: list[int] = []
    unreadable: list[tuple[int, str]] = []
    facts: list[Fact] = []
    # A line the validator rejects is not a hand to replay; the audit reports it once (malformed, or as a finding).
    # The rules across lines (numbering, the header and end lines) need the whole log in order: the block returns
    # each line's facts for ``_LineOrder`` to judge in the main process.
    validator = LogValidator(order=False)
    validator.check(header, 1)
    for index, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            record = decode_line(raw, index)
        except LogError as exc:
            unreadable.append((index, str(exc)))
            facts.append((index, None, hand_number_of(raw)))
            continue
        facts.append((index, kind_of(record), getattr(record, "hand", None)))
        errors = validator.check(record, index)
        if errors:
            unreadable.append((index, str(errors[0])))
            continue
        if convention is None:
            continue
        if isinstance(record, HandRecord) and record.auction is not msgspec.UNSET:
            out.append(_replay_hand(index, record, convention, seats))
        elif isinstance(record, HandRecord):
            bare.append(index)
        elif isinstance(record, EndRecord):
            out.append(
                Replayed(
                    index,
                    -1,
                    -1,
                    None,
                    None,
                    None,
                    None,
                    {k: v for k, v in msgspec.to_builtins(record).items() if k != "type"},
                )
            )
    return data.count(b"\n"), out, bare, unreadable, facts


class _LineOrder:
    """The validator's rules across lines, applied to the blocks' facts in log order."""

    def __init__(self, header_line: int) -> None:
        self.order = LineOrder()
        self.order.judge("table", None, header_line)  # read_header has checked it

    def rejected(self, facts: list[Fact], unreadable: list[tuple[int, str]]) -> dict[int, str]:
        """Block-local line -> the first cross-line error of each line not rejected already."""
        known = {line for line, _ in unreadable}
        found = {}
        for line, kind, hand in facts:
            if kind is None:
                self.order.unreadable(hand)
                continue
            errors = self.order.judge(kind, hand, line)  # numbered in the block, as the block's own errors
            if errors and line not in known:
                found[line] = str(errors[0])
        return found


def _blocks_in_order(
    tasks: list[tuple[str, int, int, int, bytes, bool]], workers: int, base: int
) -> Iterator[tuple[int, int, list[Replayed], list[int], list[tuple[int, str]]]]:
    """Each block's result, its lines rejected by the rules across lines moved from the replayed to the unreadable:
    (base line, lines, replayed, bare hand lines, unreadable as (log line, message))."""
    order = _LineOrder(base)
    for lines, replayed, bare, errors, facts in _run_tasks(_replay_block, tasks, workers):
        rejected = order.rejected(facts, errors)
        replayed = [item for item in replayed if item.line not in rejected]
        bare = [line for line in bare if line not in rejected]
        errors = sorted([*errors, *((line, message) for line, message in rejected.items())])
        yield (
            base,
            lines,
            replayed,
            bare,
            [(base + line, _renumber(message, line, base + line)) for line, message in errors],
        )
        base += lines


def _replay_hand(line: int, record: HandRecord, convention: Convention, seats: int) -> Replayed:
    fields = msgspec.to_builtins(record)
    streak = fields.get("extras", {}).get("raspasy_streak")
    score = fields.get("score")
    try:
        outcome = result(replay_record(fields, convention, seats))
        return Replayed(line, record.hand, record.dealer, streak, outcome, None, score, fields)
    except FairdealError as exc:
        return Replayed(line, record.hand, record.dealer, streak, None, str(exc), score, fields)


def check_legality(path: str | Path, workers: int = 1) -> LegalityReport:
    """Replay every hand of the log at ``path`` that has play fields, and recompute its score lines."""
    started = time.perf_counter()
    path = Path(path)
    with open(path, "rb") as stream:
        header = read_header(stream)
        stream.seek(0)
        raw_header = b""
        for raw in stream:
            if raw.strip():
                raw_header = strip_bom(raw.rstrip(b"\r\n"))
                break
    record = decode_line(raw_header, header.line)
    assert isinstance(record, TableRecord)  # ``read_header`` accepted this line as the table header
    pattern = get_pattern(record.deal_pattern)
    blocks = list(_blocks_of_file(path, header.offset, path.stat().st_size, BLOCK_BYTES // 16))
    if (
        pattern.deck is not DeckKind.PIQUET32
        or pattern.hands != 3
        or pattern.talons != 1
        or pattern.dummy_hand is not None
    ):
        return _validated_only(
            path,
            blocks,
            raw_header,
            header.line,
            workers,
            started,
            f"legality not checked: the engine plays three hands and one talon of a 32-card deck, "
            f"not pattern {pattern.name}",
        )
    try:
        convention = _convention(record)
    except FairdealError as exc:
        return _validated_only(path, blocks, raw_header, header.line, workers, started, f"legality not checked: {exc}")
    tasks = [(str(path), off, length, i, raw_header, True) for i, (off, length) in enumerate(blocks)]
    sheet_keeper = _Sheet(convention, header)
    unreadable: list[tuple[int, str]] = []
    for base, _, replayed, bare, errors in _blocks_in_order(tasks, workers, header.line):
        for item in replayed:
            sheet_keeper.add(item, base)
        sheet_keeper.without_play += len(bare)
        unreadable += errors
    notes: list[str] = list(sheet_keeper.notes)
    if sheet_keeper.without_play:
        notes.append(f"{sheet_keeper.without_play} hand(s) carry no play fields and were not replayed")
    return LegalityReport(
        sheet_keeper.hands + sheet_keeper.without_play,
        sheet_keeper.replayed,
        time.perf_counter() - started,
        tuple(sheet_keeper.findings),
        tuple(notes),
        tuple(unreadable),
    )


def _validated_only(
    path: Path, blocks: list[tuple[int, int]], raw_header: bytes, base: int, workers: int, started: float, note: str
) -> LegalityReport:
    """No replay, but every line still goes through the validator: a line it rejects is reported, whatever the
    pattern (the statistics' narrow reader would take it silently)."""
    tasks = [(str(path), off, length, i, raw_header, False) for i, (off, length) in enumerate(blocks)]
    unreadable: list[tuple[int, str]] = []
    for _, _, _, _, errors in _blocks_in_order(tasks, workers, base):
        unreadable += errors
    return LegalityReport(0, 0, time.perf_counter() - started, (), (note,), tuple(unreadable))


class _Sheet:
    """The sequential half: the pulya sheet rebuilt in log order, compared line by line with the log."""

    def __init__(self, convention: Convention, header: Header) -> None:
        self.convention = convention
        self.players = header.players
        self.sheet = new_sheet(convention, len(header.players))
        self.findings: list[LegalityFinding] = []
        self.hands = self.replayed = self.without_play = 0
        self.last: Replayed | None = None
        self.first_dealer = 0
        self.resync = False  # the last hand was broken: the next hand's logged streak is taken as it stands
        self.written = self.sheet  # the sheet as the log's own score lines write it
        self.missing = 0  # hands the recount never saw (an unreadable line, no play fields): no settlement check
        self.notes: list[str] = []

    def add(self, item: Replayed, base: int) -> None:
        line = base + item.line
        if item.hand < 0:
            assert item.fields is not None  # a trailer's item carries its settlement
            self._end_penalty(line, item.fields.get("penalty"))
            self._settlement(line, item.fields.get("settlement") or {})
            return
        self.hands += 1
        self._dealer(line, item)
        if self.last is not None and item.hand > self.last.hand + 1:
            # A hand the recount never saw: its streak and score lines are unknown, so follow the log again.
            self.missing += item.hand - self.last.hand - 1
            self.resync = True
        self.last = item
        if self.resync and item.streak is not None:
            self.sheet = replace(self.sheet, raspasy_streak=item.streak)
        self.resync = False
        penalty = (item.fields or {}).get("penalty")
        if penalty:  # a dealing protocol's charge for an aborted attempt, written before the hand
            try:
                self.sheet = self.sheet.apply(penalty_lines(penalty, len(self.players)))
            except FairdealError as exc:
                self._find(line, item.hand, "", "cooked-score", f"hand {item.hand}: {exc}")
        if item.streak is not None and item.streak != self.sheet.raspasy_streak:
            self._find(
                line,
                item.hand,
                "",
                "wrong-streak",
                f"hand {item.hand}: logged raspasy streak {item.streak}, the sheet has {self.sheet.raspasy_streak}",
            )
            item = self._again(item)
        if item.refusal is not None:
            seat = _SEAT.search(item.refusal)
            kind = "illegal-bid" if "auction" in item.refusal else "illegal-play"
            self._find(line, item.hand, self._name(seat), kind, f"the engine refuses the hand: {item.refusal}")
            self.resync = True
            logged = _score_lines(item.score, len(self.players)) or ()
            after = replace(self.sheet, hands=self.sheet.hands + 1)
            self.sheet = _columns(after, self.sheet.apply(logged))
            self.written = _columns(after, self.written.apply(logged))
            return
        self.replayed += 1
        assert item.outcome is not None  # a hand the engine did not refuse has its outcome
        self.sheet, lines = system_of(self.convention).score_hand(self.sheet, item.outcome)
        if item.score is not None:
            self._compare(line, item, [ln.to_record() for ln in lines])
        self.written = _columns(self.sheet, self.written.apply(_score_lines(item.score, len(self.players)) or lines))

    def _again(self, item: Replayed) -> Replayed:
        assert item.fields is not None  # a first replay keeps its fields for this
        fields = dict(item.fields, extras=dict(item.fields.get("extras", {}), raspasy_streak=self.sheet.raspasy_streak))
        try:
            outcome = result(replay_record(fields, self.convention, len(self.players)))
            return Replayed(item.line, item.hand, item.dealer, None, outcome, None, item.score, None)
        except FairdealError as exc:
            return Replayed(item.line, item.hand, item.dealer, None, None, str(exc), item.score, None)

    def _name(self, match: re.Match[str] | None) -> str:
        if match is None or int(match.group(1)) >= len(self.players):
            return ""
        return self.players[int(match.group(1))]

    def _find(self, line: int, hand: int, who: str, kind: str, message: str) -> None:
        self.findings.append((line, hand, who, Finding(kind, one_line(message))))  # it may quote the log

    def _dealer(self, line: int, item: Replayed) -> None:
        """The deal passes clockwise, except where the convention keeps it (Classic's opening raspasy rounds)."""
        seats, last = len(self.players), self.last
        if last is None:
            self.first_dealer = first_dealer_from(self.convention, item.hand - 1, item.dealer, seats)
            return
        expected, _ = dealer_of(self.convention, item.hand - 1, self.first_dealer, seats)
        if item.hand == last.hand + 1 and item.dealer != expected:
            self._find(
                line,
                item.hand,
                "",
                "dealer-out-of-turn",
                f"hand {item.hand}: seat {item.dealer} deals, but the deal passes to seat {expected}",
            )

    def _compare(self, line: int, item: Replayed, recomputed: list[dict[str, Any]]) -> None:
        assert item.score is not None  # compared only when the log scores the hand
        for seat, name in enumerate(self.players):
            logged = Counter(_key(x) for x in item.score if x.get("seat") == seat)
            true = Counter(_key(x) for x in recomputed if x["seat"] == seat)
            if logged != true:
                self._find(
                    line,
                    item.hand,
                    name,
                    "cooked-score",
                    f"hand {item.hand}, seat {seat} ({name}): the log scores {_show(logged)}, the replayed "
                    f"hand scores {_show(true)}",
                )

    def _end_penalty(self, line: int, penalty: Any) -> None:
        """A dealing protocol's charge to the party whose fault ended the evening, on the sheet before settling."""
        if not penalty:
            return
        try:
            lines = penalty_lines(penalty, len(self.players))
        except FairdealError as exc:
            self.notes.append(f"line {line}: the trailer's penalty is not applied: {exc}")
            return
        self.sheet, self.written = self.sheet.apply(lines), self.written.apply(lines)

    def _settlement(self, line: int, logged: dict[str, Any]) -> None:
        if not logged:
            return
        if self.missing:
            self.notes.append(
                f"the trailer's settlement is not recounted: {self.missing} hand(s) could not be replayed in order"
            )
            return
        amounts = settle(self.sheet, self.convention).amounts
        written = settle(self.written, self.convention).amounts
        for name, amount, as_written in zip(self.players, amounts, written):
            value = logged.get(name)
            # A settlement of the sheet the log wrote follows from a cooked line already found, not a new finding.
            if value is None or min(abs(float(value) - float(a)) for a in (amount, as_written)) > 1e-9:
                self._find(
                    line,
                    0,
                    name,
                    "cooked-settlement",
                    f"the trailer settles {name} at {value}, the recomputed sheet at {float(amount):g}",
                )


def _columns(state: Sheet, written: Sheet) -> Sheet:
    """``state`` (its streak, hand count and other marks) with the columns of ``written``."""
    return replace(state, pulya=written.pulya, gora=written.gora, whists=written.whists)


def _score_lines(score: list[dict[str, Any]] | None, seats: int) -> tuple[ScoreLine, ...] | None:
    """A hand's logged score items as sheet lines; None when there are none or one cannot be read."""
    if not score:
        return None
    for x in score:
        on, seat = x.get("on"), x.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < seats or (isinstance(on, int) and not 0 <= on < seats):
            return None
        if x.get("column") not in ("pulya", "gora", "whists") or (x.get("column") == "whists") != isinstance(on, int):
            return None
    try:
        return tuple(
            ScoreLine(int(x["seat"]), x["column"], Fraction(str(x.get("points", 0))), x.get("on")) for x in score
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def _key(item: dict[str, Any]) -> tuple[Any, Any, float]:
    return item.get("column"), item.get("on"), float(item.get("points", 0))


def _show(lines: Counter[tuple[Any, Any, float]]) -> str:
    if not lines:
        return "nothing"
    return ", ".join(
        f"{column} {points:g}" + (f" on seat {on}" if on is not None else "")
        for (column, on, points), count in sorted(lines.items(), key=str)
        for _ in range(count)
    )
