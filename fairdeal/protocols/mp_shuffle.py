"""A proven shuffle: permute and re-encrypt a deck, with the Terelius–Wikström proof of a shuffle.

The exact proof system (statement, prover, verifier, what is hashed, soundness) is section 5 of
``protocols/mental-poker.md``; names below follow it (``u``, ``ĉ`` = chain, ``k1..k4``, ``k̂``, ``k'``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mp_elgamal import Ciphertext
from fairdeal.protocols.mp_fiat_shamir import FiatShamir, HandContext
from fairdeal.protocols.mp_group import (
    BASE, ONE, ZERO, Point, Scalar, base_mult, blame, hash_to_point, multi_mult, point_sum, validate,
)

Deck = tuple[Ciphertext, ...]


@dataclass(frozen=True)
class ShuffleProof:
    commitments: tuple[Point, ...]          # u_i = r_i·G + H_{π⁻¹(i)}
    chain: tuple[Point, ...]                # ĉ_1..ĉ_N
    challenge: Scalar                       # v
    responses: tuple[Scalar, Scalar, Scalar, Scalar]   # k1..k4
    chain_responses: tuple[Scalar, ...]     # k̂_j
    opening_responses: tuple[Scalar, ...]   # k'_j


@dataclass(frozen=True)
class ShuffleGenerators:
    h: Point
    hs: tuple[Point, ...]


@lru_cache(maxsize=8)
def shuffle_generators(size: int) -> ShuffleGenerators:
    return ShuffleGenerators(
        hash_to_point("generator/h"), tuple(hash_to_point(f"generator/h/{j}") for j in range(1, size + 1))
    )


def random_permutation(size: int) -> tuple[int, ...]:
    """A uniform permutation from the OS generator (Fisher-Yates over ``secrets``)."""
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def _start(context: HandContext, player: str, joint_key: Point, deck_in: Deck, deck_out: Deck,
           gens: ShuffleGenerators, commitments: Sequence[Point]) -> tuple[FiatShamir, list[Scalar]]:
    fs = FiatShamir("shuffle", context, player)
    fs.absorb("statement", BASE, gens.h, *gens.hs, joint_key,
              *[p for ct in deck_in for p in (ct.c1, ct.c2)], *[p for ct in deck_out for p in (ct.c1, ct.c2)])
    fs.absorb("commitment", *commitments)
    return fs, fs.challenges("e", len(deck_in))


def _product(values: Sequence[Scalar]) -> Scalar:
    total = ONE
    for value in values:
        total = total * value
    return total


def _sum(values: Sequence[Scalar]) -> Scalar:
    total = ZERO
    for value in values:
        total = total + value
    return total


def _dot(a: Sequence[Scalar], b: Sequence[Scalar]) -> Scalar:
    total = ZERO
    for x, y in zip(a, b):
        total = total + x * y
    return total


def shuffle_deck(
    context: HandContext, player: str, joint_key: Point, deck: Deck, permutation: Sequence[int] | None = None
) -> tuple[Deck, ShuffleProof]:
    """Output card i is input card ``permutation[i]`` re-randomised; returns the new deck and its proof."""
    size = len(deck)
    pi = tuple(permutation) if permutation is not None else random_permutation(size)
    if sorted(pi) != list(range(size)):
        raise MentalPokerError(f"not a permutation of {size} positions", player, "shuffle")
    rerand = [Scalar.random() for _ in range(size)]
    deck_out = tuple(deck[pi[i]].rerandomise(joint_key, rerand[i]) for i in range(size))
    proof = prove_shuffle(context, player, joint_key, deck, deck_out, pi, rerand)
    return deck_out, proof


def prove_shuffle(context: HandContext, player: str, joint_key: Point, deck_in: Deck, deck_out: Deck,
                  pi: Sequence[int], rerand: Sequence[Scalar]) -> ShuffleProof:
    """The prover of §5 for a claimed witness; it does not check the witness (tests use it as a cheating prover)."""
    size = len(deck_in)
    gens = shuffle_generators(size)
    r, u = _commit_permutation(pi, gens)
    fs, e = _start(context, player, joint_key, deck_in, deck_out, gens, u)
    e_perm = [e[pi[j]] for j in range(size)]
    r_hat, chain, r_hat_total = _product_chain(e_perm, gens.h)

    w1, w2, w3, w4 = (Scalar.random() for _ in range(4))
    w_hat = [Scalar.random() for _ in range(size)]
    w_open = [Scalar.random() for _ in range(size)]
    t4a = multi_mult(w_open, [ct.c1 for ct in deck_out]) - base_mult(w4)
    t4b = multi_mult(w_open, [ct.c2 for ct in deck_out]) - joint_key * w4
    previous_links = [gens.h, *chain]
    t_hat = [base_mult(w_hat[j]) + previous_links[j] * w_open[j] for j in range(size)]
    fs.absorb("chain", *chain)
    fs.absorb("commitments", base_mult(w1), base_mult(w2), base_mult(w3) + multi_mult(w_open, gens.hs), t4a, t4b,
              *t_hat)
    v = fs.challenge("v")

    return ShuffleProof(
        commitments=u,
        chain=chain,
        challenge=v,
        responses=(w1 + v * _sum(r), w2 + v * r_hat_total, w3 + v * _dot(e, r), w4 + v * _dot(e_perm, rerand)),
        chain_responses=tuple(w_hat[j] + v * r_hat[j] for j in range(size)),
        opening_responses=tuple(w_open[j] + v * e_perm[j] for j in range(size)),
    )


def _commit_permutation(pi: Sequence[int], gens: ShuffleGenerators) -> tuple[list[Scalar], tuple[Point, ...]]:
    """Randomness r and commitments ``u_i = r_i·G + H_{π⁻¹(i)}``."""
    inverse = [0] * len(pi)
    for i, source in enumerate(pi):
        inverse[source] = i
    r = [Scalar.random() for _ in pi]
    return r, tuple(base_mult(r[i]) + gens.hs[inverse[i]] for i in range(len(pi)))


def _product_chain(e_perm: Sequence[Scalar], h: Point) -> tuple[list[Scalar], tuple[Point, ...], Scalar]:
    """``ĉ_j = r̂_j·G + e'_j·ĉ_{j−1}`` from ``ĉ_0 = H``, and ``R̂`` with ``ĉ_N = R̂·G + (Π e'_j)·H``."""
    r_hat = [Scalar.random() for _ in e_perm]
    chain, previous, total = [], h, ZERO
    for r_j, e_j in zip(r_hat, e_perm):
        previous = base_mult(r_j) + previous * e_j
        chain.append(previous)
        total = r_j + e_j * total
    return r_hat, tuple(chain), total


def verify_shuffle(
    context: HandContext, player: str, joint_key: Point, deck_in: Deck, deck_out: Deck, proof: ShuffleProof
) -> None:
    """Raise ``MentalPokerError`` naming ``player`` and step ``shuffle`` unless ``proof`` proves the shuffle."""
    with blame(player, "shuffle"):
        _verify(context, player, joint_key, deck_in, deck_out, proof)


def _check_shapes(size: int, deck_out: Deck, proof: ShuffleProof) -> None:
    lengths = {
        "output deck": len(deck_out), "permutation commitment": len(proof.commitments), "chain": len(proof.chain),
        "chain responses": len(proof.chain_responses), "opening responses": len(proof.opening_responses),
    }
    for what, length in lengths.items():
        if length != size:
            raise MentalPokerError(f"{what} has {length} entries for a deck of {size}")
    if len(proof.responses) != 4:
        raise MentalPokerError("a shuffle proof needs four responses k1..k4")


def _verify(context: HandContext, player: str, joint_key: Point, deck_in: Deck, deck_out: Deck,
            proof: ShuffleProof) -> None:
    size = len(deck_in)
    if size == 0:
        raise MentalPokerError("cannot shuffle an empty deck")
    _check_shapes(size, deck_out, proof)
    validate([p for ct in deck_out for p in (ct.c1, ct.c2)], "output deck point")
    validate(proof.commitments, "permutation commitment")
    validate(proof.chain, "chain commitment")
    gens = shuffle_generators(size)
    fs, e = _start(context, player, joint_key, deck_in, deck_out, gens, proof.commitments)

    v, (k1, k2, k3, k4) = proof.challenge, proof.responses
    k_open, k_hat = proof.opening_responses, proof.chain_responses
    ve = [v * x for x in e]
    t1 = base_mult(k1) - (point_sum(proof.commitments) - point_sum(gens.hs)) * v
    t2 = base_mult(k2) - (proof.chain[-1] - gens.h * _product(e)) * v
    t3 = base_mult(k3) + multi_mult(k_open, gens.hs) - multi_mult(ve, proof.commitments)
    t4a = multi_mult(k_open, [ct.c1 for ct in deck_out]) - base_mult(k4) - multi_mult(ve, [ct.c1 for ct in deck_in])
    t4b = multi_mult(k_open, [ct.c2 for ct in deck_out]) - joint_key * k4 - multi_mult(ve, [ct.c2 for ct in deck_in])
    previous = (gens.h,) + proof.chain
    t_hat = [base_mult(k_hat[j]) + previous[j] * k_open[j] - proof.chain[j] * v for j in range(size)]
    fs.absorb("chain", *proof.chain)
    fs.absorb("commitments", t1, t2, t3, t4a, t4b, *t_hat)
    if fs.challenge("v") != v:
        raise MentalPokerError("the shuffle proof does not verify: the output is not a proven re-encrypted permutation")
