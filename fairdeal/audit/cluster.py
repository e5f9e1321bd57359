"""The statistical pass on more than one machine: row-group tasks on ``dask.distributed`` workers, merged by a tree.

Each task audits one Parquet row group (``stored.audit_row_group``, 8k hands, well over 100 ms) and returns a
partial merge (``scan.Merged``) whose line numbers are already those of the table. Partials combine pairwise,
neighbour with neighbour, level by level; the in-process run uses the same tree (``tree_merge``), so sums of
floating-point terms are added in one order everywhere and every run gives the same verdict to the last bit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fairdeal.audit.battery import join
from fairdeal.audit.candidates import join_candidates
from fairdeal.audit.scan import Header, Merged, _ace_categories
from fairdeal.audit.summary import BlockSummary, Sums
from fairdeal.errors import AuditError

if TYPE_CHECKING:
    from distributed import Client

    from fairdeal.audit.fastpath import Layout
    from fairdeal.audit.stored import Runner, StoreTask


def empty_merge(header: Header, layout: Layout, keep: int, lines: int) -> Merged:
    seats = len(header.players)
    return Merged(
        header,
        layout,
        Sums.empty(seats, len(_ace_categories(layout)) - 1, layout.pattern.deck.size),
        lines,
        aces=[[] for _ in range(seats)],
        numbers=[[] for _ in range(seats)],
        keep=keep,
    )


def partial(header: Header, layout: Layout, keep: int, base: int, summary: BlockSummary) -> Merged:
    """One block's summary as a merge of its own, its lines numbered from ``base + 1``."""
    merged = empty_merge(header, layout, keep, base)
    merged.add(summary)
    return merged


def merge_pair(a: Merged, b: Merged) -> Merged:
    """``a`` followed by ``b`` (whose lines are already absolute): what adding b's blocks to a would give."""
    a.sums = a.sums.add(b.sums)
    a.hands += b.hands
    for dealer, (aces, numbers) in enumerate(zip(b.aces, b.numbers)):
        a.aces[dealer] += aces
        a.numbers[dealer] += numbers
    a.keys += b.keys
    a.key_hands += b.key_hands
    a.battery = join(a.battery, b.battery)
    for kind, count in b.finding_counts.items():
        a.finding_counts[kind] = a.finding_counts.get(kind, 0) + count
    for item in b.findings:
        kind = item[3].kind
        if a.kept.get(kind, 0) < a.keep:
            a.kept[kind] = a.kept.get(kind, 0) + 1
            a.findings.append(item)
    for name, tables in b.tables.items():
        a.tables.setdefault(name, []).extend(tables)
    a.candidates = join_candidates(a.candidates, b.candidates)
    a.malformed_count += b.malformed_count
    a.undealt += b.undealt
    a.malformed += b.malformed[: max(0, a.keep - len(a.malformed))]
    a.lines = b.lines
    return a


def tree_merge(parts: Sequence[Merged]) -> Merged:
    """Neighbours merged pairwise, level by level (an odd last part waits for the next level)."""
    level = list(parts)
    if not level:
        raise AuditError("nothing to merge")
    while len(level) > 1:
        level = [
            merge_pair(level[i], level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)
        ]
    return level[0]


@dataclass(frozen=True)
class ClusterSpec:
    """``local:N`` (a LocalCluster of N worker processes here) or ``tcp://HOST:PORT`` (a running scheduler)."""

    address: str | None
    workers: int = 0
    processes: bool = True

    @staticmethod
    def parse(text: str) -> ClusterSpec:
        if text.startswith("local:"):
            count = text[6:]
            if not (count.isascii() and count.isdigit()) or int(count) < 1:
                raise AuditError(f"--cluster {text!r}: local:N needs a worker count N >= 1")
            return ClusterSpec(None, int(count))
        if text.startswith("tcp://") and ":" in text[6:]:
            return ClusterSpec(text)
        raise AuditError(f"--cluster {text!r}: expected local:N or tcp://HOST:PORT")

    def client(self) -> Client:
        """A connected ``distributed.Client`` (close it, and its LocalCluster, when done)."""
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise AuditError("--cluster needs dask.distributed: pip install 'fairdeal[store]'") from None
        if self.address is not None:
            try:
                return Client(self.address, timeout=10)  # type: ignore[no-untyped-call]  # distributed: unannotated
            except OSError as exc:
                raise AuditError(f"cannot reach the dask scheduler at {self.address}: {exc}") from None
        cluster = LocalCluster(  # type: ignore[no-untyped-call]  # distributed: unannotated
            n_workers=self.workers, threads_per_worker=1, processes=self.processes, dashboard_address=None
        )
        return Client(cluster)  # type: ignore[no-untyped-call]  # distributed: unannotated


def dask_runner(client: Client) -> Runner:
    """A runner for ``stored.stored_input``: tasks to partial merges on the workers, then the tree, there too."""
    from fairdeal.audit.worker_plugin import TunedAllocator

    client.register_plugin(TunedAllocator(), name="fairdeal-allocator")  # every worker, now and joining later

    def run(tasks: Iterable[StoreTask], make_partial: Callable[[StoreTask], Merged]) -> Merged:
        level = client.map(make_partial, list(tasks), pure=False)
        if not level:
            raise AuditError("nothing to merge")
        while len(level) > 1:
            level = [
                client.submit(merge_pair, level[i], level[i + 1], pure=False) if i + 1 < len(level) else level[i]
                for i in range(0, len(level), 2)
            ]
        return level[0].result()

    return run
