"""The protocol's hash derivations: the service's seed chain, player seed commitments, the deck stream.

Every hash input starts with a domain label naming the protocol version and the purpose, then the table,
session and hand it belongs to, so no value computed for one purpose, table or hand can stand in for another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from fairdeal.errors import ProtocolError
from fairdeal.protocols.encoding import frame, u64

PROTOCOL = "fairdeal-commit-reveal/1"
CHAIN_DOMAIN = PROTOCOL + "/chain"
PLAYER_SEED_DOMAIN = PROTOCOL + "/player-seed"
DECK_DOMAIN = PROTOCOL + "/deck"
SEED_BYTES = 32
MAX_SESSION_HANDS = 1_000_000


def chain_step(table: str, session: str, hand: int, link: bytes) -> bytes:
    """``link[hand-1] = SHA-256(frame(CHAIN, table, session, hand, link[hand]))``: the commitment to ``link``."""
    return hashlib.sha256(frame(CHAIN_DOMAIN, table, session, u64(hand), link)).digest()


def build_chain(table: str, session: str, tail: bytes, hands: int) -> list[bytes]:
    """All links ``link[0..hands]`` from the secret ``tail = link[hands]``; ``link[0]`` is the published anchor."""
    links = [b""] * (hands + 1)
    links[hands] = tail
    for hand in range(hands, 0, -1):
        links[hand - 1] = chain_step(table, session, hand, links[hand])
    return links


def walk_to_anchor(table: str, session: str, hand: int, link: bytes) -> bytes:
    """Hash ``link[hand]`` back to ``link[0]``: equal to the anchor iff the link sits at that place in the chain."""
    for step in range(hand, 0, -1):
        link = chain_step(table, session, step, link)
    return link


def seed_commitment(table: str, session: str, hand: int, player: str, seed: bytes) -> bytes:
    """A player's commitment to the seed of one hand, bound to the table, session, hand and player name."""
    return hashlib.sha256(frame(PLAYER_SEED_DOMAIN, table, session, u64(hand), player, seed)).digest()


def deck_input(
    table: str, session: str, hand: int, deck: str, service_seed: bytes, players: Sequence[tuple[str, bytes]]
) -> bytes:
    """The XOF input for one hand's deck: all seeds, with each player's seed next to the player's name."""
    fields: list[bytes | str] = [DECK_DOMAIN, table, session, u64(hand), deck, service_seed, u64(len(players))]
    for name, seed in players:
        fields += [name, seed]
    return frame(*fields)


_U64_LENGTH = (8).to_bytes(4, "big")


class DeckInputs:
    """``deck_input`` for many hands of one session: the fixed fields are framed once (same bytes, faster)."""

    def __init__(self, table: str, session: str, deck: str, names: Sequence[str]):
        self._head = frame(DECK_DOMAIN, table, session)
        self._deck = frame(deck)
        self._count = frame(u64(len(names)))
        self._names = [frame(name) for name in names]

    def __call__(self, hand: int, service_seed: bytes, seeds: Sequence[bytes]) -> bytes:
        if len(seeds) != len(self._names):
            raise ProtocolError(f"{len(self._names)} player seeds are needed, got {len(seeds)}")
        parts = [
            self._head,
            _U64_LENGTH,
            u64(hand),
            self._deck,
            len(service_seed).to_bytes(4, "big"),
            service_seed,
            self._count,
        ]
        for name, seed in zip(self._names, seeds):
            parts += [name, len(seed).to_bytes(4, "big"), seed]
        return b"".join(parts)


def deck_stream(data: bytes, length: int) -> bytes:
    """The first ``length`` bytes of SHAKE256(data); longer requests extend the same stream."""
    return hashlib.shake_256(data).digest(length)
