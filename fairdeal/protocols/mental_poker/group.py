"""The prime-order group ristretto255 (order ℓ = 2^252 + 2774...8493) through libsodium, as bundled by ``rbcl``.

Ristretto255 is edwards25519 with the cofactor quotiented out: every valid encoding is an element of the
prime-order group, so there are no small-order or mixed-order points to filter, and a multiplication need not
re-check subgroup membership (libsodium's ed25519 ``noclamp`` multiplication does, which doubles its cost).
pynacl does not expose ristretto255; ``rbcl`` wraps the same libsodium functions.

Everything below this module is a library: libsodium for scalar multiplication, point addition, scalar
arithmetic modulo ℓ and hash-to-group (``crypto_core_ristretto255_from_hash``); for verifiers, a multi-scalar
multiplication (``_msm.c``: the bucket method over libdecaf's ristretto255 arithmetic, the same group and
encoding), because libsodium offers one call per multiplication and every call decodes and re-encodes its points.
This module adds only what a protocol needs on top: typed values, the identity element, strict validation of
received bytes, sums gathered by point, and a count of the work for the benchmark.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import rbcl

from fairdeal.errors import MentalPokerError

try:
    from fairdeal.protocols import _msm  # type: ignore[attr-defined]  # C extension (setup.py), no stub
except ImportError:  # built only where libdecaf is installed (setup.py); libsodium alone then does the sums
    _msm = None

ORDER = 2**252 + 27742317777372353535851937790883648493
DOMAIN = b"fairdeal/mental-poker/v2/"
_IDENTITY_BYTES = bytes(32)


MSM_BACKEND = "libdecaf bucket method" if _msm else "libsodium, one multiplication per term"


class MultCounter(threading.local):
    """Work done by the calling thread, by kind: libsodium's variable-base and fixed-base multiplications (a
    fixed-base one costs about a third), and the multi-scalar multiplications with the points they summed. Per
    thread, so a seat still computing after its timeout does not count towards the table's measure."""

    def __init__(self) -> None:
        self.variable = 0
        self.fixed_base = 0
        self.msm_calls = 0
        self.msm_points = 0

    @property
    def total(self) -> int:
        return self.variable + self.fixed_base

    def reset(self) -> None:
        self.variable = self.fixed_base = self.msm_calls = self.msm_points = 0


MULTS = MultCounter()


@dataclass(frozen=True, slots=True)
class Scalar:
    """An integer modulo ℓ as 32 canonical little-endian bytes."""

    data: bytes

    @staticmethod
    def from_int(value: int) -> Scalar:
        return Scalar((value % ORDER).to_bytes(32, "little"))

    @staticmethod
    def random() -> Scalar:
        # 64 uniform bytes reduced modulo ℓ: bias below 2^-250.
        return Scalar(rbcl.crypto_core_ristretto255_scalar_reduce(secret_bytes(64)))

    @staticmethod
    def from_digest(digest64: bytes) -> Scalar:
        return Scalar(rbcl.crypto_core_ristretto255_scalar_reduce(digest64))

    @staticmethod
    def decode(data: bytes) -> Scalar:
        """A received scalar: exactly 32 bytes encoding an integer below ℓ (non-canonical forms are refused)."""
        if not isinstance(data, bytes) or len(data) != 32:
            raise MentalPokerError("a scalar must be 32 bytes")
        if int.from_bytes(data, "little") >= ORDER:
            raise MentalPokerError("a scalar is not reduced modulo the group order")
        return Scalar(data)

    def __int__(self) -> int:
        return int.from_bytes(self.data, "little")

    def is_zero(self) -> bool:
        return self.data == bytes(32)

    # Arithmetic modulo ℓ in Python integers: the same canonical bytes as libsodium's scalar functions, without a
    # foreign call per operation (a whole-hand verification sums thousands of weighted terms).
    def __add__(self, other: Scalar) -> Scalar:
        return Scalar(((_int(self.data) + _int(other.data)) % ORDER).to_bytes(32, "little"))

    def __sub__(self, other: Scalar) -> Scalar:
        return Scalar(((_int(self.data) - _int(other.data)) % ORDER).to_bytes(32, "little"))

    def __mul__(self, other: Scalar) -> Scalar:
        return Scalar((_int(self.data) * _int(other.data) % ORDER).to_bytes(32, "little"))

    def __neg__(self) -> Scalar:
        return Scalar((-_int(self.data) % ORDER).to_bytes(32, "little"))

    def invert(self) -> Scalar:
        if self.is_zero():
            raise MentalPokerError("zero has no inverse modulo the group order")
        return Scalar(rbcl.crypto_core_ristretto255_scalar_invert(self.data))

    def hex(self) -> str:
        return self.data.hex()


def _int(data: bytes) -> int:
    return int.from_bytes(data, "little")


ZERO = Scalar(bytes(32))
ONE = Scalar.from_int(1)


@dataclass(frozen=True, slots=True)
class Point:
    """An element of the prime-order group, as its 32-byte canonical ristretto255 encoding."""

    data: bytes

    @staticmethod
    def decode(data: bytes, allow_identity: bool = False) -> Point:
        """A received point: a canonical ristretto255 encoding; the identity only if allowed."""
        if not isinstance(data, bytes) or len(data) != 32:
            raise MentalPokerError("a point must be 32 bytes")
        if data == _IDENTITY_BYTES:
            if allow_identity:
                return IDENTITY
            raise MentalPokerError("the identity point is not allowed here")
        if not _is_canonical_element(data):
            raise MentalPokerError("not a valid group element (not a canonical ristretto255 encoding)")
        return Point(data)

    @property
    def is_identity(self) -> bool:
        return self.data == _IDENTITY_BYTES

    def __add__(self, other: Point) -> Point:
        return Point(rbcl.crypto_core_ristretto255_add(self.data, other.data))

    def __sub__(self, other: Point) -> Point:
        return Point(rbcl.crypto_core_ristretto255_sub(self.data, other.data))

    def __neg__(self) -> Point:
        return IDENTITY - self

    def __mul__(self, scalar: Scalar) -> Point:
        return scalar_mult(scalar, self)

    __rmul__ = __mul__

    def hex(self) -> str:
        return self.data.hex()


IDENTITY = Point(_IDENTITY_BYTES)


def _is_canonical_element(data: bytes) -> bool:
    # libsodium 1.0.18 ignores the top bit when decoding, so 00..80 would pass as a second encoding of the
    # identity: refuse the bit here, keeping one encoding per element.
    return data[31] & 0x80 == 0 and bool(rbcl.crypto_core_ristretto255_is_valid_point(data))


def validate(points: Sequence[Point], what: str) -> None:
    """Strictly validate received points (see ``Point.decode``); the message names ``what`` failed."""
    for index, point in enumerate(points):
        if point.is_identity or len(point.data) != 32 or not _is_canonical_element(point.data):
            raise MentalPokerError(f"{what} [{index}] is not a valid non-identity group element")


def scalar_mult(scalar: Scalar, point: Point) -> Point:
    """``scalar * point``; the identity and zero are handled here, not by libsodium (which refuses them)."""
    if scalar.is_zero() or point.is_identity:
        return IDENTITY
    MULTS.variable += 1
    try:
        return Point(rbcl.crypto_scalarmult_ristretto255(scalar.data, point.data))
    except Exception:
        # libsodium refuses undecodable inputs; a validated point never gets here.
        raise MentalPokerError("scalar multiplication of an invalid point") from None


def base_mult(scalar: Scalar) -> Point:
    """``scalar * G`` for the standard base point, using libsodium's precomputed table."""
    if scalar.is_zero():
        return IDENTITY
    MULTS.fixed_base += 1
    return Point(rbcl.crypto_scalarmult_ristretto255_base(scalar.data))


BASE = base_mult(ONE)


def multi_mult(scalars: Sequence[Scalar], points: Sequence[Point]) -> Point:
    """``Σ scalars[i] * points[i]`` in constant time, for secret scalars: one libsodium multiplication per distinct
    point (a repeated point is multiplied once, ``G`` by the fixed-base table)."""
    total = IDENTITY
    for data, scalar in _merged(scalars, points).items():
        total = total + (base_mult(scalar) if data == BASE.data else scalar_mult(scalar, Point(data)))
    return total


def multi_mult_vartime(scalars: Sequence[Scalar], points: Sequence[Point]) -> Point:
    """``Σ scalars[i] * points[i]`` for public scalars only (its time depends on them). Every point must be a valid
    non-identity element; a received point therefore needs no separate validation when it enters such a sum."""
    merged = _merged(scalars, points)
    if _msm is None:
        return _libsodium_sum(merged)
    return _msm_sum(b"".join(s.data for s in merged.values()), b"".join(merged), len(merged))


def _msm_sum(scalars: bytes, points: bytes, count: int) -> Point:
    assert _msm is not None
    MULTS.msm_calls += 1
    MULTS.msm_points += count
    try:
        return Point(_msm.msm(scalars, points))
    except ValueError as error:
        raise MentalPokerError(f"a sum of multiples cannot be formed: {error}") from None


def _libsodium_sum(merged: dict[bytes, Scalar]) -> Point:
    """The sum without libdecaf: terms ±1 (sums of points, decryptions) as additions, the rest multiplied."""
    validate([Point(data) for data in merged], "a point of the sum")
    minus_one = -ONE
    total, multiples = IDENTITY, {}
    for data, scalar in merged.items():
        if scalar in (ONE, minus_one):
            total = total + Point(data) if scalar == ONE else total - Point(data)
        else:
            multiples[data] = scalar
    return total + multi_mult(list(multiples.values()), [Point(data) for data in multiples])


def _merged(scalars: Sequence[Scalar], points: Sequence[Point]) -> dict[bytes, Scalar]:
    if len(scalars) != len(points):
        raise MentalPokerError(f"{len(scalars)} scalars for {len(points)} points")
    merged: dict[bytes, Scalar] = {}
    for scalar, point in zip(scalars, points):
        merged[point.data] = merged[point.data] + scalar if point.data in merged else scalar
    return merged


def point_sum(points: Sequence[Point]) -> Point:
    """The sum of public points, each a valid non-identity element."""
    return multi_mult_vartime([ONE] * len(points), points) if points else IDENTITY


_DRAWS: ContextVar[Callable[[int], bytes]] = ContextVar("fairdeal_mental_poker_draws", default=os.urandom)


def secret_bytes(count: int) -> bytes:
    """``count`` random bytes for a party's secrets (key shares, shuffles, proof nonces, commitment nonces): the
    operating system's, or inside ``drawn_from`` a stream of the party's own."""
    return _DRAWS.get()(count)


def secret_below(bound: int) -> int:
    """A uniform integer in ``[0, bound)`` from ``secret_bytes`` (rejection sampling, no modulo bias)."""
    limit = (1 << 64) - (1 << 64) % bound
    while (value := int.from_bytes(secret_bytes(8), "little")) >= limit:
        pass
    return value % bound


@contextmanager
def drawn_from(seed: bytes) -> Iterator[None]:
    """Inside, every ``secret_bytes`` is SHAKE256 of the secret ``seed`` and a counter: a party that must make its
    messages again from its own secret (a served table's bot, after a restart) makes the same ones. A verifier's
    batch weights never come from here (``random_weight``): the prover must not be able to foresee them."""
    counter = iter(range(1 << 62))

    def draw(count: int) -> bytes:
        block = next(counter).to_bytes(8, "big")
        return hashlib.shake_256(DOMAIN + b"draw" + len(seed).to_bytes(2, "big") + seed + block).digest(count)

    token = _DRAWS.set(draw)
    try:
        yield
    finally:
        _DRAWS.reset(token)


def random_weight() -> int:
    """A uniform weight modulo ℓ for a batch of verification equations (64 random bytes reduced: bias < 2^-250)."""
    return int.from_bytes(os.urandom(64), "little") % ORDER


class Combination:
    """``Σ coefficient·point`` gathered by point: the verification equations of many proofs, each times a random
    weight, checked by one multi-scalar multiplication in which every distinct point is decoded once.

    Soundness: each equation is ``E_k = 0`` for a group element ``E_k`` fixed before the weights are drawn (by the
    prover's messages and the Fiat-Shamir challenges). In a group of prime order ℓ, if some ``E_k ≠ 0`` then
    ``Σ r_k·E_k`` with independent uniform weights ``r_k`` is the identity with probability exactly 1/ℓ (fix the
    other weights: one value of ``r_k`` cancels the rest), so a false statement passes with probability 2^-252.
    The weights come from the OS generator after the messages are read, so no prover can aim at them.

    Coefficients are kept as Python integers and reduced modulo ℓ once, when the sum is evaluated: the same
    canonical scalars, without a conversion for every product and sum of thousands of weighted terms."""

    def __init__(self) -> None:
        self.terms: dict[bytes, int] = {}

    def add(self, coefficient: Scalar, point: Point) -> None:
        self.add_integer(_int(coefficient.data), point)

    def add_all(self, coefficients: Sequence[Scalar], points: Sequence[Point]) -> None:
        self.add_integers([_int(c.data) for c in coefficients], points)

    def add_integer(self, coefficient: int, point: Point) -> None:
        self.terms[point.data] = self.terms.get(point.data, 0) + coefficient

    def add_integers(self, coefficients: Sequence[int], points: Sequence[Point]) -> None:
        terms, get = self.terms, self.terms.get
        for coefficient, point in zip(coefficients, points):
            terms[point.data] = get(point.data, 0) + coefficient

    def is_identity(self) -> bool:
        """Whether the sum vanishes; a term on an invalid or identity point raises ``MentalPokerError``."""
        if not self.terms:
            return True
        reduced = [(c % ORDER).to_bytes(32, "little") for c in self.terms.values()]
        if _msm is None:
            return _libsodium_sum({data: Scalar(c) for data, c in zip(self.terms, reduced)}).is_identity
        return _msm_sum(b"".join(reduced), b"".join(self.terms), len(reduced)).is_identity


def hash_to_point(label: str) -> Point:
    """A group element nobody knows the logarithm of: SHA-512 of the domain tag and label, then ristretto255's
    hash-to-group (two Elligator 2 maps added)."""
    digest = hashlib.sha512(DOMAIN + label.encode("utf-8")).digest()
    point = Point(rbcl.crypto_core_ristretto255_from_hash(digest))
    return Point.decode(point.data)


@contextmanager
def blame(player: str, step: str) -> Iterator[None]:
    """Attribute any unattributed verification failure inside the block to ``player`` at ``step``."""
    try:
        yield
    except MentalPokerError as error:
        if error.player is None:
            raise MentalPokerError(str(error), player, step) from None
        raise
