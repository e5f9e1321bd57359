"""The weak online server: a 32-bit seed gives the deal away to anyone holding ten cards (issue 8)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.seeds import recover_deal, scan_seeds, search_seeds, seed_window, server_deck, unix_time
from fairdeal.deal import deal_order
from fairdeal.errors import AuditError
from fairdeal.log import write_log
from fairdeal.tricks.plan import RUSSIAN
from fairdeal.tricks.power import WEAK_SERVER_START, server_rng_records, weak_server_records

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
    write_log(fair, server_rng_records(3, rng))
    found = scan_seeds(weak, WEAK_SERVER_START, 12).found
    assert [hand for _, hand, _ in found] == [1, 2, 3]
    assert all(seed - WEAK_SERVER_START in range(3 * 40 + 10) for _, _, seed in found)
    assert not scan_seeds(fair, WEAK_SERVER_START, 12).found


def test_fairdeal_audit_flags_the_weak_server_only_when_asked_and_times_the_window_from_the_header(tmp_path):
    weak = tmp_path / "weak.jsonl"
    write_log(weak, weak_server_records(8, np.random.default_rng(5)))
    assert run_audit(weak, RunOptions(legality=False)).verdict.clean  # the deals look uniform
    result = run_audit(weak, RunOptions(legality=False, server_seed_window=12))
    assert result.exit_code == 1 and result.verdict.generator_flagged()
    assert {f.kind for _, _, _, f in result.verdict.certain()} == {"weak-seed"}
    assert any("server seed search" in note for note in result.verdict.notes)


def test_the_header_time_is_read_as_utc_and_a_bad_one_is_a_clear_error():
    assert unix_time("2025-11-24T16:00:00+00:00") == unix_time("2025-11-24T16:00:00") == 1_764_000_000
    with pytest.raises(AuditError, match="not an ISO-8601"):
        unix_time("yesterday evening")


def test_bad_search_ranges_are_clear_errors():
    with pytest.raises(AuditError, match="32-bit"):
        server_deck(2**32)
    with pytest.raises(AuditError, match="seed range"):
        search_seeds({0: 1}, 10, 5)
    with pytest.raises(AuditError, match="10 cards"):
        recover_deal([1, 2, 3], 0, 0, 10)
    with pytest.raises(AuditError, match="window"):
        seed_window(5, 0)
