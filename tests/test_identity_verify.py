"""``PublicKey.verify`` runs on libsodium: it must accept no signature OpenSSL refuses, and refuse the
small-order forgeries OpenSSL lets through."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st
from signature_forgeries import NEUTRAL as IDENTITY
from signature_forgeries import ORDER, small_order_commitment

from fairdeal.protocols.identity import IdentityKey, PublicKey, _remembered


def openssl_accepts(public: bytes, message: bytes, signature: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except InvalidSignature:
        return False
    return True


def verdict(public: PublicKey, message: bytes, signature: bytes) -> bool:
    _remembered.cache_clear()
    return public.verify(message, signature)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    message=st.binary(max_size=300),
    where=st.integers(min_value=0, max_value=63),
    flip=st.integers(min_value=0, max_value=255),
    alter=st.sampled_from(["none", "signature", "message"]),
)
def test_same_verdict_as_openssl_on_genuine_and_altered_signatures(seed, message, where, flip, alter):
    key = IdentityKey.from_seed(seed)
    signature = key.sign(message)
    if alter == "signature":
        signature = signature[:where] + bytes([signature[where] ^ (flip or 1)]) + signature[where + 1 :]
    elif alter == "message":
        message = message + bytes([flip])
    expected = openssl_accepts(key.public.raw, message, signature)
    assert verdict(key.public, message, signature) == expected
    assert expected == (alter == "none")


def test_refuses_a_non_canonical_response_as_openssl_does():
    key = IdentityKey.from_seed(bytes(range(32)))
    message = b"hand 7"
    signature = key.sign(message)
    s = int.from_bytes(signature[32:], "little") + ORDER  # the same scalar, not reduced: still < 2^256
    malleated = signature[:32] + s.to_bytes(32, "little")
    assert not openssl_accepts(key.public.raw, message, malleated)
    assert not verdict(key.public, message, malleated)
    assert verdict(key.public, message, signature)


def test_refuses_the_universal_forgery_of_a_small_order_key_that_openssl_accepts():
    """With the neutral element as a roster key, R = neutral and s = 0 satisfy the equation for every message:
    OpenSSL accepts it, so a seat holding such a key would have statements anyone could make."""
    forged = IDENTITY + bytes(32)
    public = PublicKey(IDENTITY)
    for message in (b"", b"seed-reveal", bytes(range(200))):
        assert openssl_accepts(IDENTITY, message, forged)
        assert not verdict(public, message, forged)


def test_refuses_malformed_signatures():
    key = IdentityKey.from_seed(bytes([7]) * 32)
    signature = key.sign(b"m")
    assert not verdict(key.public, b"m", signature[:63])
    assert not verdict(key.public, b"m", signature + b"\0")
    assert not verdict(key.public, b"m", bytes(64))


def test_refuses_a_key_holders_signature_with_a_small_order_commitment():
    """A key holder can sign with R the neutral element: OpenSSL accepts it; no honest signer produces one, and
    libsodium refuses it."""
    message = b"settlement"
    key, crafted = small_order_commitment(bytes(range(32, 64)), message)
    assert openssl_accepts(key.public.raw, message, crafted)
    assert not verdict(key.public, message, crafted)
