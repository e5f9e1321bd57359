"""The roster of a served table, whatever it deals by: fixed by the service once every chair is taken, then
signed by every seat. One step per row, each refused with one line (``Refused``) and nothing changed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from fairdeal.errors import FairdealError, ProtocolError
from fairdeal.protocols.identity import SIGNATURE_BYTES, IdentityKey, PublicKey
from fairdeal.protocols.roster import Roster
from fairdeal.rules.convention import Convention


class Refused(FairdealError):
    """A client message the table does not accept; the text is sent back as one line, nothing is stored."""


def fixed_roster(
    protocol: str,
    table: str,
    session: str,
    convention: Convention,
    names: list[tuple[str, str]],
    service: IdentityKey,
    body: Mapping[str, Any],
) -> Roster:
    """The roster the service fixes at the time ``body.time`` for the seats' (name, key hex), signed by it."""
    from fairdeal.engine.system import house_rules

    time = body.get("time")
    if set(body) != {"time"} or not isinstance(time, str):
        raise Refused("roster-time: body.time must be the roster's UTC time")
    header = {"system": convention.name, "convention": house_rules(convention), "pulya": convention.pulya.size}
    seats = [(name, PublicKey.from_hex(key)) for name, key in names]
    try:
        roster = Roster.create(protocol, table, session, time, header, service.public, seats)
    except (ProtocolError, TypeError) as exc:
        raise Refused(f"roster: {exc}") from None
    return roster.signed_by(service)


def signed_by_seat(roster: Roster, seat: int, body: Mapping[str, Any]) -> Roster:
    """``roster`` with ``seat``'s signature (``body.signature``, hex) added once it verifies."""
    slots = list(roster.seat_signatures or [b""] * len(roster.seats))
    if slots[seat]:
        raise Refused(f"seat {seat} has already signed the roster")
    signature = body.get("signature")
    if set(body) != {"signature"} or not is_hex(signature, SIGNATURE_BYTES):
        raise Refused(f"roster-sign: body.signature must be {2 * SIGNATURE_BYTES} lowercase hex digits")
    assert isinstance(signature, str)  # checked by is_hex
    raw = bytes.fromhex(signature)
    if not roster.seats[seat].key.verify(roster.message(), raw):
        raise Refused(f"roster-sign: signature: seat {seat}'s signature of the roster does not verify")
    slots[seat] = raw
    return replace(roster, seat_signatures=tuple(slots))


def unsigned_seats(roster: Roster) -> list[int]:
    slots = roster.seat_signatures or (b"",) * len(roster.seats)
    return [seat for seat, signature in enumerate(slots) if not signature]


def is_hex(value: Any, length: int) -> bool:
    if not isinstance(value, str) or len(value) != 2 * length:
        return False
    return all(c in "0123456789abcdef" for c in value)
