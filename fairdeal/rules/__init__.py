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
)
from fairdeal.rules.russian import LENINGRAD, MAILRU, ROSTOV, SOCHI

CONVENTIONS: dict[str, Convention] = {c.name: c for c in (SOCHI, LENINGRAD, ROSTOV, MAILRU)}


def get_convention(name: str) -> Convention:
    """The named convention (case-insensitive); raises ``ConventionError`` listing the known names."""
    try:
        return CONVENTIONS[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(CONVENTIONS))
        raise ConventionError(f"unknown convention {name!r}; known conventions: {known}") from None


__all__ = [
    "BiddingRules", "CONVENTIONS", "Convention", "ConventionError", "DefenceRules", "LENINGRAD", "MAILRU",
    "PulyaRules", "ROSTOV", "RaspasyRules", "SOCHI", "ScoringRules", "get_convention",
]
