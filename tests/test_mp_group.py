"""The ristretto255 group layer: scalar and point algebra, hash-to-group, strict validation of received bytes."""

import hashlib
import re
import threading
from pathlib import Path

import pytest
import rbcl
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.group import (
    BASE,
    IDENTITY,
    MULTS,
    ORDER,
    Point,
    Scalar,
    base_mult,
    blame,
    drawn_from,
    hash_to_point,
    multi_mult,
    secret_below,
    secret_bytes,
    validate,
)

# Encodings of small-order edwards25519 points (identity, order 2, 4, 8) and the two encodings of the
# ristretto255 identity (the second one, with the top bit set, is non-canonical): none may be accepted.
SMALL_ORDER = [
    bytes.fromhex("0100000000000000000000000000000000000000000000000000000000000000"),
    bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    bytes.fromhex("0000000000000000000000000000000000000000000000000000000000000000"),
    bytes.fromhex("0000000000000000000000000000000000000000000000000000000000000080"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
]

scalars = st.integers(min_value=0, max_value=ORDER - 1)
nonzero = st.integers(min_value=1, max_value=ORDER - 1)


def off_curve_bytes() -> bytes:
    """The first even s = 2, 4, ... that is no ristretto255 encoding (the decoder's square root fails)."""
    for s in range(2, 200, 2):
        data = s.to_bytes(32, "little")
        if not rbcl.crypto_core_ristretto255_is_valid_point(data):
            return data
    raise AssertionError("no invalid encoding found")


@settings(max_examples=40, deadline=None)
@given(scalars, scalars)
def test_scalar_arithmetic_is_arithmetic_modulo_the_order(a, b):
    x, y = Scalar.from_int(a), Scalar.from_int(b)
    assert int(x + y) == (a + b) % ORDER
    assert int(x - y) == (a - b) % ORDER
    assert int(x * y) == (a * b) % ORDER
    assert int(-x) == (-a) % ORDER


@settings(max_examples=200, deadline=None)
@given(st.integers(-(2**300), 2**300), st.integers(-(2**300), 2**300))
def test_scalar_arithmetic_gives_libsodiums_bytes(a, b):
    x, y = Scalar.from_int(a), Scalar.from_int(b)
    assert (x + y).data == rbcl.crypto_core_ristretto255_scalar_add(x.data, y.data)
    assert (x - y).data == rbcl.crypto_core_ristretto255_scalar_sub(x.data, y.data)
    assert (x * y).data == rbcl.crypto_core_ristretto255_scalar_mul(x.data, y.data)
    assert (-x).data == rbcl.crypto_core_ristretto255_scalar_negate(x.data)
    assert (x + Scalar.from_int(ORDER - 1)).data == rbcl.crypto_core_ristretto255_scalar_add(
        x.data, (ORDER - 1).to_bytes(32, "little")
    )


@settings(max_examples=20, deadline=None)
@given(nonzero)
def test_inverse_times_scalar_is_one(a):
    x = Scalar.from_int(a)
    assert int(x * x.invert()) == 1


@settings(max_examples=15, deadline=None)
@given(nonzero, nonzero)
def test_scalar_multiplication_is_a_homomorphism(a, b):
    x, y = Scalar.from_int(a), Scalar.from_int(b)
    assert base_mult(x + y) == base_mult(x) + base_mult(y)
    assert base_mult(x) * y == base_mult(x * y)
    assert base_mult(x) - base_mult(x) == IDENTITY


def test_order_times_base_is_identity_and_zero_is_handled():
    assert base_mult(Scalar.from_int(ORDER)) == IDENTITY
    assert BASE * Scalar.from_int(0) == IDENTITY
    assert IDENTITY * Scalar.from_int(5) == IDENTITY
    assert BASE + IDENTITY == BASE


def test_multi_mult_equals_the_sum_of_products():
    s = [Scalar.from_int(k) for k in (3, 5, 7)]
    p = [hash_to_point(f"test/{k}") for k in range(3)]
    assert multi_mult(s, p) == p[0] * s[0] + p[1] * s[1] + p[2] * s[2]
    with pytest.raises(MentalPokerError):
        multi_mult(s, p[:2])


def test_hash_to_point_is_domain_separated_sha512_then_hash_to_group():
    digest = hashlib.sha512(b"fairdeal/mental-poker/v2/card/AS").digest()
    expected = rbcl.crypto_core_ristretto255_from_hash(digest)
    assert hash_to_point("card/AS").data == expected
    assert hash_to_point("card/AS") != hash_to_point("card/AH")
    assert rbcl.crypto_core_ristretto255_is_valid_point(expected)


def test_random_scalars_are_canonical_and_distinct():
    values = {Scalar.random().data for _ in range(50)}
    assert len(values) == 50
    assert all(int.from_bytes(v, "little") < ORDER for v in values)


def test_counter_counts_each_kind():
    MULTS.reset()
    base_mult(Scalar.from_int(9))
    BASE * Scalar.from_int(9)
    assert (MULTS.fixed_base, MULTS.variable, MULTS.total) == (1, 1, 2)


def test_counter_counts_only_the_calling_threads_work():
    # A seat that timed out keeps computing in its own thread; the table's measure must not include it.
    MULTS.reset()
    worker = threading.Thread(target=lambda: [base_mult(Scalar.from_int(5)) for _ in range(3)])
    worker.start()
    worker.join()
    base_mult(Scalar.from_int(9))
    assert (MULTS.fixed_base, MULTS.variable) == (1, 0)


@pytest.mark.parametrize("data", SMALL_ORDER)
def test_small_order_points_are_refused(data):
    with pytest.raises(MentalPokerError):
        Point.decode(data)
    with pytest.raises(MentalPokerError):
        validate([Point(data)], "test point")


def test_identity_only_where_allowed():
    assert Point.decode(IDENTITY.data, allow_identity=True) == IDENTITY
    with pytest.raises(MentalPokerError, match="identity"):
        Point.decode(IDENTITY.data)


def test_invalid_negative_and_non_canonical_encodings_are_refused():
    with pytest.raises(MentalPokerError, match="not a valid group element"):
        Point.decode(off_curve_bytes())
    # s = 1 is odd ("negative"): ristretto255 refuses it, as it refuses s >= p and the top bit.
    with pytest.raises(MentalPokerError):
        Point.decode((1).to_bytes(32, "little"))
    with pytest.raises(MentalPokerError):
        Point.decode((2**255 - 19 + 2).to_bytes(32, "little"))
    with pytest.raises(MentalPokerError):
        Point.decode(bytes(BASE.data[:31]) + bytes([BASE.data[31] | 0x80]))
    with pytest.raises(MentalPokerError):
        Point.decode(BASE.data[:31])
    assert Point.decode(BASE.data) == BASE


def test_non_canonical_scalars_are_refused():
    with pytest.raises(MentalPokerError, match="not reduced"):
        Scalar.decode(ORDER.to_bytes(32, "little"))
    with pytest.raises(MentalPokerError):
        Scalar.decode(b"\x01" * 31)
    assert int(Scalar.decode((ORDER - 1).to_bytes(32, "little"))) == ORDER - 1


def test_blame_names_player_and_step():
    with pytest.raises(MentalPokerError) as caught, blame("west", "keys"):
        Point.decode(SMALL_ORDER[0])
    assert (caught.value.player, caught.value.step) == ("west", "keys")
    assert "player west, step keys" in str(caught.value)


def test_multi_mult_merges_repeated_points_into_one_multiplication():
    s = [Scalar.from_int(k) for k in (3, 5, 7, 11)]
    p = [BASE, BASE, hash_to_point("test/0"), hash_to_point("test/0")]
    expected = BASE * Scalar.from_int(8) + p[2] * Scalar.from_int(18)
    MULTS.reset()
    assert multi_mult(s, p) == expected
    assert (MULTS.fixed_base, MULTS.variable) == (1, 1)


def test_hash_to_point_vectors_of_the_spec():
    """protocols/mental-poker.md §10 lists hash_to_point outputs; every row must match."""
    spec = (Path(__file__).resolve().parent.parent / "protocols" / "mental-poker.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{64})` \|$", spec, flags=re.MULTILINE)
    assert len(rows) == 6
    for label, point in rows:
        assert hash_to_point(label).hex() == point, label


@given(st.binary(min_size=1, max_size=64), st.binary(min_size=1, max_size=64), st.integers(1, 2**40))
def test_a_seeded_stream_repeats_itself_and_no_other(seed, other, bound):
    """Inside ``drawn_from`` every secret draw is the seed's own (the same again for the same seed, different for
    another); below a bound it stays below it; outside, the draws are the OS's again."""
    with drawn_from(seed):
        first = (secret_bytes(32), Scalar.random(), secret_below(bound))
    with drawn_from(seed):
        again = (secret_bytes(32), Scalar.random(), secret_below(bound))
    assert first == again and 0 <= first[2] < bound
    if other != seed:
        with drawn_from(other):
            assert secret_bytes(32) != first[0]
    assert secret_bytes(32) != secret_bytes(32)
