"""A system's mechanics, the plug-in half of a ``System``: the auction it bids by and the table of the phases its
hands pass through, each phase with its legal actions and its handlers, and the typed state those phases keep.

The one state machine (``fairdeal.engine.hand``) asks the state's mechanics for everything that differs between
families: ``legal_actions`` asks the phase's rule, ``apply`` the phase's handler for the action's type, and the
auction and contract phases the system's ``Auction``. A phase a system does not list is not part of its game (an
action for it is refused like any action out of phase). A new mechanic is a new ``PhaseRule`` (and, if it needs a
phase of its own, a ``Phase`` member) in the system's module, added to a copy of its family's table with
``Mechanics.with_phases``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fairdeal.engine.actions import Action, Phase
from fairdeal.engine.bids import ContractBid
from fairdeal.engine.extra import NO_FAMILY_STATE, FamilyState
from fairdeal.engine.state import HandState

Handler = Callable[[HandState, Any], HandState]


@dataclass(frozen=True)
class Auction:
    """How a family bids: the tokens open to the seat to bid, a bid's effect, and the contracts the declarer may
    then name (``check_contract`` raises ``IllegalAction`` naming the rule a contract breaks)."""

    name: str
    legal_tokens: Callable[[HandState], list[str]]
    apply_bid: Callable[[HandState, str], HandState]
    legal_contracts: Callable[[HandState], list[ContractBid]]
    check_contract: Callable[[HandState, ContractBid, object], None]


@dataclass(frozen=True)
class PhaseRule:
    """One phase: the actions open in it and, per action type, the handler that applies one."""

    legal: Callable[[HandState], Sequence[Action]]
    handlers: Mapping[type, Handler]


@dataclass(frozen=True, eq=False)  # identity: one value per family, compared and hashed as such
class Mechanics:
    """A family's auction, its phase table (``Phase.DONE`` has no rule: nothing is legal once a hand is over) and
    the state its phases keep, as a hand starts (``fairdeal.engine.extra``)."""

    name: str
    auction: Auction
    phases: Mapping[Phase, PhaseRule] = field(repr=False)
    extra: FamilyState = NO_FAMILY_STATE

    def __post_init__(self) -> None:
        object.__setattr__(self, "phases", MappingProxyType(dict(self.phases)))

    def with_phases(self, name: str, phases: Mapping[Phase, PhaseRule]) -> Mechanics:
        """These mechanics with ``phases`` added or replaced (a system's mechanic of its own)."""
        return Mechanics(name, self.auction, {**self.phases, **phases}, self.extra)

    def with_auction(self, name: str, auction: Auction) -> Mechanics:
        return Mechanics(name, auction, self.phases, self.extra)
