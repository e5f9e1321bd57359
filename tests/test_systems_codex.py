"""The 1996 Codex (seed 002_c9f23a3292123887.txt, its second text): the third hand's talon after two passes, the
dark misère and what beats it, the misère defenders opening before their lead, the dark pass doubling raspasy."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_play import assert_cards_conserved, random_hand, three_player_evening

from fairdeal.cards import parse_card
from fairdeal.engine.actions import Bid, Declare, Discard, Phase, Play
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.driver import deal_from_text
from fairdeal.engine.extra import russian
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.outcome import HandKind, HandOutcome
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.rules import CLASSIC, CODEX, SOCHI
from fairdeal.systems import conventions

DEAL = (
    "AS KS QS JS 10S 9S 8S 7S AC KC",
    "QC JC 10C 9C 8C 7C AD KD QD JD",
    "10D 9D 8D 7D AH KH QH JH 10H 9H",
    "8H 7H",
)
FIRST, SECOND, THIRD = 1, 2, 0  # dealer 0: the first hand sits at seat 1


def card(text: str) -> int:
    return parse_card(text).code


def fresh(conv=CODEX, seats=3):
    return new_hand(conv, seats, 0, deal_from_text(*DEAL))


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def tokens(state):
    return [a.token for a in legal_actions(state)]


def test_the_codex_is_a_rule_set_of_its_own():
    """«В 1996 году был принят Кодекс. В нём и были оговорены общие положения, описаны принципы и правила игры»;
    «Если играют трое, а приходит четвертый»."""
    assert conventions()["codex"] is CODEX and CODEX.players == (3, 4)
    assert CODEX.seeds == ("002_c9f23a3292123887.txt",)
    assert not CODEX.bidding.jumps_allowed  # «нельзя перепрыгивать через ступеньки»


# ---- the third hand after two passes --------------------------------------------------------------------------


def test_after_two_passes_the_third_hand_takes_the_talon_for_any_game_but_misere():
    """«Если сначала первая, а потом и вторая руки спасовали, то третья рука имеет право забрать прикуп без торговли и
    обязуется взять в игре цену любую, кроме мизера»."""
    state = bids(fresh(), "pass", "pass")
    assert to_move(state) == THIRD
    assert "misere" not in tokens(state) and "dark-misere" not in tokens(state)
    assert "6S" in tokens(state)
    with pytest.raises(IllegalAction, match="кроме мизера"):
        apply(state, Bid(THIRD, "misere"))
    state = bids(state, "6S")
    assert state.declarer == THIRD and state.phase is Phase.DISCARD and state.talon_shown
    state = apply(state, Discard(THIRD, (card("9H"), card("10H"))))
    contracts = [a.token for a in legal_actions(state)]
    assert contracts[0] == "6S" and contracts[-1] == "10NT" and "misere" not in contracts
    sochi = bids(fresh(SOCHI), "pass", "pass")
    assert "misere" in tokens(sochi)  # the book rule: a misère is any player's first bid


def test_the_first_and_second_hands_keep_their_misere():
    assert "misere" in tokens(fresh())
    assert "misere" in tokens(bids(fresh(), "pass"))
    assert "misere" in tokens(bids(fresh(), "6S", "pass"))  # one bid made: the third hand is not «после двух пасов»


# ---- the misère in the dark -----------------------------------------------------------------------------------


def test_a_dark_misere_is_beaten_only_by_a_dark_nine_or_a_plain_ten():
    """«мизер втёмную. Перебивают такую игру только девятерной ставкой втёмную или десятерной всветлую»."""
    state = bids(fresh(), "dark-misere")
    assert to_move(state) == SECOND
    assert tokens(state) == ["pass", "10S", "dark-9S"]
    with pytest.raises(IllegalAction, match="девятерной ставкой втёмную"):
        apply(state, Bid(SECOND, "9S"))
    state = bids(state, "dark-9S")
    assert state.high.level == 9 and state.dark and state.high_seat == SECOND
    classic = bids(fresh(CLASSIC), "dark-misere")
    assert "9S" in tokens(classic)  # Classic keeps the ladder: any nine beats a misère


def test_a_dark_misere_is_caught_in_the_dark_and_a_plain_one_opens_before_the_defenders_lead():
    """«ловят такой мизер втёмную ... те, кто вистуют, не открывают своих карт»; «если ход должны сделать вистующие -
    они же и открывают карты ещё до первого хода»."""
    for first, opened in (("dark-misere", False), ("misere", True)):
        state = bids(fresh(), "pass", first, "pass")
        state = apply(state, Discard(SECOND, (card("AD"), card("KD"))))
        state = apply(state, Declare(SECOND, "misere"))
        assert state.phase is Phase.PLAY and to_move(state) == FIRST and not state.tricks and not state.current
        assert state.defence_open is opened
        seen = dict(view_for(state, SECOND).open_hands)
        assert (set(seen) == {FIRST, THIRD}) is opened


def test_the_misere_declarer_leads_before_the_defenders_lie_down():
    """«когда ход принадлежит играющему, то он делает его до того пока противники «лягут»» — and the book rule
    (Sochi) opens the defenders only after the first card, whoever leads."""
    state = bids(fresh(), "misere", "pass", "pass")
    state = apply(state, Discard(FIRST, (card("AC"), card("KC"))))
    state = apply(state, Declare(FIRST, "misere"))
    assert to_move(state) == FIRST and not state.defence_open
    state = apply(state, Play(FIRST, card("7S")))
    assert state.defence_open and state.open_seats == {SECOND, THIRD}
    sochi = bids(fresh(SOCHI), "pass", "misere", "pass")
    sochi = apply(sochi, Discard(SECOND, (card("AD"), card("KD"))))
    sochi = apply(sochi, Declare(SECOND, "misere"))
    assert to_move(sochi) == FIRST and not sochi.defence_open


# ---- the dark pass ----------------------------------------------------------------------------------------------


def test_a_dark_pass_is_beaten_by_a_seven_and_a_second_one_by_an_eight():
    """«При игре пас втёмную, если никто не перебил семерной игрой ... Если после семерной игры снова заказан пас
    втёмную, то перебивают восьмёркой»."""
    state = bids(fresh(), "dark-pass")
    assert [t for t in tokens(state) if t[0].isdigit()] == ["7S"]
    state = bids(state, "7S")
    assert "dark-pass" in tokens(state)
    state = bids(state, "dark-pass")
    assert state.high is None and to_move(state) == SECOND and russian(state.extra).dark_pass_rounds == 2
    assert tokens(state) == ["pass", "8S"]
    with pytest.raises(IllegalAction, match="bid of 8 or more"):
        apply(state, Bid(SECOND, "7H"))
    final = bids(state, "pass")
    assert final.kind is HandKind.RASPASY and final.phase is Phase.PLAY
    classic = bids(fresh(CLASSIC), "dark-pass", "7S")
    assert "dark-pass" not in tokens(classic)  # «После того как кто-то сделал значащую заявку ... нельзя»


def raspasy(rounds: int) -> HandOutcome:
    extras = (("dark_passers", (1,)), ("dark_pass_rounds", rounds)) if rounds else ()
    return HandOutcome(3, 0, (1, 2, 0), HandKind.RASPASY, (0, 4, 6), extras=extras)


def summary(lines):
    return sorted((line.seat, line.column, line.points) for line in lines)


@pytest.mark.parametrize("rounds, factor", [(0, 1), (1, 2), (2, 4)])
def test_the_dark_pass_counts_the_raspasy_double_and_a_second_one_fourfold(rounds, factor):
    """«взятки считаются по двойной цене ... очки считаются вчетверо»; no bombs are earned, unlike Classic («все
    спасовавшие втёмную получают дополнительные бомбы»)."""
    sheet, lines = score_hand(new_sheet(CODEX, 3), raspasy(rounds), CODEX)
    assert summary(lines) == [(0, "pulya", factor), (1, "gora", 4 * factor), (2, "gora", 6 * factor)]
    assert not any(sheet.bombs)
    classic, lines = score_hand(new_sheet(CLASSIC, 3), raspasy(rounds), CLASSIC)
    assert summary(lines) == [(0, "pulya", 1), (1, "gora", 4), (2, "gora", 6)]
    assert classic.bombs[1] == ((1,) if rounds else ())


def test_a_played_dark_pass_raspasy_is_written_double():
    state = bids(fresh(), "dark-pass", "pass", "pass")
    bots = [HeuristicBot()] * 3
    while not is_over(state):
        seat = to_move(state)
        state = apply(state, bots[seat].act(view_for(state, seat)))
    outcome = result(state)
    assert dict(outcome.extras)["dark_pass_rounds"] == 1
    plain = replace(CODEX, raspasy=replace(CODEX.raspasy, dark_pass_factor=1))
    doubled = score_hand(new_sheet(CODEX, 3), outcome, CODEX)[1]
    single = score_hand(new_sheet(plain, 3), outcome, plain)[1]
    assert summary(doubled) == [(s, c, 2 * p) for s, c, p in summary(single)]
    assert replay_record(to_record(state), CODEX, 3) == state


# ---- random play ----------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seats=st.sampled_from(CODEX.players), seed=st.integers(0, 2**32 - 1))
def test_random_codex_hands_keep_the_cards_and_replay_from_their_record(seats, seed):
    state = random_hand(CODEX, seats, seed)
    assert is_over(state)
    assert_cards_conserved(state)
    assert replay_record(to_record(state), CODEX, seats) == state


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), random_bots=st.booleans())
def test_codex_evenings_settle_to_zero(seed, random_bots):
    played = three_player_evening(CODEX, seed, random_bots, max_hands=30)
    assert sum(played.settlement.amounts) == 0
    assert np.isfinite(float(sum(abs(a) for a in played.settlement.amounts)))
