"""The dask worker plugin of ``audit --cluster`` (a module of its own: it needs ``distributed`` at import)."""

from __future__ import annotations

from distributed import WorkerPlugin

from fairdeal.audit.allocator import tune_allocator


class TunedAllocator(WorkerPlugin):
    """Runs ``tune_allocator`` on each worker as it joins the pool."""

    def setup(self, worker: object) -> None:
        tune_allocator()
