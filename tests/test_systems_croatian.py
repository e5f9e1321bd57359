"""Croatian preferans (seed 003_bf7e0a2721a54502.txt, «Хорватский преферанс») on the one state machine and sheet:
the number auction, invitation, the kontra chain, the defence capped at five, the counted-down column with refe,
the worked score example, random legal play and whole evenings."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_play import assert_cards_conserved, three_player_evening

from fairdeal.cards import Suit
from fairdeal.engine.actions import Bid, Declare, Defend, Discard, Invite, Kontra, Phase
from fairdeal.engine.bots import RandomBot
from fairdeal.engine.countdown import contract_value, under_hat
from fairdeal.engine.driver import play_hand, random_deal
from fairdeal.engine.extra import central
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import is_finished, new_sheet
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.rules import CROATIAN

WHIST, PASS = DefenceCall.WHIST, DefenceCall.PASS
A, B, C = 0, 1, 2


def game(declarer, trump, tricks, defence, no_talon=False, invited=False, extras=()):
    return HandOutcome(
        num_seats=3,
        dealer=(declarer - 1) % 3,
        active=(0, 1, 2),
        kind=HandKind.GAME,
        tricks=tricks,
        declarer=declarer,
        contract=Contract(6, trump, no_talon=no_talon),
        defence=defence,
        whister_invited=invited,
        extras=extras,
    )


ALL_PASSED = HandOutcome(num_seats=3, dealer=0, active=(0, 1, 2), kind=HandKind.REDEAL, tricks=(0, 0, 0), played=False)


def test_seed003_croatian_worked_example_ends_a_plus_32_b_minus_38_c_plus_6():
    """«Игроки условились списывать с 30 ... В проиграл 38 вистов, А выиграл 32, С выиграл 6»."""
    sheet = new_sheet(CROATIAN, 3)
    # «С сыграл в бубнах и списал шесть (2×3). А и В вистовали и взяли по две взятки. Они записали на С по 12»
    sheet, lines = score_hand(sheet, game(C, Suit.DIAMONDS, (2, 2, 6), ((A, WHIST), (B, WHIST))), CROATIAN)
    assert sorted((line.seat, line.column, line.points, line.on) for line in lines) == [
        (A, "whists", 12, C),
        (B, "whists", 12, C),
        (C, "pulya", 6, None),
    ]
    # «В сыграл в трефах. С вистовал один и взял три взятки. В списал 10 ..., С записал на В 30 вистов»
    sheet, lines = score_hand(sheet, game(B, Suit.CLUBS, (0, 7, 3), ((C, WHIST), (A, PASS))), CROATIAN)
    assert sorted((line.seat, line.column, line.points) for line in lines) == [(B, "pulya", 10), (C, "whists", 30)]
    # «все спасовали и получили рефет»
    sheet, lines = score_hand(sheet, ALL_PASSED, CROATIAN)
    assert lines == () and sheet.refe == (1, 1, 1)
    # «Результат пишется вдвойне, так как А играл на рефете. А списал ... 20 очков, С записал на А 60 очков»
    sheet, lines = score_hand(sheet, game(A, Suit.CLUBS, (7, 0, 3), ((B, PASS), (C, WHIST))), CROATIAN)
    assert sorted((line.seat, line.column, line.points) for line in lines) == [(A, "pulya", 20), (C, "whists", 60)]
    assert sheet.refe == (0, 1, 1)  # «Рефет А использован (пропадает)»
    # «Игроки недоиграли в сумме 54 очка до нуля ... А : +8; В : −2; С : −6»
    columns = [sheet.column(s, 30) for s in range(3)]
    assert columns == [10, 20, 24] and sum(columns) == 54
    settlement = settle(sheet, CROATIAN)
    assert [row.gora_part for row in settlement.rows] == [80, -20, -60]
    assert settlement.amounts == (32, -38, 6)


def test_seed003_contract_values_and_bettel():
    """«За игру в трефах (5) пишется 2×5=10 ... трефы без прикупа (игра) дают 2×(5+1)=12»; «дали разыгрывающему
    взятку на прикупном мизере (Bettel), каждый пишет на него по 60 вистов, а разыгрывающий штрафуется на 12 ...
    без прикупа ... 14 ... по 70»."""
    assert contract_value(game(A, Suit.CLUBS, (6, 2, 2), ()), CROATIAN) == 10
    assert contract_value(game(A, Suit.CLUBS, (6, 2, 2), (), no_talon=True), CROATIAN) == 12
    for no_talon, value in ((False, 12), (True, 14)):
        bettel = HandOutcome(
            num_seats=3,
            dealer=2,
            active=(0, 1, 2),
            kind=HandKind.MISERE,
            tricks=(1, 5, 4),
            declarer=A,
            contract=Contract(None, None, misere=True, no_talon=no_talon),
        )
        _, lines = score_hand(new_sheet(CROATIAN, 3), bettel, CROATIAN)
        assert sorted((line.seat, line.column, line.points) for line in lines) == [
            (A, "gora", value),
            (B, "whists", 5 * value),
            (C, "whists", 5 * value),
        ]


def test_seed003_whister_penalties_invitation_and_kontra():
    sheet = new_sheet(CROATIAN, 3)
    # both whist and fall short of four: «наказывается тот из защитников, кто взял меньше двух взяток»
    _, lines = score_hand(sheet, game(A, Suit.SPADES, (7, 1, 2), ((B, WHIST), (C, WHIST))), CROATIAN)
    assert (B, "gora", 4) in {(line.seat, line.column, line.points) for line in lines}
    assert (C, "gora", 4) not in {(line.seat, line.column, line.points) for line in lines}
    # «пригласивший берёт на себя обязательство взять все четыре взятки ... Приглашённый защитник не пишет ничего»
    _, lines = score_hand(sheet, game(A, Suit.SPADES, (7, 2, 1), ((B, PASS), (C, WHIST)), invited=True), CROATIAN)
    assert {(line.seat, line.column, line.points) for line in lines} == {
        (A, "pulya", 4),
        (C, "whists", 12),
        (C, "gora", 4),
    }
    # kontra doubles the reckoning with the kontra-ing whister only, and «все результаты удваиваются»; a made
    # contract punishes the kontra («Если защитники в совокупности возьмут не больше четырёх взяток»)
    doubled = game(A, Suit.SPADES, (6, 2, 2), ((B, WHIST), (C, WHIST)), extras=(("kontra", ((B, 1),)),))
    _, lines = score_hand(sheet, doubled, CROATIAN)
    assert {(line.seat, line.column, line.points) for line in lines} == {
        (A, "pulya", 8),
        (B, "whists", 16),
        (C, "whists", 8),
        (B, "gora", 8),
    }
    # the defence took five: «контракт признаётся невыполненным, разыгрывающий платит штраф»
    beaten = game(A, Suit.SPADES, (4, 3, 2), ((B, WHIST), (C, WHIST)), extras=(("kontra", ((B, 2),)),))
    _, lines = score_hand(sheet, beaten, CROATIAN)
    assert {(line.seat, line.column, line.points) for line in lines} == {
        (A, "gora", 16),
        (B, "whists", 48),
        (C, "whists", 8),
    }


def test_seed003_last_contract_is_written_in_proportion_and_ends_the_game():
    """«разыгрывающий пишет не всю стоимость контракта, а только часть, — чтобы в сумме получился ровно ноль.
    Пропорциональному уменьшению подвергаются в этом случае и записи вистующих»."""
    conv = replace(CROATIAN, pulya=replace(CROATIAN.pulya, size=4))  # columns 4+4+4 = 12 to go
    sheet, _ = score_hand(new_sheet(conv, 3), game(A, Suit.CLUBS, (6, 2, 2), ((B, WHIST), (C, WHIST))), conv)
    assert not is_finished(sheet, conv)  # 10 written off, 2 to go
    sheet, lines = score_hand(sheet, game(B, Suit.CLUBS, (2, 6, 2), ((A, WHIST), (C, WHIST))), conv)
    assert {(line.seat, line.column, line.points) for line in lines} == {
        (B, "pulya", 2),
        (A, "whists", Fraction(4)),
        (C, "whists", Fraction(4)),
    }
    assert is_finished(sheet, conv) and sum(settle(sheet, conv).amounts) == 0
    # a penalty keeps everything in full and the game goes on
    sheet, _ = score_hand(new_sheet(conv, 3), game(A, Suit.CLUBS, (6, 2, 2), ((B, WHIST), (C, WHIST))), conv)
    _, lines = score_hand(sheet, game(B, Suit.CLUBS, (1, 8, 1), ((A, WHIST), (C, WHIST))), conv)
    assert {(line.seat, line.column, line.points) for line in lines} >= {
        (B, "pulya", 10),
        (A, "gora", 10),
        (C, "gora", 10),
    }


def test_seed003_no_refe_under_the_hat_and_the_refe_limit():
    """«Если один из игроков находится «под шляпой» ... никто рефетов не получает»; «Если с 30 — только один»."""
    sheet, _ = score_hand(new_sheet(CROATIAN, 3), ALL_PASSED, CROATIAN)
    sheet, _ = score_hand(sheet, ALL_PASSED, CROATIAN)
    assert sheet.refe == (1, 1, 1) and sheet.refe_rounds == 1
    fifty = replace(CROATIAN, pulya=replace(CROATIAN.pulya, size=50))
    assert CROATIAN.scoring.refe_limit(30) == 1 and fifty.scoring.refe_limit(50) == 3
    hat = replace(new_sheet(CROATIAN, 3), pulya=(Fraction(32), Fraction(0), Fraction(0)))
    assert under_hat(hat, CROATIAN) == (A,)
    assert score_hand(hat, ALL_PASSED, CROATIAN)[0].refe == (0, 0, 0)


# ---- the state machine ----------------------------------------------------------------------------------------


def fresh(seed=0, dealer=2, refe=frozenset()):
    return new_hand(CROATIAN, 3, dealer, random_deal(np.random.default_rng(seed), CROATIAN), refe_seats=refe)


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def test_seed003_number_auction_no_jumps_hold_and_game_first_call_only():
    state = fresh()
    assert [a.token for a in legal_actions(state)] == ["pass", "two", "game", "bettel", "sanac"]
    with pytest.raises(IllegalAction, match="скачки не допускаются"):
        apply(state, Bid(A, "three"))
    state = bids(state, "two", "three")  # B outbids A; A, senior, may hold: «здесь»
    assert "mine" in [a.token for a in legal_actions(bids(state, "pass"))]
    with pytest.raises(IllegalAction, match="first call"):
        bids(state, "pass", "game")
    state = bids(state, "pass", "mine", "pass")  # B gives up: A plays, takes the shown talon
    assert state.phase is Phase.DISCARD and state.declarer == A and state.talon_shown
    state = apply(state, Discard(A, state.hands[A][:2]))
    assert [a.token for a in legal_actions(state)] == ["6D", "6H", "6C", "misere", "6NT"]  # not below 3


def test_seed003_two_games_name_their_contracts_and_first_hand_wins_ties():
    """«Если два игрока заявили игра, они должны по очереди назвать свой контракт; старший контракт побеждает»."""
    state = bids(fresh(), "game", "game", "pass")
    assert state.naming and to_move(state) == A and "pass" in [a.token for a in legal_actions(state)]
    state = bids(state, "game-three")
    assert [a.token for a in legal_actions(state)] == ["game-four", "game-five", "pass"]
    state = bids(state, "pass")  # B yields without showing his contract
    assert state.declarer == A and [a.token for a in legal_actions(state)] == ["6D-bp"]


def test_seed003_unkontra_two_with_talon_is_won_without_play_unless_refe():
    """«Если играется самый маленький контракт — два — с прикупом и без рефета, один из защитников должен
    законтрить ... Если никто ... не заявит контру, розыгрыша не состоится»."""
    for refe, played in ((frozenset(), False), (frozenset({A}), True)):
        state = bids(fresh(refe=refe), "two", "pass", "pass")
        state = apply(state, Discard(A, state.hands[A][:2]))
        state = apply(state, Declare(A, "6S"))
        state = apply(apply(state, Defend(B, WHIST)), Defend(C, WHIST))
        state = apply(apply(state, Kontra(B, False)), Kontra(C, False))
        assert (state.phase is Phase.PLAY) == played
        assert played or (is_over(state) and not result(state).played)


def test_seed003_kontra_chain_invites_and_doubles_step_by_step():
    state = apply(bids(fresh(), "pass", "pass", "sanac"), Declare(C, "6NT-bp"))
    state = apply(apply(state, Defend(A, PASS)), Defend(B, WHIST))
    assert state.phase is Phase.INVITE
    state = apply(state, Invite(B, False))
    state = apply(state, Kontra(B, True))  # «контра ... при пасе второго ... означает приглашение»
    assert central(state.extra).invited and to_move(state) == C
    state = apply(state, Kontra(C, True))  # rekontra
    state = apply(state, Kontra(B, True))  # subkontra
    state = apply(state, Kontra(C, True))  # mortkontra
    assert [c for _, c in central(state.extra).kontra_calls] == ["kontra", "rekontra", "subkontra", "mortkontra"]
    state = apply(state, Kontra(B, False))
    assert state.phase is Phase.PLAY and dict(central(state.extra).kontra) == {B: 4}
    # Sanac: «разыгрывающий не имеет права ходить первым»; here the first hand A leads (declarer C is third)
    assert state.turn == A


def test_seed003_sanac_declarer_never_leads_first_and_lone_whister_plays_alone():
    state = bids(fresh(dealer=2), "sanac", "pass", "pass")  # A, the first hand, plays Sanac
    state = apply(state, Declare(A, "6NT-bp"))
    state = apply(apply(state, Defend(B, WHIST)), Defend(C, PASS))
    state = apply(state, Invite(B, False))
    state = apply(state, Kontra(B, False))
    assert state.trick_seats == (A, B) and state.turn == B  # C's cards sit out, A may not lead


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 2))
def test_random_legal_hands_conserve_cards_end_and_replay(seed, dealer):
    rng = np.random.default_rng(seed)
    bots = [RandomBot(np.random.default_rng([seed, s])) for s in range(3)]
    refe = frozenset(s for s in range(3) if rng.random() < 0.3)
    state = play_hand(CROATIAN, 3, dealer, None, bots, rng=rng, refe_seats=refe)
    assert is_over(state)
    assert_cards_conserved(state)
    outcome = result(state)
    if outcome.kind is HandKind.GAME and outcome.played:
        defence = sum(outcome.tricks[s] for s in outcome.defenders)
        assert defence <= 5 and (defence == 5 or len(state.tricks) == 10)
    again = replay_record(to_record(state), CROATIAN, 3)
    assert again.won == state.won and again.extra == state.extra


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), random_bots=st.booleans())
def test_random_evenings_settle_to_zero_and_end_on_a_zero_column(seed, random_bots):
    conv = replace(CROATIAN, pulya=replace(CROATIAN.pulya, size=10))
    played = three_player_evening(conv, seed, random_bots, max_hands=60)
    assert sum(played.settlement.amounts) == 0
    if played.finished:
        assert sum(played.sheet.column(s, 10) for s in range(3)) == 0


def test_bots_see_only_their_view_in_every_new_phase():
    rng = np.random.default_rng(5)
    phases = set()
    for number in range(40):
        state = new_hand(CROATIAN, 3, number % 3, random_deal(rng, CROATIAN))
        bots = [RandomBot(np.random.default_rng([number, s])) for s in range(3)]
        while not is_over(state):
            seat = to_move(state)
            phases.add(state.phase)
            state = apply(state, bots[seat].act(view_for(state, seat)))
    assert {
        Phase.AUCTION,
        Phase.DISCARD,
        Phase.CONTRACT,
        Phase.DEFENCE,
        Phase.INVITE,
        Phase.KONTRA,
        Phase.PLAY,
    } <= phases
