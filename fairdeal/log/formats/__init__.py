"""Other notations to and from the game log: PPN (``ppn``), the deals-only CSV/JSON form (``deals``).

An importer reads a whole file into game-log records and a list of ``Problem``s: a record that cannot be mapped
is reported with its source line and field and left out, never dropped silently. Every record it keeps has
passed ``LogValidator``, the same checks as ``fairdeal log validate``.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fairdeal.errors import LogError
from fairdeal.log.records import Record
from fairdeal.log.validate import LogValidator
from fairdeal.log.writer import LogWriter


@dataclass(frozen=True)
class Problem:
    """A source record that could not be mapped: where (line, field) and why."""

    line: int
    field: str
    message: str

    def show(self, name: str) -> str:
        return f"{name}:{self.line}: {self.field or '$'}: {self.message}"


@dataclass
class Imported:
    """What an importer made: the records in log order, and every problem met."""

    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    validator: LogValidator = field(default_factory=LogValidator)

    def keep(
        self,
        record: Record,
        line: int,
        rename: Callable[[str], str] = lambda path: path,
        locate: Callable[[str], tuple[int, str]] | None = None,
    ) -> bool:
        """Keep ``record`` when the log validator accepts it; else report its errors at the source ``line``
        (``rename`` turns a game-log field path into the source's own name for it; ``locate``, when given,
        turns it into the source's ``(line, name)``)."""
        errors = self.validator.check(record, line)
        if errors:
            where = locate or (lambda path: (line, rename(path)))
            self.problems += [Problem(*where(e.field or "$"), _bare(e)) for e in errors]
            return False
        self.records.append(record)
        return True

    def fail(self, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(line, field, message))


def _bare(error: LogError) -> str:
    text = str(error)
    head = ", ".join(
        p
        for p in (f"line {error.line}" if error.line is not None else "", f"field {error.field}" if error.field else "")
        if p
    )
    return text[len(head) + 2 :] if head and text.startswith(head + ": ") else text


def log_bytes(records: list[Record]) -> bytes:
    stream = io.BytesIO()
    LogWriter(stream).write_all(records)
    return stream.getvalue()


def read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LogError(f"{path}: not UTF-8 text (bad byte at {exc.start})") from None
