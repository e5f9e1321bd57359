"""Conventions as data: the named Russian conventions and the lookup by name."""

from __future__ import annotations

from fairdeal.errors import ConventionError
from fairdeal.rules.convention import (
    BiddingRules,
    Convention,
    DefenceRules,
    PulyaRules,
    RaspasyRules,
    ScoringRules,
    TableRules,
)
from fairdeal.rules.russian import LENINGRAD, MAILRU, ROSTOV, SOCHI
from fairdeal.rules.systems import CLASSIC, GUSARIK_LENINGRAD, GUSARIK_ROSTOV, GUSARIK_SOCHI, HUSSAR

ALL = (SOCHI, LENINGRAD, ROSTOV, MAILRU, CLASSIC, HUSSAR, GUSARIK_SOCHI, GUSARIK_LENINGRAD, GUSARIK_ROSTOV)
CONVENTIONS: dict[str, Convention] = {c.name: c for c in ALL}


def get_convention(name: str) -> Convention:
    """The named convention (case-insensitive); raises ``ConventionError`` listing the known names."""
    try:
        return CONVENTIONS[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(CONVENTIONS))
        raise ConventionError(f"unknown convention {name!r}; known conventions: {known}") from None


__all__ = [
    "ALL", "CLASSIC", "GUSARIK_LENINGRAD", "GUSARIK_ROSTOV", "GUSARIK_SOCHI", "HUSSAR", "TableRules",
    "BiddingRules", "CONVENTIONS", "Convention", "ConventionError", "DefenceRules", "LENINGRAD", "MAILRU",
    "PulyaRules", "ROSTOV", "RaspasyRules", "SOCHI", "ScoringRules", "get_convention",
]
