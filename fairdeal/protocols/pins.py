"""Identities a verifier pins instead of reading them from the transcript it checks: a roster file, single seat
keys (``--key SEAT=PUBKEY``) and one's own key file (``--me KEYFILE``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fairdeal.errors import ProtocolError
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.roster import Roster

UNPINNED = (
    "identities are unpinned: the keys come from the transcript itself, so this proves only that some holders "
    "of those keys played (one program could have played every seat); pin them with --roster, --key or --me"
)


@dataclass(frozen=True)
class Pins:
    roster: Roster | None = None
    keys: Mapping[int, PublicKey] = field(default_factory=dict)  # seat -> identity key
    me: IdentityKey | None = None

    @property
    def pinned(self) -> bool:
        return self.roster is not None or bool(self.keys) or self.me is not None

    def problems(self, roster: Roster) -> list[str]:
        """How ``roster`` (the one a transcript states) departs from the pins; empty if it keeps to them."""
        found = []
        if self.roster is not None and self.roster.hash != roster.hash:
            found.append("the transcript's roster is not the pinned roster")
        for seat, key in sorted(self.keys.items()):
            if seat >= len(roster.seats):
                found.append(f"seat {seat} is pinned but the roster has {len(roster.seats)} seats")
            elif roster.seats[seat].key != key:
                found.append(f"seat {seat} ({roster.seats[seat].name}) signs with another key than the pinned one")
        if self.me is not None and self.me.public not in [seat.key for seat in roster.seats]:
            found.append(f"your key {self.me.public.hex[:16]}… is not on the roster: you did not sit at this table")
        return found

    def my_seat(self, roster: Roster) -> str | None:
        if self.me is None:
            return None
        return next((seat.name for seat in roster.seats if seat.key == self.me.public), None)


def parse_key_pin(text: str) -> tuple[int, PublicKey]:
    """``SEAT=PUBKEY`` (seat number, 64 hex digits)."""
    seat, sep, key = text.partition("=")
    if not sep or not seat.strip().isdigit():
        raise ProtocolError(f"--key {text!r}: expected SEAT=PUBKEY (a seat number and 64 hex digits)")
    return int(seat), PublicKey.from_hex(key.strip(), f"--key {seat}")
