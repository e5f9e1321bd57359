"""Streaming reader: one ``LogItem`` per line, a record when the line is valid, its errors when not.

Lines are decoded with msgspec into the typed records (the fast path), then checked by ``LogValidator``.
Memory stays constant however long the log: lines are read and yielded one at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import msgspec

from fairdeal.bounded import check, strip_bom
from fairdeal.errors import LogError, one_line
from fairdeal.log.records import Record, TableRecord
from fairdeal.log.validate import LogValidator

_DECODER = msgspec.json.Decoder(Record)
_AT_PATH = re.compile(r"^(?P<message>.*?) - at `\$(?P<path>[^`]*)`$", re.S)
_NAMED_FIELD = re.compile(r"field `(?P<name>[^`]+)`")
_HAND_NUMBER = re.compile(rb'"hand"\s*:\s*(-?\d{1,16})')
WHOLE_LINE = "$"


@dataclass(frozen=True)
class LogItem:
    """One line of a log: ``record`` is set only when ``errors`` is empty."""

    line: int
    record: Record | None
    errors: tuple[LogError, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


def decode_line(raw: bytes, line: int) -> Record:
    """Decode one line into its typed record; a ``LogError`` names the line and the field at fault."""
    problem = check(raw)
    if problem is not None:
        raise LogError(problem, line, WHOLE_LINE)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogError(f"not UTF-8 text (bad byte at {exc.start})", line, WHOLE_LINE) from None
    try:
        return _DECODER.decode(text)
    except msgspec.ValidationError as exc:
        raise _validation_error(str(exc), line) from None
    except msgspec.DecodeError as exc:
        raise LogError(f"not a JSON object: {_plain_decode_message(str(exc))}", line, WHOLE_LINE) from None
    except RecursionError:
        raise LogError("nested too deep", line, WHOLE_LINE) from None


def _validation_error(text: str, line: int) -> LogError:
    match = _AT_PATH.match(text)
    message, path = (match["message"], match["path"].lstrip(".")) if match else (text, "")
    named = _NAMED_FIELD.search(message)
    if named and ("missing required" in message or "unknown field" in message):
        path = f"{path}.{named['name']}" if path else named["name"]
    if message.startswith("Invalid value") and path == "type":
        message = f"{message}: the line type must be table, hand or end"
    return LogError(message, line, one_line(path, 80) if path else WHOLE_LINE)


def _plain_decode_message(text: str) -> str:
    return text.replace("JSON is malformed: ", "").replace("Input data was truncated", "the line is cut short")


def iter_lines(source: str | Path | BinaryIO) -> Iterator[tuple[int, bytes]]:
    """Numbered non-blank lines of a file path or binary stream, read one at a time."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as stream:
            yield from iter_lines(stream)
        return
    for number, raw in enumerate(source, start=1):
        if number == 1:
            raw = strip_bom(raw)  # only a file's first bytes may be a byte-order mark
        if raw.strip():
            yield number, raw


def lines_at(source: str | Path | BinaryIO, wanted: set[int]) -> dict[int, bytes]:
    """The raw lines with the given numbers (as ``iter_lines`` numbers them), read up to the last of them."""
    found: dict[int, bytes] = {}
    last = max(wanted, default=0)
    for number, raw in iter_lines(source):
        if number > last:
            break
        if number in wanted:
            found[number] = raw
    return found


def read_log(source: str | Path | BinaryIO) -> Iterator[LogItem]:
    """Yield a ``LogItem`` for every non-blank line of a log; a bad line never stops the reading."""
    validator = LogValidator()
    for number, raw in iter_lines(source):
        yield check_line(validator, raw, number)


def check_line(validator: LogValidator, raw: bytes, line: int) -> LogItem:
    try:
        record = decode_line(raw, line)
    except LogError as exc:
        validator.note_unreadable_line(hand_number_of(raw))
        return LogItem(line, None, (exc,))
    errors = validator.check(record, line)
    return LogItem(line, None if errors else record, tuple(errors))


def hand_number_of(raw: bytes) -> int | None:
    # A line that fails to decode may still tell which hand it was, so the next line's numbering is judged fairly.
    match = _HAND_NUMBER.search(raw[:4096])
    return int(match.group(1)) if match and len(match.group(1)) <= 15 else None


def records(source: str | Path | BinaryIO) -> Iterator[Record]:
    """The valid records only; raise the first ``LogError`` met (for consumers that need a clean log)."""
    for item in read_log(source):
        if item.errors:
            raise item.errors[0]
        if item.record is not None:  # a line without errors holds its record
            yield item.record


@dataclass(frozen=True)
class HeaderLine:
    """A log's table header: its line number, the bytes read up to and including it, its raw line, its record."""

    line: int
    offset: int
    raw: bytes
    record: TableRecord


def first_header(stream: BinaryIO) -> HeaderLine:
    """The first non-blank line, which must be a valid table header; ``LogError`` says why it is not."""
    line = offset = 0
    for raw in stream:
        line += 1
        offset += len(raw)
        if line == 1:
            raw = strip_bom(raw)  # only a file's first bytes may be a byte-order mark
        if not raw.strip():
            continue
        item = check_line(LogValidator(), raw, line)
        if item.errors:
            raise LogError(f"no usable table header: {item.errors[0]}")
        if not isinstance(item.record, TableRecord):
            raise LogError(f"line {line}: the log must start with a table header, not a {type(item.record).__name__}")
        return HeaderLine(line, offset, raw, item.record)
    raise LogError("the log is empty")
