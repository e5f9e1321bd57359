"""The typed records of game-log format v1 (msgspec Structs): one Struct per line type and per nested object.

A field that is not known is absent: ``UNSET`` in Python, left out of the JSON. ``null`` is never written and
never accepted. Unknown keys are rejected (system-specific facts go into ``extras``).
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET as UNSET  # re-exported: readers of the records test fields against it
from msgspec import UnsetType

FORMAT_NAME: Final = "fairdeal-log"
FORMAT_VERSION: Final = 1
# The header's ``dealing``: how the hands' cards were dealt.
Dealing = Literal["physical", "commit-reveal", "mental-poker", "server-rng"]

Card = str  # "AS", "10H": checked against the deck by the validator


# Each subclass repeats ``frozen=True``: msgspec inherits it, the type checkers do not.
class _Record(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, frozen=True, gc=False):
    """Records hold no cycles, so the garbage collector need not track them (a large speed-up on big logs)."""


class TableRecord(_Record, tag_field="type", tag="table", frozen=True):
    """The header line: who plays, what deck and pattern, how the cards were dealt."""

    format: Literal["fairdeal-log"]
    version: Literal[1]
    system: str
    players: list[str]
    deck: str
    deal_pattern: str
    dealing: Dealing
    convention: dict[str, Any] | UnsetType = UNSET
    pulya: int | float | UnsetType = UNSET
    started: str | UnsetType = UNSET
    notes: str | UnsetType = UNSET


class DealRecord(_Record, frozen=True):
    hands: list[list[Card]]  # per seat in seat order, [] for a seat that sat out; the dummy's hand last
    talons: list[list[Card]]


class BidRecord(_Record, frozen=True):
    seat: int
    bid: str


class ContractRecord(_Record, frozen=True):
    declarer: int
    bid: str


class DefenceRecord(_Record, frozen=True):
    seat: int
    call: str


class TrickRecord(_Record, frozen=True):
    lead: int
    cards: list[Card]
    winner: int
    talon_card: Card | UnsetType = UNSET


class ResultRecord(_Record, frozen=True):
    kind: Literal["game", "misere", "raspasy", "redeal"]
    tricks: list[int]


class ScoreRecord(_Record, frozen=True):
    seat: int
    column: Literal["pulya", "gora", "whists"]
    points: int | float
    on: int | UnsetType = UNSET


class TranscriptRecord(_Record, frozen=True):
    file: str
    sha256: str


class HandRecord(_Record, tag_field="type", tag="hand", frozen=True):
    """One hand; every field but ``hand`` and ``dealer`` is optional and absent when unknown."""

    hand: int
    dealer: int
    order_before: list[Card] | UnsetType = UNSET
    shuffle: str | UnsetType = UNSET
    deal: DealRecord | UnsetType = UNSET
    auction: list[BidRecord] | UnsetType = UNSET
    talon_shown: bool | UnsetType = UNSET
    discard: list[Card] | UnsetType = UNSET
    contract: ContractRecord | UnsetType = UNSET
    defence: list[DefenceRecord] | UnsetType = UNSET
    defence_open: bool | UnsetType = UNSET
    tricks: list[TrickRecord] | UnsetType = UNSET
    result: ResultRecord | UnsetType = UNSET
    score: list[ScoreRecord] | UnsetType = UNSET
    penalty: list[ScoreRecord] | UnsetType = UNSET
    transcript: TranscriptRecord | UnsetType = UNSET
    extras: dict[str, Any] | UnsetType = UNSET


class EndRecord(_Record, tag_field="type", tag="end", frozen=True):
    """The optional trailer: the final settlement per player name; ``penalty``, what a dealing protocol charged the
    party whose fault ended the evening, is on the sheet before it is settled."""

    penalty: list[ScoreRecord] | UnsetType = UNSET
    settlement: dict[str, int | float] | UnsetType = UNSET


Record = TableRecord | HandRecord | EndRecord
