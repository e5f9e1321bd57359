"""What every served table has, whatever it deals by: its chairs, its stage, the roster, the last row each seat
sent, and the summary anyone may see."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fairdeal.engine.system import System
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.roster import Roster
from fairdeal.rules.convention import Convention
from fairdeal.service.rows import Seat, Stage


@dataclass
class ServedTable:
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

    @property
    def convention(self) -> Convention:
        return self.system.convention

    @property
    def service_public(self) -> str:
        return self.service_key.public.hex

    def next_seq(self, seat: int) -> int:
        return self.last_seq.get(seat, 0) + 1

    def summary_of(self, protocol: str) -> dict[str, Any]:
        """What anyone may know of the table: no card, no seed."""
        return {
            "table": self.id,
            "protocol": protocol,
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
