"""Ed25519 signatures that satisfy the cofactorless equation but that no honest signer makes."""

from __future__ import annotations

import hashlib

from fairdeal.protocols.identity import IdentityKey

ORDER = 2**252 + 27742317777372353535851937790883648493  # the order of Ed25519's base point
NEUTRAL = bytes([1]) + bytes(31)  # the neutral element of edwards25519, a small-order point


def small_order_commitment(seed: bytes, message: bytes) -> tuple[IdentityKey, bytes]:
    """The key of ``seed`` and its signature of ``message`` with R the neutral element: s = k·a makes [s]B − [k]A
    vanish, so the equation holds; an honest R is [r]B for a hashed r, never of small order."""
    key = IdentityKey.from_seed(seed)
    digest = bytearray(hashlib.sha512(seed).digest()[:32])
    digest[0] &= 248
    digest[31] = (digest[31] & 127) | 64
    secret = int.from_bytes(digest, "little")
    k = int.from_bytes(hashlib.sha512(NEUTRAL + key.public.raw + message).digest(), "little") % ORDER
    return key, NEUTRAL + (k * secret % ORDER).to_bytes(32, "little")
