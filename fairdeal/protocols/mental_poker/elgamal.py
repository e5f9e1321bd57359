"""Threshold-free ElGamal over a joint key: key shares with proofs of possession, card points, decryption shares.

The joint key is the sum of every player's share, so a card opens only when every player contributes a
decryption share — a card dealt to one player is opened by the others' shares plus that player's own, which
never leaves the player.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from fairdeal.cards import Card, DeckKind
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import (
    BASE,
    ONE,
    Combination,
    Point,
    Scalar,
    base_mult,
    blame,
    hash_to_point,
    multi_mult_vartime,
    point_sum,
    validate,
)
from fairdeal.protocols.mental_poker.proofs import (
    EqualLogsProof,
    SigmaProof,
    add_equal_logs_equations,
    prove_equal_logs,
    prove_possession,
    verify_possession,
)


@cache
def card_point(code: int) -> Point:
    """The group element standing for a card: hash-to-curve of ``card/<ASCII>`` (e.g. ``card/10H``)."""
    return hash_to_point("card/" + Card.from_code(code).ascii)


@cache
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

    def rerandomise(self, joint_key: Point, r: Scalar) -> Ciphertext:
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
class DecryptionShares:
    """One player's shares ``x_P·c1`` of the ciphertexts at some deck positions, with one proof covering them all
    (``None`` only when no position is listed)."""

    player: str
    positions: tuple[int, ...]
    shares: tuple[Point, ...]
    proof: EqualLogsProof | None


def _label(positions: Sequence[int]) -> bytes:
    """The positions the shares are for, bound into the proof."""
    return b"".join(position.to_bytes(2, "big") for position in positions)


def make_decryption_shares(
    context: HandContext,
    player: str,
    secret: Scalar,
    public: Point,
    deck: Sequence[Ciphertext],
    positions: Sequence[int],
) -> DecryptionShares:
    positions = tuple(positions)
    if not positions:
        return DecryptionShares(player, (), (), None)
    bases = [deck[p].c1 for p in positions]
    images, proof = prove_equal_logs(context, player, _label(positions), secret, public, bases)
    return DecryptionShares(player, positions, images, proof)


def add_decryption_share_equations(
    context: HandContext, key_share: KeyShare, deck: Sequence[Ciphertext], shares: DecryptionShares, out: Combination
) -> None:
    """Fold the shares' proof into ``out``; its points are then validated by the combination's evaluation."""
    if shares.player != key_share.player:
        raise MentalPokerError(f"shares announced by {shares.player} offered as {key_share.player}'s")
    if shares.positions:
        assert shares.proof is not None  # decoding and making give a proof whenever positions are listed
        add_equal_logs_equations(
            context,
            shares.player,
            _label(shares.positions),
            key_share.public,
            [deck[p].c1 for p in shares.positions],
            shares.shares,
            shares.proof,
            out,
        )


def verify_decryption_shares(
    context: HandContext,
    key_share: KeyShare,
    deck: Sequence[Ciphertext],
    shares: DecryptionShares,
    step: str = "decrypt",
) -> None:
    """Raise ``MentalPokerError`` naming the player (at ``step``) unless every share is ``x_P·c1`` of its
    position's ciphertext."""
    with blame(shares.player, step):
        validate(shares.shares, "decryption share")
        if shares.proof is not None:
            validate([shares.proof.a, shares.proof.b], "proof commitment")
        combination = Combination()
        add_decryption_share_equations(context, key_share, deck, shares, combination)
        if not combination.is_identity():
            raise MentalPokerError("the equal-logarithms proof of the decryption shares does not verify")


def decrypt(ciphertext: Ciphertext, shares: Sequence[Point]) -> int:
    """The card code once every player's share ``x_i * c1`` is at hand: ``c2 - Σ shares``."""
    return card_of_point(multi_mult_vartime([ONE] + [-ONE] * len(shares), [ciphertext.c2, *shares]))
