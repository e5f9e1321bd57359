"""Hand records in the log vocabulary and their replay through the state machine."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from fairdeal.cards import parse_card
from fairdeal.engine.actions import Bid, Concede, Discard
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.driver import deal_from_text, play_hand
from fairdeal.engine.hand import apply, new_hand
from fairdeal.engine.record import replay_record, to_record
from fairdeal.errors import IllegalAction
from fairdeal.rules import MAILRU, SOCHI

STRONG = (
    "AS KS QS JS 10S 9S 8S 7S AC KC",
    "QC JC 10C 9C 8C 7C AD KD QD JD",
    "10D 9D 8D 7D AH KH QH JH 10H 9H",
    "8H 7H",
)


def played(convention=SOCHI, seats=3, seed=5):
    rng = np.random.default_rng(seed)
    return play_hand(convention, seats, 0, None, [HeuristicBot() for _ in range(seats)], rng=rng)


def first_game_record(convention=SOCHI):
    for seed in range(200):
        state = played(convention, seed=seed)
        record = to_record(state)
        if "contract" in record and record["tricks"]:
            return state, record
    raise AssertionError("no played game in 200 hands")


def test_record_fields_follow_the_log_vocabulary():
    state, record = first_game_record()
    assert set(record) >= {
        "dealer",
        "deal",
        "auction",
        "talon_shown",
        "discard",
        "contract",
        "defence",
        "defence_open",
        "tricks",
        "result",
        "extras",
    }
    assert len(record["deal"]["hands"]) == 3 and all(len(h) == 10 for h in record["deal"]["hands"])
    assert len(record["deal"]["talons"]) == 1 and len(record["deal"]["talons"][0]) == 2
    assert all(isinstance(c, str) for t in record["tricks"] for c in t["cards"])
    assert record["result"]["kind"] == "game" and sum(record["result"]["tricks"]) == 10
    assert record["contract"]["declarer"] == state.declarer


def test_four_player_record_leaves_the_dealer_empty():
    record = to_record(played(seats=4))
    assert record["deal"]["hands"][0] == [] and replay_record(record, SOCHI, 4) == played(seats=4)


def test_replay_reproduces_the_state():
    state, record = first_game_record()
    assert replay_record(record, SOCHI, 3) == state


def test_replay_of_a_conceded_hand():
    state = new_hand(MAILRU, 3, 0, deal_from_text(*STRONG))
    for action in (
        Bid(1, "7S"),
        Bid(2, "pass"),
        Bid(0, "pass"),
        Discard(1, (parse_card("8H").code, parse_card("7H").code)),
        Concede(1),
    ):
        state = apply(state, action)
    record = to_record(state)
    assert record["extras"]["conceded"] and record["contract"]["bid"] == "7S"
    assert replay_record(record, MAILRU, 3) == state


def test_an_illegal_card_names_hand_trick_and_card():
    _, record = first_game_record()
    bad = copy.deepcopy(record)
    bad["hand"] = 7
    trick = bad["tricks"][0]
    trick["cards"][1], trick["cards"][2] = trick["cards"][2], trick["cards"][1]
    with pytest.raises(IllegalAction, match=r"hand 7, trick 1, card 2"):
        replay_record(bad, SOCHI, 3)


def test_a_wrong_winner_is_named():
    _, record = first_game_record()
    bad = copy.deepcopy(record)
    bad["tricks"][0]["winner"] = (bad["tricks"][0]["winner"] + 1) % 3
    with pytest.raises(IllegalAction, match="trick 1, field winner"):
        replay_record(bad, SOCHI, 3)


def test_an_illegal_bid_is_named():
    _, record = first_game_record()
    bad = copy.deepcopy(record)
    bad["auction"][0]["bid"] = "7NT"
    with pytest.raises(IllegalAction, match="auction entry 1"):
        replay_record(bad, SOCHI, 3)


def test_a_wrong_result_is_named():
    _, record = first_game_record()
    bad = copy.deepcopy(record)
    bad["result"]["tricks"] = [10, 0, 0]
    with pytest.raises(IllegalAction, match="field result"):
        replay_record(bad, SOCHI, 3)


def test_a_malformed_deal_is_named():
    _, record = first_game_record()
    bad = copy.deepcopy(record)
    bad["deal"]["hands"][1][0] = "ZZ"
    with pytest.raises(IllegalAction, match="field deal"):
        replay_record(bad, SOCHI, 3)


def test_a_discard_of_foreign_cards_is_named():
    _, record = first_game_record()
    bad = copy.deepcopy(record)
    declarer_hand = set(record["deal"]["hands"][record["contract"]["declarer"]]) | set(record["deal"]["talons"][0])
    foreign = next(c for h in record["deal"]["hands"] for c in h if c not in declarer_hand)
    bad["discard"] = [foreign, record["discard"][1]]
    with pytest.raises(IllegalAction, match=r"field discard: .*discard not from your hand"):
        replay_record(bad, SOCHI, 3)
