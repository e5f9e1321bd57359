"""What a dealing session is about, shared by both protocols: the table, the session, its length, who sits where,
and the convention played. Every table fact — deck, deal pattern, players per hand, dummy, talons — is read from
the convention, never stored beside it; statements and transcripts carry the system's name, its house rules
(``group.field`` overrides, as in the game-log header) and the agreed pulya, and readers rebuild the convention.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fairdeal.cards import DeckKind
from fairdeal.deal import DealPattern, get_pattern
from fairdeal.errors import ConventionError, ProtocolError
from fairdeal.protocols.derive import MAX_SESSION_HANDS
from fairdeal.rules.convention import Convention
from fairdeal.systems import house_rules, rebuild_convention

# Table facts earlier statements stated on their own; a reader checks them against the convention.
STATED_FACTS = ("deck", "deal_pattern")


@dataclass(frozen=True)
class TableSpec:
    """The table, the session name, its length, the players by seat and the convention they play."""

    table: str
    session: str
    hands: int
    players: tuple[str, ...]
    convention: Convention

    def __post_init__(self) -> None:
        if not 1 <= self.hands <= MAX_SESSION_HANDS:
            raise ProtocolError(f"a session holds 1..{MAX_SESSION_HANDS} hands, got {self.hands}")
        if len(set(self.players)) != len(self.players) or not self.players or not all(self.players):
            raise ProtocolError(f"player names must be distinct and non-empty: {list(self.players)}")
        try:
            self.convention.check_players(len(self.players))
        except ConventionError as exc:
            raise ProtocolError(str(exc)) from None

    @property
    def system(self) -> str:
        return self.convention.name

    @property
    def deck(self) -> DeckKind:
        return DeckKind.parse(self.convention.table.deck)

    @property
    def pattern(self) -> DealPattern:
        return get_pattern(self.convention.table.pattern_name(len(self.players)))

    def convention_fields(self) -> dict[str, Any]:
        """The statement's account of the game: system, house rules, pulya, and the facts they imply."""
        table = self.convention.table
        return {
            "system": self.system,
            "convention": house_rules(self.convention),
            "pulya": self.convention.pulya.size,
            "deck": table.deck,
            "deal_pattern": table.pattern_name(len(self.players)),
        }


def stated_convention(statement: Mapping[str, Any]) -> Convention:
    """The convention a session statement (or mental-poker transcript) names; raises ``FairdealError`` with the
    reason when it names none, or states a deck or deal pattern that is not that convention's.

    Statements written before house rules travelled name only the system: its registered convention is meant."""
    system, overrides, pulya = statement.get("system"), statement.get("convention", {}), statement.get("pulya")
    if not isinstance(system, str) or not isinstance(overrides, Mapping):
        raise ProtocolError("the statement names no system, or its house rules are not an object")
    if pulya is not None and (not isinstance(pulya, int) or isinstance(pulya, bool) or pulya < 1):
        raise ProtocolError(f"the statement's pulya {pulya!r} is not a positive whole number")
    convention = rebuild_convention(system, overrides, pulya)
    seats = statement.get("players")
    implied = {
        "deck": convention.table.deck,
        "deal_pattern": convention.table.pattern_name(len(seats) if isinstance(seats, list) else 3),
    }
    for name in STATED_FACTS:
        value = implied[name]
        if name in statement and statement[name] != value:
            raise ProtocolError(
                f"the statement's {name} {statement[name]!r} is not {value!r}, the {name} of {convention.name}"
            )
    return convention


def states_house_rules(statement: Mapping[str, Any]) -> bool:
    """Whether the statement states the whole convention (house rules and pulya), not only the system."""
    return "pulya" in statement
