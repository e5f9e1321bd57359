"""The hash derivations of ``fairdeal-commit-reveal/4``: each input a ``context`` tuple that starts with its
purpose and names the table, session and roster it belongs to, so no value serves another purpose or session."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from fairdeal.protocols.canonical import context

PROTOCOL = "fairdeal-commit-reveal/4"
SEED_BYTES = 32
MAX_SESSION_HANDS = 10_000


@dataclass(frozen=True)
class Session:
    """What every derivation of a session is bound to."""

    table: str
    session: str
    roster: str  # the roster's hash (hex)

    def chain_step(self, hand: int, link: bytes) -> bytes:
        """``link[hand-1] = SHA256(context(P/chain, ..., hand, link[hand]))``: the commitment to ``link[hand]``."""
        return hashlib.sha256(context(PROTOCOL + "/chain", self.table, self.session, self.roster, hand, link)).digest()

    def build_chain(self, tail: bytes, hands: int) -> list[bytes]:
        """``link[0..hands]`` from the secret ``tail = link[hands]``; ``link[0]`` is the anchor."""
        links = [b""] * (hands + 1)
        links[hands] = tail
        for hand in range(hands, 0, -1):
            links[hand - 1] = self.chain_step(hand, links[hand])
        return links

    def seed_commitment(self, hand: int, attempt: int, seat: int, seed: bytes) -> str:
        """A player's commitment to its seed for one attempt at a hand, bound to its seat."""
        data = context(PROTOCOL + "/seed", self.table, self.session, self.roster, hand, attempt, seat, seed)
        return hashlib.sha256(data).hexdigest()

    def deck_input(
        self, hand: int, attempt: int, deck: str, service_seed: bytes, beacon: bytes, seeds: Sequence[bytes]
    ) -> bytes:
        """The SHAKE256 input of one deal: the service seed, the beacon (empty if none) and every seat's seed."""
        return context(
            PROTOCOL + "/deck", self.table, self.session, self.roster, hand, attempt, deck, service_seed, beacon, *seeds
        )
