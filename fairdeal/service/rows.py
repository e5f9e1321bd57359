"""The rows a served table is made of — its chairs, the messages it accepted, the documents they closed — and
the stages a table goes through."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from enum import Enum
from typing import Any

SESSION = "pulya"
SERVICE_SEAT = -1  # the seat column of the service's own events (the roster's time, timeouts)
RELAY_SEAT = -2  # the seat column of the service's signed envelopes (recomputed on replay, kept as evidence)
# The kinds of row: a seat's signed envelope, its roster signature, a game action; the service's own events.
SIGNED, ROSTER_SIGN, ACT = "signed", "roster-sign", "act"
ROSTER_TIME, TIMEOUT, RELAYED = "roster-time", "timeout", "service"


class Stage(Enum):
    SEATING = "seating"  # chairs still empty
    ROSTER = "roster"  # the roster awaits every seat's signature
    ACCEPT = "accept"  # the session opening awaits every seat's acceptance
    COMMIT = "commit"  # seed commitments for the hand
    SEED = "seed"  # seed openings for the hand
    PLAY = "play"  # the engine's hand
    RECORD = "record"  # the hand-close awaits every seat's countersignature
    SETTLE = "settle"  # the settlement awaits every seat's countersignature
    FINISHED = "finished"  # the pulya closed (or reached the table's hand cap), the settlement signed
    ENDED = "ended"  # a seat's fault ended the evening (v4's end policy), the settlement signed
    ABORTED = "aborted"

    @property
    def over(self) -> bool:
        return self in (Stage.FINISHED, Stage.ENDED, Stage.ABORTED)


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    key: str  # ed25519 public identity key, hex
    bot_secret: str | None = None  # a server-side bot's identity-key seed; None for a person

    @property
    def is_bot(self) -> bool:
        return self.bot_secret is not None


@dataclass(frozen=True)
class Message:
    """An accepted (or proposed) row: a seat's (or the service's, seat -1) message, less the table."""

    seat: int
    seq: int
    type: str
    body: dict[str, Any]
    signature: str | None = None


@dataclass(frozen=True)
class Derived:
    """Rows a message produced besides itself (a closed hand, or the signed settlement as hand 0)."""

    hand: int
    transcript: dict[str, Any]
    sha256: str
    line: dict[str, Any] | None
    sheet: dict[str, Any]


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
