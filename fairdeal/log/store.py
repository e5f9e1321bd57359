"""The operator's archive: game logs as Parquet, partitioned by table and day, appended to and never rewritten.

Layout (protocols/store.md)::

    DIR/fairdeal-store.json                                   the mark: format and version
    DIR/hands/table=ID/day=YYYY-MM-DD/part-STAMP.parquet      every non-blank line after the header, in order
    DIR/tables/table=ID/day=YYYY-MM-DD/part-STAMP.parquet     one row per appended log: header, line count, digest

``ID`` is the first 16 hex digits of the SHA-256 of the header line, so a later log of the same table lands in
the same partition; ``day`` is the date of the header's ``started`` (``undated`` without one). Every append
writes new files under fresh names (temporary name, then rename); the table row is written last and names its
hands file, so a reader never sees half an append. A log whose bytes are already stored is skipped.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import msgspec
import numpy as np

from fairdeal.deal import get_pattern
from fairdeal.errors import DealError, LogError
from fairdeal.log.bulk import deal_lists, pack_cards, pack_ops, parse_hands
from fairdeal.log.reader import first_header
from fairdeal.log.records import TableRecord
from fairdeal.log.sources import STORE_MARK, LogSource

if TYPE_CHECKING:
    import pyarrow as pa

STORE_FORMAT = {"format": "fairdeal-store", "version": 2}
READABLE_VERSIONS = (1, 2)  # version 1 hands files lack the parsed columns; the auditor parses those itself
ROW_GROUP = 8_192  # rows per Parquet row group: one auditor task (~0.3 s of work, a JSON block's size)
HAND, TABLE, END, BAD = "hand", "table", "end", "bad"
# One stored line: (line, kind, hand, dealer, dealer_name, shuffle, order_before, deal, raw, declarer).
_Row = tuple[int, str, int | None, int | None, str | None, str | None, bytes | None, bytes | None, bytes, int | None]


class _Contract(msgspec.Struct, gc=False):
    declarer: int


class StoredHand(msgspec.Struct, tag_field="type", tag="hand", gc=False):
    """The fields the auditor reads, card lists kept as their raw JSON (as ``audit.fastpath.RawHand`` reads them,
    so a stored line and a logged line are audited alike)."""

    hand: int
    dealer: int
    order_before: msgspec.Raw = msgspec.Raw()
    shuffle: str | msgspec.UnsetType = msgspec.UNSET
    deal: msgspec.Raw = msgspec.Raw()
    contract: _Contract | None = None


_HAND_LINE = msgspec.json.Decoder(StoredHand)


def _schemas() -> tuple[pa.Schema, pa.Schema]:
    import pyarrow as pa

    hand_fields: list[tuple[str, pa.DataType]] = [
        ("line", pa.int64()),
        ("kind", pa.string()),
        ("hand", pa.int64()),
        ("dealer", pa.int64()),
        ("dealer_name", pa.string()),
        ("shuffle", pa.string()),
        ("order_before", pa.binary()),
        ("deal", pa.binary()),
        ("raw", pa.binary()),
        ("declarer", pa.int64()),
        ("deal_cards", pa.binary()),
        ("order_cards", pa.binary()),
        ("shuffle_ops", pa.binary()),
    ]
    table_fields: list[tuple[str, pa.DataType]] = [
        ("stamp", pa.string()),
        ("source", pa.string()),
        ("sha256", pa.string()),
        ("header_line", pa.int64()),
        ("lines", pa.int64()),
        ("bytes", pa.int64()),
        ("hands", pa.int64()),
        ("system", pa.string()),
        ("players", pa.list_(pa.string())),
        ("deal_pattern", pa.string()),
        ("dealing", pa.string()),
        ("started", pa.string()),
        ("header", pa.binary()),
        ("part", pa.string()),
    ]
    return pa.schema(hand_fields), pa.schema(table_fields)


@dataclass(frozen=True)
class Appended:
    """What one append did with one source."""

    source: str
    table: str
    day: str
    hands: int
    lines: int
    skipped: bool = False  # the same bytes were stored before


@dataclass(frozen=True)
class StoredLog:
    """One appended log of a table, as its table row says."""

    stamp: str
    source: str
    header_line: int
    lines: int
    bytes: int
    hands: int
    header: builtins.bytes  # builtins: the field ``bytes`` above shadows the type in this class
    hands_file: Path


class Store:
    """A store folder; ``create=True`` makes it when missing."""

    def __init__(self, root: str | Path, create: bool = False):
        self.root = Path(root)
        mark = self.root / STORE_MARK
        if not mark.is_file():
            if not create:
                raise LogError(f"{self.root}: not a fairdeal store (no {STORE_MARK})")
            if self.root.exists() and any(self.root.iterdir()):
                raise LogError(f"{self.root}: the folder exists and is not a fairdeal store; choose an empty one")
            self.root.mkdir(parents=True, exist_ok=True)
            write_atomic(mark, json.dumps(STORE_FORMAT).encode())
        else:
            found = json.loads(mark.read_text(encoding="utf-8"))
            if found.get("format") != STORE_FORMAT["format"] or found.get("version") not in READABLE_VERSIONS:
                raise LogError(
                    f"{mark}: a store of format {found.get('format')!r} version {found.get('version')!r}; "
                    f"this fairdeal reads versions {', '.join(map(str, READABLE_VERSIONS))}"
                )

    def table_files(self) -> list[Path]:
        return sorted((self.root / "tables").glob("table=*/day=*/part-*.parquet"))

    def logs(self) -> dict[str, list[StoredLog]]:
        """Per table id, its appended logs in the order they were appended."""
        import pyarrow.parquet as pq

        found: dict[str, list[StoredLog]] = {}
        for file in self.table_files():
            table = file.parent.parent.name.removeprefix("table=")
            for row in pq.read_table(file).to_pylist():
                found.setdefault(table, []).append(
                    StoredLog(
                        row["stamp"],
                        row["source"],
                        row["header_line"],
                        row["lines"],
                        row["bytes"],
                        row["hands"],
                        row["header"],
                        self.root / row["part"],
                    )
                )
        return {
            table: sorted(logs, key=lambda log: log.stamp)
            for table, logs in sorted(found.items(), key=lambda item: min(log.stamp for log in item[1]))
        }

    def tables(self) -> list[str]:
        return list(self.logs())

    def digests(self) -> set[str]:
        import pyarrow.parquet as pq

        return {
            d
            for file in self.table_files()
            for d in pq.read_table(file, columns=["sha256"])["sha256"].to_pylist()
            if isinstance(d, str)
        }

    def append(self, source: LogSource, row_group: int = ROW_GROUP) -> Appended:
        """Store one log (its header must be valid); every later line is kept, readable or not, ``row_group``
        lines to a Parquet row group (one auditor task)."""
        digest, size = _digest(source)
        with source.open() as stream:
            header_line, header_raw, header = _header(stream, source.name)
            table = hashlib.sha256(header_raw.strip()).hexdigest()[:16]
            day = _day(header)
            if digest in self.digests():
                return Appended(source.name, table, day, 0, 0, skipped=True)
            stamp = f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}"
            part = Path("hands") / f"table={table}" / f"day={day}" / f"part-{stamp}.parquet"
            hands, lines = _write_hands(self.root / part, stream, header_line, header, row_group)
        _hands_schema, tables_schema = _schemas()
        row = {
            "stamp": stamp,
            "source": source.name,
            "sha256": digest,
            "header_line": header_line,
            "lines": lines,
            "bytes": size,
            "hands": hands,
            "system": header.system,
            "players": list(header.players),
            "deal_pattern": header.deal_pattern,
            "dealing": header.dealing,
            "started": header.started if isinstance(header.started, str) else None,
            "header": header_raw.strip(),
            "part": part.as_posix(),
        }
        _write_rows(
            self.root / "tables" / f"table={table}" / f"day={day}" / f"part-{stamp}.parquet", [row], tables_schema
        )
        return Appended(source.name, table, day, hands, lines)


def _digest(source: LogSource) -> tuple[str, int]:
    """The SHA-256 and size of the source's (decompressed) bytes."""
    sha, size = hashlib.sha256(), 0
    with source.open() as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            sha.update(chunk)
            size += len(chunk)
    return sha.hexdigest(), size


def _header(stream: BinaryIO, name: str) -> tuple[int, bytes, TableRecord]:
    try:
        found = first_header(stream)
    except LogError as exc:
        raise LogError(f"{name}: {exc}{': nothing to store' if str(exc) == 'the log is empty' else ''}") from None
    return found.line, found.raw, found.record


def _day(header: TableRecord) -> str:
    started = header.started if isinstance(header.started, str) else ""
    day = started[:10]
    return day if len(day) == 10 and day[4] == "-" and day[7] == "-" and day.replace("-", "").isdigit() else "undated"


def _rows(stream: Iterable[bytes], first: int, players: tuple[str, ...]) -> Iterator[_Row]:
    """``(line, kind, hand, dealer, dealer_name, shuffle, order_before, deal, raw, declarer)`` per non-blank
    line."""
    for number, raw in enumerate(stream, start=first + 1):
        body = raw.rstrip(b"\r\n")
        if not body.strip():
            continue
        try:
            hand = _HAND_LINE.decode(body)
        except (msgspec.DecodeError, msgspec.ValidationError):
            yield number, _kind(body), None, None, None, None, None, None, body, None
            continue
        name = players[hand.dealer] if 0 <= hand.dealer < len(players) else None
        shuffle = hand.shuffle if isinstance(hand.shuffle, str) else None
        yield (
            number,
            HAND,
            hand.hand,
            hand.dealer,
            name,
            shuffle,
            bytes(hand.order_before) if len(hand.order_before) else None,
            bytes(hand.deal) if len(hand.deal) else None,
            body,
            hand.contract.declarer if hand.contract is not None else None,
        )


class _Typed(msgspec.Struct):
    type: str


_TYPED = msgspec.json.Decoder(_Typed)


def _kind(body: bytes) -> str:
    """``table`` or ``end`` for such a line, ``bad`` for anything else; the auditor decodes these lines again."""
    try:
        kind = _TYPED.decode(body).type
    except (msgspec.DecodeError, msgspec.ValidationError):
        return BAD
    return kind if kind in (TABLE, END) else BAD


def _write_hands(
    target: Path, stream: BinaryIO, header_line: int, header: TableRecord, row_group: int
) -> tuple[int, int]:
    """Write the lines after the header as one Parquet file; ``(hands, lines)`` where lines counts every line of
    the log, blank ones included (the auditor numbers findings by them)."""
    import pyarrow.parquet as pq

    schema, _ = _schemas()
    counter = _LineCounter(stream)
    players = tuple(header.players)
    hands = 0
    temporary = _temporary(target)
    try:
        with pq.ParquetWriter(temporary, schema, compression="zstd") as writer:
            batch: list[_Row] = []
            for row in _rows(counter, header_line, players):
                hands += row[1] == HAND
                batch.append(row)
                if len(batch) == row_group:
                    writer.write_table(_batch_table(batch, header, schema))
                    batch = []
            if batch:
                writer.write_table(_batch_table(batch, header, schema))
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return hands, header_line + counter.lines


def _batch_table(batch: list[_Row], header: TableRecord, schema: pa.Schema) -> pa.Table:
    """One row group: the rows, and their hands read in bulk (``log.bulk``) for the auditor."""
    import pyarrow as pa

    columns: list[list[object]] = [list(column) for column in zip(*batch)]
    columns += _parsed_columns(batch, header)
    return pa.Table.from_arrays(columns, schema=schema)  # type: ignore[arg-type]  # pyarrow converts Python columns; its stubs want Arrays


def _parsed_columns(batch: list[_Row], header: TableRecord) -> list[list[object]]:
    """``deal_cards``, ``order_cards``, ``shuffle_ops`` per row: null for other rows, and for fields not in the
    usual form (the auditor then reads the raw JSON, as it would the line's)."""
    empty: list[list[object]] = [[None] * len(batch) for _ in range(3)]
    try:
        pattern = get_pattern(header.deal_pattern)
        lists = deal_lists(pattern.name, len(header.players))
    except DealError:
        return empty  # the auditor names the unknown pattern
    at = [k for k, row in enumerate(batch) if row[1] == HAND]
    parsed = parse_hands(
        [batch[k][7] or b"" for k in at],
        [batch[k][6] or b"" for k in at],
        [batch[k][5] for k in at],
        np.array([batch[k][3] for k in at], dtype=np.int64),
        lists,
        pattern.deck.size,
    )
    packed = (
        pack_cards(parsed.deal_ok, parsed.deals),
        pack_cards(parsed.order_ok, parsed.orders),
        pack_ops(parsed.simple, parsed.ops),
    )
    for column, values in zip(empty, packed):
        for k, value in zip(at, values):
            column[k] = value
    return empty


class _LineCounter:
    """Iterates a stream's lines and counts them (a last line without its newline counts too)."""

    def __init__(self, stream: BinaryIO):
        self.stream = stream
        self.lines = 0

    def __iter__(self) -> Iterator[bytes]:
        for raw in self.stream:
            self.lines += 1
            yield raw


def _write_rows(target: Path, rows: list[dict[str, object]], schema: pa.Schema) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    temporary = _temporary(target)
    try:
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), temporary)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def _temporary(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    return target.with_name(f".tmp-{uuid.uuid4().hex}-{target.name}")


def write_atomic(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` through a temporary file and a rename: readers see all of it or nothing."""
    temporary = _temporary(target)
    try:
        temporary.write_bytes(data)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
