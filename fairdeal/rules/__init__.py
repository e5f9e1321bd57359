"""Conventions as data: the named conventions (Russian, Classic, Hussar, Gusarik, Croatian, Austrian, 19th century)
and the lookup by name."""

from __future__ import annotations

from fairdeal.errors import ConventionError
from fairdeal.rules.convention import (
    BiddingRules,
    Convention,
    DefenceRules,
    PlayRules,
    PulyaRules,
    RaspasyRules,
    ScoringRules,
    TableRules,
)
from fairdeal.rules.central import (
    AUSTRIAN, AUSTRIAN_ILLUSTRATED, AUSTRIAN_LIMITED, AUSTRIAN_NACHGEHEN, AUSTRIAN_SANS_ATOUT, AUSTRIAN_STYRIAN,
    AUSTRIAN_UNLIMITED, CROATIAN,
)
from fairdeal.rules.nineteenth import (
    PREFERANS_1800S, PREFERANS_1800S_KADILI, PREFERANS_1800S_MIXED, PREFERANS_1800S_MIXED_FULL,
    PREFERANS_1800S_MIXED_FULL_KADILI, PREFERANS_1800S_TALON,
)
from fairdeal.rules.russian import CODEX, LENINGRAD, MAILRU, ROSTOV, SOCHI
from fairdeal.rules.systems import CLASSIC, GUSARIK_LENINGRAD, GUSARIK_ROSTOV, GUSARIK_SOCHI, HUSSAR

ALL = (SOCHI, LENINGRAD, ROSTOV, MAILRU, CODEX, CLASSIC, HUSSAR, GUSARIK_SOCHI, GUSARIK_LENINGRAD, GUSARIK_ROSTOV,
       CROATIAN, AUSTRIAN, AUSTRIAN_UNLIMITED, AUSTRIAN_LIMITED, AUSTRIAN_STYRIAN, AUSTRIAN_ILLUSTRATED,
       AUSTRIAN_SANS_ATOUT, AUSTRIAN_NACHGEHEN, PREFERANS_1800S, PREFERANS_1800S_KADILI, PREFERANS_1800S_TALON,
       PREFERANS_1800S_MIXED, PREFERANS_1800S_MIXED_FULL, PREFERANS_1800S_MIXED_FULL_KADILI)
CONVENTIONS: dict[str, Convention] = {c.name: c for c in ALL}


def get_convention(name: str) -> Convention:
    """The named convention (case-insensitive); raises ``ConventionError`` listing the known names."""
    try:
        return CONVENTIONS[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(CONVENTIONS))
        raise ConventionError(f"unknown convention {name!r}; known conventions: {known}") from None


__all__ = [
    "ALL", "AUSTRIAN", "AUSTRIAN_ILLUSTRATED", "AUSTRIAN_LIMITED", "AUSTRIAN_NACHGEHEN", "AUSTRIAN_SANS_ATOUT",
    "AUSTRIAN_STYRIAN", "AUSTRIAN_UNLIMITED", "BiddingRules", "CLASSIC", "CODEX", "CONVENTIONS", "CROATIAN",
    "Convention", "ConventionError", "DefenceRules", "GUSARIK_LENINGRAD", "GUSARIK_ROSTOV", "GUSARIK_SOCHI", "HUSSAR", "LENINGRAD",
    "MAILRU", "PREFERANS_1800S", "PREFERANS_1800S_KADILI", "PREFERANS_1800S_MIXED",
    "PREFERANS_1800S_MIXED_FULL", "PREFERANS_1800S_MIXED_FULL_KADILI", "PREFERANS_1800S_TALON",
    "PlayRules", "PulyaRules", "ROSTOV", "RaspasyRules", "SOCHI", "ScoringRules", "TableRules", "get_convention",
]
