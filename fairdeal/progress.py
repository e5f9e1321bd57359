"""Progress of a long run told phase by phase: what the auditor reports and the command line draws as bars.

A leaf module (no imports of fairdeal), so a command can build its display without loading what it reports on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

Step = Callable[[int, int], None]  # (done, total); a total of 0: not known yet


class Phases(ABC):
    """A progress display that is told each phase: called as the first phase's step, and asked for the step
    function of each later phase as it starts."""

    @abstractmethod
    def __call__(self, done: int, total: int) -> None: ...

    @abstractmethod
    def phase(self, name: str) -> Step: ...
