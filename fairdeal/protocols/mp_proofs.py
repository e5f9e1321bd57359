"""Sigma proofs made non-interactive: Schnorr proof of possession and Chaum-Pedersen equality of logarithms.

Both proofs are ``(challenge, response)`` pairs; the verifier recomputes the prover's commitments from them
and accepts only if the hash of the whole statement and those commitments gives back the same challenge.
"""

from __future__ import annotations

from dataclasses import dataclass

from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mp_fiat_shamir import FiatShamir, HandContext
from fairdeal.protocols.mp_group import BASE, Point, Scalar, base_mult


@dataclass(frozen=True)
class SigmaProof:
    challenge: Scalar
    response: Scalar


def _pop_hash(context: HandContext, player: str, public: Point, commitment: Point) -> Scalar:
    fs = FiatShamir("key-possession", context, player)
    fs.absorb("statement", BASE, public)
    fs.absorb("commitment", commitment)
    return fs.challenge("c")


def prove_possession(context: HandContext, player: str, secret: Scalar, public: Point) -> SigmaProof:
    """Schnorr proof that ``player`` knows ``secret`` with ``public = secret * G``, bound to this hand."""
    nonce = Scalar.random()
    challenge = _pop_hash(context, player, public, base_mult(nonce))
    return SigmaProof(challenge, nonce + challenge * secret)


def verify_possession(context: HandContext, player: str, public: Point, proof: SigmaProof) -> None:
    commitment = base_mult(proof.response) - public * proof.challenge
    if _pop_hash(context, player, public, commitment) != proof.challenge:
        raise MentalPokerError("the proof of possession of the key share does not verify")


def _dleq_hash(
    context: HandContext, player: str, label: str, base2: Point, public: Point, image: Point,
    commit1: Point, commit2: Point,
) -> Scalar:
    fs = FiatShamir("equal-logs", context, player)
    fs.absorb("label", label.encode("utf-8"))
    fs.absorb("statement", BASE, public, base2, image)
    fs.absorb("commitment", commit1, commit2)
    return fs.challenge("c")


def prove_equal_logs(
    context: HandContext, player: str, label: str, secret: Scalar, public: Point, base2: Point, image: Point
) -> SigmaProof:
    """Chaum-Pedersen proof that ``log_G public == log_base2 image`` (both equal ``secret``); ``label`` names the use."""
    nonce = Scalar.random()
    challenge = _dleq_hash(context, player, label, base2, public, image, base_mult(nonce), base2 * nonce)
    return SigmaProof(challenge, nonce + challenge * secret)


def verify_equal_logs(
    context: HandContext, player: str, label: str, public: Point, base2: Point, image: Point, proof: SigmaProof
) -> None:
    commit1 = base_mult(proof.response) - public * proof.challenge
    commit2 = base2 * proof.response - image * proof.challenge
    if _dleq_hash(context, player, label, base2, public, image, commit1, commit2) != proof.challenge:
        raise MentalPokerError(f"the equal-logarithms proof for {label} does not verify")
