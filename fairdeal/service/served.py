"""What every served table has, whatever it deals by: its chairs and who may take them, its stage, the roster,
the last row each seat sent, the summary anyone may see, and what the service relays to every socket."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from fairdeal.engine.match_log import table_record
from fairdeal.engine.system import System
from fairdeal.errors import ProtocolError
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.roster import Roster
from fairdeal.rules.convention import Convention
from fairdeal.service.roster_flow import Refused
from fairdeal.service.rows import Message, Seat, Stage


@dataclass
class ServedTable:
    protocol: ClassVar[str]  # what deals the hands: fairdeal-commit-reveal/4, fairdeal-mental-poker/4
    dealing: ClassVar[str]  # the game log's name for it (match_log.Dealing)

    id: str
    system: System
    num_seats: int
    max_hands: int
    service_key: IdentityKey
    seats: dict[int, Seat] = field(default_factory=dict)
    stage: Stage = Stage.SEATING
    reason: str | None = None
    last_seq: dict[int, int] = field(default_factory=dict)
    roster: Roster | None = None
    hand: int = 0
    outbox: list[Message] = field(default_factory=list)  # the service's own signed rows of the step just taken

    @property
    def convention(self) -> Convention:
        return self.system.convention

    @property
    def service_public(self) -> str:
        return self.service_key.public.hex

    def check_seat(self, seat: int, name: str, key: str) -> None:
        """Refuse a chair that is taken, a name or key already at the table, or a table that has begun."""
        if self.stage is not Stage.SEATING:
            raise Refused(f"table {self.id} has no empty chair")
        if not 0 <= seat < self.num_seats:
            raise Refused(f"seat {seat} is outside 0..{self.num_seats - 1}")
        if seat in self.seats:
            raise Refused(f"seat {seat} is taken by {self.seats[seat].name}")
        if any(s.name == name for s in self.seats.values()):
            raise Refused(f"the name {name!r} is already at table {self.id}")
        if any(s.key == key for s in self.seats.values()) or key == self.service_public:
            raise Refused(f"this key already holds a seat at table {self.id}")
        try:
            PublicKey.from_hex(key)
        except ProtocolError as exc:
            raise Refused(f"key: {exc}") from None

    def take_seat(self, seat: Seat) -> None:
        self.check_seat(seat.seat, seat.name, seat.key)
        self.seats[seat.seat] = seat

    def seat_of_key(self, key: str) -> int | None:
        return next((s.seat for s in self.seats.values() if s.key == key), None)

    def log_header(self) -> dict[str, Any]:
        """The game log's table line: the system, the players by seat, how the hands are dealt."""
        import msgspec

        names = [self.seats[s].name for s in range(self.num_seats)]
        header: dict[str, Any] = msgspec.to_builtins(table_record(self.convention, names, self.dealing))
        return header

    def next_seq(self, seat: int) -> int:
        return self.last_seq.get(seat, 0) + 1

    def summary(self) -> dict[str, Any]:
        """What anyone may know of the table: no card, no seed."""
        return {
            "table": self.id,
            "protocol": self.protocol,
            "dealing": self.dealing,
            "system": self.convention.name,
            "title": self.convention.title,
            "seats": self.num_seats,
            "max_hands": self.max_hands,
            "deck": self.convention.table.deck,
            "stage": self.stage.value,
            "over": self.stage.over,
            "reason": self.reason,
            "hand": self.hand,
            "service_key": self.service_public,
            "roster": [
                {"seat": s.seat, "name": s.name, "key": s.key, "bot": s.is_bot}
                for s in sorted(self.seats.values(), key=lambda s: s.seat)
            ],
        }
