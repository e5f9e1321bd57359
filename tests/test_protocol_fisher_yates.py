"""The unbiased Fisher-Yates of protocols/commit-reveal.md §5: exact uniformity, batch = scalar, chi-square."""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import permutations, product
from math import factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fairdeal.cards import DeckKind
from fairdeal.errors import ProtocolError
from fairdeal.protocols.deck import derive_order, derive_orders
from fairdeal.protocols.fisher_yates import accept_limit, apply_draws, draws_from_stream, shuffle_batch


def test_every_residue_has_equally_many_accepted_bytes():
    for modulus in range(1, 257):
        limit = accept_limit(modulus)
        counts = Counter(b % modulus for b in range(limit))
        assert limit % modulus == 0 and limit > 256 - modulus
        assert set(counts.values()) == {limit // modulus} and len(counts) == modulus


def test_modulus_outside_one_byte_is_refused():
    with pytest.raises(ProtocolError, match=r"1..256"):
        accept_limit(257)


def test_four_cards_exhaustive_over_all_byte_streams():
    """Every 3-byte stream: those fully accepted give each of the 24 orders exactly equally often."""
    grid = np.indices((256, 256, 256), dtype=np.uint8).reshape(3, -1).T
    orders, ok = shuffle_batch(np.arange(4, dtype=np.uint8), grid)
    accepted = orders[ok]
    # limits for m = 4, 3, 2 are 256, 255, 256: exactly the streams whose middle byte is not 255 are used up.
    assert ok.sum() == 256 * 255 * 256
    assert not ok[grid[:, 1] == 255].any()
    codes = accepted.astype(np.int64) @ np.array([64, 16, 4, 1])
    counts = np.unique(codes, return_counts=True)[1]
    assert len(counts) == factorial(4) and set(counts.tolist()) == {256 * 255 * 256 // 24}


def test_five_cards_draw_tuples_are_a_bijection_onto_orders():
    """With each draw exactly uniform (above), a bijection of draw tuples onto orders makes every order 1/5!."""
    start = np.arange(5, dtype=np.uint8)
    tuples = product(range(5), range(4), range(3), range(2))
    orders = {tuple(apply_draws(start, list(t)).tolist()) for t in tuples}
    assert orders == set(permutations(range(5)))


def test_rejected_bytes_are_skipped_not_reused():
    # 5 cards: limits 255 (m=5), 256 (m=4), 255 (m=3), 256 (m=2)
    assert draws_from_stream(bytes([0xFF, 7, 9, 0xFF, 0xFE, 5]), 5) == ([2, 1, 2, 1], 6)
    assert draws_from_stream(bytes([0xFF, 0xFF, 1]), 5) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(min_size=40, max_size=120), min_size=1, max_size=30))
def test_batch_equals_scalar_and_is_a_permutation(inputs):
    deck = DeckKind.PIQUET32
    batch = derive_orders(inputs, deck)
    for data, order in zip(inputs, batch):
        assert np.array_equal(order, derive_order(data, deck))
        assert sorted(order.tolist()) == deck.codes().tolist()


def test_short_streams_are_flagged_not_guessed():
    streams = np.full((3, 10), 0xFF, dtype=np.uint8)  # 255 is rejected for m = 31
    streams[1] = 0
    _orders, ok = shuffle_batch(np.arange(32, dtype=np.uint8), streams)
    assert not ok.any()


def test_hussar_deck_orders_are_permutations_of_24():
    orders = derive_orders([bytes([i]) * 50 for i in range(20)], DeckKind.HUSSAR24)
    for order in orders:
        assert sorted(order.tolist()) == DeckKind.HUSSAR24.codes().tolist()


def test_chi_square_card_by_position_on_a_million_deals():
    """GLI-style: 10^6 deals of 32, card x position counts against uniform, 99% confidence."""
    deals = 1_000_000
    inputs = [hashlib.sha256(i.to_bytes(8, "big")).digest() for i in range(deals)]
    orders = derive_orders(inputs, DeckKind.PIQUET32)
    positions = np.broadcast_to(np.arange(32), orders.shape)
    table = np.bincount((orders.astype(np.int64) * 32 + positions).ravel(), minlength=32 * 32).reshape(32, 32)
    assert (table.sum(axis=0) == deals).all() and (table.sum(axis=1) == deals).all()
    expected = deals / 32
    statistic = ((table - expected) ** 2 / expected).sum()
    p_value = stats.chi2.sf(statistic, df=31 * 31)
    assert p_value > 0.01, f"chi-square {statistic:.1f} on 961 df, p = {p_value:.4f}"


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 32), st.integers(0, 40), st.binary(min_size=64 * 40, max_size=64 * 40))
def test_batch_agrees_with_scalar_on_short_streams(size, length, noise):
    """Rows that run out are flagged exactly when the scalar draw runs out; the others shuffle identically."""
    rows = 40
    streams = np.frombuffer(noise[: rows * length], dtype=np.uint8).reshape(rows, length)
    start = np.arange(size, dtype=np.uint8)
    orders, ok = shuffle_batch(start, streams) if length else (None, None)
    if not length:
        return
    for row in range(rows):
        result = draws_from_stream(bytes(streams[row]), size)
        assert (result is not None) == bool(ok[row])
        if result is not None:
            assert np.array_equal(orders[row], apply_draws(start, result[0]))
