"""The weak online server: a 32-bit seed gives the deal away to anyone holding ten cards (issue 8)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.deal import deal_order
from fairdeal.errors import TrickError
from fairdeal.log import write_log
from fairdeal.tricks.detect import weak_server_seeds
from fairdeal.tricks.plan import RUSSIAN
from fairdeal.tricks.power import WEAK_SERVER_START, _server_rng_records, weak_server_records
from fairdeal.tricks.weak_server import recover_deal, search_seeds, seed_window, server_deck

SEEDS = st.integers(0, 2**32 - 1)


@given(SEEDS)
@settings(max_examples=30, deadline=None)
def test_the_vectorised_search_finds_exactly_the_reference_deck(seed):
    deck = server_deck(seed)
    assert sorted(deck.tolist()) == list(range(32))
    start = max(0, seed - 300)
    found = search_seeds(dict(enumerate(deck.tolist())), start, min(2**32, start + 700), batch=256)
    assert found == [seed]


@given(SEEDS, st.integers(0, 2))
@settings(max_examples=10, deadline=None)
def test_ten_cards_recover_every_hand_and_the_talon(seed, hand):
    deck = server_deck(seed)
    start, stop = seed_window(seed, 14)
    recovery = recover_deal(deck[RUSSIAN.hand_positions[hand]], hand, start, stop)
    assert recovery.candidates == (seed,)
    truth = deal_order(deck, RUSSIAN)
    assert all((a == b).all() for a, b in zip(recovery.deal.hands, truth.hands))
    assert (recovery.deal.talons[0] == truth.talons[0]).all()
    assert recovery.tried == 2**14 and recovery.seeds_per_second > 0


def test_the_technique_recovers_the_deal_it_dealt():
    from fairdeal.tricks.catalogue import get_trick

    trick = get_trick("weak-server")
    rng = np.random.default_rng(3)
    plan = trick.plan(rng.permutation(32), trick.table_goal(0, 3, 2, None), rng)
    assert plan.achieved and len(plan.targeted) == 22 and "seeds/s" in plan.note


def test_the_seed_scan_finds_the_weak_server_and_not_an_honest_one(tmp_path):
    weak, fair = tmp_path / "weak.jsonl", tmp_path / "fair.jsonl"
    rng = np.random.default_rng(4)
    write_log(weak, weak_server_records(3, rng))
    write_log(fair, _server_rng_records(3, rng))
    assert weak_server_seeds(weak, WEAK_SERVER_START, 12).weak
    assert not weak_server_seeds(fair, WEAK_SERVER_START, 12).weak


def test_bad_search_ranges_are_clear_errors():
    with pytest.raises(TrickError, match="32-bit"):
        server_deck(2**32)
    with pytest.raises(TrickError, match="seed range"):
        search_seeds({0: 1}, 10, 5)
    with pytest.raises(TrickError, match="10 cards"):
        recover_deal([1, 2, 3], 0, 0, 10)
    with pytest.raises(TrickError, match="window"):
        seed_window(5, 0)
