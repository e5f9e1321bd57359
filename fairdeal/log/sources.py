"""Where game logs come from: files, directories, globs, standard input, gzip and zstd — one ``LogSource`` each.

Compression is recognised by its magic bytes, not by the file name, so a rotated ``evening.log.1`` that is gzip
inside still reads. A plain file keeps its path (the auditor's block workers seek in it); anything else is a
stream, and ``plain_copy`` spools it to a temporary plain file for the passes that need random access.
"""

from __future__ import annotations

import glob
import gzip
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from fairdeal.errors import LogError

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# Files a directory contributes: logs and their compressed forms; transcripts and reports are left alone.
LOG_SUFFIXES = (".jsonl", ".log")
COMPRESSED_SUFFIXES = (".gz", ".zst")
STORE_MARK = "fairdeal-store.json"
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class LogSource:
    """One input: ``name`` is what messages call it; ``path`` is None only for standard input (whose compression
    is read from its first bytes when it is opened)."""

    name: str
    path: Path | None
    compression: str | None = None  # "gzip", "zstd" or None

    @property
    def seekable(self) -> bool:
        """A plain file on disk: block workers may read it by offset."""
        return self.path is not None and self.compression is None

    def open(self) -> BinaryIO:
        """The decompressed bytes as a binary stream (the caller closes it)."""
        raw = _stdin() if self.path is None else open(self.path, "rb")  # noqa: SIM115 - returned open to the caller
        compression = compression_of(raw.peek(4)[:4]) if self.path is None else self.compression
        if compression == "gzip":
            # typeshed types GzipFile as a BufferedIOBase, not a BinaryIO, though it has all BinaryIO's methods.
            return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
        if compression == "zstd":
            return _zstd_reader(raw)
        return raw


def _zstd_reader(raw: BinaryIO) -> BinaryIO:
    import zstandard

    return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True))


def compression_of(head: bytes) -> str | None:
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    return None


def _file_source(path: Path) -> LogSource:
    with open(path, "rb") as stream:
        head = stream.read(4)
    return LogSource(str(path), path, compression_of(head))


def _stdin() -> io.BufferedReader:
    """Standard input as a stream that can peek (at its magic bytes) without consuming them."""
    stream = sys.stdin.buffer
    if isinstance(stream, io.BufferedReader):
        return stream
    assert isinstance(stream, io.BufferedIOBase | io.RawIOBase)
    return io.BufferedReader(stream)


def is_log_name(name: str) -> bool:
    base = name
    for suffix in COMPRESSED_SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return base.endswith(LOG_SUFFIXES)


def is_store(path: Path) -> bool:
    return path.is_dir() and (path / STORE_MARK).is_file()


def _directory(path: Path) -> list[Path]:
    found = [
        p
        for p in sorted(path.rglob("*"))
        if p.is_file() and is_log_name(p.name) and not any(part.startswith(".") for part in p.relative_to(path).parts)
    ]
    if not found:
        raise LogError(f"{path}: the directory holds no log (*.jsonl, *.log, optionally .gz or .zst)")
    return found


def expand(arguments: Iterable[str]) -> list[LogSource]:
    """Every source the arguments name, in order: ``-`` is standard input (once), a directory its logs (sorted,
    recursively), a pattern with ``* ? [`` its matches (sorted). A name that matches nothing is an error."""
    sources: list[LogSource] = []
    stdin_used = False
    for argument in arguments:
        if argument == STDIN:
            if stdin_used:
                raise LogError("standard input ('-') can be read only once")
            stdin_used = True
            sources.append(LogSource("<stdin>", None))
            continue
        for path in _paths(argument):
            sources.append(_file_source(path))
    if not sources:
        raise LogError("no input: name a file, a directory, a pattern or '-' for standard input")
    return sources


def _paths(argument: str) -> Iterator[Path]:
    path = Path(argument)
    if path.is_dir():
        yield from _directory(path)
    elif path.is_file():
        yield path
    elif _GLOB_CHARS & set(argument):
        matches = sorted(Path(p) for p in glob.glob(argument, recursive=True))
        files = [p for m in matches for p in (_directory(m) if m.is_dir() else [m])]
        if not files:
            raise LogError(f"{argument}: no file matches the pattern")
        yield from files
    else:
        raise LogError(f"no game log at {argument}: no such file or directory")


def plain_copy(source: LogSource, folder: Path) -> Path:
    """A plain file with the source's bytes: the file itself when it is one, else a copy spooled into ``folder``."""
    if source.seekable and source.path is not None:
        return source.path
    handle, name = tempfile.mkstemp(suffix=".jsonl", dir=folder)
    with source.open() as stream, os.fdopen(handle, "wb") as out:
        try:
            shutil.copyfileobj(stream, out, 1 << 20)
        except _decompress_errors() as exc:
            raise LogError(f"{source.name}: cannot decompress: {exc}") from None
    return Path(name)


def _decompress_errors() -> tuple[type[BaseException], ...]:
    try:
        import zstandard
    except ImportError:
        return OSError, EOFError
    return OSError, EOFError, zstandard.ZstdError
