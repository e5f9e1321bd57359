"""Sigma proofs made non-interactive: Schnorr proof of possession and Chaum-Pedersen equality of logarithms.

The proof of possession is a ``(challenge, response)`` pair: the verifier recomputes the commitment and the
challenge. The equality of logarithms covers many decryption shares at once and is sent in commitment form
``(A, B, s)``, whose verification equations are linear in the points and so join a batch (``Combination``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.fiat_shamir import FiatShamir, HandContext
from fairdeal.protocols.mental_poker.group import (
    BASE,
    ORDER,
    Combination,
    Point,
    Scalar,
    base_mult,
    multi_mult_vartime,
    random_weight,
)


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


@dataclass(frozen=True)
class EqualLogsProof:
    """Chaum-Pedersen in commitment form, so that a verifier can fold it into a batch: ``A = w·G``, ``B = w·M``,
    ``s = w + c·x`` with ``c`` re-derived from the statement and ``(A, B)``."""

    a: Point
    b: Point
    response: Scalar


def _equal_logs_start(
    context: HandContext, player: str, label: bytes, public: Point, bases: Sequence[Point], images: Sequence[Point]
) -> tuple[FiatShamir, list[Scalar]]:
    fs = FiatShamir("equal-logs-batch", context, player)
    fs.absorb("label", label)
    fs.absorb("statement", BASE, public, *bases, *images)
    return fs, fs.challenges("z", len(bases))


def prove_equal_logs(
    context: HandContext, player: str, label: bytes, secret: Scalar, public: Point, bases: Sequence[Point]
) -> tuple[tuple[Point, ...], EqualLogsProof]:
    """``images[j] = secret·bases[j]`` and one proof that every image uses the logarithm of ``public = secret·G``:
    a Chaum-Pedersen proof for ``(G, public)`` against ``(M, D) = (Σ z_j·bases[j], Σ z_j·images[j])`` with weights
    ``z_j`` hashed from the whole statement, so a single wrong image makes ``D ≠ secret·M``."""
    if not bases:
        raise MentalPokerError("an equal-logarithms proof needs at least one base")
    images = tuple(base * secret for base in bases)
    fs, z = _equal_logs_start(context, player, label, public, bases, images)
    nonce = Scalar.random()
    a, b = base_mult(nonce), multi_mult_vartime(z, bases) * nonce
    fs.absorb("commitment", a, b)
    return images, EqualLogsProof(a, b, nonce + fs.challenge("c") * secret)


def add_equal_logs_equations(
    context: HandContext,
    player: str,
    label: bytes,
    public: Point,
    bases: Sequence[Point],
    images: Sequence[Point],
    proof: EqualLogsProof,
    out: Combination,
) -> None:
    """Add ``s·G − c·Y − A = 0`` and ``Σ s·z_j·bases[j] − Σ c·z_j·images[j] − B = 0``, each times a random
    weight."""
    if len(bases) != len(images) or not bases:
        raise MentalPokerError(f"{len(images)} images for {len(bases)} bases")
    fs, z = _equal_logs_start(context, player, label, public, bases, images)
    fs.absorb("commitment", proof.a, proof.b)
    c, s = int(fs.challenge("c")), int(proof.response)
    first, second = random_weight(), random_weight()
    out.add_integer(first * s, BASE)
    out.add_integer(-first * c, public)
    out.add_integer(-first, proof.a)
    scaled_s, scaled_c = second * s % ORDER, -second * c % ORDER
    out.add_integers([scaled_s * int(weight) for weight in z], bases)
    out.add_integers([scaled_c * int(weight) for weight in z], images)
    out.add_integer(-second, proof.b)
