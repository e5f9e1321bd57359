"""The verifier's multi-scalar multiplication (libdecaf, bucket method) against libsodium's one-by-one products,
both backends of ``multi_mult_vartime``, and the observer's one-batch check of a whole hand against the
message-by-message check."""

import random
from pathlib import Path

import pytest
import rbcl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mp_group import SMALL_ORDER, off_curve_bytes
from test_mp_hand import SETUP, scripted_hand

from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker import group as mp_group
from fairdeal.protocols.mental_poker.group import (
    IDENTITY,
    MULTS,
    ORDER,
    Combination,
    Point,
    Scalar,
    hash_to_point,
    multi_mult,
    multi_mult_vartime,
    point_sum,
)
from fairdeal.protocols.mental_poker.protocol import Checkpoints, verify_hand
from fairdeal.protocols.mental_poker.tamper import random_mutations

POINTS = [hash_to_point(f"test/msm/{k}") for k in range(12)]
HEADER = Path("/usr/include/decaf/decaf/point_255.h")
needs_extension = pytest.mark.skipif(mp_group._msm is None, reason="built only where libdecaf is installed")

# Short, negative (ℓ - small), the two halves around (ℓ - 1) / 2 and full-size scalars: every recoding path.
scalar_values = st.one_of(
    st.integers(0, 2**16),
    st.integers(ORDER - 2**16, ORDER - 1),
    st.integers(ORDER // 2 - 2, ORDER // 2 + 2),
    st.integers(0, ORDER - 1),
)
terms = st.lists(st.tuples(scalar_values, st.integers(0, len(POINTS) - 1)), min_size=1, max_size=40)


@pytest.fixture(params=["libdecaf", "libsodium"])
def backend(request, monkeypatch):
    if request.param == "libsodium":
        monkeypatch.setattr(mp_group, "_msm", None)
    elif mp_group._msm is None:
        pytest.skip("the libdecaf extension is not built here")
    return request.param


def test_the_extension_is_built_wherever_libdecaf_is_installed():
    if HEADER.exists():
        assert mp_group._msm is not None, "libdecaf is installed but fairdeal/protocols/_msm.c was not built"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(terms)
def test_vartime_sum_equals_libsodium_products_on_both_backends(backend, chosen):
    scalars = [Scalar.from_int(value) for value, _ in chosen]
    points = [POINTS[which] for _, which in chosen]
    expected = IDENTITY
    for scalar, point in zip(scalars, points):
        expected = expected + point * scalar
    assert multi_mult_vartime(scalars, points) == expected == multi_mult(scalars, points)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(1, ORDER - 1), min_size=40, max_size=40), st.integers(0, 2**32 - 1))
def test_a_large_sum_uses_wide_windows_and_stays_exact(drawn, seed):
    # 300 full-size scalars drawn by hypothesis would pass its 8 KiB budget; the rest come from a drawn seed.
    rng = random.Random(seed)
    values = drawn + [rng.randrange(1, ORDER) for _ in range(260)]
    points = [hash_to_point(f"test/msm/large/{k}") for k in range(len(values))]
    scalars = [Scalar.from_int(v) for v in values]
    assert multi_mult_vartime(scalars, points) == multi_mult(scalars, points)


def test_point_sum_and_an_empty_sum(backend):
    assert point_sum(POINTS[:3]) == POINTS[0] + POINTS[1] + POINTS[2]
    assert point_sum([]) == IDENTITY
    assert multi_mult_vartime([Scalar.from_int(5), Scalar.from_int(-5)], [POINTS[4], POINTS[4]]) == IDENTITY


@pytest.mark.parametrize("data", SMALL_ORDER + [b"\xff" * 32])
def test_an_invalid_or_identity_point_in_a_sum_is_refused_on_both_backends(backend, data):
    with pytest.raises(MentalPokerError):
        multi_mult_vartime([Scalar.from_int(3), Scalar.from_int(4)], [POINTS[0], Point(data)])


def test_an_off_curve_point_in_a_combination_is_refused(backend):
    combination = Combination()
    combination.add(Scalar.from_int(1), POINTS[0])
    combination.add(Scalar.from_int(2), Point(off_curve_bytes()))
    with pytest.raises(MentalPokerError):
        combination.is_identity()


def _accepted_by_libdecaf(data: bytes) -> bool:
    try:
        mp_group._msm.msm(Scalar.from_int(1).data, data)
    except ValueError:
        return False
    return True


P25519 = 2**255 - 19
valid = st.integers(1, 10**6).map(lambda k: hash_to_point(f"test/msm/valid/{k}").data)
ENCODINGS = st.one_of(
    st.binary(min_size=32, max_size=32),
    st.integers(0, 2**16).map(lambda k: (P25519 + k).to_bytes(32, "little")),  # s ≥ p: not canonical
    valid,
    valid.map(lambda data: data[:31] + bytes([data[31] | 0x80])),  # top bit set
    valid.map(lambda data: (P25519 - int.from_bytes(data, "little")).to_bytes(32, "little")),  # -s: odd
)


def _accepted_by_libsodium(data: bytes) -> bool:
    return data != IDENTITY.data and data[31] & 0x80 == 0 and bool(rbcl.crypto_core_ristretto255_is_valid_point(data))


@needs_extension
@settings(max_examples=400, deadline=None)
@given(ENCODINGS)
def test_libdecaf_accepts_exactly_the_encodings_libsodium_accepts(data):
    accepted = _accepted_by_libsodium(data)
    assert _accepted_by_libdecaf(data) == accepted
    if accepted:
        assert mp_group._msm.msm(Scalar.from_int(1).data, data) == data  # and decodes to the same element


@needs_extension
@pytest.mark.parametrize("data", SMALL_ORDER)
def test_libdecaf_refuses_every_small_order_and_identity_encoding(data):
    assert not _accepted_by_libdecaf(data)


@needs_extension
def test_the_extension_names_the_first_bad_input():
    one = Scalar.from_int(1).data
    with pytest.raises(ValueError, match="point 1 "):
        mp_group._msm.msm(one * 2, POINTS[0].data + bytes(32))
    with pytest.raises(ValueError, match="scalar 0 "):
        mp_group._msm.msm(ORDER.to_bytes(32, "little"), POINTS[0].data)
    with pytest.raises(ValueError, match="as many"):
        mp_group._msm.msm(one, POINTS[0].data * 2)
    assert mp_group._msm.msm(b"", b"") == IDENTITY.data


# --- the observer's one batch against the listener's message-by-message check ----------------------------------


@pytest.fixture(scope="module")
def hand():
    table, _ = scripted_hand()
    return table.messages


def test_the_observer_checks_every_proof_of_a_hand_in_one_batch(backend, hand):
    MULTS.reset()
    batched = verify_hand(SETUP, hand)
    if backend == "libdecaf":
        assert MULTS.variable == 3  # only the three proofs of possession, one libsodium product each
    strict = verify_hand(SETUP, hand, Checkpoints())
    assert (batched.order, batched.plays, batched.discards, batched.talon) == (
        strict.order,
        strict.plays,
        strict.discards,
        strict.talon,
    )


def _outcome(messages, checkpoints=None):
    try:
        verify_hand(SETUP, messages, checkpoints)
    except MentalPokerError as error:
        return error.player, error.step, str(error)
    return None


def test_a_tampered_hand_is_blamed_exactly_as_the_message_by_message_check_blames_it(hand):
    for _, _, changed in random_mutations(hand, 40, random.Random(11)):
        batched = _outcome(changed)
        assert batched is not None
        assert batched == _outcome(changed, Checkpoints())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.integers(-(ORDER**2) * 4, ORDER**2 * 4), st.integers(0, len(POINTS) - 1)), min_size=1, max_size=24
    )
)
def test_integer_coefficients_sum_as_their_residues_on_both_backends(backend, terms):
    """The batch keeps coefficients as unreduced integers (negative, above ℓ², repeated on a point): its sum is
    the sum of the residues, and it vanishes exactly when the residues' sum does."""
    combination = Combination()
    for value, which in terms:
        combination.add_integer(value, POINTS[which])
    expected = multi_mult([Scalar.from_int(value) for value, _ in terms], [POINTS[which] for _, which in terms])
    assert combination.is_identity() == expected.is_identity
    cancelled = Combination()
    cancelled.add_integers([value for value, _ in terms], [POINTS[which] for _, which in terms])
    cancelled.add_integers([-value + ORDER * 3 for value, _ in terms], [POINTS[which] for _, which in terms])
    assert cancelled.is_identity()
    cancelled.add_integer(ORDER + 1, POINTS[0])  # one ℓ too many is nothing; the 1 left over is P_0
    assert not cancelled.is_identity()
