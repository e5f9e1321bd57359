"""19th-century preferans (seed 003_bf7e0a2721a54502.txt, rules 1-81 of the reprinted book): announcements by suit,
the talon bought after passes or negotiated, suit prices, «кадили», the remiz stake counted down."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_play import assert_cards_conserved, random_hand, three_player_evening

from fairdeal.cards import Suit
from fairdeal.deal import deal_by_seat, deal_from_seats, deal_order, get_pattern, positions_of, seats_of_hands
from fairdeal.engine.actions import Bid, Declare, Defend, Discard, Phase
from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.countdown import contract_value
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import is_finished, new_sheet
from fairdeal.errors import IllegalAction
from fairdeal.rules import (
    PREFERANS_1800S,
    PREFERANS_1800S_KADILI,
    PREFERANS_1800S_MIXED,
    PREFERANS_1800S_MIXED_FULL,
    PREFERANS_1800S_TALON,
)

WHIST, PASS = DefenceCall.WHIST, DefenceCall.PASS
A, B, C = 0, 1, 2
SYSTEMS = [PREFERANS_1800S, PREFERANS_1800S_KADILI, PREFERANS_1800S_TALON, PREFERANS_1800S_MIXED]


def game(declarer, contract, tricks, defence):
    return HandOutcome(
        num_seats=3,
        dealer=(declarer - 1) % 3,
        active=(0, 1, 2),
        kind=HandKind.GAME,
        tricks=tricks,
        declarer=declarer,
        contract=contract,
        defence=defence,
    )


def summary(lines):
    return sorted((line.seat, line.column, line.points, line.on) for line in lines)


def test_rule43_kadili_hearts_without_talon_three_down_is_fifteen():
    """«если вы играли в червях без талона и сделали только три взятки вместо шести, то вам должно ставить уже не
    пять ремизов, но пятнадцать, по пяти за каждую недоделанную взятку»."""
    outcome = game(A, Contract(6, Suit.HEARTS, no_talon=True), (3, 4, 3), ((B, WHIST), (C, WHIST)))
    _, lines = score_hand(new_sheet(PREFERANS_1800S_KADILI, 3), outcome, PREFERANS_1800S_KADILI)
    assert (A, "gora", 15, None) in summary(lines)
    _, lines = score_hand(new_sheet(PREFERANS_1800S, 3), outcome, PREFERANS_1800S)
    assert (A, "gora", 5, None) in summary(lines)


def test_rule44_without_kadili_diamonds_four_down_is_three_or_four():
    """«вы играли в бубнах и остались без четырёх взяток, ремиз вы записываете только три, если с талоном, и
    четыре, если без талона»."""
    for no_talon, remiz in ((False, 3), (True, 4)):
        outcome = game(A, Contract(6, Suit.DIAMONDS, no_talon=no_talon), (2, 4, 4), ((B, WHIST), (C, WHIST)))
        _, lines = score_hand(new_sheet(PREFERANS_1800S, 3), outcome, PREFERANS_1800S)
        assert summary(lines) == [(A, "gora", remiz, None), (B, "whists", 4 * remiz, A), (C, "whists", 4 * remiz, A)]


def test_rules10_30_declarer_writes_off_whister_pays_per_trick_and_sets_his_remiz():
    """«списывает столько, сколько следует за выигранную игру ... по десятой доле на каждую взятку своим
    противникам»; «вистёр ставит ремиз за каждую недоделанную взятку (если игра с кадилями) по тому же расчёту»;
    rule 40: «игра была бубновая с талоном ... по три за каждую взятку»."""
    outcome = game(A, Contract(6, Suit.DIAMONDS), (7, 1, 2), ((B, WHIST), (C, WHIST)))
    _, lines = score_hand(new_sheet(PREFERANS_1800S, 3), outcome, PREFERANS_1800S)
    assert summary(lines) == [(A, "pulya", 3, None), (B, "gora", 3, None), (B, "whists", 3, A), (C, "whists", 6, A)]
    outcome = game(A, Contract(6, Suit.DIAMONDS), (8, 0, 2), ((B, WHIST), (C, WHIST)))
    _, lines = score_hand(new_sheet(PREFERANS_1800S_KADILI, 3), outcome, PREFERANS_1800S_KADILI)
    assert (B, "gora", 6, None) in summary(lines)


def test_rule41_the_last_remizes_pay_only_what_is_left():
    """«когда ... остаётся на столе только один ремиз ... за игру берётся только оставшийся ремиз и по нему
    рассчитываются за взятки вистов»."""
    conv = replace(PREFERANS_1800S, pulya=replace(PREFERANS_1800S.pulya, size=1))
    sheet, _ = score_hand(
        new_sheet(conv, 3), game(A, Contract(6, Suit.CLUBS), (6, 2, 2), ((B, WHIST), (C, WHIST))), conv
    )
    sheet, lines = score_hand(sheet, game(B, Contract(6, Suit.HEARTS), (2, 6, 2), ((A, WHIST), (C, WHIST))), conv)
    assert summary(lines) == [(A, "whists", 2, B), (B, "pulya", 1, None), (C, "whists", 2, B)]
    assert is_finished(sheet, conv)


def test_rule41_with_one_remiz_left_a_lost_game_sets_just_that_remiz():
    """«при одном ремизе, если игра выиграна или проиграна даже в червях без талона, за игру берётся только
    оставшийся ремиз и по нему рассчитываются за взятки вистов и ставится также один ремиз»: hearts lost with one
    remiz on the table set one remiz (not four), and each whister's trick pays one prize."""
    conv = replace(PREFERANS_1800S, pulya=replace(PREFERANS_1800S.pulya, size=1))
    sheet, _ = score_hand(
        new_sheet(conv, 3), game(A, Contract(6, Suit.CLUBS), (6, 2, 2), ((B, WHIST), (C, WHIST))), conv
    )
    assert sum(sheet.column(s, 1) for s in range(3)) == 1
    lost = game(B, Contract(6, Suit.HEARTS, no_talon=True), (3, 4, 3), ((A, WHIST), (C, WHIST)))
    _, lines = score_hand(sheet, lost, conv)
    assert summary(lines) == [(A, "whists", 3, B), (B, "gora", 1, None), (C, "whists", 3, B)]
    plain = replace(conv, scoring=replace(conv.scoring, last_remizes_price=0))
    _, lines = score_hand(sheet, lost, plain)
    assert (B, "gora", 5, None) in summary(lines)
    kadili = replace(conv, scoring=replace(conv.scoring, remiz_per_trick=True))
    _, lines = score_hand(sheet, lost, kadili)  # rule 43 by the same price: one per missing trick
    assert (B, "gora", 2, None) in summary(lines)


def fresh(conv=PREFERANS_1800S, seed=0):
    return new_hand(conv, 3, 2, random_deal(np.random.default_rng(seed), conv))


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def test_rule22_announcements_by_suit_the_highest_plays_without_talon():
    """«сказаны бубны. У следующего игрока есть игра в пиках, но так как пики младшие, то он должен говорить пас;
    у третьего игрока черви; и он объявляет преферанс; тогда первый игрок уже не может играть на бубнах»."""
    state = bids(fresh(), "diamonds")
    assert [a.token for a in legal_actions(state)] == ["pass", "hearts"]
    with pytest.raises(IllegalAction, match="пики перебиваются"):
        apply(state, Bid(B, "spades"))
    state = bids(state, "pass", "hearts")
    assert state.declarer == C and [a.token for a in legal_actions(state)] == ["6H-bp"]
    state = apply(state, Declare(C, "6H-bp"))
    assert state.phase is Phase.DEFENCE and to_move(state) == A


def test_rule24_talon_offered_in_turn_and_all_three_passing_redeal():
    """«подручный имеет право взять талон, но не принуждается к этому. Если он пасует от талона, то следующий за
    ним может покупать его ... если же все трое спасуют от талона, то игра пересдаётся»."""
    state = bids(fresh(), "pass", "pass", "pass")
    assert [a.token for a in legal_actions(state)] == ["pass", "buy"] and to_move(state) == A
    bought = bids(state, "pass", "buy")
    assert bought.declarer == B and bought.phase is Phase.DISCARD and bought.talon_shown
    bought = apply(bought, Discard(B, bought.hands[B][:2]))
    assert [a.token for a in legal_actions(bought)] == ["6S", "6C", "6D", "6H"]
    redeal = bids(state, "pass", "pass", "pass")
    assert is_over(redeal) and result(redeal).kind is HandKind.REDEAL


def test_rule59_negotiation_each_buy_claims_the_next_suit():
    """«у подручного игра в пиках, он ... говорит только куплю, следующий ... если у него есть игра в трефах ...
    сдатчик опять имеет право сказать куплю, если у него игра в бубнах ... в четвёртый раз объявляет куплю»."""
    state = bids(fresh(PREFERANS_1800S_TALON), "pass", "pass", "pass", "buy", "buy", "buy", "buy")
    assert state.number_high == 4 and to_move(state) == B
    assert [a.token for a in legal_actions(state)] == ["pass"]
    state = bids(state, "pass", "pass")
    assert state.declarer == A and state.final_number == 4
    state = apply(state, Discard(A, state.hands[A][:2]))
    assert [a.token for a in legal_actions(state)] == ["6H"]


def test_lone_whister_plays_alone_against_the_declarer():
    state = bids(fresh(), "pass", "pass", "pass", "buy")
    state = apply(apply(state, Discard(A, state.hands[A][:2])), Declare(A, "6S"))
    state = apply(apply(state, Defend(B, WHIST)), Defend(C, PASS))
    assert state.phase is Phase.PLAY and state.trick_seats == (A, B)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), conv=st.sampled_from(SYSTEMS), seats=st.sampled_from([2, 3, 4, 5]))
def test_random_legal_hands_conserve_cards_end_and_replay(seed, conv, seats):
    state = random_hand(conv, seats, seed)
    assert_cards_conserved(state)
    assert not result(state).played or len(state.tricks) == 10
    assert replay_record(to_record(state), conv, seats) == state


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), conv=st.sampled_from(SYSTEMS), random_bots=st.booleans())
def test_random_evenings_settle_to_zero(seed, conv, random_bots):
    played = three_player_evening(conv, seed, random_bots, max_hands=40)
    assert sum(played.settlement.amounts) == 0


def test_rule79_mixed_partial_price_table():
    """«в пиках — 1=(10); в трефах — 2=(20); в бубнах — 3=(30); в червях — 4=(40); без козырей — 5=(50); восемь —
    6=(60); девять — 7=(70). Если играют с условием добавлять за игру без талона, ... увеличивается десятком»."""
    prices = [
        (Contract(6, Suit.SPADES), 1),
        (Contract(6, Suit.CLUBS), 2),
        (Contract(6, Suit.DIAMONDS), 3),
        (Contract(6, Suit.HEARTS), 4),
        (Contract(6, None), 5),
        (Contract(8, Suit.CLUBS), 6),
        (Contract(9, Suit.SPADES), 7),
        (Contract(9, Suit.SPADES, no_talon=True), 8),
    ]
    for contract, price in prices:
        assert contract_value(game(A, contract, (9, 1, 0), ()), PREFERANS_1800S_MIXED) == price


def test_rules50_57_mixed_announcements_and_the_eight_in_a_named_suit():
    state = bids(fresh(PREFERANS_1800S_MIXED), "hearts")
    assert [a.token for a in legal_actions(state)] == ["pass", "notrump", "eight", "nine"]
    state = bids(state, "eight", "pass")
    assert state.declarer == B
    assert [a.token for a in legal_actions(state)] == ["8S-bp", "8C-bp", "8D-bp", "8H-bp"]
    # «Играющий восемь должен сделать восемь взяток. Вист должен иметь только одну взятку»
    outcome = game(B, Contract(8, Suit.DIAMONDS, no_talon=True), (1, 8, 1), ((C, WHIST), (A, WHIST)))
    _, lines = score_hand(new_sheet(PREFERANS_1800S_MIXED, 3), outcome, PREFERANS_1800S_MIXED)
    assert summary(lines) == [(A, "whists", 7, B), (B, "pulya", 7, None), (C, "whists", 7, B)]


# ---- two players: the third hand laid aside (rules 5, 6, 13, 80) -----------------------------------------------

ALL_1800S = SYSTEMS + [PREFERANS_1800S_MIXED_FULL]


def test_rule5_two_to_five_players_and_rule6_the_pattern_of_two():
    """«В преферанс могут играть двое, трое, четверо и даже пятеро»; «Если играют вдвоём, то карты сдаются, как
    обыкновенно, на три руки, но на третью руку они кладутся отдельно и не вскрываются до окончания игры»."""
    for conv in ALL_1800S:
        assert conv.players == (2, 3, 4, 5)
        assert conv.table.pattern_name(2) == "russian-two" and conv.table.pattern_name(3) == "russian"
    two, three = get_pattern("russian-two"), get_pattern("russian")
    assert np.array_equal(two.targets, three.targets)  # «сдаются, как обыкновенно, на три руки»
    assert two.player_hands == (0, 1) and two.aside_hand == 2 and two.table_sizes == (2,)
    assert seats_of_hands(two, 0, 2) == (1, 0, None)
    order = np.random.default_rng(5).permutation(32).astype(np.uint8)
    deal = deal_order(order, two)
    by_seat = deal_by_seat(deal, two, 0, 2)
    assert len(by_seat) == 3 and np.array_equal(by_seat[2], deal.hands[2])  # the hand laid aside comes last
    assert np.array_equal(positions_of(deal_from_seats(by_seat, deal.talons, two, 0, 2), two), order)


def test_rule6_the_third_hand_is_dealt_aside_and_never_seen():
    conv = PREFERANS_1800S
    deal = random_deal(np.random.default_rng(3), conv, 2)
    state = new_hand(conv, 2, 0, deal)
    assert state.active == (1, 0) and state.aside == tuple(int(c) for c in deal.hands[2])
    assert state.hands == (tuple(sorted(int(c) for c in deal.hands[1])), tuple(sorted(int(c) for c in deal.hands[0])))
    final = random_hand(conv, 2, 11)
    assert_cards_conserved(final)
    assert not {c for t in final.tricks for _, c in t.plays} & set(final.aside)
    assert all(len(t.plays) == 2 for t in final.tricks)
    record = to_record(final)
    assert len(record["deal"]["hands"]) == 3 and replay_record(record, conv, 2) == final


def test_two_players_the_whister_plays_alone_and_answers_for_his_two():
    """Rule 3: «сами обязуются непременно сделать по две взятки»; rule 80: «При игре вдвоём расчёт точно такой
    же» — diamonds with the talon made, the whister took one trick: one remiz of three, three prizes."""
    state = bids(
        new_hand(PREFERANS_1800S, 2, 0, random_deal(np.random.default_rng(8), PREFERANS_1800S, 2)), "pass", "pass"
    )
    assert [a.token for a in legal_actions(state)] == ["pass", "buy"] and to_move(state) == 1
    state = bids(state, "buy")
    state = apply(apply(state, Discard(1, state.hands[1][:2])), Declare(1, "6D"))
    assert [a.call for a in legal_actions(state)] == [PASS, WHIST] and to_move(state) == 0
    state = apply(state, Defend(0, WHIST))
    assert state.phase is Phase.PLAY and state.trick_seats == (1, 0)
    outcome = HandOutcome(
        num_seats=2,
        dealer=0,
        active=(1, 0),
        kind=HandKind.GAME,
        tricks=(1, 9),
        declarer=1,
        contract=Contract(6, Suit.DIAMONDS),
        defence=((0, WHIST),),
    )
    _, lines = score_hand(new_sheet(PREFERANS_1800S, 2), outcome, PREFERANS_1800S)
    assert summary(lines) == [(0, "gora", 3, None), (0, "whists", 3, 1), (1, "pulya", 3, None)]


def test_two_players_all_passing_from_the_talon_redeal():
    """Rule 24: «если же все трое спасуют от талона, то игра пересдаётся» — at two, both."""
    state = bids(
        new_hand(PREFERANS_1800S, 2, 1, random_deal(np.random.default_rng(2), PREFERANS_1800S, 2)),
        "pass",
        "pass",
        "pass",
        "pass",
    )
    assert is_over(state) and result(state).kind is HandKind.REDEAL


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), conv=st.sampled_from(ALL_1800S), random_bots=st.booleans())
def test_two_player_evenings_settle_to_zero(seed, conv, random_bots):
    bots = (
        [RandomBot(np.random.default_rng([seed, s])) for s in range(2)]
        if random_bots
        else [HeuristicBot(), HeuristicBot()]
    )
    played = play_match(conv, ["A", "B"], bots, source=seeded_source(seed, conv), max_hands=40)
    assert sum(played.settlement.amounts) == 0
