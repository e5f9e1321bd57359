"""Re-read a pulya from its game log: replay every hand through the engine, score it again, compare.

The sheet is rebuilt from the replayed hands, never from the logged score lines; a logged line that differs from
the recomputation is a problem naming the hand and the seat. So are an unreadable line, a hand the rules reject,
a dealer out of turn, a wrong raspasy streak and a trailer settlement that differs from the recomputed one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from fairdeal.engine.hand import result
from fairdeal.engine.match_log import sheet_extras
from fairdeal.engine.record import replay_record
from fairdeal.engine.rotation import dealer_of, first_dealer_from
from fairdeal.engine.scoring import penalty_lines
from fairdeal.engine.settlement import Settlement, settle
from fairdeal.engine.sheet import SHEET_EXTRAS, ScoreLine, Sheet, is_finished, new_sheet, number
from fairdeal.engine.system import system_of
from fairdeal.errors import FairdealError, MatchError, one_line
from fairdeal.log import EndRecord, HandRecord, LogItem, TableRecord, read_log
from fairdeal.log.header import header_convention
from fairdeal.rules.convention import Convention


@dataclass(frozen=True)
class LogSheet:
    """A pulya recomputed from a log; ``problems`` is empty when the log is honest and complete."""

    convention: Convention
    players: tuple[str, ...]
    sheet: Sheet
    settlement: Settlement
    hands: int
    finished: bool
    problems: tuple[str, ...]


def sheet_from_log(path: str | Path) -> LogSheet:
    """Recompute the sheet and settlement of the pulya logged at ``path`` (raises ``MatchError`` without a header)."""
    items = iter(_read(path))
    header = _header(path, items)
    convention = _convention_of(header)
    recount = _Recount(convention, tuple(header.players))
    for item in items:
        recount.add(item)
    return recount.finish()


def _read(path: str | Path) -> Iterator[LogItem]:
    try:
        yield from read_log(path)
    except OSError as exc:
        raise MatchError(f"{path}: cannot read the log ({exc.strerror or exc})") from None


def _header(path: str | Path, items: Iterator[LogItem]) -> TableRecord:
    first = next(items, None)
    if first is None:
        raise MatchError(f"{path}: the log is empty")
    if not first.ok or not isinstance(first.record, TableRecord):
        reason = first.errors[0] if first.errors else "the first line is not a table header"
        raise MatchError(f"{path}: no usable table header ({reason})")
    return first.record


def _convention_of(header: TableRecord) -> Convention:
    try:
        convention = header_convention(header)
    except FairdealError as exc:
        raise MatchError(f"the log's system cannot be scored: {exc}") from None
    convention.check_players(len(header.players))
    return convention


class _Recount:
    def __init__(self, convention: Convention, players: tuple[str, ...]):
        self.convention = convention
        self.system = system_of(convention)
        self.players = players
        self.sheet = new_sheet(convention, len(players))
        self.problems: list[str] = []
        self.hands = 0
        self.first_dealer: int | None = None
        self.last: HandRecord | None = None
        self.logged_settlement: dict[str, Any] | None = None
        self.settlement_line = 0

    def add(self, item: LogItem) -> None:
        if not item.ok:
            self.problems.extend(str(error) for error in item.errors)  # LogError names its line
        elif isinstance(item.record, HandRecord):
            self._hand(item.record, item.line)
        elif isinstance(item.record, EndRecord):
            self._end(item.record, item.line)

    def _end(self, record: EndRecord, line: int) -> None:
        if record.penalty is not msgspec.UNSET:  # the charge of a dealing protocol that ended the evening
            try:
                penalty = penalty_lines(msgspec.to_builtins(record.penalty), len(self.players))
                self.sheet = self.sheet.apply(penalty)
            except FairdealError as exc:
                self.problems.append(f"line {line}: penalty: {exc}")
        if record.settlement is not msgspec.UNSET:
            self.logged_settlement = dict(record.settlement)
            self.settlement_line = line

    def finish(self) -> LogSheet:
        settlement = settle(self.sheet, self.convention)
        self._compare_settlement(settlement)
        finished = is_finished(self.sheet, self.convention)
        # A problem may quote what the log holds: each stays one short line.
        return LogSheet(
            self.convention,
            self.players,
            self.sheet,
            settlement,
            self.hands,
            finished,
            tuple(map(one_line, self.problems)),
        )

    def _hand(self, record: HandRecord, line: int) -> None:
        where = f"line {line}, hand {record.hand}"
        self._check_dealer(record, where)
        self.last = record
        fields = msgspec.to_builtins(record)
        extras = dict(fields.get("extras", {}))
        logged_streak = extras.get("raspasy_streak", self.sheet.raspasy_streak)
        if logged_streak != self.sheet.raspasy_streak:
            self.problems.append(
                f"{where}: logged raspasy streak {logged_streak}, the sheet has {self.sheet.raspasy_streak}"
            )
        fields["extras"] = dict(extras, raspasy_streak=self.sheet.raspasy_streak)
        fields["extras"].pop("refe", None)  # the refes held come from the sheet, as the streak does
        if self.sheet.refe_seats():
            fields["extras"]["refe"] = sorted(self.sheet.refe_seats())
        try:
            state = replay_record(fields, self.convention, len(self.players))
            outcome = result(state)
            before = self.sheet.apply(penalty_lines(fields.get("penalty", []), len(self.players)))
            sheet, lines = self.system.score_hand(before, outcome)
        except FairdealError as exc:
            self.problems.append(f"{where}: cannot be replayed, not scored: {exc}")
            return
        recomputed = sheet_extras(before, sheet, outcome, self.convention)
        logged = {key: extras[key] for key in SHEET_EXTRAS if key in extras}
        if logged != recomputed:
            self.problems.append(f"{where}: logged sheet extras {logged}, the sheet gives {recomputed}")
        self.sheet, self.hands = sheet, self.hands + 1
        if record.score is not msgspec.UNSET:
            self._compare_lines(where, fields["score"], lines)

    def _check_dealer(self, record: HandRecord, where: str) -> None:
        """The dealer (and Classic's opening round) the rotation gives this hand number."""
        if self.first_dealer is None:
            self.first_dealer = first_dealer_from(self.convention, record.hand - 1, record.dealer, len(self.players))
        expected, opening = dealer_of(self.convention, record.hand - 1, self.first_dealer, len(self.players))
        if record.dealer != expected:
            self.problems.append(
                f"{where}: dealer is seat {record.dealer}, but the deal passes clockwise to seat {expected}"
            )
        logged = record.extras.get("opening_round", 0) if record.extras is not msgspec.UNSET else 0
        if logged != opening:
            self.problems.append(f"{where}: logged opening round {logged}, the rotation gives {opening}")

    def _compare_lines(self, where: str, logged: list[dict[str, Any]], lines: tuple[ScoreLine, ...]) -> None:
        recomputed = [line.to_record() for line in lines]
        for seat in range(len(self.players)):
            mine = Counter(_key(item) for item in logged if item["seat"] == seat)
            true = Counter(_key(item) for item in recomputed if item["seat"] == seat)
            if mine != true:
                self.problems.append(
                    f"{where}, seat {seat} ({self.players[seat]}): logged score {_show(mine)}, "
                    f"the replay gives {_show(true)}"
                )
        strangers = sorted({item["seat"] for item in logged} - set(range(len(self.players))))
        if strangers:
            self.problems.append(f"{where}: score lines for seats {strangers} that are not at the table")

    def _compare_settlement(self, settlement: Settlement) -> None:
        if self.logged_settlement is None:
            return
        recomputed = {name: number(a) for name, a in zip(self.players, settlement.amounts)}
        for name in self.players:
            logged = self.logged_settlement.get(name)
            if logged is None or abs(logged - recomputed[name]) > 1e-9:
                self.problems.append(
                    f"line {self.settlement_line}, settlement, {name}: logged {logged}, recomputed {recomputed[name]}"
                )


def _key(item: dict[str, Any]) -> tuple[Any, Any, Any]:
    return item["column"], item.get("on"), item["points"]


def _show(lines: Counter[tuple[Any, Any, Any]]) -> str:
    if not lines:
        return "nothing"
    parts = []
    for (column, on, points), count in sorted(lines.items(), key=lambda kv: (kv[0][0], kv[0][1] or -1, kv[0][2])):
        text = f"{column} {points}" + (f" on seat {on}" if on is not None else "")
        parts.extend([text] * count)
    return ", ".join(parts)
