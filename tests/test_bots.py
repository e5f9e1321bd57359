"""Bots: they act on views only, play legally, and the heuristic bot follows the table advice of seed 000."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from fairdeal.cards import parse_card
from fairdeal.engine.actions import Bid, ChooseOpen, Declare, Defend, Discard, Play
from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.driver import deal_from_text, play_hand
from fairdeal.engine.evaluate import misere_risk, strain_tricks, top_tricks
from fairdeal.engine.hand import apply, new_hand, result, to_move
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.rules import MAILRU, SOCHI


def cards(text: str) -> list[int]:
    return [parse_card(t).code for t in text.split()]


def card(text: str) -> int:
    return parse_card(text).code


# ---- evaluation rules of thumb ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ranks, tricks",
    [((7,), 1), ((6,), 0), ((6, 0), 0.5), ((6, 5), 0.5), ((7, 6, 5), 3), ((5, 4, 0), 0.5), ((3, 2, 1), 0)],
)
def test_top_tricks(ranks, tricks):
    assert top_tricks(ranks) == tricks


def test_misere_risk_follows_the_seed_examples():
    # 000: «Практически беспроигрышным мизером можно считать имеющихся на руках Туза, десятку, восьмерку и
    # семерку, при Тузе, восьмерке и семерке мизер не гарантирован»
    assert misere_risk(cards("AS 10S 8S 7S")) == 0
    assert misere_risk(cards("AS 8S 7S")) > 0
    assert misere_risk(cards("KS 9S 8S")) > 0  # «Король, девятка и восьмерка ... большой риск»


def test_a_solid_suit_counts_its_length_as_trumps():
    assert strain_tricks(cards("AS KS QS JS 10S 9S 8S 7S AC KC"), 0) == 10


# ---- the heuristic bot --------------------------------------------------------------------------------------------

STRONG = (
    "AS KS QS JS 10S 9S 8S 7S AC KC",
    "QC JC 10C 9C 8C 7C AD KD QD JD",
    "10D 9D 8D 7D AH KH QH JH 10H 9H",
    "8H 7H",
)
# First hand holds a hand without takers: sevens and eights guard every suit.
MISERE = (
    "7S 8S 9S 7C 8C 9C 7D 8D 7H 8H",
    "AS KS QS AC KC QC AD KD QD AH",
    "JS 10S JC 10C JD 10D 9D KH QH JH",
    "10H 9H",
)


def test_heuristic_bot_bids_its_counted_tricks():
    state = new_hand(SOCHI, 3, 0, deal_from_text(*STRONG))
    assert HeuristicBot().act(view_for(state, 1)) == Bid(1, "6S")


def test_heuristic_bot_bids_misere_on_a_hand_without_takers():
    state = new_hand(SOCHI, 3, 0, deal_from_text(*MISERE))
    assert HeuristicBot().act(view_for(state, 1)) == Bid(1, "misere")


def test_heuristic_bot_passes_a_weak_hand():
    weak = (
        "7S 8S 9S 7C 8C 9C JD 8D AH 8H",
        "AS KS QS AC KC QC AD KD QD 7H",
        "JS 10S JC 10C 7D 10D 9D KH QH JH",
        "10H 9H",
    )
    state = new_hand(SOCHI, 3, 0, deal_from_text(*weak))
    assert HeuristicBot().act(view_for(state, 1)) == Bid(1, "pass")


def test_heuristic_bot_discards_the_talon_fosks_and_raises_the_contract():
    state = new_hand(SOCHI, 3, 0, deal_from_text(*STRONG))
    for token in ("6S", "pass", "pass"):
        state = apply(state, Bid(to_move(state), token))
    discard = HeuristicBot().act(view_for(state, 1))
    assert isinstance(discard, Discard) and set(discard.cards) == {card("8H"), card("7H")}
    state = apply(state, discard)
    declare = HeuristicBot().act(view_for(state, 1))
    # ten counted tricks: the bot raises the 6♠ it bought, keeping a trick to spare
    assert isinstance(declare, Declare) and declare.token == "9S"


def test_heuristic_defender_whists_with_its_share_and_passes_without_it():
    state = new_hand(SOCHI, 3, 0, deal_from_text(*STRONG))
    for action in (
        Bid(1, "pass"),
        Bid(2, "6S"),
        Bid(0, "pass"),
        Discard(2, (card("8H"), card("7H"))),
        Declare(2, "6C"),
    ):
        state = apply(state, action)
    # seat 0: four small diamonds under the declarer's honours and six hearts the declarer ruffs after a round
    assert HeuristicBot().act(view_for(state, 0)) == Defend(0, DefenceCall.PASS)
    state = apply(state, Defend(0, DefenceCall.PASS))
    # seat 1: the club ace and king over the trumps and the spade ace: the whole quota
    assert HeuristicBot().act(view_for(state, 1)) == Defend(1, DefenceCall.WHIST)


def test_defender_leads_small_under_the_declarer_and_big_through_him():
    # 000: «под играющего он должен ходить с маленькой карты ..., а под вистующего нужно ходить с самой большой»
    deal = (
        "KS 9S 8S 7S QC 10C 8C QD 10D 8D",
        "AS QS JS 10S AC KC AD KD AH KH",
        "JC 9C 7C JD 9D 7D QH JH 10H 9H",
        "8H 7H",
    )
    state = new_hand(SOCHI, 3, 0, deal_from_text(*deal))
    for action in (
        Bid(1, "pass"),
        Bid(2, "6S"),
        Bid(0, "pass"),
        Discard(2, (card("8H"), card("7H"))),
        Declare(2, "6S"),
        Defend(0, DefenceCall.WHIST),
        Defend(1, DefenceCall.WHIST),
    ):
        state = apply(state, action)
    lead = HeuristicBot().act(view_for(state, 1))  # seat 1 leads, the declarer (seat 2) plays right after him
    assert isinstance(lead, Play) and lead.card % 8 == 1  # an eight: the smallest of a side suit


def test_raspasy_bot_ducks_under_the_trick():
    deal = (
        "AS 7S AC 7C AD 7D AH 7H KS KC",
        "QS 8S QC 8C QD 8D QH 8H JD KH",
        "JS 9S JC 9C KD 9D JH 9H 10S 10C",
        "10D 10H",
    )
    state = new_hand(SOCHI, 3, 0, deal_from_text(*deal))
    for action in (Bid(1, "pass"), Bid(2, "pass"), Bid(0, "pass"), Play(1, card("AD")), Play(2, card("QD"))):
        state = apply(state, action)
    assert HeuristicBot().act(view_for(state, 0)) == Play(0, card("KD"))  # under the ace: shed the king safely


def test_lone_whister_chooses_open():
    state = new_hand(SOCHI, 3, 0, deal_from_text(*STRONG))
    for action in (
        Bid(1, "6S"),
        Bid(2, "pass"),
        Bid(0, "pass"),
        Discard(1, (card("8H"), card("7H"))),
        Declare(1, "6S"),
        Defend(2, DefenceCall.WHIST),
        Defend(0, DefenceCall.PASS),
    ):
        state = apply(state, action)
    assert HeuristicBot().act(view_for(state, 2)) == ChooseOpen(2, True)


# ---- bots only ever act legally ---------------------------------------------------------------------------------


def test_random_bot_is_reproducible():
    first = play_hand(
        SOCHI, 3, 0, None, [RandomBot(np.random.default_rng(s)) for s in range(3)], rng=np.random.default_rng(9)
    )
    second = play_hand(
        SOCHI, 3, 0, None, [RandomBot(np.random.default_rng(s)) for s in range(3)], rng=np.random.default_rng(9)
    )
    assert first == second


def test_play_hand_needs_a_bot_per_seat():
    with pytest.raises(IllegalAction, match="one bot per seat"):
        play_hand(SOCHI, 3, 0, None, [HeuristicBot()], rng=np.random.default_rng(1))


def test_simulated_evenings_look_real():
    rng = np.random.default_rng(20)
    counts = collections.Counter()
    hands = 300
    for number in range(hands):
        state = play_hand(MAILRU, 3, number % 3, None, [HeuristicBot() for _ in range(3)], rng=rng)
        outcome = result(state)
        counts[outcome.kind] += 1
        if outcome.kind is HandKind.GAME and outcome.played:
            counts["failed"] += outcome.tricks[outcome.declarer] < outcome.contract.level
    assert 0.05 <= counts[HandKind.RASPASY] / hands <= 0.30
    assert 0.005 <= counts[HandKind.MISERE] / hands <= 0.10
    assert 0.05 <= counts["failed"] / hands <= 0.40
