"""Simulated tables: the log is written like a real one, the gathering rule holds, and the auditor catches every
technique (issue 8, "every technique is caught by the auditor in the simulated evenings")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import from_ascii_list
from fairdeal.errors import TrickError
from fairdeal.log import read_log, write_log
from fairdeal.log.records import HandRecord
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Cut, Riffle, Run
from fairdeal.tricks.catalogue import TRICKS, get_trick
from fairdeal.tricks.honest import HonestDealer
from fairdeal.tricks.power import GENERATOR, PLAYERS, named_by, server_rng_records, weak_server_records
from fairdeal.tricks.table import Cheat, TableSource, gathered_order, play_evening, quick_records


def test_gathering_puts_the_played_cards_on_top_in_play_order_then_the_rest_as_dealt():
    dealt = np.arange(32, dtype=np.uint8)
    tricks = [
        {"lead": 0, "cards": ["AH", "KH", "7S"], "winner": 0, "talon_card": "QH"},
        {"lead": 0, "cards": ["8S", "9S", "10S"], "winner": 1},
    ]
    order = gathered_order(dealt, tricks)
    head = from_ascii_list(["QH", "AH", "KH", "7S", "8S", "9S", "10S"])
    assert order[:7].tolist() == head.tolist()
    assert order[7:].tolist() == [c for c in range(32) if c not in set(head.tolist())]
    assert sorted(order.tolist()) == list(range(32))


def test_gathering_rejects_a_card_played_twice():
    with pytest.raises(TrickError, match="played twice"):
        gathered_order(np.arange(32), [{"cards": ["AH", "KH", "AH"]}])


def test_an_evening_log_is_a_real_log_whose_orders_follow_the_gathering_rule(tmp_path):
    path = tmp_path / "evening.jsonl"
    result, source = play_evening(PLAYERS, 24, seed=5, cheat=Cheat(1, get_trick("talon-runs"), 0.5), log=path)
    items = list(read_log(path))
    assert not [i for i in items if i.errors]
    hands = [i.record for i in items if isinstance(i.record, HandRecord)]
    assert len(hands) == 24 == len(result.hands)
    assert any(h.cheated for h in source.history) and not all(h.cheated for h in source.history)
    for record, previous in zip(hands[1:], hands):
        before = from_ascii_list(previous.order_before)
        dealt = before[parse_notation(previous.shuffle).permutation(32)]
        tricks = [
            {"cards": t.cards, **({"talon_card": t.talon_card} if isinstance(t.talon_card, str) else {})}
            for t in previous.tricks
        ]
        assert gathered_order(dealt, tricks).tolist() == from_ascii_list(record.order_before).tolist()
    for record, dealt in zip(hands, source.history):
        assert record.shuffle == dealt.shuffle
        assert parse_notation(record.shuffle).actions[-1].actor == (record.dealer - 1) % 3  # right neighbour cuts


def test_a_cheat_outside_the_table_is_refused():
    with pytest.raises(TrickError, match="not at a table"):
        TableSource(3, np.random.default_rng(0), Cheat(5, get_trick("volt")))
    with pytest.raises(TrickError, match="rate"):
        Cheat(0, get_trick("volt"), 1.5)


@pytest.mark.parametrize("name", sorted(set(TRICKS) - {"weak-server"}))
def test_every_technique_is_caught_in_a_simulated_evening(name, tmp_path):
    trick = TRICKS[name]
    rng = np.random.default_rng(11)
    path = tmp_path / f"{name}.jsonl"
    write_log(path, quick_records(PLAYERS, 150, rng, cheat=Cheat(1, trick, 1.0, partner=0)))
    named, evidence = named_by(path, seed=0)
    wanted = {"Boris", "Anna"} if trick.receives_partner else {"Boris"}
    assert named & wanted, evidence
    assert "Vera" not in named


def test_the_weak_server_is_caught_by_the_audit_with_a_seed_window(tmp_path):
    path = tmp_path / "weak.jsonl"
    write_log(path, weak_server_records(6, np.random.default_rng(13)))
    named, evidence = named_by(path, seed=0, digital=True)
    assert named == {GENERATOR} and "weak-seed" in evidence


@pytest.mark.parametrize("digital", [False, True])
def test_honest_evenings_name_nobody(digital, tmp_path):
    path = tmp_path / "honest.jsonl"
    rng = np.random.default_rng(12)
    write_log(path, server_rng_records(150, rng) if digital else quick_records(PLAYERS, 150, rng))
    named, evidence = named_by(path, seed=0, digital=digital)
    assert not named, evidence


@given(st.permutations(list(range(32))), st.integers(0, 10), st.booleans())
@settings(max_examples=50, deadline=None)
def test_the_gathered_order_is_always_the_whole_deck_with_the_played_cards_on_top(dealt, tricks, talon_led):
    from fairdeal.cards import to_ascii_list

    dealt = np.array(dealt, dtype=np.uint8)
    played = dealt[: 3 * tricks]
    records = [{"cards": to_ascii_list(played[3 * t : 3 * t + 3])} for t in range(tricks)]
    if talon_led and tricks:
        records[0]["talon_card"] = to_ascii_list(dealt[-1:])[0]
    order = gathered_order(dealt, records)
    assert sorted(order.tolist()) == list(range(32))
    head = ([int(dealt[-1])] if talon_led and tricks else []) + played.tolist()
    assert order[: len(head)].tolist() == head


@pytest.mark.parametrize("style", ["riffle", "runs"])
def test_honest_dealers_shuffle_in_their_style_and_the_right_neighbour_cuts_legally(style):
    dealer = HonestDealer(style)
    rng = np.random.default_rng(3)
    for _ in range(20):
        sequence = dealer.shuffle(rng, 32, 2)
        *body, cut = sequence.actions
        assert isinstance(cut.op, Cut) and cut.actor == 2 and 4 <= cut.op.depth <= 28
        kind = Riffle if style == "riffle" else Run
        assert body and all(isinstance(a.op, kind) and a.actor is None for a in body)
    with pytest.raises(TrickError, match="style"):
        HonestDealer("faro")
