"""Hand-by-hand scoring on the pulya sheet; worked examples cite the seed passage they reproduce.

Seeds: 000 = /work/shared/seeds/000_be3d3be3bbe2f954.txt, 002 = 002_c9f23a3292123887.txt,
003 = 003_bf7e0a2721a54502.txt.
"""

from dataclasses import replace
from fractions import Fraction

import pytest

from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import ScoreLine, is_finished, new_sheet
from fairdeal.errors import ConventionError, ScoringError
from fairdeal.rules import LENINGRAD, MAILRU, ROSTOV, SOCHI

W, P, H = DefenceCall.WHIST, DefenceCall.PASS, DefenceCall.HALF_WHIST


def game(level, tricks, calls, declarer=0, seats=3, dealer=None, **kw):
    """A 7♥-style contract by ``declarer``; ``calls`` maps defender seat -> call."""
    dealer = (seats - 1) if dealer is None else dealer
    active = tuple(s for s in range(seats) if seats == 3 or s != dealer)
    return HandOutcome(
        num_seats=seats,
        dealer=dealer,
        active=active,
        kind=HandKind.GAME,
        tricks=tuple(tricks),
        declarer=declarer,
        contract=Contract(level, None),
        defence=tuple(calls.items()),
        **kw,
    )


def misere(tricks, declarer=0):
    return HandOutcome(
        3,
        2,
        (0, 1, 2),
        HandKind.MISERE,
        tuple(tricks),
        declarer=declarer,
        contract=Contract(None, None, misere=True),
        defence=((1, W), (2, W)),
    )


def raspasy(tricks, seats=3, dealer=2, talon=0):
    active = tuple(s for s in range(seats) if seats == 3 or s != dealer)
    return HandOutcome(seats, dealer, active, HandKind.RASPASY, tuple(tricks), raspasy_talon_tricks=talon)


def lines_of(outcome, conv, sheet=None):
    sheet = sheet or new_sheet(conv, outcome.num_seats)
    return score_hand(sheet, outcome, conv)[1]


def whists_on(lines, seat, on):
    return sum(line.points for line in lines if line.column == "whists" and line.seat == seat and line.on == on)


def column(lines, seat, col):
    return sum(line.points for line in lines if line.column == col and line.seat == seat)


# --- seed 000 worked examples ---------------------------------------------------------------------------------


def test_seed000_seven_down_two_whists_3_plus_2_and_2_plus_2():
    """000: «игра шла на семь, а разыгрывающий сумел взять только пять ... (3 + 2) х 4 = 20 ... (2 + 2) х 4 = 16»
    and «при семерной игре ... взял только пять взяток, то в гору ему пишутся 4 × 2 = 8»."""
    for conv in (SOCHI, LENINGRAD):
        lines = lines_of(game(7, (5, 3, 2), {1: W, 2: W}), conv)
        assert whists_on(lines, 1, 0) == 20
        assert whists_on(lines, 2, 0) == 16
        assert column(lines, 0, "gora") == 8
        assert column(lines, 0, "pulya") == 0


def test_seed000_eight_down_three_gora_18():
    """000: «обязался взять восемь взяток, а взял только пять ... он пишет в гору 3 × 6 = 18»."""
    lines = lines_of(game(8, (5, 3, 2), {1: W, 2: W}), SOCHI)
    assert column(lines, 0, "gora") == 18


def test_seed000_ten_checked_one_trick_is_1_plus_1_times_10():
    """000: «вистовые очки по вышеприведенному правилу составят (1 + 1) х 10 = 20»."""
    lines = lines_of(game(10, (9, 1, 0), {1: W, 2: W}), SOCHI)
    assert whists_on(lines, 1, 0) == 20
    assert whists_on(lines, 2, 0) == 10  # consolation only: the partner took nothing
    assert column(lines, 0, "gora") == 10


def test_seed000_invitation_3_plus_2_plus_2_times_8():
    """000: «заявил игру на девять, но сумел взять только семь ... Вистующий записывает себе (3 + 2 + 2) х 8 = 56
    ... Пасующий, играющий по приглашению, не получает ничего»."""
    seed000 = replace(SOCHI, scoring=replace(SOCHI.scoring, invitation_bonus=True))
    lines = lines_of(game(9, (7, 2, 1), {1: W, 2: P}, whister_invited=True), seed000)
    assert whists_on(lines, 1, 0) == 56
    assert whists_on(lines, 2, 0) == 0 and column(lines, 2, "gora") == 0
    assert column(lines, 0, "gora") == 16


def test_seed000_contract_values_2_4_6_8_10_and_misere_10():
    """000: «шестерная ... 2 очка. За семерную ... 4 ..., за восьмерную — 6 ..., за девятерную — 8, а за десятерную
    игру и мизер — 10 очков»."""
    for level, value in ((6, 2), (7, 4), (8, 6), (9, 8), (10, 10)):
        lines = lines_of(game(level, (10, 0, 0), {1: P, 2: P}, played=False), SOCHI)
        assert lines == (ScoreLine(0, "pulya", Fraction(value)),)
    assert lines_of(misere((0, 5, 5)), SOCHI) == (ScoreLine(0, "pulya", Fraction(10)),)


def test_misere_tricks_go_to_gora_and_defenders_write_nothing():
    """002: «За каждую взятку играющий получает штраф. Другие два игрока не получает штраф»."""
    lines = lines_of(misere((2, 4, 4)), MAILRU)
    assert lines == (ScoreLine(0, "gora", Fraction(20)),)


def test_seed000_whists_per_trick_by_level():
    """000: «за каждую взятку, которую вистующий взял себе, при заказываемых шести взятках ... 2 очка, при семи —
    4 очка, при восьми — 6 очков, при девяти — 8 очков»."""
    for level, value in ((6, 2), (7, 4), (8, 6), (9, 8)):
        defence = 10 - level
        lines = lines_of(game(level, (level, defence, 0), {1: W, 2: W}), SOCHI)
        assert whists_on(lines, 1, 0) == value * defence
        assert column(lines, 0, "pulya") == value


def test_seed000_both_pass_contract_written_without_play():
    """000: «Если назначена игра и оба других игрока спасовали, списывание нужно производить без разыгрывания»."""
    lines = lines_of(game(8, (0, 0, 0), {1: P, 2: P}, played=False), SOCHI)
    assert lines == (ScoreLine(0, "pulya", Fraction(6)),)


def test_seed000_lone_whister_reduced_quota_as_house_rule():
    """000: «вистует только один партнер ... без приглашения ... при простой игре вистующий должен взять всего 2
    взятки». The book conventions hold him to the full quota (4)."""
    outcome = game(6, (7, 2, 1), {1: W, 2: P})
    assert column(lines_of(outcome, SOCHI), 1, "gora") == 2  # 3 of 4 taken: one trick x 2
    seed000 = replace(
        SOCHI, defence=replace(SOCHI.defence, lone_whister_quotas=((6, 2), (7, 1), (8, 1), (9, 1), (10, 0)))
    )
    assert column(lines_of(outcome, seed000), 1, "gora") == 0


# --- seed 003: consolation, responsibility, greedy and gentleman ------------------------------------------------


def test_seed003_consolation_sochi_and_leningrad_game_value_per_undertrick():
    """003 (Сочинка, Ленинградка) 2): «оба защитника пишут на разыгрывающего висты в размере стоимости игры за
    каждую недобранную взятку. Консоляция пишется вдобавок к вистам за фактические взятки». Eight down two:
    whister with 3 tricks: 3x6 + 2x6 = 30; with 1 trick: 6 + 12 = 18."""
    for conv in (SOCHI, LENINGRAD):
        lines = lines_of(game(8, (6, 3, 1), {1: W, 2: W}), conv)
        assert whists_on(lines, 1, 0) == 30 and whists_on(lines, 2, 0) == 18


def test_seed003_consolation_rostov_ten_whists_per_undertrick():
    """003 (Московская пулька) 2): «10 вистов за каждую недобранную взятку»: eight down two: 3x6 + 20 = 38,
    1x6 + 20 = 26."""
    lines = lines_of(game(8, (6, 3, 1), {1: W, 2: W}), ROSTOV)
    assert whists_on(lines, 1, 0) == 38 and whists_on(lines, 2, 0) == 26


def test_seed003_greedy_whist_sochi():
    """003 Сочинка 3): «висты пишет только вистовавший защитник, а пасовавший игрок пишет только консоляцию».
    Six down one, defenders took 5: whister 5x2 + 2 = 12, passer 2."""
    lines = lines_of(game(6, (5, 3, 2), {1: W, 2: P}), SOCHI)
    assert whists_on(lines, 1, 0) == 12 and whists_on(lines, 2, 0) == 2


def test_seed003_gentleman_whist_leningrad_and_rostov():
    """003 3): «вистовавший и пасовавший защитники пишут все висты пополам — и консоляцию, и висты за фактическое
    количество взяток ... независимо от того, происходил ли розыгрыш в светлую или втёмную»."""
    for invited in (False, True):
        outcome = game(6, (5, 3, 2), {1: W, 2: P}, whister_invited=invited)
        lines = lines_of(outcome, LENINGRAD)
        assert whists_on(lines, 1, 0) == whists_on(lines, 2, 0) == 7  # (10 + 2 + 2) / 2
        lines = lines_of(outcome, ROSTOV)
        assert whists_on(lines, 1, 0) == whists_on(lines, 2, 0) == 15  # (10 + 10 + 10) / 2


def test_lone_whister_keeps_all_whists_when_the_contract_is_made():
    for conv in (SOCHI, LENINGRAD, ROSTOV):
        lines = lines_of(game(6, (6, 1, 3), {1: W, 2: P}), conv)
        assert whists_on(lines, 1, 0) == 8 and whists_on(lines, 2, 0) == 0


def test_seed003_responsibility_full_in_sochi_half_in_leningrad_and_rostov():
    """003 1): Сочинка «вист ответственный: ... полная стоимость игры»; Ленинградка/Ростов «полуответственный:
    ... половина стоимости игры». Six made with 7 tricks; whisters took 2 and 1 of the quota 4: the one under
    half (1 of 2) answers for the pair's missing trick."""
    outcome = game(6, (7, 2, 1), {1: W, 2: W})
    assert column(lines_of(outcome, SOCHI), 2, "gora") == 2
    assert column(lines_of(outcome, LENINGRAD), 2, "gora") == 1
    assert column(lines_of(outcome, ROSTOV), 2, "gora") == 1
    assert column(lines_of(outcome, SOCHI), 1, "gora") == 0


def test_pair_quota_one_missed_by_both_is_shared():
    """Quota 1 (a nine), neither whister took a trick: each was half a trick under his share."""
    lines = lines_of(game(9, (10, 0, 0), {1: W, 2: W}), SOCHI)
    assert column(lines, 1, "gora") == column(lines, 2, "gora") == 4


def test_ten_is_free_of_responsibility_in_the_book_and_costs_a_trick_in_mailru():
    """000: «на 10 ... виста здесь не существует»; 002 quotas: «10 – 1 взятка»."""
    outcome = game(10, (10, 0, 0), {1: W, 2: W})
    assert column(lines_of(outcome, SOCHI), 1, "gora") == 0
    mailru_gora = column(lines_of(outcome, MAILRU), 1, "gora") + column(lines_of(outcome, MAILRU), 2, "gora")
    assert mailru_gora == 10


# --- seed 002 (Mail.Ru) -------------------------------------------------------------------------------------------


def test_seed002_half_whist():
    """002: «второй может сказать "Пол виста" – тогда играющий без игры получает очки за заказанный контракт, а
    второй игрок – половину» (of the quota's whists: 4 of 4 tricks x 2 on a six, 1 of 2 x 4 on a seven)."""
    for level, whists in ((6, 4), (7, 4)):
        lines = lines_of(game(level, (0, 0, 0), {1: P, 2: H}, played=False), MAILRU)
        assert column(lines, 0, "pulya") == MAILRU.scoring.value(level)
        assert whists_on(lines, 2, 0) == whists


def test_seed002_concede_three():
    """002: «"Без трех" – завершить раздачу без игры, получив штраф, равный трем недостающим взяткам в той игре»."""
    lines = lines_of(game(8, (0, 0, 0), {}, played=False, conceded_undertricks=3), MAILRU)
    assert lines == (ScoreLine(0, "gora", Fraction(18)),)


def test_seed002_whisters_missing_the_quota_pay_per_trick():
    """002: «Если вистуют два игрока и вместе они взяли меньше взяток, чем нужно, то штраф получает тот, кто взял
    меньше половины от установленного числа»."""
    lines = lines_of(game(6, (7, 3, 0), {1: W, 2: W}), MAILRU)
    assert column(lines, 2, "gora") == 2 and column(lines, 1, "gora") == 0


def test_seed002_raspasy_the_two_with_most_tricks_pay_and_the_penalty_rises():
    """002: «Двое игроков, взявшие наибольшее число взяток, получают штраф за каждую свою взятку ... Штраф за каждую
    взятку тоже возрастает, чем больше распасов сыграно подряд» (1-2-3, our reading of the cut-off text)."""
    sheet = new_sheet(MAILRU, 3)
    for streak, factor in ((0, 1), (1, 2), (2, 3), (3, 3)):
        assert sheet.raspasy_streak == streak
        sheet, lines = score_hand(sheet, raspasy((5, 3, 2)), MAILRU)
        assert column(lines, 0, "gora") == 5 * factor and column(lines, 1, "gora") == 3 * factor
        assert column(lines, 2, "gora") == 0


def test_seed002_raspasy_tie_for_fewest_spares_nobody():
    lines = lines_of(raspasy((4, 3, 3)), MAILRU)
    assert [column(lines, s, "gora") for s in range(3)] == [4, 3, 3]


def test_seed002_tightened_exit_levels():
    """002: «Если в распасовку сыграно 2 раздачи подряд, то играющий должен заказать контракт не меньше 7. Если
    сыграно 3 и более распасовки подряд ... не меньше 8»."""
    assert [MAILRU.bidding.exit_level(k) for k in range(6)] == [6, 6, 7, 8, 8, 8]
    assert [SOCHI.bidding.exit_level(k) for k in range(4)] == [6, 6, 6, 6]


def test_seed002_zero_tricks_one_point_to_pulya():
    """002: «Если не взято ни одной взятки, то пишется всего одно очко» (no progression of the reward)."""
    sheet = replace(new_sheet(MAILRU, 3), raspasy_streak=2)
    lines = score_hand(sheet, raspasy((6, 4, 0)), MAILRU)[1]
    assert column(lines, 2, "pulya") == 1


# --- seed 003 raspasy -----------------------------------------------------------------------------------------


def test_seed003_sochi_raspasy_1_2_3_and_zero_trick_reward():
    """003 Сочинка 4)–6): «по одному очку за каждую взятку», «(1–2–3)», «за ноль взяток ... пишет в пульку
    стоимость одной взятки»."""
    sheet = new_sheet(SOCHI, 3)
    for factor in (1, 2, 3, 3):
        sheet, lines = score_hand(sheet, raspasy((4, 6, 0)), SOCHI)
        assert column(lines, 0, "gora") == 4 * factor and column(lines, 1, "gora") == 6 * factor
        assert column(lines, 2, "pulya") == factor


def test_seed003_leningrad_raspasy_2_4_6():
    """003 Ленинградка 4), 5): «по два очка за каждую взятку», «(2–4–6)»."""
    sheet = new_sheet(LENINGRAD, 3)
    for factor in (2, 4, 6):
        sheet, lines = score_hand(sheet, raspasy((3, 3, 4)), LENINGRAD)
        assert [column(lines, s, "gora") for s in range(3)] == [3 * factor, 3 * factor, 4 * factor]


def test_seed003_leningrad_zero_tricks_write_one_tricks_value():
    """003 Ленинградка 6): «за ноль взяток на распасовке: игрок пишет в пульку стоимость одной взятки» — 2 at the
    base price, then 4 and 6 with the progression (2–4–6), not the book's 1."""
    sheet = new_sheet(LENINGRAD, 3)
    for factor in (2, 4, 6, 6):
        sheet, lines = score_hand(sheet, raspasy((4, 6, 0)), LENINGRAD)
        assert column(lines, 2, "pulya") == factor
        assert column(lines, 0, "gora") == 4 * factor and column(lines, 1, "gora") == 6 * factor


def test_seed003_rostov_raspasy_five_whists_no_progression():
    """003 Ростов 4), 5): «распасовка на висты: обычно по пять вистов за каждую взятку. Выигрывает распасовку тот,
    кто взял меньше всех взяток»; «распасовка не прогрессирует»."""
    sheet = new_sheet(ROSTOV, 3)
    for _ in range(3):
        sheet, lines = score_hand(sheet, raspasy((1, 4, 5)), ROSTOV)
        assert whists_on(lines, 0, 1) == 20 and whists_on(lines, 0, 2) == 25
        assert not [line for line in lines if line.column == "gora"]


def test_seed003_rostov_raspasy_two_winners_share():
    """003 Ростов: «Если наименьшее количество взяток взяли два игрока, то они делят проигранное третьим игроком
    количество вистов пополам»: 6 tricks x 5 = 30, 15 each."""
    lines = lines_of(raspasy((2, 2, 6)), ROSTOV)
    assert whists_on(lines, 0, 2) == whists_on(lines, 1, 2) == 15
    assert not [line for line in lines if line.on in (0, 1)]


def test_seed003_rostov_raspasy_zero_tricks_wins_and_writes_one_to_pulya():
    """003 Ростов 6): «за ноль взяток на распасовке: игрок пишет в пульку стоимость одной взятки» (the book's
    «единицу», 000)."""
    lines = lines_of(raspasy((0, 5, 5)), ROSTOV)
    assert whists_on(lines, 0, 1) == whists_on(lines, 0, 2) == 25
    assert column(lines, 0, "pulya") == 1


def test_seed003_rostov_four_players_dealer_writes_one_to_pulya():
    """003 Ростов 7): «прикуп на распасовке: не открывается никогда — при игре вчетвером сдатчик пишет единицу в
    пульку как за ноль взяток»."""
    lines = lines_of(raspasy((3, 3, 4, 0), seats=4, dealer=3), ROSTOV)
    assert column(lines, 3, "pulya") == 1
    assert whists_on(lines, 3, 2) == 0


def test_seed000_four_players_dealer_pays_for_talon_tricks():
    """000: «штрафные очки за взятки, полученные картами, которые лежат в прикупе, записывает на свой счет
    сдающий»; 003 Сочинка 7): «сдатчику, который пишет и в гору, и в пулю на общих основаниях»."""
    lines = lines_of(raspasy((0, 4, 4, 0), seats=4, dealer=3, talon=2), SOCHI)
    assert column(lines, 3, "gora") == 2 and column(lines, 3, "pulya") == 0
    assert column(lines, 0, "pulya") == 1
    lines = lines_of(raspasy((3, 3, 4, 0), seats=4, dealer=3, talon=0), SOCHI)
    assert column(lines, 3, "pulya") == 1


def test_raspasy_streak_lives_in_the_sheet():
    sheet = new_sheet(SOCHI, 3)
    sheet, _ = score_hand(sheet, raspasy((4, 6, 0)), SOCHI)
    sheet, _ = score_hand(sheet, raspasy((4, 6, 0)), SOCHI)
    assert sheet.raspasy_streak == 2
    sheet, _ = score_hand(sheet, game(6, (6, 2, 2), {1: W, 2: W}), SOCHI)
    assert sheet.raspasy_streak == 0 and sheet.hands == 3


# --- closing the pulya and helping ----------------------------------------------------------------------------


def sheet_with_pulya(conv, pulya):
    sheet = new_sheet(conv, len(pulya))
    return replace(sheet, pulya=tuple(Fraction(p) for p in pulya))


def test_seed003_closed_pulya_helps_the_largest_open_pulya_with_ten_fold_whists():
    """003 Сочинка 8): «Игрок, закрывший пульку ... "помогает" тому, у кого запись в пульке наибольшая. Сыграв,
    например, шестерную, он пишет два очка в пульку противнику, а на него ... 20 вистов»."""
    sheet = sheet_with_pulya(SOCHI, (20, 6, 14))
    sheet, lines = score_hand(sheet, game(6, (6, 2, 2), {1: P, 2: P}, played=False), SOCHI)
    assert lines == (ScoreLine(2, "pulya", Fraction(2)), ScoreLine(0, "whists", Fraction(20), 2))
    assert sheet.pulya == (20, 6, 16)


def test_help_overflow_fills_own_pulya_then_helps_in_turn():
    """000: «Все очки, выигранные им, записываются на счет игрока, которому меньше очков требуется для выигрыша,
    взамен ... вистовых очков того же игрока в соотношении 1 : 10»."""
    sheet = sheet_with_pulya(SOCHI, (19, 18, 17))
    sheet, _lines = score_hand(sheet, game(8, (8, 1, 1), {1: P, 2: P}, played=False), SOCHI)
    assert sheet.pulya == (20, 20, 20)
    assert sheet.whists[0][1] == 20 and sheet.whists[0][2] == 30
    assert is_finished(sheet, SOCHI)


def test_help_when_every_pulya_is_closed_writes_whists_on_all():
    sheet = sheet_with_pulya(SOCHI, (20, 20, 20))
    sheet, _ = score_hand(sheet, game(6, (6, 2, 2), {1: P, 2: P}, played=False), SOCHI)
    assert sheet.whists[0][1] == sheet.whists[0][2] == 10


def test_seed002_after_closing_points_become_ten_fold_whists_on_the_others():
    """002: «пуля закрывается и все его набранные после этого очки, пишутся как висты на других играющих ...
    (Чаще всего в 10 раз)»: 2 points = 20 whists shared over the two others."""
    sheet = sheet_with_pulya(MAILRU, (20, 4, 10))
    sheet, _ = score_hand(sheet, game(6, (6, 2, 2), {1: P, 2: P}, played=False), MAILRU)
    assert sheet.pulya == (20, 4, 10)
    assert sheet.whists[0][1] == sheet.whists[0][2] == 10


def test_zero_trick_reward_also_helps_once_closed():
    sheet = sheet_with_pulya(SOCHI, (5, 20, 3))
    sheet, _ = score_hand(sheet, raspasy((4, 0, 6)), SOCHI)
    assert sheet.pulya == (6, 20, 3) and sheet.whists[1][0] == 10


def test_is_finished_each_and_total():
    """003: Сочинка «запись в пульке каждого игрока достигнет условленной величины»; Ленинградка «сумма записей
    в пульке достигнет условленной величины, умноженной на количество игроков»."""
    assert not is_finished(sheet_with_pulya(SOCHI, (20, 20, 19)), SOCHI)
    assert is_finished(sheet_with_pulya(SOCHI, (20, 20, 20)), SOCHI)
    assert is_finished(sheet_with_pulya(LENINGRAD, (30, 20, 10)), LENINGRAD)
    assert not is_finished(sheet_with_pulya(LENINGRAD, (30, 20, 9)), LENINGRAD)


def test_leningrad_pulya_grows_past_the_size():
    sheet = sheet_with_pulya(LENINGRAD, (20, 0, 0))
    sheet, _ = score_hand(sheet, game(6, (6, 2, 2), {1: P, 2: P}, played=False), LENINGRAD)
    assert sheet.pulya == (22, 0, 0)


# --- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "outcome, message",
    [
        (game(6, (6, 2, 1), {1: W, 2: W}), "10 tricks"),
        (game(6, (6, 2, 2), {1: W, 0: W}), "defence calls"),
        (game(6, (6, 2, 2, 0), {1: W, 2: W}, seats=4, dealer=3), "seats but the sheet"),
        (raspasy((3, 3, 3)), "sum to 9"),
        (HandOutcome(3, 2, (0, 1, 2), HandKind.GAME, (6, 2, 2)), "needs a contract"),
    ],
)
def test_inconsistent_outcomes_raise_scoring_error(outcome, message):
    with pytest.raises(ScoringError, match=message):
        score_hand(new_sheet(SOCHI, 3), outcome, SOCHI)


def test_sheet_refuses_a_seat_count_the_convention_does_not_play():
    with pytest.raises(ConventionError, match="played by 3 players"):
        new_sheet(MAILRU, 4)


def test_score_line_record_keeps_whole_numbers_integral():
    assert ScoreLine(1, "whists", Fraction(25, 2), 2).to_record() == {
        "seat": 1,
        "column": "whists",
        "points": 12.5,
        "on": 2,
    }
    assert ScoreLine(0, "gora", Fraction(8)).to_record() == {"seat": 0, "column": "gora", "points": 8}
