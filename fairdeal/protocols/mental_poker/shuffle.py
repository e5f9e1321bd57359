"""A proven shuffle: permute and re-encrypt a deck, with the Terelius–Wikström proof of a shuffle.

The exact proof system (statement, prover, verifier, what is hashed, soundness) is section 5 of
``protocols/mental-poker.md``; names below follow it (``u``, ``ĉ`` = chain, ``k1..k4``, ``k̂``, ``k'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.elgamal import Ciphertext
from fairdeal.protocols.mental_poker.fiat_shamir import FiatShamir, HandContext
from fairdeal.protocols.mental_poker.group import (
    BASE,
    ORDER,
    ZERO,
    Combination,
    Point,
    Scalar,
    base_mult,
    blame,
    hash_to_point,
    multi_mult,
    random_weight,
    secret_below,
    validate,
)

Deck = tuple[Ciphertext, ...]


@dataclass(frozen=True)
class ShuffleProof:
    commitments: tuple[Point, ...]  # u_i = r_i·G + H_{π⁻¹(i)}
    chain: tuple[Point, ...]  # ĉ_1..ĉ_N
    t: tuple[Point, ...]  # T1, T2, T3, T4a, T4b
    t_chain: tuple[Point, ...]  # T̂_1..T̂_N
    responses: tuple[Scalar, Scalar, Scalar, Scalar]  # k1..k4
    chain_responses: tuple[Scalar, ...]  # k̂_j
    opening_responses: tuple[Scalar, ...]  # k'_j


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
    """A uniform permutation (Fisher-Yates over ``secret_below``: the OS generator, or the party's own stream)."""
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = secret_below(i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def _start(
    context: HandContext,
    player: str,
    joint_key: Point,
    deck_in: Deck,
    deck_out: Deck,
    gens: ShuffleGenerators,
    commitments: Sequence[Point],
) -> tuple[FiatShamir, list[Scalar]]:
    fs = FiatShamir("shuffle", context, player)
    fs.absorb(
        "statement",
        BASE,
        gens.h,
        *gens.hs,
        joint_key,
        *[p for ct in deck_in for p in (ct.c1, ct.c2)],
        *[p for ct in deck_out for p in (ct.c1, ct.c2)],
    )
    fs.absorb("commitment", *commitments)
    return fs, fs.challenges("e", len(deck_in))


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


def prove_shuffle(
    context: HandContext,
    player: str,
    joint_key: Point,
    deck_in: Deck,
    deck_out: Deck,
    pi: Sequence[int],
    rerand: Sequence[Scalar],
) -> ShuffleProof:
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
    # Σ ω'_j·w'_j − ω4·(G, Y), computed from the witness w'_j = w_{π(j)} + s_j·(G, Y): the same points for an
    # honest output, and the first shuffle's c1 = G everywhere then costs one fixed-base multiplication.
    shift = _dot(w_open, rerand) - w4
    t4a = multi_mult(w_open, [deck_in[pi[j]].c1 for j in range(size)]) + base_mult(shift)
    t4b = multi_mult(w_open, [deck_in[pi[j]].c2 for j in range(size)]) + joint_key * shift
    previous_links = [gens.h, *chain]
    t_hat = tuple(base_mult(w_hat[j]) + previous_links[j] * w_open[j] for j in range(size))
    t = (base_mult(w1), base_mult(w2), base_mult(w3) + multi_mult(w_open, gens.hs), t4a, t4b)
    fs.absorb("chain", *chain)
    fs.absorb("commitments", *t, *t_hat)
    v = fs.challenge("v")

    return ShuffleProof(
        commitments=u,
        chain=chain,
        t=t,
        t_chain=t_hat,
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


@dataclass(frozen=True)
class ShuffleClaim:
    """One shuffle to check: who claims ``deck_out`` is a re-encrypted permutation of ``deck_in``, and the proof."""

    player: str
    deck_in: Deck
    deck_out: Deck
    proof: ShuffleProof


def verify_shuffle(
    context: HandContext, player: str, joint_key: Point, deck_in: Deck, deck_out: Deck, proof: ShuffleProof
) -> None:
    """Raise ``MentalPokerError`` naming ``player`` and step ``shuffle`` unless ``proof`` proves the shuffle."""
    verify_shuffles(context, joint_key, [ShuffleClaim(player, deck_in, deck_out, proof)])


def verify_shuffles(context: HandContext, joint_key: Point, claims: Sequence[ShuffleClaim]) -> None:
    """Check several shuffles at once: every verification equation of every proof, each times a fresh random
    weight, summed into one combination that must be the identity. A point shared by equations or proofs (the
    generators, the joint key, a deck that is one shuffle's output and the next one's input) then costs one
    multiplication. If the sum fails, each proof is checked alone so that the error names its player."""
    combination = Combination()
    for claim in claims:
        with blame(claim.player, "shuffle"):
            add_shuffle_equations(context, claim, joint_key, combination)
    if combination.is_identity():
        return
    for claim in claims:
        alone = Combination()
        with blame(claim.player, "shuffle"):
            add_shuffle_equations(context, claim, joint_key, alone)
            if not alone.is_identity():
                raise MentalPokerError(
                    "the shuffle proof does not verify: the output is not a proven re-encrypted permutation"
                )
    raise MentalPokerError("the shuffle proofs do not verify together", step="shuffle")


def _check_shapes(size: int, deck_out: Deck, proof: ShuffleProof) -> None:
    lengths = {
        "output deck": len(deck_out),
        "permutation commitment": len(proof.commitments),
        "chain": len(proof.chain),
        "chain commitments": len(proof.t_chain),
        "chain responses": len(proof.chain_responses),
        "opening responses": len(proof.opening_responses),
    }
    for what, length in lengths.items():
        if length != size:
            raise MentalPokerError(f"{what} has {length} entries for a deck of {size}")
    if len(proof.responses) != 4 or len(proof.t) != 5:
        raise MentalPokerError("a shuffle proof needs five commitments T1..T4b and four responses k1..k4")


def add_shuffle_equations(
    context: HandContext, claim: ShuffleClaim, joint_key: Point, out: Combination, validate_points: bool = True
) -> None:
    """Add the claim's six kinds of verification equations (§5), each weighted, after validating its points (a
    caller that evaluates ``out`` before trusting anything may leave that to the evaluation)."""
    deck_in, deck_out, proof = claim.deck_in, claim.deck_out, claim.proof
    size = len(deck_in)
    if size == 0:
        raise MentalPokerError("cannot shuffle an empty deck")
    _check_shapes(size, deck_out, proof)
    if validate_points:
        validate([p for ct in deck_out for p in (ct.c1, ct.c2)], "output deck point")
        validate(proof.commitments, "permutation commitment")
        validate(proof.chain, "chain commitment")
        validate(proof.t + proof.t_chain, "proof commitment")
    gens = shuffle_generators(size)
    fs, e = _start(context, claim.player, joint_key, deck_in, deck_out, gens, proof.commitments)
    fs.absorb("chain", *proof.chain)
    fs.absorb("commitments", *proof.t, *proof.t_chain)
    v = int(fs.challenge("v"))
    # Integers modulo ℓ, reduced where products would grow; the combination reduces each coefficient at the end.
    e_int = [int(x) for x in e]
    k1, k2, k3, k4 = (int(k) for k in proof.responses)
    k_open = [int(k) for k in proof.opening_responses]
    k_hat = [int(k) for k in proof.chain_responses]
    r1, r2, r3, r4a, r4b = (random_weight() for _ in range(5))
    r_hat = [random_weight() for _ in range(size)]
    # Weight times challenge, once per proof, so that each term below costs one multiplication.
    r1v, r3v, r4av, r4bv = r1 * v % ORDER, -r3 * v % ORDER, -r4a * v % ORDER, -r4b * v % ORDER
    # E1: k1·G − v·Σu + v·ΣH_j = T1      E3: k3·G + Σk'_j·H_j − Σ v·e_i·u_i = T3
    out.add_integers([r3v * x - r1v for x in e_int], proof.commitments)
    out.add_integers([r1v + r3 * k for k in k_open], gens.hs)
    # E2: k2·G − v·ĉ_N + v·(Πe)·H = T2
    out.add_integer(-r2 * v, proof.chain[-1])
    product = 1
    for x in e_int:
        product = product * x % ORDER
    out.add_integer(r2 * v % ORDER * product, gens.h)
    # E4: −k4·G + Σk'_j·w'_j − Σ v·e_i·w_i = T4 (both components)
    out.add_integers([r4a * k for k in k_open], [ct.c1 for ct in deck_out])
    out.add_integers([r4b * k for k in k_open], [ct.c2 for ct in deck_out])
    out.add_integers([r4av * x for x in e_int], [ct.c1 for ct in deck_in])
    out.add_integers([r4bv * x for x in e_int], [ct.c2 for ct in deck_in])
    out.add_integer(-r4b * k4, joint_key)
    # Ê_j: k̂_j·G + k'_j·ĉ_{j−1} − v·ĉ_j = T̂_j
    previous = (gens.h,) + proof.chain
    minus_v = -v
    out.add_integers([r_hat[j] * k_open[j] for j in range(size)], previous[:size])
    out.add_integers([r * minus_v for r in r_hat], proof.chain)
    out.add_integer(r1 * k1 + r2 * k2 + r3 * k3 - r4a * k4 + sum(r * k for r, k in zip(r_hat, k_hat)), BASE)
    out.add_integers([-r for r in (r1, r2, r3, r4a, r4b)], proof.t)
    out.add_integers([-r for r in r_hat], proof.t_chain)
