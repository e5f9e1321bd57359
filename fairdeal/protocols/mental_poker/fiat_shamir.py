"""Domain-separated Fiat-Shamir hashing: every challenge is SHA-512 of everything said before it, reduced mod ℓ.

Inputs are framed (4-byte big-endian length before each field), so no two different transcripts hash alike.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from fairdeal.errors import ProtocolError
from fairdeal.protocols.mental_poker.group import DOMAIN, Point, Scalar


def _framed(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


@dataclass(frozen=True)
class HandContext:
    """What every proof is bound to, so a proof from another table or hand is worthless here."""

    table_id: str
    hand: int

    def __post_init__(self) -> None:
        if not 0 <= self.hand < 2**64:  # framed as eight unsigned bytes
            raise ProtocolError(f"hand {self.hand} is not a hand number (0 to 2**64 - 1)")

    def encode(self) -> bytes:
        return _framed(self.table_id.encode("utf-8")) + _framed(self.hand.to_bytes(8, "big"))


class FiatShamir:
    """A running transcript hash for one proof: ``protocol`` names the proof, the context and prover bind it."""

    def __init__(self, protocol: str, context: HandContext, player: str):
        self._hash = hashlib.sha512(_framed(DOMAIN + b"fs/" + protocol.encode("ascii")))
        self._hash.update(context.encode() + _framed(player.encode("utf-8")))

    def absorb(self, label: str, *items: Point | Scalar | bytes) -> None:
        framed = [_framed(item if isinstance(item, bytes) else item.data) for item in items]
        self._hash.update(b"".join([_framed(label.encode("ascii")), len(items).to_bytes(4, "big"), *framed]))

    def challenge(self, label: str) -> Scalar:
        """A scalar challenge; it is absorbed back, so later challenges depend on it too."""
        value = self._derive(label)
        self.absorb(label + "/value", value)
        return value

    def challenges(self, label: str, count: int) -> list[Scalar]:
        values = [self._derive(f"{label}/{i}") for i in range(count)]
        self.absorb(label + "/values", *values)
        return values

    def _derive(self, label: str) -> Scalar:
        fork = self._hash.copy()
        fork.update(_framed(b"challenge/" + label.encode("ascii")))
        return Scalar.from_digest(fork.digest())
