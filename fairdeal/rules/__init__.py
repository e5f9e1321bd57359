"""Conventions as data: the named conventions (Russian, Classic, Hussar, Gusarik, Croatian, Austrian, 19th century)
and the lookup by name."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

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
from fairdeal.rules.overrides import overrides_of, parse_rule, with_overrides
from fairdeal.rules.nineteenth import (
    PREFERANS_1800S, PREFERANS_1800S_KADILI, PREFERANS_1800S_MIXED, PREFERANS_1800S_MIXED_FULL,
    PREFERANS_1800S_MIXED_FULL_KADILI, PREFERANS_1800S_TALON,
)
from fairdeal.rules.russian import LENINGRAD, MAILRU, ROSTOV, SOCHI
from fairdeal.rules.systems import CLASSIC, GUSARIK_LENINGRAD, GUSARIK_ROSTOV, GUSARIK_SOCHI, HUSSAR

ALL = (SOCHI, LENINGRAD, ROSTOV, MAILRU, CLASSIC, HUSSAR, GUSARIK_SOCHI, GUSARIK_LENINGRAD, GUSARIK_ROSTOV,
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


def house_rules(convention: Convention) -> dict[str, object]:
    """What ``convention`` changes of its registered system, as the log header's ``convention`` overrides."""
    return overrides_of(convention, get_convention(convention.name))


def rebuild_convention(system: str, overrides: Mapping[str, object] | None = None,
                       pulya: int | None = None) -> Convention:
    """The convention a log header or a table statement names: the system, its overrides, the agreed pulya."""
    convention = with_overrides(get_convention(system), overrides or {})
    if pulya is not None and pulya != convention.pulya.size:
        convention = replace(convention, pulya=replace(convention.pulya, size=pulya))
    return convention


__all__ = [
    "ALL", "AUSTRIAN", "AUSTRIAN_ILLUSTRATED", "AUSTRIAN_LIMITED", "AUSTRIAN_NACHGEHEN", "AUSTRIAN_SANS_ATOUT",
    "AUSTRIAN_STYRIAN", "AUSTRIAN_UNLIMITED", "BiddingRules", "CLASSIC", "CONVENTIONS", "CROATIAN", "Convention",
    "ConventionError", "DefenceRules", "GUSARIK_LENINGRAD", "GUSARIK_ROSTOV", "GUSARIK_SOCHI", "HUSSAR", "LENINGRAD",
    "MAILRU", "PREFERANS_1800S", "PREFERANS_1800S_KADILI", "PREFERANS_1800S_MIXED",
    "PREFERANS_1800S_MIXED_FULL", "PREFERANS_1800S_MIXED_FULL_KADILI", "PREFERANS_1800S_TALON",
    "PlayRules", "PulyaRules", "ROSTOV", "RaspasyRules", "SOCHI", "ScoringRules", "TableRules", "get_convention", "house_rules",
    "parse_rule", "rebuild_convention", "with_overrides",
]
