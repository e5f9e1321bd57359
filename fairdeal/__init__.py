"""fairdeal: provably fair dealing, a full Preferans engine, and an auditor for card-game logs.

The documented entry points are attributes of this package (``fairdeal.play_match``, ``fairdeal.run_audit``...),
loaded on first use so that ``import fairdeal`` (and ``fairdeal --help``) stays fast. The API reference is
``docs/api.md``; each name below points at the module that defines it.

>>> import fairdeal
>>> fairdeal.get_convention("sochi").name
'sochi'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public name -> the module that defines it.
_API: dict[str, str] = {
    # systems
    "get_system": "fairdeal.systems",
    "registered": "fairdeal.systems",
    "get_convention": "fairdeal.systems",
    "conventions": "fairdeal.systems",
    "System": "fairdeal.systems",
    "Convention": "fairdeal.rules.convention",
    "with_overrides": "fairdeal.rules",
    # a hand
    "new_hand": "fairdeal.engine.hand",
    "legal_actions": "fairdeal.engine.hand",
    "apply": "fairdeal.engine.hand",
    "to_move": "fairdeal.engine.hand",
    "is_over": "fairdeal.engine.hand",
    "result": "fairdeal.engine.hand",
    "random_deal": "fairdeal.engine.driver",
    # a match
    "play_match": "fairdeal.engine.match",
    "seeded_source": "fairdeal.engine.match",
    "HeuristicBot": "fairdeal.engine.bots",
    "RandomBot": "fairdeal.engine.bots",
    # game logs
    "read_log": "fairdeal.log",
    "LogError": "fairdeal.errors",
    # dealing and verifying
    "CommitRevealSource": "fairdeal.protocols.deal_source",
    "MentalPokerSource": "fairdeal.protocols.mental_poker.source",
    "TableSpec": "fairdeal.protocols.table",
    "verify_paths": "fairdeal.protocols.verify",
    "verify_log": "fairdeal.protocols.verify",
    # solving
    "Position": "fairdeal.solver.dds",
    "declarer_tricks": "fairdeal.solver.dds",
    "raspasy_guarantees": "fairdeal.solver.dds",
    "solve_batch": "fairdeal.solver.dds",
    # auditing
    "run_audit": "fairdeal.audit.run",
    "RunOptions": "fairdeal.audit.run",
    # errors
    "FairdealError": "fairdeal.errors",
}

# A literal list, so linters and type checkers see the public names (the lazy loader below serves them).
__all__ = [
    "CommitRevealSource",
    "Convention",
    "FairdealError",
    "HeuristicBot",
    "LogError",
    "MentalPokerSource",
    "Position",
    "RandomBot",
    "RunOptions",
    "System",
    "TableSpec",
    "__version__",
    "apply",
    "conventions",
    "declarer_tricks",
    "get_convention",
    "get_system",
    "is_over",
    "legal_actions",
    "new_hand",
    "play_match",
    "random_deal",
    "raspasy_guarantees",
    "read_log",
    "registered",
    "result",
    "run_audit",
    "seeded_source",
    "solve_batch",
    "to_move",
    "verify_log",
    "verify_paths",
    "with_overrides",
]

if TYPE_CHECKING:
    from fairdeal.audit.run import RunOptions, run_audit
    from fairdeal.engine.bots import HeuristicBot, RandomBot
    from fairdeal.engine.driver import random_deal
    from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
    from fairdeal.engine.match import play_match, seeded_source
    from fairdeal.errors import FairdealError, LogError
    from fairdeal.log import read_log
    from fairdeal.protocols.deal_source import CommitRevealSource
    from fairdeal.protocols.mental_poker.source import MentalPokerSource
    from fairdeal.protocols.table import TableSpec
    from fairdeal.protocols.verify import verify_log, verify_paths
    from fairdeal.rules import with_overrides
    from fairdeal.rules.convention import Convention
    from fairdeal.solver.dds import Position, declarer_tricks, raspasy_guarantees, solve_batch
    from fairdeal.systems import System, conventions, get_convention, get_system, registered


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'fairdeal' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
