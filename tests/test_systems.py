"""Classic, five players, Hussar and Gusarik: the seeds' worked examples and rules, as parameters of one engine."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import parse_card
from fairdeal.deal import Deal
from fairdeal.engine.actions import Bid, Declare, Defend, Discard, Phase, Play, TakeTalon
from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.driver import deal_from_text
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.rotation import dealer_of, first_dealer_from
from fairdeal.engine.scoring import renonce_penalty, score_hand
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.rules import CLASSIC, GUSARIK_ROSTOV, GUSARIK_SOCHI, HUSSAR, SOCHI

WHIST, PASS_CALL, HALF = DefenceCall.WHIST, DefenceCall.PASS, DefenceCall.HALF_WHIST
STRONG = (
    "AS KS QS JS 10S 9S 8S 7S AC KC",
    "QC JC 10C 9C 8C 7C AD KD QD JD",
    "10D 9D 8D 7D AH KH QH JH 10H 9H",
    "8H 7H",
)
BIG_PULYA = replace(CLASSIC, pulya=replace(CLASSIC.pulya, size=1000))


def card(text: str) -> int:
    return parse_card(text).code


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def forbidden(state, action, words: str):
    with pytest.raises(IllegalAction, match=words):
        apply(state, action)


def by_bots(state, bots):
    while not is_over(state):
        seat = to_move(state)
        state = apply(state, bots[seat].act(view_for(state, seat)))
    return state


# ---- Classic: bombs, the Paramosha example (seed 003 «КЛАССИКА») --------------------------------------------------


def opening(seats: int, dealer: int, round_: int) -> HandOutcome:
    tricks = [0] * seats
    active = tuple((dealer + 1 + k) % seats for k in range(3))
    for seat, t in zip(active, (4, 3, 3)):
        tricks[seat] = t
    return HandOutcome(seats, dealer, active, HandKind.RASPASY, tuple(tricks), extras=(("opening_round", round_),))


def game(seats, dealer, declarer, level, taken, *, dark=False, whist=(WHIST, WHIST), misere=False, aces=0):
    active = tuple((dealer + 1 + k) % seats for k in range(3))
    defenders = [s for s in active if s != declarer]
    tricks = [0] * seats
    tricks[declarer] = taken
    rest = 10 - taken
    tricks[defenders[0]], tricks[defenders[1]] = rest - rest // 2, rest // 2
    extras = (("dark", True),) if dark else ()
    extras += (("talon_aces", aces),)
    contract = Contract(None, None, misere=True) if misere else Contract(level, None)
    kind = HandKind.MISERE if misere else HandKind.GAME
    defence = () if misere else tuple(zip(defenders, whist))
    return HandOutcome(
        seats, dealer, active, kind, tuple(tricks), declarer=declarer, contract=contract, defence=defence, extras=extras
    )


def test_seed003_three_opening_rounds_at_four_give_everyone_twelve_bombs():
    """«договорились играть три круга распасовки. Каждый сдал по три раза подряд ... каждый получил по 12 бомб»."""
    conv = replace(BIG_PULYA, table=replace(BIG_PULYA.table, opening_raspasy_rounds=3))
    sheet = new_sheet(conv, 4)
    for index in range(12):
        dealer, round_ = dealer_of(conv, index, 0, 4)
        assert dealer == index // 3
        sheet, _ = score_hand(sheet, opening(4, dealer, round_), conv)
    assert sheet.bombs == ((1, 2, 3) * 4,) * 4
    assert sheet.raspasy_streak == 0  # the opening rounds do not start a raspasy progression
    assert dealer_of(conv, 12, 0, 4) == (0, 0) and first_dealer_from(conv, 7, 2, 4) == 0


def test_seed003_paramosha_bombs_dark_bids_and_the_kept_bomb():
    """«За шестерную он запишет четыре в пулю ... а за мизер — 40»; «8 пик ... Тройная бомба даёт коэффициент 8.
    Заявка втёмную ... Итого коэффициент 16 ... сел без двух. Азартный Парамоша записал на гору 192, а вистующие —
    за 4 взятки как за 8 по 96 — 768 вистов в сумме ... тройная бомба сохранена»; «мизер втёмную ... записать в
    пулю 160»."""
    conv = BIG_PULYA
    sheet = replace(new_sheet(conv, 3), bombs=((1, 2, 3), (), ()))
    sheet, written = score_hand(sheet, game(3, 2, 0, 6, 6), conv)
    assert [(line.column, line.points) for line in written if line.seat == 0] == [("pulya", 4)]
    sheet, written = score_hand(sheet, game(3, 2, 0, None, 0, misere=True), conv)
    assert [(line.column, line.points) for line in written if line.seat == 0] == [("pulya", 40)]
    assert sheet.bombs[0] == (3,)
    sheet, written = score_hand(sheet, game(3, 2, 0, 8, 6, dark=True), conv)
    assert [(line.column, line.points) for line in written if line.seat == 0] == [("gora", 192)]
    whists = [line for line in written if line.column == "whists" and line.on == 0]
    assert sum(line.points for line in whists) == 768 and {line.points for line in whists} == {384}  # (2 + 2) x 96 each
    assert sheet.bombs[0] == (3,)  # «она была бы истрачена только в случае успешной игры»
    sheet, written = score_hand(sheet, game(3, 2, 0, None, 0, misere=True, dark=True), conv)
    assert [(line.column, line.points) for line in written if line.seat == 0] == [("pulya", 160)]
    assert sheet.bombs[0] == ()


def test_seed000_dealer_consolation_for_aces_in_the_sold_talon():
    """000: «Консоляция выплачивается, если в прикупе оказывается Туз (... одной взятки) или два Туза (две взятки).
    Сдающий, кроме того, записывает за каждую недобранную взятку на игравшего»."""
    sheet = new_sheet(BIG_PULYA, 4)
    _, written = score_hand(sheet, game(4, 3, 0, 7, 7, aces=1), BIG_PULYA)
    assert [line for line in written if line.seat == 3] == [line for line in written if line.seat == 3 and line.on == 0]
    assert sum(line.points for line in written if line.seat == 3) == 4
    _, written = score_hand(sheet, game(4, 3, 0, 7, 5, aces=2), BIG_PULYA)
    assert sum(line.points for line in written if line.seat == 3) == 4 * (2 + 2)
    three = new_sheet(BIG_PULYA, 3)  # at three the dealer plays: no consolation for the talon
    assert score_hand(three, game(3, 2, 0, 7, 5, aces=2), BIG_PULYA) == score_hand(
        three, game(3, 2, 0, 7, 5), BIG_PULYA
    )


# ---- Classic: dark calls in the state machine ------------------------------------------------------------------


def classic(deal=STRONG, seats=3, dealer=0):
    return new_hand(CLASSIC, seats, dealer, deal_from_text(*deal))


def test_dark_six_takes_the_talon_unseen_and_is_whisted_by_both_in_the_dark():
    """«Он берёт прикуп (причём в закрытую — никому не показывая)»; «шестерная игра, заказанная втёмную,
    вистуется принудительно обоими защитниками и разыгрывается втёмную»."""
    state = bids(classic(), "dark-6S", "pass", "pass")
    assert state.phase is Phase.TALON and set(legal_actions(state)) == {TakeTalon(1), Bid(1, "misere")}
    state = apply(state, TakeTalon(1))
    assert not state.talon_shown and state.phase is Phase.DISCARD
    state = apply(state, Discard(1, (card("8H"), card("7H"))))
    state = apply(state, Declare(1, "6C"))
    assert legal_actions(state) == [Defend(2, WHIST)]
    forbidden(state, Defend(2, PASS_CALL), "вистуется принудительно")
    state = apply(apply(state, Defend(2, WHIST)), Defend(0, WHIST))
    assert state.phase is Phase.PLAY and not state.defence_open
    final = by_bots(state, [HeuristicBot()] * 3)
    assert dict(result(final).extras)["dark"] is True
    assert replay_record(to_record(final), CLASSIC, 3) == final


def test_dark_six_may_switch_to_an_ordinary_misere_before_the_talon():
    """«посмотрев карты, но не взяв ещё прикупа, игрок может сменить заявку и заказать мизер. Считаться он будет
    как обычный мизер — взятый в светлую»."""
    state = apply(bids(classic(), "dark-6S", "pass", "pass"), Bid(1, "misere"))
    assert state.final_bid.misere and not state.dark and state.talon_shown and state.phase is Phase.DISCARD
    final = by_bots(state, [HeuristicBot()] * 3)
    assert "dark" not in dict(result(final).extras)
    assert replay_record(to_record(final), CLASSIC, 3) == final


def test_dark_calls_and_their_overcalls():
    """«Перебить пас втёмную можно только заявкой 7 и выше. После того как кто-то сделал значащую заявку, заявить
    пас втёмную нельзя»; a dark six is beaten only by a seven («только семерной игрой»), never held by «мои»."""
    state = bids(classic(), "dark-pass")
    forbidden(state, Bid(2, "6S"), "beaten only by a bid of 7")
    assert "7S" in {a.token for a in legal_actions(state)}
    state = bids(classic(), "6S")
    forbidden(state, Bid(2, "dark-pass"), "значащую заявку")
    state = bids(classic(), "pass", "dark-6S")
    forbidden(state, Bid(0, "6C"), "beaten only from the next level")
    assert "7S" in {a.token for a in legal_actions(state)}
    state = bids(classic(), "6S", "pass", "6C")
    forbidden(state, Bid(1, "dark-6D"), "first call")
    state = bids(classic(), "pass", "pass", "dark-6S")
    assert state.phase is Phase.TALON and state.declarer == 0
    forbidden(bids(classic(), "dark-6S"), Bid(2, "dark-6S-bp"), "cannot be made in the dark")


def test_dark_passers_earn_bombs_when_raspasy_follow():
    """«Если после этого последовала распасовка, то все спасовавшие втёмную получают дополнительные бомбы.
    Спасовавшие в светлую бомб не получают»."""
    final = by_bots(bids(classic(), "dark-pass", "pass", "dark-pass"), [HeuristicBot()] * 3)
    outcome = result(final)
    assert outcome.kind is HandKind.RASPASY and dict(outcome.extras)["dark_passers"] == (0, 1)
    sheet, _ = score_hand(new_sheet(CLASSIC, 3), outcome, CLASSIC)
    assert sheet.bombs == ((1,), (1,), ())


def test_classic_no_talon_bids_at_every_level_and_the_misere_overcalls():
    """«Идёт торговля на уровне 6, заявкой без прикупа можно победить, но если партнёр перешёл на уровень 7, то
    перебивать его игру можно уже только заявкой 7 без прикупа. В классике обычный мизер перебивается девятерной,
    а мизер без прикупа — девятерной без прикупа или десятерной с прикупом»."""
    tokens = {a.token for a in legal_actions(classic())}
    assert {"6S-bp", "6NT-bp", "7S-bp", "10NT-bp", "misere-bp"} <= tokens
    state = bids(classic(), "6S", "6C", "6D", "6H", "6NT", "7S")
    assert "6NT-bp" not in {a.token for a in legal_actions(state)}
    state = bids(classic(), "misere")
    legal = {a.token for a in legal_actions(state)}
    assert "8NT-bp" not in legal and "9S" in legal
    state = bids(classic(), "misere-bp")
    legal = {a.token for a in legal_actions(state)}
    assert "9NT" not in legal and "9S-bp" in legal
    state = bids(classic(), "misere-bp")
    assert "10S" in {
        a.token
        for a in legal_actions(
            replace(state, convention=replace(CLASSIC, bidding=replace(CLASSIC.bidding, jumps_allowed=True)))
        )
    }


def test_opening_raspasy_need_no_auction_and_replay():
    state = new_hand(CLASSIC, 4, 1, deal_from_text(*STRONG), opening_round=2)
    assert state.phase is Phase.PLAY and state.kind is HandKind.RASPASY and state.auction == ()
    final = by_bots(state, [HeuristicBot()] * 4)
    assert dict(result(final).extras)["opening_round"] == 2
    assert replay_record(to_record(final), CLASSIC, 4) == final
    with pytest.raises(IllegalAction, match="opening raspasy round 3"):
        new_hand(CLASSIC, 3, 0, deal_from_text(*STRONG), opening_round=3)


# ---- five players (seed 000) ------------------------------------------------------------------------------------


def test_seed000_five_players_two_sit_out_and_the_deal_rotates():
    """000: «Каждый игрок по два раза в туре не принимает участие в игре: когда трое разыгрывают партию, один
    сдает, а еще один ждет своей очереди»."""
    state = new_hand(SOCHI, 5, 3, deal_from_text(*STRONG))
    assert state.active == (4, 0, 1) and state.hands[3] == () and state.hands[2] == ()
    played = play_match(
        SOCHI,
        ["A", "B", "C", "D", "E"],
        [HeuristicBot() for _ in range(5)],
        source=seeded_source(5, SOCHI),
        max_hands=10,
    )
    assert [h.dealer for h in played.hands] == [k % 5 for k in range(10)]
    for summary in played.hands:
        sitting = {summary.dealer, (summary.dealer - 1) % 5}
        assert not any(
            line.seat in sitting and line.column != "whists"
            for line in summary.lines
            if summary.kind is not HandKind.RASPASY
        )
    assert sum(played.settlement.amounts) == 0


# ---- Hussar (seeds 001, 000) ------------------------------------------------------------------------------------

HUSSAR_DEAL = (
    "AS KS QS JS 10S AC KC QC JC 10C",  # first hand (seat 1 when seat 0 deals)
    "9S 9C AD KD QD JD 10D AH KH QH",  # second hand (the dealer)
    "9D 9H",  # talon 0
    "JH 10H",  # talon 1
)


def hussar_deal(first, second, talon0, talon1) -> Deal:
    codes = lambda text: np.array([card(c) for c in text.split()], dtype=np.uint8)  # noqa: E731
    return Deal((codes(first), codes(second)), (codes(talon0), codes(talon1)))


def test_seed001_hussar_remiz_goes_straight_to_the_whister():
    """001: «прикупивший назначил игру черви и остался без двух, Вистующий записывает на него в своей вистовой
    графе 200 ... За взятки вистующий записывает ... по 10 очков за взятку. Консоляции же приписываются по 20
    очков за каждую недобранную взятку»: 200 of remiz, then 6 tricks x 10 + 2 x 20."""
    outcome = HandOutcome(
        2, 0, (1, 0), HandKind.GAME, (6, 4), declarer=1, contract=Contract(6, None), defence=((0, WHIST),)
    )
    sheet, written = score_hand(new_sheet(HUSSAR, 2), outcome, HUSSAR)
    assert sheet.gora == (0, 0)  # «ремиз не ставится наверху»
    assert [(line.seat, line.column, line.points, line.on) for line in written] == [
        (0, "whists", 200, 1),
        (0, "whists", 6 * 10 + 2 * 20, 1),
    ]


@pytest.mark.parametrize("invited, taken, short", [(False, 1, 1), (True, 3, 1), (False, 2, 0), (True, 4, 0)])
def test_seed001_hussar_whister_quotas_alone_and_with_his_talon(invited, taken, short):
    """«вистуя один, он должен, при простой игре противника, взять две взятки, во втором, с приглашением прикупки -
    четыре»; a whister short of it pays like a remiz, straight to the declarer."""
    outcome = HandOutcome(
        2,
        0,
        (1, 0),
        HandKind.GAME,
        (taken, 10 - taken),
        declarer=1,
        contract=Contract(6, None),
        defence=((0, DefenceCall.WHIST_TALON if invited else WHIST),),
        whister_invited=invited,
    )
    _, written = score_hand(new_sheet(HUSSAR, 2), outcome, HUSSAR)
    penalty = [line for line in written if line.seat == 1 and line.column == "whists"]
    assert sum(line.points for line in penalty) == short * 10 * 10


def test_hussar_hand_two_talons_whist_with_ones_talon_and_redeal():
    """000: «Каждый игрок может прикупить только тот прикуп, который лежит слева от него»; 001: «только свой правый
    прикуп» (``talon_side``); «При обоюдном пасе карты сдаются очередным сдатчиком»."""
    deal = hussar_deal(*HUSSAR_DEAL)
    state = new_hand(HUSSAR, 2, 0, deal)
    assert state.active == (1, 0) and "misere" not in {a.token for a in legal_actions(state)}
    won = bids(state, "6S", "pass")
    assert won.talon_bought == 0 and {card("9D"), card("9H")} <= set(won.hands[1]) and won.talon_shown
    right = replace(HUSSAR, table=replace(HUSSAR.table, talon_side="right"))
    assert bids(new_hand(right, 2, 0, deal), "6S", "pass").talon_bought == 1
    state = apply(won, Discard(1, (card("9D"), card("9H"))))
    state = apply(state, Declare(1, "6S"))
    assert set(legal_actions(state)) == {Defend(0, c) for c in (PASS_CALL, WHIST, DefenceCall.WHIST_TALON)}
    state = apply(state, Defend(0, DefenceCall.WHIST_TALON))
    assert state.phase is Phase.DEFENCE_DISCARD and {card("JH"), card("10H")} <= set(state.hands[0])
    state = apply(state, Discard(0, (card("9S"), card("9C"))))
    assert state.phase is Phase.PLAY and not state.defence_open
    final = by_bots(state, [HeuristicBot()] * 2)
    assert result(final).whister_invited and sum(final.won) == 10
    assert replay_record(to_record(final), HUSSAR, 2) == final
    redeal = bids(new_hand(HUSSAR, 2, 0, deal), "pass", "pass")
    assert is_over(redeal) and result(redeal).kind is HandKind.REDEAL
    sheet, written = score_hand(new_sheet(HUSSAR, 2), result(redeal), HUSSAR)
    assert written == () and sheet.hands == 1


def test_seed001_renonce_is_charged_like_a_remiz():
    """001: «виновный подвергается штрафу по размеру игры. За игроком, сделавшим ренонс, партнер записывает таким
    же образом, как и за ремиз, т. е. в вистовую графу»."""
    assert [(line.seat, line.column, line.points, line.on) for line in renonce_penalty(HUSSAR, 1, 0, 6)] == [
        (0, "whists", 100, 1)
    ]
    assert [(line.seat, line.column, line.points) for line in renonce_penalty(SOCHI, 1, 0, 7)] == [(1, "gora", 4)]


# ---- Gusarik (seed 003) -----------------------------------------------------------------------------------------

GUSARIK_DEAL = STRONG  # hand 0 (first hand) is the dummy


def test_seed003_gusarik_dummy_passes_whist_opens_it_and_it_leads():
    """«Болван всегда находится на первой руке. Он как бы всегда говорит пас ... вистовать и при этом открыть
    болвана ... Первый ход на висте всегда от болвана»."""
    state = new_hand(GUSARIK_SOCHI, 2, 0, deal_from_text(*GUSARIK_DEAL))
    assert state.dummy == 2 and state.active == (2, 1, 0) and to_move(state) == 1 and 2 in state.passed
    state = bids(state, "6S", "pass")
    state = apply(state, Discard(1, (card("8H"), card("7H"))))
    state = apply(state, Declare(1, "6C"))
    assert {a.call for a in legal_actions(state)} == {PASS_CALL, WHIST, HALF}
    state = apply(state, Defend(0, WHIST))
    assert state.open_seats == frozenset({2}) and state.turn == 2 and to_move(state) == 0
    assert isinstance(legal_actions(state)[0], Play) and legal_actions(state)[0].actor == 0
    final = by_bots(state, [HeuristicBot()] * 2)
    assert all(len(t.plays) == 3 for t in final.tricks) and final.tricks[0].lead == 2
    outcome = result(final)
    assert outcome.active == (1, 0) and sum(outcome.tricks) == 10 and outcome.whister_invited
    assert replay_record(to_record(final), GUSARIK_SOCHI, 2) == final


def test_seed003_gusarik_pass_is_half_a_whist():
    """«спасовать (уйти за полвиста)»."""
    state = bids(new_hand(GUSARIK_SOCHI, 2, 0, deal_from_text(*GUSARIK_DEAL)), "6S", "pass")
    state = apply(apply(state, Discard(1, (card("8H"), card("7H")))), Declare(1, "6S"))
    state = apply(state, Defend(0, HALF))
    _, written = score_hand(new_sheet(GUSARIK_SOCHI, 2), result(state), GUSARIK_SOCHI)
    assert [(line.seat, line.column, line.points) for line in written] == [(1, "pulya", 2), (0, "whists", 4)]


def test_seed003_gusarik_raspasy_without_dummy_and_talon():
    """«В распасовке карты болвана не участвуют и прикуп тоже не открывается»."""
    final = by_bots(
        bids(new_hand(GUSARIK_ROSTOV, 2, 1, deal_from_text(*GUSARIK_DEAL)), "pass", "pass"), [HeuristicBot()] * 2
    )
    assert final.kind is HandKind.RASPASY and all(len(t.plays) == 2 and t.talon_card is None for t in final.tricks)
    assert final.hands[2] == tuple(sorted(final.dealt_hands[2])) and final.tricks[0].lead == 0
    assert replay_record(to_record(final), GUSARIK_ROSTOV, 2) == final


# ---- every new system: random legal play and whole evenings -----------------------------------------------------

SYSTEMS = [(CLASSIC, 3), (CLASSIC, 4), (CLASSIC, 5), (HUSSAR, 2), (GUSARIK_SOCHI, 2), (GUSARIK_ROSTOV, 2), (SOCHI, 5)]


@settings(max_examples=40, deadline=None)
@given(system=st.sampled_from(SYSTEMS), seed=st.integers(0, 2**32 - 1), hands=st.integers(1, 12))
def test_random_evenings_settle_to_zero_and_replay(system, seed, hands):
    conv, seats = system
    bots = [RandomBot(np.random.default_rng([seed, s])) for s in range(seats)]
    played = play_match(conv, [f"P{s}" for s in range(seats)], bots, source=seeded_source(seed, conv), max_hands=hands)
    assert sum(played.settlement.amounts) == 0
    assert played.sheet.hands == len(played.hands)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), close=st.integers(0, 40), least=st.integers(0, 40))
def test_premiums_so_skachkami_are_zero_sum(seed, close, least):
    """«Игрой со скачками называют игру с премиями (тому, кто первый закрыл пульку; тому, у кого меньше всех
    очков на горе)»."""
    conv = replace(CLASSIC, pulya=replace(CLASSIC.pulya, first_closer_premium=close, least_gora_premium=least))
    played = play_match(conv, ["A", "B", "C"], [HeuristicBot()] * 3, source=seeded_source(seed, conv), max_hands=40)
    settlement = settle(played.sheet, conv)
    assert sum(settlement.amounts) == 0 and sum(row.premiums for row in settlement.rows) == 0
    plain = settle(played.sheet, replace(conv, pulya=replace(conv.pulya, least_gora_premium=0)))
    first = played.sheet.first_closed
    if first is not None:
        assert plain.rows[first].premiums == 2 * close
        assert all(plain.rows[s].premiums == -close for s in range(3) if s != first)
