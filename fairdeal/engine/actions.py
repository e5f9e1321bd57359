"""The actions a hand is played with: small frozen values, one per kind of decision."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from fairdeal.cards import Card
from fairdeal.engine.outcome import DefenceCall


class Phase(enum.Enum):
    AUCTION = "auction"            # bids, «мои», passes
    TALON = "talon"                # Classic: the dark six's winner takes the talon or switches to misère
    DISCARD = "discard"            # the declarer has taken the (shown) talon and puts two cards away
    CONTRACT = "contract"          # the declarer names the contract (or concedes «без трёх»)
    DEFENCE = "defence"            # defenders say pass / whist / half-whist
    DEFENCE_DISCARD = "defence_discard"  # Hussar: the whister took his own talon and puts two cards away
    OPEN_CHOICE = "open_choice"    # the lone whister plays open («в светлую») or closed
    PLAY = "play"                  # trick play (games, misère, raspasy)
    DONE = "done"


@dataclass(frozen=True)
class Bid:
    seat: int
    token: str                     # pass, mine, 6S..10NT, misere, with -bp for no-talon bids

    def __str__(self) -> str:
        return f"seat {self.seat} bids {self.token}"


@dataclass(frozen=True)
class TakeTalon:
    """Classic: the winner of a dark six takes the talon unseen instead of switching to misère."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} takes the talon"


@dataclass(frozen=True)
class Discard:
    seat: int
    cards: tuple[int, int]

    def __str__(self) -> str:
        return f"seat {self.seat} discards {' '.join(Card.from_code(c).ascii for c in self.cards)}"


@dataclass(frozen=True)
class Declare:
    seat: int
    token: str                     # the contract: 6S..10NT, misere, with -bp after a no-talon bid

    def __str__(self) -> str:
        return f"seat {self.seat} declares {self.token}"


@dataclass(frozen=True)
class Concede:
    """«Без трёх»: the declarer gives up three down on his final bid without play (Mail.Ru, seed 002)."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} concedes three down"


@dataclass(frozen=True)
class Defend:
    seat: int
    call: DefenceCall

    def __str__(self) -> str:
        return f"seat {self.seat} says {self.call.value}"


@dataclass(frozen=True)
class ChooseOpen:
    seat: int
    open: bool

    def __str__(self) -> str:
        return f"seat {self.seat} plays {'open' if self.open else 'closed'}"


@dataclass(frozen=True)
class Play:
    """``seat`` is whose card it is; ``actor`` who plays it (the open lone whister plays the passer's cards)."""

    seat: int
    card: int
    actor: int | None = None

    @property
    def by(self) -> int:
        return self.seat if self.actor is None else self.actor

    def __str__(self) -> str:
        who = f"seat {self.seat}" if self.by == self.seat else f"seat {self.by} for seat {self.seat}"
        return f"{who} plays {Card.from_code(self.card).ascii}"


Action = Bid | TakeTalon | Discard | Declare | Concede | Defend | ChooseOpen | Play
