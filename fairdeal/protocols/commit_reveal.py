"""The commit-reveal parties: the dealer service and the seated players, exchanging signed statements.

Order of a session (``protocols/commit-reveal.md``): the service builds a hash chain from a secret tail and
signs the session opening (roster, anchor = link 0); every player checks and countersigns it before giving
any seed. Hand ``k``: the service's commitment is ``link[k-1]`` (the anchor, or the previous hand's reveal);
each player signs a commitment to a fresh seed that names that service commitment; once every commitment is
in, players open their seeds; the service derives and deals the deck privately; after the hand it reveals
``link[k]``, which is also the next hand's commitment.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import numpy as np
from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from fairdeal.errors import ProtocolError
from fairdeal.protocols.deck import derive_order
from fairdeal.protocols.derive import PROTOCOL, SEED_BYTES, build_chain, chain_step, deck_input, seed_commitment
from fairdeal.protocols.encoding import canonical_json, from_hex
from fairdeal.protocols.table import TableSpec


def sign(key: SigningKey, statement: Mapping[str, Any]) -> str:
    return key.sign(canonical_json(statement)).signature.hex()


def signature_holds(key_hex: str, statement: Mapping[str, Any], signature_hex: str) -> bool:
    """True iff ``signature_hex`` is a valid ed25519 signature of the canonical statement under ``key_hex``."""
    try:
        return _signature_holds(key_hex, canonical_json(statement), signature_hex)
    except ProtocolError:
        return False


@lru_cache(maxsize=4096)  # a session's opening is signed once and checked in every transcript of the session
def _signature_holds(key_hex: str, message: bytes, signature_hex: str) -> bool:
    try:
        key = VerifyKey(from_hex(key_hex, 32, "public key"))
        key.verify(message, from_hex(signature_hex, 64, "signature"))
    except (ProtocolError, BadSignatureError, ValueError, TypeError):
        return False
    return True


def session_statement(spec: TableSpec, anchor: bytes, service_key: str, player_keys: Sequence[str]) -> dict[str, Any]:
    """The session opening every party signs: binds the roster, keys and the chain anchor."""
    return {
        "statement": "session-open",
        "protocol": PROTOCOL,
        "table": spec.table,
        "session": spec.session,
        "hands": spec.hands,
        "anchor": anchor.hex(),
        "service_key": service_key,
        "players": [{"seat": s, "name": n, "key": k} for s, (n, k) in enumerate(zip(spec.players, player_keys))],
        **spec.convention_fields(),
    }


def seed_statement(
    session: Mapping[str, Any], hand: int, dealer: int, seat: int, service_commitment: str, commitment: str
) -> dict[str, Any]:
    """A player's signed commitment to one hand's seed; names the service commitment it saw first."""
    return {
        "statement": "seed-commitment",
        "protocol": PROTOCOL,
        "table": session["table"],
        "session": session["session"],
        "hand": hand,
        "dealer": dealer,
        "seat": seat,
        "player": session["players"][seat]["name"],
        "service_commitment": service_commitment,
        "seed_commitment": commitment,
    }


@dataclass(frozen=True)
class SignedSession:
    statement: dict[str, Any]
    service_signature: str
    player_signatures: tuple[str, ...]


@dataclass(frozen=True)
class SeedCommitment:
    seat: int
    statement: dict[str, Any]
    signature: str


class Countersigner(Protocol):
    """What ``DealerService.open_session`` needs of a seat: a ``Player``, or a stand-in for a remote one."""

    name: str

    @property
    def public_key(self) -> str: ...

    def countersign(self, statement: dict[str, Any], service_signature: str) -> str: ...


class Player:
    """A seated player: holds its own signing key and per-hand secret seeds; checks what the service sends."""

    def __init__(
        self, name: str, seat: int, key: SigningKey | None = None, seed_source: Callable[[int], bytes] | None = None
    ):
        """``seed_source(hand)`` replaces the OS random seeds only for reproducible test vectors."""
        self.name, self.seat = name, seat
        self._key = key or SigningKey.generate()
        self._seed_source = seed_source or (lambda hand: secrets.token_bytes(SEED_BYTES))
        self._seeds: dict[int, bytes] = {}
        self._session: dict[str, Any] | None = None
        self._expected_commitment: str | None = None
        self._last_hand = 0

    @property
    def public_key(self) -> str:
        return self._key.verify_key.encode().hex()

    def countersign(self, statement: dict[str, Any], service_signature: str) -> str:
        """Check the session opening (service signature, own seat and key) and sign it."""
        if not signature_holds(statement["service_key"], statement, service_signature):
            raise ProtocolError(f"player {self.name}: the service's session signature does not verify")
        me = statement["players"][self.seat]
        if (me["name"], me["key"]) != (self.name, self.public_key):
            raise ProtocolError(f"player {self.name}: the roster misstates my seat or key")
        self._session = statement
        self._expected_commitment = statement["anchor"]
        return sign(self._key, statement)

    def commit(self, hand: int, dealer: int, service_commitment: str) -> SeedCommitment:
        """A fresh seed for ``hand``, committed after checking the service committed where the chain says."""
        if self._session is None:
            raise ProtocolError(f"player {self.name}: no session countersigned yet")
        if hand != self._last_hand + 1:
            raise ProtocolError(f"player {self.name}: hand {hand} is not the next hand ({self._last_hand + 1})")
        if service_commitment != self._expected_commitment:
            raise ProtocolError(f"player {self.name}: hand {hand}: the service commitment is not the chain's next link")
        seed = self._seed_source(hand)
        if len(seed) != SEED_BYTES:
            raise ProtocolError(f"player {self.name}: a seed is {SEED_BYTES} bytes, got {len(seed)}")
        self._seeds[hand] = seed
        self._last_hand = hand
        s = self._session
        commitment = seed_commitment(s["table"], s["session"], hand, self.name, seed).hex()
        statement = seed_statement(s, hand, dealer, self.seat, service_commitment, commitment)
        return SeedCommitment(self.seat, statement, sign(self._key, statement))

    def open_seed(self, hand: int, commitments: Sequence[SeedCommitment]) -> bytes:
        """Open the seed once every seat's commitment for the hand is in (so nobody can grind against it)."""
        assert self._session is not None  # a seed is opened after its commitment, made in the session
        if sorted(c.seat for c in commitments) != list(range(len(self._session["players"]))):
            raise ProtocolError(f"player {self.name}: hand {hand}: not every seat has committed yet")
        return self._seeds[hand]

    def accept_reveal(self, hand: int, link: bytes) -> None:
        """Check the service's reveal opens its commitment; it is the next hand's commitment."""
        s = self._session
        assert s is not None  # a reveal answers a hand committed in the session
        if chain_step(s["table"], s["session"], hand, link).hex() != self._expected_commitment:
            raise ProtocolError(f"player {self.name}: hand {hand}: the service's reveal does not open its commitment")
        self._expected_commitment = link.hex()
        self._seeds.pop(hand, None)


@dataclass
class HandRound:
    """The service's working state for one hand."""

    hand: int
    dealer: int
    commitments: dict[int, SeedCommitment]
    seeds: dict[int, bytes]
    order: np.ndarray | None = None
    revealed: bool = False


class DealerService:
    """The dealer service: owns the secret chain; accepts seeds only in protocol order; deals privately."""

    def __init__(self, spec: TableSpec, key: SigningKey | None = None, tail: bytes | None = None):
        self.spec = spec
        self._key = key or SigningKey.generate()
        self._links = build_chain(spec.table, spec.session, tail or secrets.token_bytes(SEED_BYTES), spec.hands)
        self.session: SignedSession | None = None
        self._round: HandRound | None = None
        self._hands_done = 0

    @property
    def public_key(self) -> str:
        return self._key.verify_key.encode().hex()

    def open_session(self, players: Sequence[Countersigner]) -> SignedSession:
        statement = session_statement(self.spec, self._links[0], self.public_key, [p.public_key for p in players])
        service_signature = sign(self._key, statement)
        signatures = tuple(p.countersign(statement, service_signature) for p in players)
        for player, signature in zip(players, signatures):
            if not signature_holds(player.public_key, statement, signature):
                raise ProtocolError(f"player {player.name}: session countersignature does not verify")
        self.session = SignedSession(statement, service_signature, signatures)
        return self.session

    def begin_hand(self, hand: int, dealer: int) -> str:
        """Start hand ``hand`` (strictly the next one, never past the chain); returns the service commitment."""
        if self.session is None:
            raise ProtocolError("service: the session is not open")
        if self._round is not None and not self._round.revealed:
            raise ProtocolError(f"service: hand {self._round.hand} is not revealed yet")
        if hand != self._hands_done + 1 or hand > self.spec.hands:
            raise ProtocolError(
                f"service: hand {hand} is out of sequence (next {self._hands_done + 1} of {self.spec.hands})"
            )
        self._round = HandRound(hand, dealer, {}, {})
        return self.commitment(hand)

    def commitment(self, hand: int) -> str:
        return self._links[hand - 1].hex()

    def accept_commitment(self, commitment: SeedCommitment) -> None:
        r = self._current("accept a seed commitment")
        if r.seeds:
            raise ProtocolError(f"service: hand {r.hand}: seed opening has begun, no more commitments")
        assert self.session is not None  # begin_hand opened the round in the session
        expected = seed_statement(
            self.session.statement,
            r.hand,
            r.dealer,
            commitment.seat,
            self.commitment(r.hand),
            commitment.statement.get("seed_commitment", ""),
        )
        key = self.session.statement["players"][commitment.seat]["key"]
        if commitment.statement != expected or not signature_holds(key, expected, commitment.signature):
            raise ProtocolError(
                f"service: hand {r.hand}: seat {commitment.seat}'s seed commitment is malformed or unsigned"
            )
        r.commitments[commitment.seat] = commitment

    def accept_seed(self, seat: int, seed: bytes) -> None:
        r = self._current("accept a seed")
        if len(r.commitments) != len(self.spec.players):
            raise ProtocolError(f"service: hand {r.hand}: seeds are opened only after every seat has committed")
        name = self.spec.players[seat]
        opened = seed_commitment(self.spec.table, self.spec.session, r.hand, name, seed).hex()
        if len(seed) != SEED_BYTES or opened != r.commitments[seat].statement["seed_commitment"]:
            raise ProtocolError(f"service: hand {r.hand}: player {name}'s seed does not open their commitment")
        r.seeds[seat] = seed

    def deal(self) -> np.ndarray:
        """The hand's deck order, known only to the service until the reveal."""
        r = self._current("deal")
        if len(r.seeds) != len(self.spec.players):
            raise ProtocolError(f"service: hand {r.hand}: cannot deal before every seed is opened")
        if r.order is None:
            r.order = derive_order(self.deck_input(r.hand, self._links[r.hand]), self.spec.deck)
        return r.order.copy()

    def deck_input(self, hand: int, service_seed: bytes) -> bytes:
        r = self._round
        assert r is not None  # called by deal, on the hand in progress
        players = [(self.spec.players[s], r.seeds[s]) for s in range(len(self.spec.players))]
        return deck_input(self.spec.table, self.spec.session, hand, self.spec.deck.value, service_seed, players)

    def reveal(self) -> bytes:
        r = self._current("reveal")
        if r.order is None:
            raise ProtocolError(f"service: hand {r.hand}: nothing dealt to reveal")
        r.revealed = True
        self._hands_done = r.hand
        return self._links[r.hand]

    def current_round(self) -> HandRound:
        return self._current("report the hand")

    def _current(self, action: str) -> HandRound:
        if self._round is None or self._round.revealed:
            raise ProtocolError(f"service: no hand in progress to {action}")
        return self._round
