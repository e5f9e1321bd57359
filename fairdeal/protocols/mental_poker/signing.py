"""Mental poker v4 on the wire: every protocol message travels in the shared signed envelope (``signed.py``).

An envelope's ``sender`` is the roster seat that signed it, ``kind`` the step, ``hand`` the hand, ``prev`` the
digest of the envelope before it (the hand's genesis for the first), ``body`` the step's fields. The hand state
machine reads the v3 form of the message back: the body plus ``step``, ``player`` (the sender's roster name; for
an ``abandon`` the absent player the witness names) and ``prev``. A message whose signature, hand or link does not
hold is refused before the state machine sees it, and charged to whoever presented it, never to the seat it names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fairdeal.errors import MentalPokerError
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import context
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.roster import Roster

PROTOCOL_V4 = "fairdeal-mental-poker/4"
_ENVELOPE_ONLY = ("step", "player", "prev")


@dataclass(frozen=True)
class Seating:
    """The roster as the hands of one session see it: who sits where under which identity key."""

    roster: Roster

    @property
    def names(self) -> dict[signed.Sender, str]:
        return {index: seat.name for index, seat in enumerate(self.roster.seats)}

    @property
    def keys(self) -> dict[signed.Sender, PublicKey]:
        return {index: seat.key for index, seat in enumerate(self.roster.seats)}

    def seat_of(self, name: str) -> int:
        for index, seat in enumerate(self.roster.seats):
            if seat.name == name:
                return index
        raise MentalPokerError(f"{name!r} is not on the roster")

    def context(self, hand: int) -> signed.Context:
        return signed.Context(self.roster.table, self.roster.session, hand, self.roster.hash)

    def hand_context(self, hand: int, attempt: int = 1) -> HandContext:
        """What every proof, commitment and the chain's genesis are bound to: a length-prefixed tuple of the
        protocol, table, session, roster and attempt (a re-deal is a new attempt), with the hand number."""
        bound = context(PROTOCOL_V4, self.roster.table, self.roster.session, self.roster.hash, attempt)
        return HandContext(bound.hex(), hand)


def seal_message(key: IdentityKey, seating: Seating, hand: int, message: Mapping[str, Any]) -> dict[str, Any]:
    """The signed envelope of a v3-form ``message`` (its ``prev`` already set), from the holder of ``key``."""
    step = message["step"]
    body = {k: v for k, v in message.items() if k not in _ENVELOPE_ONLY and k != "witness"}
    if step == "abandon":
        body["player"] = message["player"]
    sender = next((s for s, k in seating.keys.items() if k == key.public), None)
    if sender is None:
        raise MentalPokerError("the signing key is not a seat's identity key on the roster")
    return signed.seal(key, seating.context(hand), sender, step, body, message["prev"]).to_json()


@dataclass(frozen=True)
class Opened:
    """A message whose signature and link hold: its v3 form, its digest (the next ``prev``), who signed it."""

    message: dict[str, Any]
    digest: str
    signer: str


def open_message(
    doc: Any, seating: Seating, hand: int, prev: str | None, presenter: str = "relay", where: str = "message"
) -> Opened:
    """The v3 form of a signed envelope, if it is a roster seat's signed message for this hand following ``prev``;
    else ``SignedMessageError`` charged to ``presenter``."""
    envelope = signed.open_checked(
        signed.parse(doc, where) if isinstance(doc, dict) else doc,
        seating.context(hand),
        seating.keys,
        prev=prev,
        presenter=presenter,
        names=seating.names,
    )
    signer = seating.names[envelope.sender]
    message = dict(envelope.body, step=envelope.kind, player=signer, prev=envelope.prev)
    if envelope.kind == "abandon":
        absent = envelope.body.get("player")
        if not isinstance(absent, str):
            raise MentalPokerError("an abandon names the absent player", signer, "abandon")
        message.update(player=absent, witness=signer)
    elif "player" in envelope.body:
        raise MentalPokerError("only an abandon names a player in its body", signer, envelope.kind)
    return Opened(message, envelope.digest, signer)
