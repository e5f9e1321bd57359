"""The actions a hand is played with: small frozen values, one per kind of decision."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from fairdeal.cards import Card
from fairdeal.engine.outcome import DefenceCall


class Phase(enum.Enum):
    AUCTION = "auction"  # bids, «мои», passes
    TALON = "talon"  # Classic: the dark six's winner takes the talon or switches to misère
    DISCARD = "discard"  # the declarer has taken the (shown) talon and puts two cards away
    CONTRACT = "contract"  # the declarer names the contract (or concedes «без трёх»)
    DEFENCE = "defence"  # defenders say pass / whist / half-whist
    DEFENCE_DISCARD = "defence_discard"  # Hussar: the whister took his own talon and puts two cards away
    OPEN_CHOICE = "open_choice"  # the lone whister plays open («в светлую») or closed
    INVITE = "invite"  # Austrian/Croatian: the lone whister invites the passer or plays alone
    KONTRA = "kontra"  # the kontra chain: kontra, rekontra, subkontra, mortkontra, ...
    ANNOUNCE = "announce"  # Austrian: the declarer may announce he holds no ace, before the first lead
    FOLLOW = "follow"  # Austrian Nachgehen: a bidder takes the last discard and names a higher contract
    PLAY = "play"  # trick play (games, misère, raspasy)
    DONE = "done"

    # Members are singletons compared by identity, so identity is a valid hash; Enum's own hashes the name in
    # Python on every dict lookup of the phase (handler tables, memo keys).
    __hash__ = object.__hash__


@dataclass(frozen=True)
class Bid:
    seat: int
    token: str  # pass, mine, 6S..10NT, misere, with -bp for no-talon bids

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
    cards: tuple[int, ...]  # two after a talon; one after «малая бедность»'s exchange (19th century)

    def __str__(self) -> str:
        return f"seat {self.seat} discards {' '.join(Card.from_code(c).ascii for c in self.cards)}"


@dataclass(frozen=True)
class Declare:
    seat: int
    token: str  # the contract: 6S..10NT, misere, with -bp after a no-talon bid

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
class Invite:
    """The lone whister invites the passer (who plays his own cards, answering for nothing) or plays alone."""

    seat: int
    invite: bool

    def __str__(self) -> str:
        return f"seat {self.seat} {'invites the other defender' if self.invite else 'plays alone'}"


@dataclass(frozen=True)
class Kontra:
    """A call in the kontra chain: ``double`` raises it (kontra, rekontra, ...), otherwise the seat passes."""

    seat: int
    double: bool

    def __str__(self) -> str:
        return f"seat {self.seat} {'doubles' if self.double else 'does not double'}"


@dataclass(frozen=True)
class Follow:
    """Nachgehen («По стопам»): ``take`` the last discard (then discard and name a higher contract), or pass."""

    seat: int
    take: bool

    def __str__(self) -> str:
        return f"seat {self.seat} {'takes the discard' if self.take else 'lets the contract stand'}"


@dataclass(frozen=True)
class Announce:
    """Austrian «Премия за отсутствие тузов»: the declarer announces (or keeps quiet) that he holds no ace."""

    seat: int
    no_aces: bool

    def __str__(self) -> str:
        return f"seat {self.seat} {'announces no aces' if self.no_aces else 'keeps quiet about aces'}"


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


Action = (
    Bid | TakeTalon | Discard | Declare | Concede | Defend | ChooseOpen | Invite | Kontra | Announce | Follow | Play
)


def encode_action(action: Action) -> dict[str, Any]:
    """An action as a JSON object: its kind and fields (enums by value, card tuples as lists), as a served table
    and a signed decision carry it."""
    out: dict[str, Any] = {"kind": type(action).__name__.lower()}
    for name, value in vars(action).items():
        out[name] = value.value if isinstance(value, enum.Enum) else list(value) if isinstance(value, tuple) else value
    return out
