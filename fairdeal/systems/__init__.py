"""The registered systems, one module per family of seed chapters; ``fairdeal.engine.system`` is the registry.

Import ``get_system``/``registered`` from here: the family modules register on first use.
"""

from fairdeal.engine.system import (
    BOT_KINDS,
    System,
    Vocabulary,
    conventions,
    get_convention,
    get_system,
    house_rules,
    rebuild_convention,
    register,
    registered,
    system_of,
)

__all__ = [
    "BOT_KINDS",
    "System",
    "Vocabulary",
    "conventions",
    "get_convention",
    "get_system",
    "house_rules",
    "rebuild_convention",
    "register",
    "registered",
    "system_of",
]
