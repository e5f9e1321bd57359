"""Conventions as data: the named conventions (Russian, Classic, Hussar, Gusarik, Croatian, Austrian, 19th century).
The one list of systems, and the lookup by name, is the registry (``fairdeal.systems``)."""

from __future__ import annotations

from fairdeal.errors import ConventionError
from fairdeal.rules.central import (
    AUSTRIAN,
    AUSTRIAN_ILLUSTRATED,
    AUSTRIAN_LIMITED,
    AUSTRIAN_NACHGEHEN,
    AUSTRIAN_SANS_ATOUT,
    AUSTRIAN_STYRIAN,
    AUSTRIAN_UNLIMITED,
    CROATIAN,
)
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
from fairdeal.rules.nineteenth import (
    PREFERANS_1800S,
    PREFERANS_1800S_KADILI,
    PREFERANS_1800S_MIXED,
    PREFERANS_1800S_MIXED_FULL,
    PREFERANS_1800S_MIXED_FULL_KADILI,
    PREFERANS_1800S_TALON,
)
from fairdeal.rules.overrides import parse_rule, with_overrides
from fairdeal.rules.russian import CODEX, LENINGRAD, MAILRU, ROSTOV, SOCHI
from fairdeal.rules.systems import CLASSIC, GUSARIK_LENINGRAD, GUSARIK_ROSTOV, GUSARIK_SOCHI, HUSSAR

__all__ = [
    "AUSTRIAN",
    "AUSTRIAN_ILLUSTRATED",
    "AUSTRIAN_LIMITED",
    "AUSTRIAN_NACHGEHEN",
    "AUSTRIAN_SANS_ATOUT",
    "AUSTRIAN_STYRIAN",
    "AUSTRIAN_UNLIMITED",
    "CLASSIC",
    "CODEX",
    "CROATIAN",
    "GUSARIK_LENINGRAD",
    "GUSARIK_ROSTOV",
    "GUSARIK_SOCHI",
    "HUSSAR",
    "LENINGRAD",
    "MAILRU",
    "PREFERANS_1800S",
    "PREFERANS_1800S_KADILI",
    "PREFERANS_1800S_MIXED",
    "PREFERANS_1800S_MIXED_FULL",
    "PREFERANS_1800S_MIXED_FULL_KADILI",
    "PREFERANS_1800S_TALON",
    "ROSTOV",
    "SOCHI",
    "BiddingRules",
    "Convention",
    "ConventionError",
    "DefenceRules",
    "PlayRules",
    "PulyaRules",
    "RaspasyRules",
    "ScoringRules",
    "TableRules",
    "parse_rule",
    "with_overrides",
]
