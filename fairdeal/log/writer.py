"""Streaming writer: one JSON line per record, checked by the same validator the reader uses."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

import msgspec

from fairdeal.log.records import Record
from fairdeal.log.validate import LogValidator

_ENCODER = msgspec.json.Encoder()


def encode_record(record: Record) -> bytes:
    """One record as a JSON line (with its newline); absent fields are left out."""
    return _ENCODER.encode(record) + b"\n"


class LogWriter:
    """Writes records to a binary stream; with ``validate`` a bad record raises ``LogError`` before it is written."""

    def __init__(self, stream: BinaryIO, validate: bool = True) -> None:
        self.stream = stream
        self.validator = LogValidator() if validate else None
        self.lines = 0

    def write(self, record: Record) -> None:
        self.lines += 1
        if self.validator is not None:
            errors = self.validator.check(record, self.lines)
            if errors:
                raise errors[0]
        self.stream.write(encode_record(record))

    def write_all(self, records: Iterable[Record]) -> None:
        for record in records:
            self.write(record)


def write_log(path: str | Path, records: Iterable[Record], validate: bool = True) -> int:
    """Write a whole log to ``path``; returns the number of lines written."""
    with open(path, "wb") as stream:
        writer = LogWriter(stream, validate)
        writer.write_all(records)
        return writer.lines
