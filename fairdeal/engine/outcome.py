"""What a finished hand hands to the scoring sheet: the contract between the state machine and scoring.

Seats are absolute table seats ``0..num_seats-1`` (clockwise); the dealer rotates over them. Only the
seats in ``active`` take part in the hand (in a 4-player game the dealer sits out).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from fairdeal.cards import Suit


class HandKind(enum.Enum):
    GAME = "game"  # a trump or no-trump contract
    MISERE = "misere"  # the declarer must take no trick
    RASPASY = "raspasy"  # all passed: fewest tricks wins (распасы)
    REDEAL = "redeal"  # all passed where there are no raspasy (Hussar): the next dealer deals again


class DefenceCall(enum.Enum):
    PASS = "pass"
    WHIST = "whist"
    HALF_WHIST = "half-whist"  # «пол виста»: half the quota's whists without playing (Mail.Ru, Sochi)
    WHIST_TALON = "whist-talon"  # Hussar: whist «с приглашением своей прикупки» — the whister takes his talon


@dataclass(frozen=True)
class Contract:
    """A contract: ``level`` 6..10 with ``trump`` (``None`` = no trump), or a misère (``level`` is ``None``)."""

    level: int | None
    trump: Suit | None
    misere: bool = False
    no_talon: bool = False  # «без прикупа» (9БП, 10БП, misère without the talon)
    open: bool = False  # Austrian Plauderer / Offener Durchmarsch: the declarer plays face up

    def __post_init__(self) -> None:
        if self.misere != (self.level is None):
            raise ValueError("a misère has no level and every other contract has one")
        if self.level is not None and not 6 <= self.level <= 10:
            raise ValueError(f"contract level must be 6..10, got {self.level}")


@dataclass(frozen=True)
class HandOutcome:
    """Everything scoring needs about one finished hand, and nothing about the cards."""

    num_seats: int
    dealer: int
    active: tuple[int, ...]  # seats that were dealt a hand, from first hand clockwise
    kind: HandKind
    tricks: tuple[int, ...]  # tricks per absolute seat (0 for a seat that sat out)
    declarer: int | None = None
    contract: Contract | None = None
    defence: tuple[tuple[int, DefenceCall], ...] = ()  # (seat, call) in the order the calls were made
    whister_invited: bool = False  # the lone whister played the passer's cards too (open / invitation)
    conceded_undertricks: int | None = None  # «без трёх» and other concessions: no play, this many down
    played: bool = True  # False when the defence let the contract go unplayed
    raspasy_talon_tricks: int = 0  # 4 players: tricks won by the talon cards, written to the dealer
    extras: tuple[tuple[str, object], ...] = field(default=())  # system-specific facts (bombs, dark, kontra)

    def call_of(self, seat: int) -> DefenceCall | None:
        return dict(self.defence).get(seat)

    @property
    def defenders(self) -> tuple[int, ...]:
        return tuple(s for s in self.active if s != self.declarer)
