"""Threshold-free ElGamal over a joint key: key shares with proofs of possession, card points, decryption shares.

The joint key is the sum of every player's share, so a card opens only when every player contributes a
decryption share — a card dealt to one player is opened by the others' shares plus that player's own, which
never leaves the player.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

from fairdeal.cards import Card, DeckKind
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mp_fiat_shamir import HandContext
from fairdeal.protocols.mp_group import BASE, Point, Scalar, base_mult, blame, hash_to_point, point_sum, validate
from fairdeal.protocols.mp_proofs import SigmaProof, prove_equal_logs, prove_possession, verify_equal_logs, verify_possession


@lru_cache(maxsize=None)
def card_point(code: int) -> Point:
    """The group element standing for a card: hash-to-curve of ``card/<ASCII>`` (e.g. ``card/10H``)."""
    return hash_to_point("card/" + Card.from_code(code).ascii)


@lru_cache(maxsize=None)
def _points_to_codes() -> Mapping[bytes, int]:
    return {card_point(code).data: code for code in range(32)}


def card_of_point(point: Point) -> int:
    """The card code a decrypted point stands for; anything else means a decryption went wrong."""
    code = _points_to_codes().get(point.data)
    if code is None:
        raise MentalPokerError("a decrypted point is not a card")
    return code


@dataclass(frozen=True)
class Ciphertext:
    """ElGamal ``(c1, c2) = (r*G, M + r*Y)`` under the joint key ``Y``."""

    c1: Point
    c2: Point

    def rerandomise(self, joint_key: Point, r: Scalar) -> "Ciphertext":
        return Ciphertext(self.c1 + base_mult(r), self.c2 + joint_key * r)


def encrypt(message: Point, joint_key: Point, r: Scalar) -> Ciphertext:
    return Ciphertext(base_mult(r), message + joint_key * r)


def open_deck(deck: DeckKind, joint_key: Point) -> tuple[Ciphertext, ...]:
    """The public starting deck: every card encrypted with randomness 1, so anyone can recompute it."""
    return tuple(Ciphertext(BASE, card_point(int(code)) + joint_key) for code in deck.codes())


@dataclass(frozen=True)
class KeyShare:
    """A player's published key share and its proof of possession."""

    player: str
    public: Point
    proof: SigmaProof


def make_key_share(context: HandContext, player: str) -> tuple[Scalar, KeyShare]:
    """A fresh secret share for one hand and its public announcement."""
    secret = Scalar.random()
    public = base_mult(secret)
    return secret, KeyShare(player, public, prove_possession(context, player, secret, public))


def check_key_share(context: HandContext, share: KeyShare) -> None:
    """A valid non-identity point whose announcer proves knowing its logarithm, for this hand."""
    with blame(share.player, "keys"):
        validate([share.public], "key share")
        verify_possession(context, share.player, share.public, share.proof)


def joint_key(context: HandContext, shares: Sequence[KeyShare], checked: bool = False) -> Point:
    """Σ Y_i, accepted only when the players are distinct and every proof of possession verifies (``checked``:
    already verified one by one as they arrived).

    The proofs stop a rogue key ``Y_b = x*G - Y_a``: whoever announces it cannot prove knowing its logarithm.
    """
    seen: set[str] = set()
    for share in shares:
        if share.player in seen:
            raise MentalPokerError("announced a second key share", share.player, "keys")
        seen.add(share.player)
        if not checked:
            check_key_share(context, share)
    joint = point_sum([share.public for share in shares])
    if joint.is_identity:
        raise MentalPokerError("the key shares cancel to the identity", shares[-1].player, "keys")
    return joint


@dataclass(frozen=True)
class DecryptionShare:
    """``share = x_i * c1`` for one ciphertext, with a proof that it uses the same ``x_i`` as the key share."""

    player: str
    label: str
    share: Point
    proof: SigmaProof


def make_decryption_share(
    context: HandContext, player: str, secret: Scalar, public: Point, ciphertext: Ciphertext, label: str
) -> DecryptionShare:
    share = ciphertext.c1 * secret
    proof = prove_equal_logs(context, player, label, secret, public, ciphertext.c1, share)
    return DecryptionShare(player, label, share, proof)


def verify_decryption_share(
    context: HandContext, key_share: KeyShare, ciphertext: Ciphertext, share: DecryptionShare, label: str,
    step: str = "decrypt",
) -> None:
    """Raise ``MentalPokerError`` naming the player (at ``step``) unless ``share`` is ``x_i * c1`` for this
    ciphertext."""
    if share.player != key_share.player or share.label != label:
        raise MentalPokerError(f"a decryption share for {share.label!r} offered as {label!r}", share.player, step)
    with blame(share.player, step):
        validate([share.share], "decryption share")
        verify_equal_logs(context, share.player, label, key_share.public, ciphertext.c1, share.share, share.proof)


def decrypt(ciphertext: Ciphertext, shares: Sequence[Point]) -> int:
    """The card code once every player's share ``x_i * c1`` is at hand: ``c2 - Σ shares``."""
    return card_of_point(ciphertext.c2 - point_sum(list(shares)))
