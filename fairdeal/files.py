"""Writing the files a user names (``--out``): atomically, never over an existing file unless asked, one writer
at a time.

``OutputFile`` writes into a temporary file beside the target and renames it into place when done, so a reader
never sees half a file and a crash leaves the old file (or none). A lock file (``flock``, released by the kernel
if the process dies) keeps a second writer of the same target out. ``require_empty_folder`` guards an output
folder whose files belong together (a dealing session's transcripts).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from fairdeal.errors import OutputError


class OutputFile:
    """A file being written to ``path``: ``stream`` takes the bytes, ``commit`` puts them in place."""

    def __init__(self, path: str | Path, force: bool = False, durable: bool = True) -> None:
        self.path = Path(path)
        self.force = force
        self.durable = durable  # fsync before the rename: the new file survives a crash of the machine
        folder = self.path.parent
        if not folder.is_dir():
            raise OutputError(f"{self.path}: the folder {folder} does not exist")
        if self.path.is_dir():
            raise OutputError(f"{self.path}: is a folder, not a file")
        self._lock: int | None = _lock(self.path)
        try:
            if self.path.exists() and not force:
                raise OutputError(f"{self.path}: already exists (use --force to replace it)")
            handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".partial", dir=folder)
        except OSError as exc:
            _unlock(self._lock, self.path)
            raise OutputError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        except BaseException:
            _unlock(self._lock, self.path)
            raise
        self._temporary = Path(temporary)
        self.stream: BinaryIO = os.fdopen(handle, "wb")

    def commit(self) -> None:
        """Flush to disk and rename into place; the lock is released."""
        try:
            self.stream.flush()
            if self.durable:
                os.fsync(self.stream.fileno())
            self.stream.close()
            os.chmod(self._temporary, 0o666 & ~_umask())
            os.replace(self._temporary, self.path)
        finally:
            self._release()

    def abort(self) -> None:
        """Drop what was written; the target is left as it was. Nothing to do after ``commit``."""
        if self._lock is None:
            return
        self.stream.close()
        self._temporary.unlink(missing_ok=True)
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            _unlock(self._lock, self.path)
            self._lock = None

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()


def write_file(path: str | Path, data: bytes, force: bool = False, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (see ``OutputFile``)."""
    with OutputFile(path, force, durable) as out:
        out.stream.write(data)


def require_empty_folder(folder: str | Path) -> Path:
    """Create ``folder`` if needed; refuse one that holds anything (old files would mix with the new)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: is a file, not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise OutputError(f"{folder}: the folder is not empty (choose a new or empty one)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{folder}: cannot create the folder: {exc.strerror or exc}") from None
    return folder


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def _lock(path: Path) -> int:
    """An exclusive lock on ``path``'s lock file, or ``OutputError`` naming the other writer's target."""
    lock_path = _lock_path(path)
    try:
        descriptor = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o644)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise OutputError(f"{path}: another process is writing it") from None
    # The file may have been removed by a writer that just finished: then our lock guards nothing.
    if os.fstat(descriptor).st_ino != _inode(lock_path):
        os.close(descriptor)
        return _lock(path)
    return descriptor


def _unlock(descriptor: int, path: Path) -> None:
    _lock_path(path).unlink(missing_ok=True)
    os.close(descriptor)


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
