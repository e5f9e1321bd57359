"""The statistical pass over a whole log: blocks of lines audited in worker processes, merged in log order.

The file is cut into blocks at line ends (by offset, so the main process never reads the data); each worker
decodes its block narrowly and audits it with arrays (``block.audit_block``). The main process adds the
per-dealer sums, shifts line numbers, and keeps per hand only what the sequential detectors need: the talon's
aces as one byte and, for digital logs, an 8-byte deal key for the repeated-deal test (about 9 MB per million
hands; everything else is constant memory).
"""

from __future__ import annotations

import functools
import io
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypeVar

import numpy as np

from fairdeal.audit.allocator import tune_allocator, without_collector
from fairdeal.audit.battery import BatteryPart, join
from fairdeal.audit.benefit.fold import warm_nulls
from fairdeal.audit.block import audit_block
from fairdeal.audit.candidates import Candidates, join_candidates
from fairdeal.audit.fastpath import Layout, decode_raw_block, layout_for
from fairdeal.audit.replay import Finding
from fairdeal.audit.summary import BlockContext, BlockSummary, HandTable, Sums
from fairdeal.deal import get_pattern
from fairdeal.errors import AuditError, FairdealError, LogError
from fairdeal.log.header import header_convention
from fairdeal.log.reader import first_header
from fairdeal.log.records import TableRecord
from fairdeal.rules.convention import TableRules

BLOCK_BYTES = 4 << 20
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Header:
    players: tuple[str, ...]
    pattern_name: str
    dealing: str
    system: str
    line: int  # the header's line number
    offset: int  # byte offset just after it
    started: str | None = None  # the header's ISO-8601 start time, when logged
    cutter: int = 1  # who cuts: seats to the dealer's right (the convention's ``table.cutter``, house rules included)


@dataclass
class Merged:
    """The running merge of block summaries, in log order."""

    header: Header
    layout: Layout
    sums: Sums
    lines: int
    hands: int = 0
    aces: list[list[np.ndarray]] = field(default_factory=list)  # per dealer: talon aces per deal, in order
    numbers: list[list[np.ndarray]] = field(default_factory=list)  # per dealer: the hand numbers of those deals
    keys: list[np.ndarray] = field(default_factory=list)
    key_hands: list[np.ndarray] = field(default_factory=list)
    battery: BatteryPart | None = None
    findings: list[tuple[int, int, str, Finding]] = field(default_factory=list)  # line, hand, dealer name, finding
    finding_counts: dict[str, int] = field(default_factory=dict)
    malformed: list[str] = field(default_factory=list)
    malformed_count: int = 0
    undealt: int = 0
    keep: int = 1000
    kept: dict[str, int] = field(default_factory=dict)
    tables: dict[str, list[HandTable]] = field(default_factory=dict)  # per-hand rows by pass, lines shifted
    candidates: Candidates | None = None  # the hands the report may draw, lines shifted

    def table(self, name: str) -> HandTable | None:
        return HandTable.concat(self.tables.get(name, []))

    def add(self, block: BlockSummary) -> None:
        base = self.lines
        self.sums = self.sums.add(block.sums)
        self.hands += len(block.hand_numbers)
        for dealer in range(len(self.header.players)):
            mine = block.dealers == dealer
            if mine.any():
                self.aces[dealer].append(block.talon_aces[mine])
                self.numbers[dealer].append(block.hand_numbers[mine])
        if len(block.keys):
            self.keys.append(block.keys)
            self.key_hands.append(block.hand_numbers)
        self.battery = join(self.battery, block.battery)
        for kind, count in block.finding_counts.items():
            self.finding_counts[kind] = self.finding_counts.get(kind, 0) + count
        for line, hand, dealer, finding in block.findings:
            kept = self.kept.get(finding.kind, 0)
            if kept < self.keep:
                self.kept[finding.kind] = kept + 1
                self.findings.append((base + line, hand, self.header.players[dealer], finding))
        for name, table in block.tables.items():
            self.tables.setdefault(name, []).append(table.shifted(base))
        if block.candidates is not None:
            self.candidates = join_candidates(self.candidates, block.candidates.shifted(base))
        self.malformed_count += block.malformed_count
        self.undealt += block.undealt
        for line, message in block.malformed:
            if len(self.malformed) < self.keep:
                self.malformed.append(_renumber(message, line, base + line))
        self.lines += block.lines


def _renumber(message: str, local: int, line: int) -> str:
    prefix = f"line {local}"
    if message.startswith(prefix):
        return f"line {line}" + message[len(prefix) :]
    return f"line {line}: {message}"


def read_header(stream: BinaryIO) -> Header:
    """The first non-blank line must be a valid table header."""
    try:
        found = first_header(stream)
    except LogError as exc:
        raise AuditError(f"{exc}: nothing to audit" if str(exc) == "the log is empty" else str(exc)) from None
    header = found.record
    started = header.started if isinstance(header.started, str) else None
    return Header(
        tuple(header.players),
        header.deal_pattern,
        header.dealing,
        header.system,
        found.line,
        found.offset,
        started,
        _cutter(header),
    )


def _cutter(header: TableRecord) -> int:
    """The header's convention's cutter; a header whose convention cannot be rebuilt cuts as most systems do
    (the legality pass reports why it cannot be read)."""
    try:
        return header_convention(header).table.cutter
    except FairdealError:
        return TableRules().cutter


def check_table(header: Header) -> Layout:
    try:
        pattern = get_pattern(header.pattern_name)
        return layout_for(pattern.name, len(header.players))
    except FairdealError as exc:
        raise AuditError(f"the table cannot be audited: {exc}") from None


def _blocks_of_file(path: Path, start: int, size: int, block: int = BLOCK_BYTES) -> Iterator[tuple[int, int]]:
    """``(offset, length)`` of blocks that end at line ends."""
    with open(path, "rb") as stream:
        offset = start
        while offset < size:
            stream.seek(min(offset + block, size))
            if offset + block < size:
                stream.readline()
            end = min(stream.tell(), size) if offset + block < size else size
            yield offset, end - offset
            offset = end


def _blocks_of_stream(stream: BinaryIO) -> Iterator[bytes]:
    rest = b""
    while True:
        data = stream.read(BLOCK_BYTES)
        if not data:
            if rest:
                yield rest
            return
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            continue
        rest = data[cut:]
        yield data[:cut]


def _audit_bytes(data: bytes, layout: Layout, context: BlockContext, index: int) -> BlockSummary:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    records, errors = decode_raw_block(lines, 1)
    counted = data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))
    return audit_block(records, errors, counted, layout, context, index)


def _audit_file_block(task: tuple[str, int, int, int, str, int, BlockContext]) -> BlockSummary:
    path, offset, length, index, pattern_name, seats, context = task
    with open(path, "rb") as stream:
        stream.seek(offset)
        data = stream.read(length)
    return _audit_bytes(data, layout_for(pattern_name, seats), context, index)


def scan_log(
    source: str | Path | BinaryIO,
    context_of: Callable[[Header], BlockContext],
    workers: int = 1,
    progress: Progress | None = None,
    keep: int = 1000,
) -> Merged:
    """Read the header, audit every block (in ``workers`` processes for a file), merge in log order."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise AuditError(f"no game log at {path}")
        with open(path, "rb") as stream:
            header = read_header(stream)
        size = path.stat().st_size
    else:
        header = read_header(_lines_until_header(source))
        size = 0
    layout = check_table(header)
    context = context_of(header)
    seats = len(header.players)
    merged = Merged(
        header,
        layout,
        Sums.empty(seats, len(_ace_categories(layout)) - 1, layout.pattern.deck.size),
        header.line,
        aces=[[] for _ in range(seats)],
        numbers=[[] for _ in range(seats)],
        keep=keep,
    )
    if isinstance(source, (str, Path)):
        tasks = [
            (str(path), off, length, i, layout.pattern.name, seats, context)
            for i, (off, length) in enumerate(_blocks_of_file(path, header.offset, size))
        ]
        done = header.offset
        warm_nulls(layout, context.system)  # before the pool forks
        for task, block in zip(tasks, _run_tasks(_audit_file_block, tasks, workers)):
            merged.add(block)
            done += task[2]
            if progress:
                progress(done, size)
    else:
        for index, data in enumerate(_blocks_of_stream(source)):
            merged.add(_audit_bytes(data, layout, context, index))
    return merged


def _ace_categories(layout: Layout) -> range:
    return range(min(4, layout.pattern.talons * layout.pattern.talon_size) + 1)


def _lines_until_header(source: BinaryIO) -> io.BytesIO:
    """Consume a stream up to and including its header line, returning those lines for ``read_header``."""
    taken = []
    while True:
        raw = source.readline()
        if not raw:
            break
        taken.append(raw)
        if raw.strip():
            break
    return io.BytesIO(b"".join(taken))


_T = TypeVar("_T")
_R = TypeVar("_R")


def _run_tasks(work: Callable[[_T], _R], tasks: list[_T], workers: int) -> Iterator[_R]:
    """``work`` over ``tasks``, results in task order; in ``workers`` processes when there is more than one."""
    paused = functools.partial(without_collector, work)
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield paused(task)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=tune_allocator) as pool:
        yield from pool.map(paused, tasks)
