"""What `fairdeal audit` audits: one unit per table, from files, directories, globs, stdin, .gz/.zst or a store.

A plain file is audited in place (block workers read it by offset); a stream or compressed file is spooled to a
temporary plain file first, because legality and the seed search read the log a second time; a store folder
(``fairdeal store``) gives one unit per table it holds, audited from its Parquet columns.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fairdeal.audit.run import AuditResult, RunOptions, run_audit
from fairdeal.audit.scan import Progress
from fairdeal.errors import LogError
from fairdeal.log.sources import STDIN, LogSource, expand, is_store, plain_copy

if TYPE_CHECKING:
    from fairdeal.audit.stored import Runner


@dataclass(frozen=True)
class AuditUnit:
    """One table to audit: a log source, or one table of a store."""

    name: str
    source: LogSource | None = None
    store: Path | None = None
    table: str | None = None

    @property
    def title(self) -> str:
        return Path(self.name).name if self.source is not None else self.name

    def run(self, options: RunOptions, progress: Progress | None = None, runner: Runner | None = None) -> AuditResult:
        """The audit; with a cluster ``runner`` a log that is not a store is stored in a temporary one first."""
        from fairdeal.audit.stored import run_stored_audit

        if self.store is not None:
            assert self.table is not None  # a store's unit names its table
            return run_stored_audit(self.store, self.table, options, progress, runner)
        if runner is not None:
            from fairdeal.log.store import Store

            with tempfile.TemporaryDirectory(prefix="fairdeal-cluster-") as folder:
                store = Store(Path(folder) / "store", create=True)
                table = store.append(self._readable(Path(folder))).table
                return run_stored_audit(store.root, table, options, progress, runner)
        assert self.source is not None  # a unit is a store table or a log source
        if self.source.seekable and self.source.path is not None:
            return run_audit(self.source.path, options, progress)
        with tempfile.TemporaryDirectory(prefix="fairdeal-input-") as folder:
            return run_audit(plain_copy(self.source, Path(folder)), options, progress)

    def _readable(self, folder: Path) -> LogSource:
        """The source, or a plain copy when it is standard input (a store reads its input twice)."""
        assert self.source is not None  # asked of log-source units only
        if self.source.path is not None:
            return self.source
        return LogSource(self.source.name, plain_copy(self.source, folder))


def audit_units(arguments: Iterable[str]) -> list[AuditUnit]:
    """The units the command-line arguments name, in order; a store folder counts as all its tables."""
    arguments = list(arguments)
    if arguments.count(STDIN) > 1:
        raise LogError("standard input ('-') can be read only once")
    units: list[AuditUnit] = []
    for argument in arguments:
        path = Path(argument)
        if is_store(path):
            from fairdeal.log.store import Store

            units += [AuditUnit(f"{path}#{table}", store=path, table=table) for table in Store(path).tables()]
        else:
            units += [AuditUnit(source.name, source=source) for source in expand([argument])]
    return units
