"""A rule system as one registered value: its convention (the data) and the mechanics the engine plugs in for it.

A ``System`` bundles what every pillar asks of a system: the convention (bidding, defence, scoring, pulya, table,
play), its deal pattern and deck, its mechanics (the auction and the table of phases with their handlers that the
one state machine plays its hands by, ``fairdeal.engine.mechanics``), how a finished hand is written on the sheet,
the bots' policy and the words its log uses. A new system is a convention value registered as a ``System``; a
system with a mechanic of its own gives it its own ``Mechanics`` (a phase rule added or replaced) or subclasses
``System`` and overrides the hook that mechanic changes (``score_hand``, ``make_bot``) — see
``fairdeal/systems/slovenian.py``.

The registry (``register``/``get_system``/``registered``) is the one list of systems: the CLI, the log validator,
the docs generator, the protocols and the auditor ask it. Family modules in ``fairdeal.systems`` fill it on first
use. A house rule is the same system with another convention value (``system_of``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from fairdeal.cards import DeckKind
from fairdeal.deal import DealPattern, get_pattern
from fairdeal.engine.bots import Bot, HeuristicBot, RandomBot
from fairdeal.engine.mechanics import Mechanics
from fairdeal.engine.outcome import HandOutcome
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import ScoreLine, Sheet
from fairdeal.errors import ConventionError, one_line
from fairdeal.rules.convention import Convention
from fairdeal.rules.overrides import overrides_of, with_overrides

if TYPE_CHECKING:
    import numpy as np

# Every module of this package registers its systems when first asked; a new system is a new module there.
FAMILY_PACKAGE = "fairdeal.systems"
FAMILY_ORDER = ("russian", "central", "nineteenth")  # the order `fairdeal systems` lists them; others follow
# heuristic = easy (the table advice of seed 000); medium and hard sample layouts and solve them double-dummy.
BOT_KINDS = ("heuristic", "random", "easy", "medium", "hard")
SAMPLING_LEVELS = ("medium", "hard")


@dataclass(frozen=True)
class Vocabulary:
    """The words a system's log uses: bid tokens and contract tokens (the JSON Schema allows any ``[A-Za-z0-9-]+``)."""

    bids: re.Pattern[str]
    contracts: re.Pattern[str]

    def is_bid(self, token: str) -> bool:
        return self.bids.fullmatch(token) is not None

    def is_contract(self, token: str) -> bool:
        return self.contracts.fullmatch(token) is not None


@dataclass(frozen=True)
class System:
    """A registered system; ``family`` groups systems of one seed chapter for the docs and ``fairdeal systems``."""

    convention: Convention
    family: str
    vocabulary: Vocabulary
    mechanics: Mechanics  # the auction and the phase table its hands are played by

    @property
    def name(self) -> str:
        return self.convention.name

    @property
    def players(self) -> tuple[int, ...]:
        return self.convention.players

    @property
    def deck(self) -> DeckKind:
        return DeckKind.parse(self.convention.table.deck)

    def pattern(self, num_seats: int) -> DealPattern:
        """The deal pattern of a table of ``num_seats`` (the 19th-century game for two lays a third hand aside)."""
        return get_pattern(self.convention.table.pattern_name(num_seats))

    def score_hand(self, sheet: Sheet, outcome: HandOutcome) -> tuple[Sheet, tuple[ScoreLine, ...]]:
        """Write a finished hand on the sheet (the one scoring of ``fairdeal.engine.scoring`` unless overridden)."""
        return score_hand(sheet, outcome, self.convention)

    def make_bot(self, kind: str, seed: np.random.SeedSequence) -> Bot:
        """A bot of ``kind`` (``BOT_KINDS``) playing this system."""
        if kind == "random":
            import numpy as np

            return RandomBot(np.random.default_rng(seed))
        if kind in ("heuristic", "easy"):
            return HeuristicBot()
        if kind in SAMPLING_LEVELS:
            return self.sampling_bot(kind, int(seed.generate_state(1)[0]))
        raise ConventionError(f"unknown bot kind {kind!r}; known: {', '.join(BOT_KINDS)}")

    def sampling_bot(self, level: str, seed: int) -> Bot:
        """The double-dummy sampling bot (``fairdeal.solver``): the solver is a layer above the engine, so it is
        looked up when a table asks for it, as the family modules are."""
        bots = importlib.import_module("fairdeal.solver.bots")
        bot: Bot = bots.SamplingBot(level, seed=seed)
        return bot

    def with_convention(self, convention: Convention) -> System:
        """The same system played with another convention value (a house rule)."""
        if convention.name != self.name:
            raise ConventionError(f"convention {convention.name!r} is not a house rule of system {self.name!r}")
        return replace(self, convention=convention)

    def house_rules(self, convention: Convention) -> dict[str, Any]:
        """What ``convention`` changes of this system's registered one, in the log header's form."""
        return overrides_of(convention, self.convention)


_REGISTRY: dict[str, System] = {}
_loaded = False


def register(system: System) -> System:
    """Add ``system`` to the registry; a second system of the same name is refused."""
    if system.name in _REGISTRY and _REGISTRY[system.name] != system:
        raise ConventionError(f"a system named {system.name!r} is registered already")
    _REGISTRY[system.name] = system
    return system


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        package = importlib.import_module(FAMILY_PACKAGE)
        found = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
        for name in [*FAMILY_ORDER, *(n for n in found if n not in FAMILY_ORDER)]:
            importlib.import_module(f"{FAMILY_PACKAGE}.{name}")


def registered() -> tuple[System, ...]:
    """Every registered system, in the order the families register them."""
    _load()
    return tuple(_REGISTRY.values())


def get_system(name: str) -> System:
    """The named system (case-insensitive); ``ConventionError`` lists the known names."""
    _load()
    try:
        return _REGISTRY[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise ConventionError(f"unknown system {one_line(repr(name), 40)}; known systems: {known}") from None


def conventions() -> dict[str, Convention]:
    """Every registered system's convention by name."""
    return {system.name: system.convention for system in registered()}


def get_convention(name: str) -> Convention:
    """The registered convention of the named system."""
    return get_system(name).convention


def system_of(convention: Convention) -> System:
    """The system ``convention`` belongs to, playing that very convention (house rules included)."""
    system = get_system(convention.name)
    return system if system.convention == convention else system.with_convention(convention)


def house_rules(convention: Convention) -> dict[str, Any]:
    """What ``convention`` changes of its registered system, as the log header's ``convention`` overrides."""
    return get_system(convention.name).house_rules(convention)


def rebuild_convention(system: str, overrides: Mapping[str, Any] | None = None, pulya: int | None = None) -> Convention:
    """The convention a log header or a table statement names: the system, its overrides, the agreed pulya
    (each as read from a file: ``ConventionError`` names what is not of its type)."""
    if overrides is not None and not isinstance(overrides, Mapping):
        raise ConventionError("the house rules are not a JSON object", field="convention")
    if pulya is not None and (isinstance(pulya, bool) or not isinstance(pulya, int) or pulya < 1):
        raise ConventionError(f"{one_line(repr(pulya), 40)} is not a positive whole number", field="pulya")
    convention = with_overrides(get_convention(system), overrides or {})
    if pulya is not None and pulya != convention.pulya.size:
        convention = replace(convention, pulya=replace(convention.pulya, size=pulya))
    return convention
