"""The Russian hand state machine: each phase and each rule that forbids an action (seeds 000, 002)."""

from __future__ import annotations

import dataclasses

import pytest

from fairdeal.cards import parse_card
from fairdeal.engine.actions import Bid, ChooseOpen, Concede, Declare, Defend, Discard, Phase, Play
from fairdeal.engine.driver import deal_from_text
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.rules import MAILRU, ROSTOV, SOCHI

# Dealer 0 at three players: the first hand is seat 1, then seat 2, then seat 0.
STRONG = (
    "AS KS QS JS 10S 9S 8S 7S AC KC",
    "QC JC 10C 9C 8C 7C AD KD QD JD",
    "10D 9D 8D 7D AH KH QH JH 10H 9H",
    "8H 7H",
)
MIXED = (
    "AS 7S AC 7C AD 7D AH 7H KS KC",
    "QS 8S QC 8C QD 8D QH 8H JD KH",
    "JS 9S JC 9C KD 9D JH 9H 10S 10C",
    "10D 10H",
)
PASS = "pass"
WHIST, PASS_CALL, HALF = DefenceCall.WHIST, DefenceCall.PASS, DefenceCall.HALF_WHIST


def card(text: str) -> int:
    return parse_card(text).code


def start(deal=STRONG, convention=SOCHI, seats=3, dealer=0, streak=0):
    return new_hand(convention, seats, dealer, deal_from_text(*deal), streak)


def run(state, *actions):
    for action in actions:
        state = apply(state, action)
    return state


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def forbidden(state, action, words: str):
    with pytest.raises(IllegalAction, match=words):
        apply(state, action)


# ---- the deal ---------------------------------------------------------------------------------------------------


def test_new_hand_gives_first_hand_the_first_word():
    state = start()
    assert state.active == (1, 2, 0) and to_move(state) == 1 and state.phase is Phase.AUCTION
    assert len(state.hands[1]) == 10 and state.talon == (card("8H"), card("7H"))


def test_four_players_the_dealer_sits_out():
    state = start(seats=4, dealer=2)
    assert state.active == (3, 0, 1) and state.hands[2] == ()


def test_a_deal_that_is_not_a_deck_is_refused():
    broken = (STRONG[0], STRONG[0], STRONG[2], STRONG[3])
    with pytest.raises(IllegalAction, match="exactly once"):
        start(broken)


# ---- auction ----------------------------------------------------------------------------------------------------


def test_not_your_turn():
    forbidden(start(), Bid(2, "6S"), "not your turn")


def test_bid_below_the_last():
    forbidden(bids(start(MIXED, MAILRU), "7S"), Bid(2, "6NT"), "bid below the last")


def test_codex_forbids_jumps():
    # 002 (Кодекс): «торговаться надо строго следуя по лестнице цен, нельзя перепрыгивать через ступеньки»
    state = bids(start(), "6S")
    forbidden(state, Bid(2, "7S"), "jump not allowed: the next bid on the ladder is 6C")
    assert [a.token for a in legal_actions(state)] == [PASS, "misere", "6C"]


def test_mailru_allows_jumps():
    state = bids(start(convention=MAILRU), "6S", "7H")
    assert state.high.token == "7H" and state.high_seat == 2


def test_misere_only_as_a_first_bid():
    # 002: «Мизер можно объявить только сразу – если игрок еще не делал заявок в текущем торге»
    state = bids(start(), "6S", "6C", PASS)
    forbidden(state, Bid(1, "misere"), "misère after a bid")


def test_misere_beats_8nt_and_loses_to_nine():
    # 002: «Мизер старше 8 БК. 9 и следующие за ним контракты считаются старше мизера»
    state = bids(start(convention=MAILRU), "8NT", "misere")
    assert state.high.token == "misere"
    assert "9S" in [a.token for a in legal_actions(state)]
    forbidden(state, Bid(0, "8NT"), "bid below the last")


def test_misere_bidder_may_only_pass_after_being_outbid():
    state = bids(start(convention=MAILRU), "misere", "9S", PASS)
    assert [a.token for a in legal_actions(state)] == [PASS]


def test_passed_players_cannot_bid_again():
    state = bids(start(), PASS, "6S", "6C")
    forbidden(state, Bid(1, "6D"), "passed players cannot bid again")


def test_mine_lets_the_senior_hand_hold_the_last_bid():
    # 000: «Он может сказать: "Мои", вынуждая тем самым второго и третьего участников назначить более высокую игру»
    state = bids(start(), "6S", "6C", "6D", "mine")
    assert state.high.token == "6D" and state.high_seat == 1
    forbidden(state, Bid(2, "6D"), "bid below the last")
    state = bids(state, PASS, PASS)
    assert state.declarer == 1 and state.final_bid.token == "6D"


def test_mine_is_for_the_senior_hand_only():
    state = bids(start(), "6S")
    forbidden(state, Bid(2, "mine"), "«мои» holds only a game bid made by a junior hand")


def test_mailru_has_no_mine():
    forbidden(bids(start(convention=MAILRU), "6S", "6C"), Bid(0, "mine"), "not part of this convention")


def test_tightened_exit_from_raspasy():
    # 002: «Если в распасовку сыграно 2 раздачи подряд, то играющий должен заказать контракт не меньше 7»
    state = start(convention=MAILRU, streak=2)
    forbidden(state, Bid(1, "6NT"), "bids start at level 7")
    assert bids(state, "7S").high.token == "7S"
    forbidden(start(convention=MAILRU, streak=5), Bid(1, "7NT"), "level 8")


def test_misere_without_talon_is_beaten_only_by_no_talon_bids():
    # 002: «перебить заявку "Мизер без прикупа" можно только 9-ю БП и 10-ю БП»
    state = bids(start(convention=MAILRU), "misere-bp")
    forbidden(state, Bid(2, "10NT"), "bid below the last")
    assert [a.token for a in legal_actions(state)] == [PASS, "9-bp", "10-bp"]
    assert bids(state, "9-bp").high.token == "9-bp"


def test_mailru_9bp_and_10bp_are_single_rungs_above_the_nine_and_ten_no_trumps():
    # 002: «9, 9, 9, 9, 9 БК, 9БП 10, 10, 10, 10, 10 БК, 10БП»: one rung each, not five suited no-talon bids
    state = bids(start(convention=MAILRU), "9S")
    ladder = [a.token for a in legal_actions(state)][1:]
    assert ladder == ["misere-bp", "9C", "9D", "9H", "9NT", "9-bp", "10S", "10C", "10D", "10H", "10NT", "10-bp"]
    forbidden(state, Bid(2, "9S-bp"), "one rung per level")
    state = bids(state, "9NT", "9-bp")
    assert [a.token for a in legal_actions(state)] == [PASS, "10S", "10C", "10D", "10H", "10NT", "10-bp"]


def test_no_talon_bids_need_the_convention():
    forbidden(start(), Bid(1, "9S-bp"), "not part of this convention")
    forbidden(start(), Bid(1, "9-bp"), "not part of this convention")


def test_all_pass_is_raspasy():
    state = bids(start(), PASS, PASS, PASS)
    assert state.phase is Phase.PLAY and state.kind is HandKind.RASPASY and state.declarer is None
    assert to_move(state) == 1 and not state.talon_shown


# ---- talon, discard, contract -----------------------------------------------------------------------------------


def won_at(token="6S", deal=STRONG, convention=SOCHI):
    return bids(start(deal, convention), token, PASS, PASS)


def test_the_talon_is_shown_and_taken():
    # 000: «Карты в прикупе переворачиваются, и все участники имеют возможность посмотреть их»
    state = won_at()
    assert state.talon_shown and state.phase is Phase.DISCARD and len(state.hands[1]) == 12
    assert view_for(state, 2).talon_seen == (card("8H"), card("7H"))


def test_discard_not_from_your_hand():
    forbidden(won_at(), Discard(1, (card("AD"), card("7H"))), "discard not from your hand")


def test_discard_of_two_different_cards():
    forbidden(won_at(), Discard(1, (card("7H"), card("7H"))), "two different cards")


def test_the_discard_is_hidden_from_the_others():
    state = run(won_at(), Discard(1, (card("8H"), card("7H"))))
    assert len(state.hands[1]) == 10 and state.phase is Phase.CONTRACT
    assert view_for(state, 1).discard == (card("8H"), card("7H")) and view_for(state, 2).discard == ()


def test_contract_below_the_final_bid():
    # 000: «Если игрок прикупил на "семь бубен", он не имеет права играть на "семь пик" или "семь треф"»
    state = run(bids(start(convention=MAILRU), "7D", PASS, PASS), Discard(1, (card("8H"), card("7H"))))
    forbidden(state, Declare(1, "7C"), "contract below the final bid 7D")
    assert run(state, Declare(1, "9H")).contract.token == "9H"  # «объявить игру "девять черви"»


def test_misere_only_when_bid():
    state = run(won_at(), Discard(1, (card("8H"), card("7H"))))
    forbidden(state, Declare(1, "misere"), "a misère is played only when bid")


def test_contract_must_equal_the_bid_when_the_convention_says_so():
    strict = dataclasses.replace(SOCHI, bidding=dataclasses.replace(SOCHI.bidding, contract_may_exceed_bid=False))
    state = run(won_at(convention=strict), Discard(1, (card("8H"), card("7H"))))
    forbidden(state, Declare(1, "7S"), "plays the final bid 6S")


def test_no_talon_bid_skips_talon_and_discard():
    # 002: «БП во время торга означает старшинство контракта; а при заказе – игру без прикупа»: the strain is
    # named with the contract, at the rung's level or above
    state = bids(start(convention=MAILRU), "9-bp", PASS, PASS)
    assert state.phase is Phase.CONTRACT and not state.talon_shown and len(state.hands[1]) == 10
    contracts = [a.token for a in legal_actions(state) if isinstance(a, Declare)]
    assert contracts == [f"{level}{s}-bp" for level in (9, 10) for s in ("S", "C", "D", "H", "NT")]
    forbidden(state, Declare(1, "9S"), "-bp contract")
    forbidden(state, Declare(1, "9-bp"), "names its strain")
    state = run(state, Declare(1, "9H-bp"))
    assert state.contract.contract().no_talon and state.talon == (card("8H"), card("7H"))
    assert state.phase is Phase.DEFENCE


def test_a_conceded_no_talon_rung_costs_three_down_at_its_level():
    # 002: «штраф, равный трем недостающим взяткам в той игре, до которой он доторговался»
    state = run(bids(start(convention=MAILRU), "10-bp", PASS, PASS), Concede(1))
    outcome = result(state)
    assert outcome.conceded_undertricks == 3 and outcome.contract.level == 10 and outcome.contract.no_talon
    assert to_record(state)["contract"] == {"declarer": 1, "bid": "10-bp"}
    assert replay_record(to_record(state), MAILRU, 3) == state


def test_concede_three_in_mailru():
    # 002: «играющий может выбрать игру "Без трех" – завершить раздачу без игры»
    state = run(won_at(convention=MAILRU), Discard(1, (card("8H"), card("7H"))), Concede(1))
    outcome = result(state)
    assert is_over(state) and outcome.conceded_undertricks == 3 and not outcome.played
    assert outcome.contract.level == 6 and outcome.tricks == (0, 0, 0)


def test_no_concession_in_sochi():
    state = run(won_at(), Discard(1, (card("8H"), card("7H"))))
    forbidden(state, Concede(1), "not allowed here")


# ---- defence ----------------------------------------------------------------------------------------------------


def declared(token="6S", deal=STRONG, convention=SOCHI):
    return run(won_at(deal=deal, convention=convention), Discard(1, (card("8H"), card("7H"))), Declare(1, token))


def test_defenders_speak_from_the_declarers_left():
    state = declared()
    assert state.phase is Phase.DEFENCE and to_move(state) == 2
    forbidden(state, Defend(0, WHIST), "not your turn")


def test_both_pass_ends_the_hand_unplayed():
    # 000: «Если оба противника пасуют, то игра считается выигранной без вистов»
    outcome = result(run(declared(), Defend(2, PASS_CALL), Defend(0, PASS_CALL)))
    assert not outcome.played and outcome.kind is HandKind.GAME and outcome.declarer == 1
    assert outcome.defence == ((2, PASS_CALL), (0, PASS_CALL))


def test_half_whist_after_a_pass_in_mailru():
    # 002: «Если первый игрок пасует, второй может сказать "Пол виста"... И на этом раздача закончится»
    state = declared(convention=MAILRU)
    forbidden(state, Defend(2, HALF), "half-whist only by the second defender")
    outcome = result(run(state, Defend(2, PASS_CALL), Defend(0, HALF)))
    assert not outcome.played and outcome.call_of(0) is HALF


def test_half_whist_not_at_eight():
    state = run(declared("8S", convention=MAILRU), Defend(2, PASS_CALL))
    forbidden(state, Defend(0, HALF), "at this level")


def test_half_whist_not_in_sochi_rules_here():
    forbidden(run(declared(), Defend(2, PASS_CALL)), Defend(0, HALF), "half-whist")


def test_lone_whister_plays_open_and_commands_the_passer():
    # 000: «При игре с открытыми картами распоряжается тот, кто приглашает к игре»
    state = run(declared(), Defend(2, WHIST), Defend(0, PASS_CALL))
    assert state.phase is Phase.OPEN_CHOICE and to_move(state) == 2
    state = run(state, ChooseOpen(2, True), Play(1, card("AS")))
    assert state.open_seats == frozenset({0, 2}) and state.turn == 2
    state = run(state, Play(2, card("JD")))
    assert state.turn == 0 and to_move(state) == 2
    forbidden(state, Play(0, card("7D")), "not your turn, seat 2")
    state = run(state, Play(0, card("7D"), actor=2))
    assert result(run_out(state)).whister_invited


def test_closed_lone_whist_each_plays_his_own_cards():
    state = run(
        declared(),
        Defend(2, WHIST),
        Defend(0, PASS_CALL),
        ChooseOpen(2, False),
        Play(1, card("AS")),
        Play(2, card("JD")),
    )
    assert to_move(state) == 0 and state.open_seats == frozenset()


def test_two_whists_play_closed():
    state = run(declared(), Defend(2, WHIST), Defend(0, WHIST))
    assert state.phase is Phase.PLAY and to_move(state) == 1 and not state.defence_open


def run_out(state):
    while not is_over(state):
        state = apply(state, legal_actions(state)[0])
    return state


# ---- trick play -------------------------------------------------------------------------------------------------


def test_must_follow_suit():
    state = run(
        won_at(deal=MIXED),
        Discard(1, (card("10D"), card("10H"))),
        Declare(1, "6S"),
        Defend(2, WHIST),
        Defend(0, WHIST),
        Play(1, card("AD")),
    )
    forbidden(state, Play(2, card("QS")), "must follow suit ♦")


def test_must_trump_when_void():
    # 000: «Ходить следует обязательно в масть, а если масти нет, то бить козырем»
    state = bids(start(), PASS, "6S", PASS)
    state = run(
        state,
        Discard(2, (card("8H"), card("7H"))),
        Declare(2, "6C"),
        Defend(0, WHIST),
        Defend(1, WHIST),
        Play(1, card("AS")),
    )
    forbidden(state, Play(2, card("AD")), "must trump")
    assert {a.card for a in legal_actions(state)} == {card(c) for c in ["QC", "JC", "10C", "9C", "8C", "7C"]}


def test_overtaking_is_not_required_and_the_trick_goes_to_the_right_card():
    # 000: «Необязательно бить старшей картой»
    state = run(start(MIXED), *[Bid(s, PASS) for s in (1, 2, 0)], Play(1, card("7D")), Play(2, card("QD")))
    assert {card("KD"), card("9D")} <= {a.card for a in legal_actions(state)}
    state = run(state, Play(0, card("9D")))
    assert state.tricks[0].winner == 2 and state.won == (0, 0, 1)


def test_trump_wins_the_trick():
    state = bids(start(), PASS, "6S", PASS)
    state = run(
        state,
        Discard(2, (card("8H"), card("7H"))),
        Declare(2, "6C"),
        Defend(0, WHIST),
        Defend(1, WHIST),
        Play(1, card("AS")),
        Play(2, card("7C")),
        Play(0, card("7D")),
    )
    assert state.tricks[0].winner == 2 and to_move(state) == 2


def test_a_card_not_in_hand():
    state = run(declared(), Defend(2, WHIST), Defend(0, WHIST))
    forbidden(state, Play(1, card("AH")), "not in seat 1's hand")


# ---- raspasy ----------------------------------------------------------------------------------------------------


def test_raspasy_talon_sets_the_suit_at_three():
    # 000: «карты, лежащие в прикупе, в этом случае только показывают масть, а взятка достается тому игроку,
    # который предъявил старшую карту (причем достоинство карты из прикупа не учитывается)»
    state = run(start(MIXED), *[Bid(s, PASS) for s in (1, 2, 0)])
    assert state.current_talon_card == card("10D")
    forbidden(state, Play(1, card("AS")), "must follow suit ♦")
    state = run(state, Play(1, card("7D")), Play(2, card("8D")), Play(0, card("9D")))
    trick = state.tricks[0]
    assert trick.winner == 0 and trick.talon_card == card("10D")
    # «после первой взятки открывают вторую карту прикупа, а потом ход делает игрок, сидящий слева от сдающего»
    assert state.current_talon_card == card("10H") and to_move(state) == 1
    state = run(state, Play(1, card("7H")), Play(2, card("8H")), Play(0, card("9H")))
    assert state.current_talon_card is None and to_move(state) == 1 and state.won == (2, 0, 0)


def test_raspasy_talon_cards_are_the_dealers_at_four():
    # 000: «штрафные очки за взятки, полученные картами, которые лежат в прикупе, записывает на свой счет сдающий»
    state = run(start(MIXED, seats=4), *[Bid(s, PASS) for s in (1, 2, 3)])
    state = run(state, Play(1, card("7D")), Play(2, card("8D")), Play(3, card("9D")))
    assert state.tricks[0].winner == 0 and state.talon_won == 1 and state.won == (0, 0, 0, 0)
    outcome = result(run_out(state))
    assert outcome.raspasy_talon_tricks >= 1 and sum(outcome.tricks) + outcome.raspasy_talon_tricks == 10


def test_rostov_never_opens_the_talon():
    # 003 (Ростов): «прикуп на распасовке: не открывается никогда»
    state = run(start(MIXED, ROSTOV), *[Bid(s, PASS) for s in (1, 2, 0)])
    assert state.current_talon_card is None
    state = run(state, Play(1, card("AS")))
    assert state.talon == (card("10D"), card("10H"))
    final = run_out(state)
    assert all(t.talon_card is None for t in final.tricks) and view_for(final, 2).talon_seen == ()


# ---- misère -----------------------------------------------------------------------------------------------------


def test_misere_is_played_by_both_defenders_with_open_cards_after_the_first_lead():
    # 002 (Кодекс): «если ход должны сделать вистующие - они же и открывают карты ещё до первого хода»
    state = bids(start(MIXED), PASS, "misere", PASS)
    state = run(state, Discard(2, (card("QS"), card("KH"))))
    forbidden(state, Declare(2, "10NT"), "a bid misère must be played")
    state = run(state, Declare(2, "misere"))
    assert state.kind is HandKind.MISERE and state.defence == () and to_move(state) == 1
    assert view_for(state, 2).hand_of(0) is None
    state = run(state, Play(1, card("7S")))
    assert state.open_seats == frozenset({0, 1}) and view_for(state, 2).hand_of(0) == state.hands[0]
    assert state.contract.contract().trump is None
    outcome = result(run_out(state))
    assert outcome.kind is HandKind.MISERE and outcome.contract.misere and sum(outcome.tricks) == 10


# ---- the outcome ------------------------------------------------------------------------------------------------


def test_result_before_the_end_is_refused():
    with pytest.raises(IllegalAction, match="not over"):
        result(start())


def test_actions_after_the_end_are_refused():
    state = run(declared(), Defend(2, PASS_CALL), Defend(0, PASS_CALL))
    forbidden(state, Play(1, card("AS")), "the hand is over")
    assert legal_actions(state) == [] and to_move(state) is None


def test_wrong_phase():
    forbidden(start(), Play(1, card("AS")), "not allowed in the auction phase")


def test_a_played_game_outcome():
    state = run_out(run(declared("10S"), Defend(2, WHIST), Defend(0, WHIST)))
    outcome = result(state)
    assert outcome.kind is HandKind.GAME and outcome.contract.level == 10 and outcome.played
    assert sum(outcome.tricks) == 10 and outcome.defenders == (2, 0)
