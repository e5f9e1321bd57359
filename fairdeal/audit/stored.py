"""The audit of one table of a store (``fairdeal store``): one task per Parquet row group, no JSON to parse.

A hand row already holds what the auditor's narrow decoder would cut out of the line (hand, dealer, shuffle and
the raw JSON of the gathered order and the deal) and those fields read in bulk (``log.bulk``: card codes and the
shuffle's ops), so a task builds the auditor's ``RawHand`` records from columns and runs the same ``audit_block``
as a log file's block with nothing left to parse; any other row (a second header, a trailer, an unreadable
line) is decoded from its raw text as a log's line would be. Tasks run in-process, in worker processes, or on
``dask.distributed`` workers (``cluster.py``); partial merges combine by one tree in table order, so every way
gives one verdict.
"""

from __future__ import annotations

import functools
import io
import tempfile
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np

from fairdeal.audit.benefit.fold import warm_nulls
from fairdeal.audit.block import audit_block
from fairdeal.audit.cluster import empty_merge, partial, tree_merge
from fairdeal.audit.fastpath import (
    Layout,
    NarrowContract,
    NarrowHand,
    RawHand,
    RawRecord,
    decode_raw_block,
    layout_for,
)
from fairdeal.audit.run import AuditResult, RunOptions, ScanInput, audit_input
from fairdeal.audit.scan import Header, Merged, Progress, _run_tasks, check_table, read_header
from fairdeal.audit.summary import BlockContext, BlockSummary
from fairdeal.errors import AuditError
from fairdeal.log.bulk import ParsedHands, unpack_cards, unpack_ops
from fairdeal.log.store import HAND, Store, StoredLog

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

COLUMNS = ["line", "kind", "hand", "dealer", "shuffle", "order_before", "deal"]
LEAN_COLUMNS = COLUMNS[:5]  # a group whose card lists the store read (``_read_by_the_store``)
PARSED_COLUMNS = ["deal_cards", "order_cards", "shuffle_ops"]
DECLARER = "declarer"  # a column of files stored since the evidence hands were chosen in the pass


class _WithContract(msgspec.Struct, gc=False):
    contract: NarrowContract | None = None


_CONTRACT = msgspec.json.Decoder(_WithContract)


def _declarer_of(raw: bytes | None) -> int | None:
    """The declarer of a stored line, for files stored without the column (the auditor reads the line)."""
    try:
        contract = _CONTRACT.decode(raw or b"").contract
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None  # the line's own decoding words what is wrong with it
    return contract.declarer if contract is not None else None


@dataclass(frozen=True)
class StoreTask:
    """One row group of one appended log; ``offset`` shifts its line numbers past the table's earlier logs."""

    file: str
    row_group: int
    offset: int
    index: int
    pattern_name: str
    seats: int
    context: BlockContext


def audit_row_group(task: StoreTask) -> tuple[int, BlockSummary]:
    """``(base, summary)``: the row group audited, its lines numbered from ``base + 1``."""
    import pyarrow.parquet as pq

    file = pq.ParquetFile(task.file)
    lean = _read_by_the_store(file, task.row_group)
    names = LEAN_COLUMNS if lean else COLUMNS
    has_declarer = DECLARER in file.schema_arrow.names
    group = file.read_row_group(
        task.row_group, columns=names + ([DECLARER] if has_declarer else []) + _parsed_names(file)
    )
    columns = group.select(names + ([DECLARER] if has_declarer else [])).to_pydict()
    # The raw text only when a line must be decoded again, or for the declarers of a file stored without them.
    if not has_declarer or any(kind != HAND for kind in columns["kind"]):
        columns["raw"] = file.read_row_group(task.row_group, columns=["raw"]).column(0).to_pylist()
    if not has_declarer:
        columns[DECLARER] = [
            _declarer_of(raw) if kind == HAND else None for kind, raw in zip(columns["kind"], columns["raw"])
        ]
    lines = columns["line"]
    base = lines[0] - 1 if lines else 0
    records: list[tuple[int, RawRecord]] = []
    errors: list[tuple[int, str]] = []
    if lean:
        source = _RawLines(task.file, task.row_group)
        rows = zip(lines, columns["hand"], columns["dealer"], columns["shuffle"], columns[DECLARER])
        for k, (line, hand, dealer, shuffle, declarer) in enumerate(rows):
            shuffled = shuffle if shuffle is not None else msgspec.UNSET
            contract = NarrowContract(declarer) if declarer is not None else None
            stored = StoredHand(hand, dealer, shuffle=shuffled, contract=contract, source=source, row=k)
            records.append((line - base, stored))
    else:
        _decoded_rows(columns, base, records, errors)
    counted = lines[-1] - base if lines else 0
    layout = layout_for(task.pattern_name, task.seats)
    parsed = _parsed(group, columns["kind"], len(records), layout.pattern.deck.size)
    summary = audit_block(records, errors, counted, layout, task.context, task.index, parsed)
    return task.offset + base, summary


def _decoded_rows(
    columns: dict[str, list[Any]],
    base: int,
    records: list[tuple[int, RawRecord]],
    errors: list[tuple[int, str]],
) -> None:
    """Hand rows with their card lists' raw JSON; any other row decoded from its raw text as a log's line is."""
    absent = msgspec.Raw()
    rows = zip(
        columns["line"],
        columns["kind"],
        columns["hand"],
        columns["dealer"],
        columns["shuffle"],
        columns["order_before"],
        columns["deal"],
        columns[DECLARER],
    )
    for k, (line, kind, hand, dealer, shuffle, order, deal, declarer) in enumerate(rows):
        local = line - base
        if kind == HAND:
            records.append(
                (
                    local,
                    RawHand(
                        hand,
                        dealer,
                        msgspec.Raw(order) if order is not None else absent,
                        shuffle if shuffle is not None else msgspec.UNSET,
                        msgspec.Raw(deal) if deal is not None else absent,
                        NarrowContract(declarer) if declarer is not None else None,
                    ),
                )
            )
        else:
            found, wrong = decode_raw_block([columns["raw"][k]], local)
            records += found
            errors += wrong


def _read_by_the_store(file: pq.ParquetFile, group: int) -> bool:
    """Whether every row of the group is a hand whose deal and gathered order the store read (its statistics say
    so): then the audit needs neither card list's JSON, and a hand that turns out to need it reads its line."""
    if not set(PARSED_COLUMNS) <= set(file.schema_arrow.names):
        return False
    meta = file.metadata.row_group(group)
    stats = {meta.column(i).path_in_schema: meta.column(i).statistics for i in range(meta.num_columns)}
    kind = stats.get("kind")
    if kind is None or not kind.has_min_max or kind.min != HAND or kind.max != HAND or kind.null_count:
        return False
    read = [stats.get(name) for name in ("deal_cards", "order_cards")]
    return all(column is not None and column.null_count == 0 for column in read)


class _RawLines:
    """A row group's raw lines, read from the store the first time one of its hands needs its card lists' JSON."""

    def __init__(self, file: str, group: int):
        self.file, self.group = file, group
        self.lines: list[bytes] | None = None

    def hand(self, row: int) -> RawHand:
        import pyarrow.parquet as pq

        if self.lines is None:
            raw = pq.ParquetFile(self.file).read_row_group(self.group, columns=["raw"]).column(0).to_pylist()
            self.lines = [bytes(line or b"") for line in raw]
        found, _ = decode_raw_block([self.lines[row]], row + 1)
        record = found[0][1] if found else None
        if not isinstance(record, RawHand):
            raise msgspec.DecodeError(f"row {row} of the stored row group is not a hand line")
        return record


class StoredHand(RawHand, kw_only=True):
    """A stored hand whose deal and gathered order the store read (``ParsedHands`` holds their cards): their JSON
    stays in the store until a slow path asks for it (``narrow``)."""

    source: _RawLines
    row: int

    def narrow(self) -> NarrowHand:
        return self.source.hand(self.row).narrow()

    @property
    def has_deal(self) -> bool:
        return True

    @property
    def has_order(self) -> bool:
        return True


def _parsed_names(file: pq.ParquetFile) -> list[str]:
    """The parsed columns, when the file has them (a version 1 store's files do not)."""
    return PARSED_COLUMNS if set(PARSED_COLUMNS) <= set(file.schema_arrow.names) else []


def _parsed(group: pa.Table, kinds: list[str], hands: int, n: int) -> ParsedHands | None:
    """The row group's hands as the store read them, one row per hand record; ``None`` where they must be read
    here (no parsed columns, or a non-hand row that decoded as a hand)."""
    if PARSED_COLUMNS[0] not in group.column_names:
        return None
    rows = np.flatnonzero(np.array(kinds, dtype=object) == HAND)
    if len(rows) != hands:
        return None
    deals, orders, ops = (_binary(group.column(name).take(rows)) for name in PARSED_COLUMNS)
    deal_ok, deal_codes = unpack_cards(*deals, n)
    order_ok, order_codes = unpack_cards(*orders, n)
    simple, compiled = unpack_ops(*ops)
    return ParsedHands(deal_ok, deal_codes, order_ok, order_codes, simple, compiled)


def _binary(column: pa.ChunkedArray[pa.BinaryScalar]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A binary column's validity, offsets and bytes as numpy arrays."""
    array = column.combine_chunks()
    valid = ~np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    _, offsets, data = array.buffers()
    start = array.offset
    assert offsets is not None  # a binary array always has offsets
    bounds = np.frombuffer(memoryview(offsets), dtype=np.int32)[start : start + len(array) + 1].astype(np.int64)
    content = np.frombuffer(memoryview(data), dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return valid, bounds, content


def row_group_tasks(logs: list[StoredLog], header: Header, context: BlockContext) -> list[StoreTask]:
    import pyarrow.parquet as pq

    tasks: list[StoreTask] = []
    offset = 0
    for log in logs:
        if not log.hands_file.is_file():
            raise AuditError(f"the store lacks {log.hands_file}, which its table row names")
        groups = pq.ParquetFile(log.hands_file).metadata.num_row_groups
        tasks += [
            StoreTask(str(log.hands_file), g, offset, len(tasks) + i, header.pattern_name, len(header.players), context)
            for i, g in enumerate(range(groups))
        ]
        offset += log.lines
    return tasks


def task_partial(header: Header, layout: Layout, keep: int, task: StoreTask) -> Merged:
    """One task audited and made a partial merge (what a worker sends back)."""
    base, summary = audit_row_group(task)
    return partial(header, layout, keep, base, summary)


def in_process(workers: int) -> Runner:
    """Tasks in ``workers`` local processes, then the same merge tree as on a cluster."""
    return lambda tasks, make: tree_merge(list(_run_tasks(make, tasks, workers)))


def table_header(logs: list[StoredLog]) -> Header:
    first = logs[0]
    header = read_header(io.BytesIO(first.header + b"\n"))
    return Header(
        header.players,
        header.pattern_name,
        header.dealing,
        header.system,
        first.header_line,
        header.offset,
        header.started,
        header.cutter,
    )


Runner = Callable[[list[StoreTask], Callable[[StoreTask], Merged]], Merged]


def stored_input(root: Path, table: str, runner: Runner | None = None) -> ScanInput:
    """A store table as the auditor's input; ``runner`` turns tasks into one merge (default: local processes)."""
    logs = Store(root).logs().get(table)
    if not logs:
        raise AuditError(f"{root}: the store holds no table {table}")
    header = table_header(logs)
    layout = check_table(header)
    total = sum(log.lines for log in logs)

    def scan(context_of: Callable[[Header], BlockContext], options: RunOptions, progress: Progress | None) -> Merged:
        tasks = row_group_tasks(logs, header, context_of(header))
        if not tasks:
            return empty_merge(header, layout, options.keep, total)
        if runner is None:
            warm_nulls(layout, tasks[0].context.system)  # before the pool forks
        run = runner or in_process(options.workers)
        merged = run(tasks, functools.partial(task_partial, header, layout, options.keep))
        merged.lines = total
        if progress:
            progress(len(tasks), len(tasks))
        return merged

    return ScanInput(
        sum(log.bytes for log in logs),
        sum(log.hands for log in logs),
        scan,
        _Spool(logs),
        functools.partial(stored_lines, logs),
    )


class _Spool:
    """The table written back as one JSON Lines file (raw lines at their numbers), once, when a pass needs it."""

    def __init__(self, logs: list[StoredLog]):
        self.logs = logs
        self.path: Path | None = None

    def __call__(self) -> Path:
        if self.path is None:
            folder = tempfile.TemporaryDirectory(prefix="fairdeal-stored-")
            self.path = Path(folder.name) / "table.jsonl"
            weakref.finalize(self, folder.cleanup)
            with open(self.path, "wb") as out:
                for line in spooled_lines(self.logs):
                    out.write(line)
        return self.path


def spooled_lines(logs: list[StoredLog]) -> Iterator[bytes]:
    """The table's lines as JSON Lines: the first header, then every stored row at its line number."""
    import pyarrow.parquet as pq

    first = logs[0]
    yield b"\n" * (first.header_line - 1) + first.header + b"\n"
    at = first.header_line
    offset = 0
    for log in logs:
        file = pq.ParquetFile(log.hands_file)
        for g in range(file.metadata.num_row_groups):
            columns = file.read_row_group(g, columns=["line", "raw"]).to_pydict()
            for line, raw in zip(columns["line"], columns["raw"]):
                yield b"\n" * (offset + line - at - 1) + raw + b"\n"
                at = offset + line
        offset += log.lines


def stored_lines(logs: list[StoredLog], wanted: set[int]) -> dict[int, bytes]:
    """The raw lines with the given table line numbers, read from the row groups whose line range holds one."""
    import pyarrow.parquet as pq

    found: dict[int, bytes] = {}
    offset = 0
    for log in logs:
        mine = sorted(line - offset for line in wanted if offset < line <= offset + log.lines)
        if mine:
            file = pq.ParquetFile(log.hands_file)
            for g in range(file.metadata.num_row_groups):
                stats = file.metadata.row_group(g).column(0).statistics  # the ``line`` column
                low, high = 1, log.lines
                if stats is not None and stats.has_min_max and stats.min is not None and stats.max is not None:
                    low, high = int(stats.min), int(stats.max)
                if any(low <= line <= high for line in mine):
                    columns = file.read_row_group(g, columns=["line", "raw"]).to_pydict()
                    found |= {offset + n: raw for n, raw in zip(columns["line"], columns["raw"]) if n in mine}
        offset += log.lines
    return found


def run_stored_audit(
    root: Path,
    table: str,
    options: RunOptions = RunOptions(),
    progress: Progress | None = None,
    runner: Runner | None = None,
) -> AuditResult:
    return audit_input(stored_input(root, table, runner), options, progress)
