"""Austrian preferans (seed 003_bf7e0a2721a54502.txt, «Австрийский преферанс»): the number auction with «игра» and
«червы», the unseen talon, obligatory overtaking, the pot in its three ways, premiums, Illustrated Preference with
kontra, Sans Atout — all parameters of the one state machine and sheet."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_play import assert_cards_conserved, random_hand, three_player_evening

from fairdeal.cards import Suit, parse_card
from fairdeal.deal import Deal
from fairdeal.engine.actions import Announce, Bid, Declare, Defend, Discard, Follow, Invite, Kontra, Phase, Play
from fairdeal.engine.driver import random_deal
from fairdeal.engine.extra import central
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.pot import pot_of
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.rules import (
    AUSTRIAN,
    AUSTRIAN_ILLUSTRATED,
    AUSTRIAN_LIMITED,
    AUSTRIAN_NACHGEHEN,
    AUSTRIAN_SANS_ATOUT,
    AUSTRIAN_STYRIAN,
    AUSTRIAN_UNLIMITED,
)

WHIST, PASS = DefenceCall.WHIST, DefenceCall.PASS
A, B, C = 0, 1, 2
VARIANTS = [
    AUSTRIAN,
    AUSTRIAN_UNLIMITED,
    AUSTRIAN_LIMITED,
    AUSTRIAN_STYRIAN,
    AUSTRIAN_ILLUSTRATED,
    AUSTRIAN_SANS_ATOUT,
    AUSTRIAN_NACHGEHEN,
]


def game(declarer, contract, tricks, defence, dealer=None, invited=False, extras=()):
    kind = HandKind.MISERE if contract.misere else HandKind.GAME
    return HandOutcome(
        num_seats=3,
        dealer=(declarer - 1) % 3 if dealer is None else dealer,
        active=(0, 1, 2),
        kind=kind,
        tricks=tricks,
        declarer=declarer,
        contract=contract,
        defence=defence,
        whister_invited=invited,
        extras=extras,
    )


def sheet_with_pot(conv, amount):
    sheet = new_sheet(conv, 3)
    return replace(sheet, gora=(Fraction(amount), Fraction(0), Fraction(0)), hands=5)


def summary(lines):
    return sorted((line.seat, line.column, line.points, line.on) for line in lines)


def test_seed003_unlimited_pot_forty_becomes_one_hundred_thirty():
    """«в котле находится 40 ставок. Разыгрывающий берёт пять взяток, один вистующий — четыре, а другой — одну ...
    выплачивает 16 ставок одному и четыре ставки другому. Затем разыгрывающий вносит в котёл 80 ..., вистующий,
    взявший одну взятку, добавляет 40, новый сдающий приплюсовывает свои обязательные 10 ставок. В следующей сдаче
    разыгрывается котёл в 130 ставок»."""
    sheet = sheet_with_pot(AUSTRIAN_UNLIMITED, 30)  # the dealer's 10 make it 40
    outcome = game(A, Contract(6, Suit.DIAMONDS), (5, 4, 1), ((B, WHIST), (C, WHIST)), dealer=C)
    sheet, lines = score_hand(sheet, outcome, AUSTRIAN_UNLIMITED)
    assert summary(lines) == [
        (A, "gora", 80, None),
        (A, "pulya", 40, None),
        (B, "whists", 16, A),
        (C, "gora", 10, None),
        (C, "gora", 40, None),
        (C, "whists", 4, A),
    ]
    passed = HandOutcome(num_seats=3, dealer=A, active=(0, 1, 2), kind=HandKind.REDEAL, tricks=(0, 0, 0), played=False)
    assert pot_of(score_hand(sheet, passed, AUSTRIAN_UNLIMITED)[0]) == 130


def test_seed003_limited_pot_plays_one_hundred_of_one_hundred_thirty():
    """«Котёл составляет 130 ставок, но разыгрываться ... только 100. Если ... взятки распределятся 6:3:1, то
    разыгрывающий возьмёт из котла 100, выплатит вистующим соответственно 30 и 10, взявший одну взятку внесёт в
    котёл 100, а следующий сдающий добавит 10. Котёл достигнет величины 140 ... (140–100+10=50)»."""
    sheet = sheet_with_pot(AUSTRIAN_LIMITED, 120)
    outcome = game(A, Contract(6, Suit.SPADES), (6, 3, 1), ((B, WHIST), (C, WHIST)), dealer=C)
    sheet, lines = score_hand(sheet, outcome, AUSTRIAN_LIMITED)
    assert summary(lines) == [
        (A, "pulya", 100, None),
        (B, "whists", 30, A),
        (C, "gora", 10, None),
        (C, "gora", 100, None),
        (C, "whists", 10, A),
    ]
    made = game(B, Contract(6, Suit.SPADES), (2, 6, 2), ((C, WHIST), (A, WHIST)), dealer=A)
    sheet, lines = score_hand(sheet, made, AUSTRIAN_LIMITED)  # the dealer's 10 make 140 before the play
    assert (B, "pulya", 100, None) in summary(lines) and pot_of(sheet) == 40  # + next dealer's 10 = 50


def test_seed003_basic_pot_ten_per_hand_twenty_for_a_remiz_and_refill():
    """«берёт из котла 10 ставок ... по одной ставке за каждую фактическую взятку ... меньше шести взяток, он
    доставляет в котёл 20 ставок ... каждый вистующий, не набравший двух взяток, платит в котёл 10 ставок»;
    «Если ... котёл опустеет ... снова сделать взносы»."""
    first = game(A, Contract(6, Suit.CLUBS), (5, 4, 1), ((B, WHIST), (C, WHIST)))
    sheet, lines = score_hand(new_sheet(AUSTRIAN, 3), first, AUSTRIAN)
    assert summary(lines) == [
        (A, "gora", 20, None),
        (A, "gora", 50, None),
        (A, "pulya", 10, None),
        (B, "gora", 50, None),
        (B, "whists", 4, A),
        (C, "gora", 10, None),
        (C, "gora", 50, None),
        (C, "whists", 1, A),
    ]
    assert pot_of(sheet) == 150 - 10 + 30
    empty = replace(sheet, pulya=(Fraction(175), Fraction(0), Fraction(0)))  # 5 left: everyone pays in again
    _, lines = score_hand(empty, game(B, Contract(6, Suit.CLUBS), (0, 10, 0), ()), AUSTRIAN)
    assert [line.points for line in lines if line.column == "gora"] == [50, 50, 50]


def test_seed003_invitation_the_inviter_answers_for_four_and_takes_all():
    """«Приглашённому защитнику не платится ничего ... В случае приглашения пригласивший отвечает за четыре»."""
    outcome = game(A, Contract(6, Suit.CLUBS), (7, 2, 1), ((B, WHIST), (C, PASS)), invited=True)
    _, lines = score_hand(sheet_with_pot(AUSTRIAN, 100), outcome, AUSTRIAN)
    assert summary(lines) == [(A, "pulya", 10, None), (B, "gora", 10, None), (B, "whists", 3, A)]


def test_seed003_premiums_hearts_four_aces_no_aces():
    """«Премия за контракт червы ... оба защитника платят по 10 ставок. В случае ремиза разыгрывающий платит»;
    «все четыре туза ... защитники платят ему по 10 ... Если контракт не выполнен, премия за тузы не платится»;
    «нет ни одного туза и он объявил ... Если же он при этом не выполнит контракт, он сам платит»."""
    hearts = Contract(6, Suit.HEARTS, no_talon=True)
    made = game(A, hearts, (6, 2, 2), ((B, WHIST), (C, WHIST)), extras=(("aces", 4),))
    _, lines = score_hand(sheet_with_pot(AUSTRIAN, 100), made, AUSTRIAN)
    assert {(line.seat, line.points, line.on) for line in lines if line.column == "whists" and line.seat == A} == {
        (A, 20, B),
        (A, 20, C),
    }
    failed = game(
        A, Contract(6, Suit.CLUBS), (5, 3, 2), ((B, WHIST), (C, WHIST)), extras=(("aces", 4), ("no_aces", True))
    )
    _, lines = score_hand(sheet_with_pot(AUSTRIAN, 100), failed, AUSTRIAN)
    assert {(B, "whists", 3, A), (B, "whists", 10, A), (C, "whists", 2, A), (C, "whists", 10, A)} <= set(summary(lines))
    assert all(line.seat != A or line.column != "whists" for line in lines)  # no aces premium on a remiz


def test_seed003_styrian_pot_plays_by_the_suit():
    """«трефовый — стоит 20 очков (по два за взятку), пиковый — 30, бубновый — 40, а червовый — 50»."""
    for trump, stake in ((Suit.CLUBS, 20), (Suit.SPADES, 30), (Suit.DIAMONDS, 40), (Suit.HEARTS, 50)):
        outcome = game(A, Contract(6, trump), (6, 2, 2), ((B, WHIST), (C, WHIST)))
        _, lines = score_hand(sheet_with_pot(AUSTRIAN_STYRIAN, 200), outcome, AUSTRIAN_STYRIAN)
        assert (A, "pulya", stake, None) in summary(lines) and (B, "whists", stake // 5, A) in summary(lines)


def test_seed003_illustrated_contracts_settle_directly_with_kontra():
    """«Разыгрывающий рассчитывается ... непосредственно с защитниками»; «без прикупа ... удваивается»; «контра ...
    удваивает расчёт между разыгрывающим и защитником ... реконтра ... учетверён»."""
    bettel = Contract(None, None, misere=True, no_talon=True)
    outcome = game(A, bettel, (0, 5, 5), (), extras=(("kontra", ((B, 2),)),))
    _, lines = score_hand(sheet_with_pot(AUSTRIAN_ILLUSTRATED, 100), outcome, AUSTRIAN_ILLUSTRATED)
    assert summary(lines) == [(A, "whists", 20, C), (A, "whists", 80, B)]
    durchmarsch = game(A, Contract(10, None), (9, 1, 0), ((B, WHIST), (C, WHIST)))
    _, lines = score_hand(sheet_with_pot(AUSTRIAN_ILLUSTRATED, 100), durchmarsch, AUSTRIAN_ILLUSTRATED)
    assert summary(lines) == [(B, "whists", 20, A), (C, "whists", 20, A)]


# ---- the state machine ----------------------------------------------------------------------------------------


def fresh(conv=AUSTRIAN, seed=0, dealer=2, deal=None):
    return new_hand(conv, 3, dealer, deal or random_deal(np.random.default_rng(seed), conv))


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def cards(text):
    return np.array([parse_card(t).code for t in text.split()], dtype=np.uint8)


def test_seed003_auction_words_hearts_and_game_without_hearts():
    """«игрок на первой руке может заявить либо раз, либо игра, либо червы, или — спасовать»; «Говоря игра ...
    любую масть, кроме червей»; «её может перебить только другая заявка игра или заявка червы»."""
    state = fresh()
    assert [a.token for a in legal_actions(state)] == ["pass", "one", "game", "hearts"]
    state = bids(state, "one", "game")
    assert [a.token for a in legal_actions(state)] == ["pass", "game", "hearts"]  # C's first call
    state = bids(state, "pass")
    assert [a.token for a in legal_actions(state)] == ["pass"]  # A bid a number: «не может позже объявить игру»
    state = bids(state, "pass")
    assert state.declarer == B and [a.token for a in legal_actions(state)] == ["6C-bp", "6S-bp", "6D-bp"]
    state = bids(fresh(), "hearts", "pass", "pass")
    assert [a.token for a in legal_actions(state)] == ["6H-bp"] and not state.talon_shown


def test_seed003_talon_unseen_and_the_declarer_leads_against_two_whists():
    """«берёт прикуп себе, никому не показывая»; «Если завистовали оба, разыгрывающий делает первый ход»."""
    deal = Deal(
        hands=(
            cards("AS KS QS JS 10S AC KC QC JC 10C"),
            cards("9S 8S 7S 9C 8C 7C AD KD QD JD"),
            cards("10D 9D 8D 7D AH KH QH JH 10H 9H"),
        ),
        talons=(cards("8H 7H"),),
    )
    state = bids(fresh(deal=deal), "one", "pass", "pass")
    assert state.declarer == A and not state.talon_shown
    assert view_for(state, B).talon_seen == ()
    state = apply(state, Discard(A, (parse_card("8H").code, parse_card("7H").code)))
    state = apply(state, Declare(A, "6S"))
    state = apply(apply(state, Defend(B, WHIST)), Defend(C, WHIST))
    assert state.phase is Phase.PLAY and state.turn == A
    state = apply(state, Play(A, parse_card("10S").code))
    assert len(legal_actions(state)) == 3  # no spade heads the ten: any spade will do


def test_seed003_overtaking_is_required_when_possible():
    """«Перебивать карту хода обязательно»."""
    deal = Deal(
        hands=(
            cards("9S AC KC QC JC 10C 9C 8C 7C AD"),
            cards("AS 7S KD QD JD 10D 9D 8D 7D AH"),
            cards("KS QS JS 10S 8S KH QH JH 10H 9H"),
        ),
        talons=(cards("8H 7H"),),
    )
    state = bids(fresh(deal=deal), "one", "pass", "pass")
    state = apply(state, Discard(A, (parse_card("8H").code, parse_card("7H").code)))
    state = apply(apply(apply(state, Declare(A, "6C")), Defend(B, WHIST)), Defend(C, WHIST))
    state = apply(state, Play(A, parse_card("9S").code))
    assert [Suit(p.card // 8) for p in legal_actions(state)] == [Suit.SPADES]
    assert [p.card for p in legal_actions(state)] == [parse_card("AS").code]  # must head the 9 with the ace
    with pytest.raises(IllegalAction, match="Перебивать"):
        apply(state, Play(B, parse_card("7S").code))


def test_seed003_no_aces_announcement_and_its_premium_in_the_record():
    deal = Deal(
        hands=(
            cards("KS QS JS 10S KC QC JC 10C 9C 8C"),
            cards("AS 9S 8S 7S AC 7C AD KD QD JD"),
            cards("10D 9D 8D 7D AH KH QH JH 10H 9H"),
        ),
        talons=(cards("8H 7H"),),
    )
    state = bids(fresh(deal=deal), "one", "pass", "pass")
    state = apply(state, Discard(A, (parse_card("8H").code, parse_card("7H").code)))
    state = apply(apply(apply(state, Declare(A, "6C")), Defend(B, WHIST)), Defend(C, PASS))
    state = apply(state, Invite(B, False))
    assert state.phase is Phase.ANNOUNCE
    state = apply(state, Announce(A, True))
    assert state.phase is Phase.PLAY and state.trick_seats == (A, B)
    while not is_over(state):
        state = apply(state, legal_actions(state)[0])
    assert dict(result(state).extras)["no_aces"] is True
    assert replay_record(to_record(state), AUSTRIAN, 3) == state


def test_seed003_illustrated_bids_forced_defence_kontra_and_open_plauderer():
    state = bids(fresh(AUSTRIAN_ILLUSTRATED), "one", "two", "three", "four", "five", "six", "seven", "pass", "pass")
    assert state.declarer == A and state.final_number == 7
    state = apply(state, Discard(A, state.hands[A][:2]))
    assert [a.token for a in legal_actions(state)] == ["misere-open", "10NT-open"]
    state = apply(state, Declare(A, "misere-open"))
    assert state.phase is Phase.KONTRA and to_move(state) == B
    state = apply(apply(state, Kontra(B, True)), Kontra(C, False))
    state = apply(state, Kontra(A, True))  # rekontra
    assert state.phase is Phase.PLAY and dict(central(state.extra).kontra) == {B: 2}
    state = apply(state, legal_actions(state)[0])
    assert A in state.open_seats  # «После первого хода разыгрывающий кладёт свои карты»
    state = bids(fresh(AUSTRIAN_ILLUSTRATED), "one", "two", "three", "four", "five", "six", "pass", "pass")
    state = apply(apply(state, Discard(C, state.hands[C][:2])), Declare(C, "10NT"))
    assert [a.call for a in legal_actions(state)] == [WHIST]  # «защитники не могут отказаться от игры»


def test_seed003_sans_atout_is_led_from_the_declarers_right():
    """«Первый ход в этом случае принадлежит игроку, сидящему справа от разыгрывающего»."""
    state = bids(fresh(AUSTRIAN_SANS_ATOUT), "one", "two", "three", "four", "five", "six", "pass", "pass")
    assert [
        a.token for a in legal_actions(bids(fresh(AUSTRIAN_SANS_ATOUT), "one", "two", "three", "four", "five", "six"))
    ] == ["pass", "mine"]
    state = apply(apply(state, Discard(C, state.hands[C][:2])), Declare(C, "6NT"))
    assert [a.call for a in legal_actions(state)] == [WHIST]
    state = apply(apply(state, Defend(A, WHIST)), Defend(B, WHIST))
    state = apply(apply(state, Kontra(A, False)), Kontra(B, False))
    assert state.phase is Phase.PLAY and state.turn == B  # B sits to C's right (C's left is A)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), conv=st.sampled_from(VARIANTS), seats=st.sampled_from([3, 4]))
def test_random_legal_hands_conserve_cards_end_and_replay(seed, conv, seats):
    state = random_hand(conv, seats, seed)
    assert_cards_conserved(state)
    outcome = result(state)
    assert not outcome.played or sum(outcome.tricks) == 10
    assert replay_record(to_record(state), conv, seats) == state


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), conv=st.sampled_from(VARIANTS), random_bots=st.booleans())
def test_random_evenings_balance_the_pot_and_settle_to_zero(seed, conv, random_bots):
    played = three_player_evening(conv, seed, random_bots, max_hands=12)
    assert sum(played.settlement.amounts) == 0
    assert pot_of(played.sheet) >= 0
    taken_and_paid = sum(played.sheet.pulya) - sum(played.sheet.gora)
    assert sum(row.gora_part for row in played.settlement.rows) == 0 and taken_and_paid <= 0


def test_seed003_nachgehen_example_bettel_durchmarsch_plauderer():
    """«А сказал раз, B сказал два, С спасовал и А ... тоже спасовал. B берёт прикуп, сносит ... А берёт
    снесённые B карты ..., сносит и заказывает Bettel. Контракт B перебит, если только он не решится взять
    снесённые А карты ... и не закажет ... Durchmarsch. Этот контракт и будет играться, если только А снова не
    перебьёт и не закажет Plauderer»."""
    state = bids(fresh(AUSTRIAN_NACHGEHEN), "one", "two", "pass", "pass")
    state = apply(state, Discard(B, state.hands[B][:2]))
    assert state.phase is Phase.FOLLOW and to_move(state) == A  # «Ich liege»: C did not bid
    state = apply(state, Follow(A, True))
    assert len(state.hands[A]) == 12
    state = apply(state, Discard(A, state.hands[A][:2]))
    assert [a.token for a in legal_actions(state)] == ["misere", "10NT", "misere-open", "10NT-open"]
    state = apply(state, Declare(A, "misere"))
    state = apply(state, Follow(B, True))
    state = apply(state, Discard(B, state.hands[B][:2]))
    assert [a.token for a in legal_actions(state)] == ["10NT", "misere-open", "10NT-open"]
    state = apply(state, Declare(B, "10NT"))
    state = apply(state, Follow(A, True))
    state = apply(apply(state, Discard(A, state.hands[A][:2])), Declare(A, "misere-open"))
    state = apply(state, Follow(B, False))
    assert state.declarer == A and state.contract.token == "misere-open" and state.phase is Phase.KONTRA
    while not is_over(state):
        state = apply(state, legal_actions(state)[0])
    record = to_record(state)
    assert [step["take"] for step in record["extras"]["nachgehen"]] == [True, True, True, False]
    assert replay_record(record, AUSTRIAN_NACHGEHEN, 3) == state
