"""The wire form of mental-poker messages: JSON objects with lowercase-hex points and scalars.

Decoding checks shape only (fields present, 32-byte hex); group membership and proofs are the verifier's job.
Every decoding error names the claimed sender and the step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.elgamal import Ciphertext, DecryptionShares, KeyShare
from fairdeal.protocols.mental_poker.group import Point, Scalar
from fairdeal.protocols.mental_poker.proofs import EqualLogsProof, SigmaProof
from fairdeal.protocols.mental_poker.shuffle import Deck, ShuffleProof

Message = Mapping[str, Any]
_T = TypeVar("_T")


def sender(message: Message) -> tuple[str, str]:
    """``(player, step)`` a message claims, or an error if it claims none."""
    if not isinstance(message, Mapping):
        raise MentalPokerError("a message must be a JSON object")
    player, step = message.get("player"), message.get("step")
    if not isinstance(player, str) or not isinstance(step, str):
        raise MentalPokerError("a message must name its player and step as strings")
    return player, step


_SHARES = {"shares", "proof"}
FIELDS: dict[str, set[str]] = {
    "keys": {"public", "c", "s"},
    "shuffle": {"deck", "proof"},
    "deal": _SHARES,
    "talon": _SHARES | {"talon"},
    "take": _SHARES | {"to", "talon"},
    "turn": _SHARES,
    "dummy": _SHARES,
    "reveal": _SHARES,
    "open": _SHARES,
    "play": {"position", "share", "proof"},
    "discard": {"commitment"},
    "discard-open": {"positions", "nonce"},
    "abandon": {"at", "witness"},  # v4: ``witness`` is the seat that signed it
    "decide": {"action", "announce"},  # v4: exactly one of them
}
_ENVELOPE = {"step", "player", "prev"}
_PROOF_FIELDS = {"u", "chain", "t", "t_chain", "k", "k_chain", "k_open"}
_SHARE_FIELDS = {"position", "share"}
_EQUAL_LOGS_FIELDS = {"a", "b", "s"}


def check_fields(message: Message) -> None:
    """Refuse fields a step does not define, so that no part of a message escapes its own checks."""
    player, step = sender(message)
    extra = set(message) - _ENVELOPE - FIELDS.get(step, set())
    if extra:
        raise MentalPokerError(f"fields {sorted(extra)} are not part of a {step} message", player, step)


def _exact(reader: _Reader, source: object, allowed: set[str], what: str) -> None:
    if not isinstance(source, Mapping) or set(source) - allowed:
        raise reader.fail(f"{what} may hold only {sorted(allowed)}")


class _Reader:
    """Reads fields of one message, blaming its sender for anything malformed."""

    def __init__(self, message: Message):
        self.player, self.step = sender(message)
        self.message = message

    def fail(self, text: str) -> MentalPokerError:
        return MentalPokerError(text, self.player, self.step)

    def field(self, source: Mapping[str, Any], name: str, kind: type[_T]) -> _T:
        value = source.get(name) if isinstance(source, Mapping) else None
        if not isinstance(value, kind) or isinstance(value, bool):
            raise self.fail(f"field {name!r} is missing or not a {kind.__name__}")
        return value

    def raw32(self, value: Any, what: str) -> bytes:
        if not isinstance(value, str) or len(value) != 64 or value != value.lower():
            raise self.fail(f"{what} must be 64 lowercase hex digits")
        try:
            return bytes.fromhex(value)
        except ValueError:
            raise self.fail(f"{what} is not hex") from None

    def point(self, value: Any, what: str) -> Point:
        return Point(self.raw32(value, what))

    def scalar(self, value: Any, what: str) -> Scalar:
        try:
            return Scalar.decode(self.raw32(value, what))
        except MentalPokerError as error:
            raise self.fail(f"{what}: {error}") from None

    def points(self, source: Mapping[str, Any], name: str) -> tuple[Point, ...]:
        return tuple(self.point(v, f"{name}[{i}]") for i, v in enumerate(self.field(source, name, list)))

    def scalars(self, source: Mapping[str, Any], name: str) -> tuple[Scalar, ...]:
        return tuple(self.scalar(v, f"{name}[{i}]") for i, v in enumerate(self.field(source, name, list)))

    def proof(self, source: Mapping[str, Any]) -> SigmaProof:
        return SigmaProof(self.scalar(source.get("c"), "c"), self.scalar(source.get("s"), "s"))

    def equal_logs(self, source: Mapping[str, Any], positions: Sequence[int]) -> EqualLogsProof | None:
        """The proof behind shares for ``positions``: an ``{a, b, s}`` object, or ``null`` when none are listed."""
        body = source.get("proof")
        if not positions:
            if body is not None:
                raise self.fail("no shares are listed, so 'proof' must be null")
            return None
        _exact(self, body, _EQUAL_LOGS_FIELDS, "proof")
        assert isinstance(body, Mapping)  # _exact refused anything else
        return EqualLogsProof(
            self.point(body.get("a"), "proof.a"),
            self.point(body.get("b"), "proof.b"),
            self.scalar(body.get("s"), "proof.s"),
        )


def _sigma(proof: SigmaProof) -> dict[str, str]:
    return {"c": proof.challenge.hex(), "s": proof.response.hex()}


def key_message(share: KeyShare) -> dict[str, Any]:
    return {"step": "keys", "player": share.player, "public": share.public.hex(), **_sigma(share.proof)}


def read_key(message: Message) -> KeyShare:
    reader = _Reader(message)
    return KeyShare(reader.player, reader.point(message.get("public"), "public"), reader.proof(message))


def shuffle_message(player: str, deck: Deck, proof: ShuffleProof) -> dict[str, Any]:
    return {
        "step": "shuffle",
        "player": player,
        "deck": [[ct.c1.hex(), ct.c2.hex()] for ct in deck],
        "proof": {
            "u": [p.hex() for p in proof.commitments],
            "chain": [p.hex() for p in proof.chain],
            "t": [p.hex() for p in proof.t],
            "t_chain": [p.hex() for p in proof.t_chain],
            "k": [s.hex() for s in proof.responses],
            "k_chain": [s.hex() for s in proof.chain_responses],
            "k_open": [s.hex() for s in proof.opening_responses],
        },
    }


def read_shuffle(message: Message) -> tuple[Deck, ShuffleProof]:
    reader = _Reader(message)
    deck = []
    for i, pair in enumerate(reader.field(message, "deck", list)):
        if not isinstance(pair, list) or len(pair) != 2:
            raise reader.fail(f"deck[{i}] must be a pair [c1, c2]")
        deck.append(Ciphertext(reader.point(pair[0], f"deck[{i}].c1"), reader.point(pair[1], f"deck[{i}].c2")))
    body = reader.field(message, "proof", dict)
    _exact(reader, body, _PROOF_FIELDS, "proof")
    responses = reader.scalars(body, "k")
    if len(responses) != 4:
        raise reader.fail("proof.k must hold the four responses k1..k4")
    proof = ShuffleProof(
        commitments=reader.points(body, "u"),
        chain=reader.points(body, "chain"),
        t=reader.points(body, "t"),
        t_chain=reader.points(body, "t_chain"),
        responses=responses,
        chain_responses=reader.scalars(body, "k_chain"),
        opening_responses=reader.scalars(body, "k_open"),
    )
    return tuple(deck), proof


def _equal_logs(proof: EqualLogsProof | None) -> dict[str, str] | None:
    return None if proof is None else {"a": proof.a.hex(), "b": proof.b.hex(), "s": proof.response.hex()}


def shares_message(step: str, shares: DecryptionShares) -> dict[str, Any]:
    return {
        "step": step,
        "player": shares.player,
        "shares": [{"position": p, "share": d.hex()} for p, d in zip(shares.positions, shares.shares)],
        "proof": _equal_logs(shares.proof),
    }


def read_shares(message: Message) -> DecryptionShares:
    """The sender's decryption shares, by deck position, and the one proof that covers them."""
    reader = _Reader(message)
    positions: list[int] = []
    points: list[Point] = []
    for entry in reader.field(message, "shares", list):
        _exact(reader, entry, _SHARE_FIELDS, "a share entry")
        position = reader.field(entry, "position", int)
        if position in positions:
            raise reader.fail(f"two shares for position {position}")
        positions.append(position)
        points.append(reader.point(entry.get("share"), f"share for position {position}"))
    return DecryptionShares(reader.player, tuple(positions), tuple(points), reader.equal_logs(message, positions))


def single_share_message(step: str, shares: DecryptionShares) -> dict[str, Any]:
    """A ``play``: one position and the sender's own decryption share of it (the card comes from its hand)."""
    (position,), (share,) = shares.positions, shares.shares
    return {
        "step": step,
        "player": shares.player,
        "position": position,
        "share": share.hex(),
        "proof": _equal_logs(shares.proof),
    }


def read_single_share(message: Message) -> DecryptionShares:
    reader = _Reader(message)
    position = reader.field(message, "position", int)
    share = reader.point(message.get("share"), "share")
    return DecryptionShares(reader.player, (position,), (share,), reader.equal_logs(message, (position,)))


def discard_message(player: str, commitment: bytes) -> dict[str, Any]:
    return {"step": "discard", "player": player, "commitment": commitment.hex()}


def read_discard(message: Message) -> bytes:
    reader = _Reader(message)
    return reader.raw32(message.get("commitment"), "commitment")


def discard_open_message(player: str, positions: Sequence[int], nonce: bytes) -> dict[str, Any]:
    return {"step": "discard-open", "player": player, "positions": list(positions), "nonce": nonce.hex()}


def read_discard_open(message: Message) -> tuple[tuple[int, ...], bytes]:
    reader = _Reader(message)
    positions = reader.field(message, "positions", list)
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in positions):
        raise reader.fail("field 'positions' must list deck positions (integers)")
    return tuple(positions), reader.raw32(message.get("nonce"), "nonce")


def abandon_message(player: str, at: str) -> dict[str, Any]:
    """The table gives up waiting: ``player`` did not send its ``at`` message in time."""
    return {"step": "abandon", "player": player, "at": at}


def read_abandon(message: Message) -> str:
    return _Reader(message).field(message, "at", str)


def decide_message(player: str, decision: Mapping[str, Any]) -> dict[str, Any]:
    """A seat's game decision: ``{"action": the engine's action as JSON}``, or the declarer's word on a hand without
    aces, ``{"announce": null or {"no_aces": bool}}``."""
    return {"step": "decide", "player": player, **decision}


def read_decision(message: Message) -> dict[str, Any]:
    """A ``decide`` message's decision, its shape checked: what it means is the game's to judge."""
    reader = _Reader(message)
    fields = sorted(set(message) & FIELDS["decide"])
    if len(fields) != 1:
        raise reader.fail("a decision holds exactly one of 'action' and 'announce'")
    value = message[fields[0]]
    if fields[0] == "action":
        reader.field(value, "kind", str)
    elif value is not None:
        _exact(reader, value, {"no_aces"}, "announce")
        if not isinstance(value.get("no_aces"), bool):
            raise reader.fail("announce must be null or {'no_aces': true or false}")
    return {fields[0]: value}


def read_recipient(message: Message) -> str:
    """The ``to`` of a ``take`` message: the declarer who receives the talon unseen."""
    return _Reader(message).field(message, "to", str)


def read_talon_index(message: Message, talons: int) -> int:
    """The ``talon`` a ``talon`` or ``take`` message is about: required when the deal has more than one (Hussar),
    absent otherwise."""
    reader = _Reader(message)
    if talons <= 1:
        if "talon" in message:
            raise reader.fail("this deal has one talon; 'talon' must be absent")
        return 0
    index = reader.field(message, "talon", int)
    if not 0 <= index < talons:
        raise reader.fail(f"talon {index} is not one of the deal's {talons} talons")
    return index
