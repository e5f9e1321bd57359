"""What a verifier knows from outside the documents, shared by both protocols' verifiers: the signed roster, single
identity keys (``SEAT=PUBKEY``), my own identity key, and the public beacon value a table agreed to mix in."""

from __future__ import annotations

from dataclasses import dataclass

from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.roster import Roster


@dataclass(frozen=True)
class Pins:
    """Identities (and a beacon) the verifier knows from elsewhere; without identity pins ``verify`` says so."""

    roster: Roster | None = None
    keys: tuple[tuple[str, PublicKey], ...] = ()
    me: IdentityKey | None = None
    beacon: bytes | None = None  # commit-reveal v4: every hand must mix in exactly this value

    @property
    def pinned(self) -> bool:
        return self.roster is not None or bool(self.keys)
