"""19th-century mixed full preferans (seed 003_bf7e0a2721a54502.txt, rules 48-56, 79): seven, малая and большая
бедность, eight, nine and тотус on the suit auction, priced by the rung (docs/systems.md)."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from random_play import assert_cards_conserved, random_hand, three_player_evening

from fairdeal.cards import Suit
from fairdeal.cli import cli
from fairdeal.engine.actions import Bid, Declare, Discard, Phase
from fairdeal.engine.countdown import contract_value
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import new_sheet
from fairdeal.errors import IllegalAction
from fairdeal.log.tokens import is_bid, is_contract
from fairdeal.rules import PREFERANS_1800S_MIXED_FULL as FULL
from fairdeal.rules import PREFERANS_1800S_MIXED_FULL_KADILI as FULL_KADILI
from fairdeal.systems import conventions

WHIST, PASS = DefenceCall.WHIST, DefenceCall.PASS
A, B, C = 0, 1, 2
SYSTEMS = [FULL, FULL_KADILI]


def fresh(conv=FULL, seed=0):
    return new_hand(conv, 3, 2, random_deal(np.random.default_rng(seed), conv))


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def game(declarer, contract, tricks, defence, kind=HandKind.GAME):
    return HandOutcome(
        num_seats=3,
        dealer=(declarer - 1) % 3,
        active=(0, 1, 2),
        kind=kind,
        tricks=tricks,
        declarer=declarer,
        contract=contract,
        defence=defence,
    )


def poverty(declarer, tricks, no_talon):
    return game(declarer, Contract(None, None, misere=True, no_talon=no_talon), tricks, (), HandKind.MISERE)


def summary(lines):
    return sorted((line.seat, line.column, line.points, line.on) for line in lines)


def test_both_conventions_are_listed_and_playable_by_name():
    assert conventions()["preferans-1800s-mixed-full"] is FULL
    assert conventions()["preferans-1800s-mixed-full-kadili"] is FULL_KADILI


def test_rule50_the_ladder_of_announcements():
    """«Семь перебивают бескозырную шесть, семь переговариваются малою бедностью, малую бедность перебивает восемь;
    восемь переговариваются девятью, а девять — тотусом»."""
    state = bids(fresh(), "notrump")
    assert [a.token for a in legal_actions(state)] == [
        "pass",
        "seven",
        "little-poverty",
        "eight",
        "nine",
        "totus",
        "great-poverty",
    ]
    state = bids(state, "seven")
    assert "notrump" not in [a.token for a in legal_actions(state)]
    state = bids(state, "little-poverty")
    assert state.declarer == C and state.phase is Phase.DISCARD


def test_rule52_little_poverty_announced_exchanges_one_card():
    """«Малая бедность состоит в том, чтобы не взять ни одной взятки при относе одной карты. В этой игре козырей
    нет, и противники непременно должны оба вистовать»."""
    start = fresh(seed=3)
    state = bids(start, "little-poverty", "pass", "pass")
    assert state.declarer == A and state.phase is Phase.DISCARD
    assert set(state.hands[A]) == set(start.hands[A]) | {start.talon[0]} and state.talon == start.talon[1:]
    legal = legal_actions(state)
    assert all(len(a.cards) == 1 for a in legal) and len(legal) == 11
    with pytest.raises(IllegalAction, match="exactly one card"):
        apply(state, Discard(A, state.hands[A][:2]))
    state = apply(state, Discard(A, (state.hands[A][-1],)))
    assert [a.token for a in legal_actions(state)] == ["misere"]
    state = apply(state, Declare(A, "misere"))
    assert state.phase is Phase.PLAY and state.kind is HandKind.MISERE and state.contract.strain is None
    assert [len(h) for h in state.hands] == [10, 10, 10] and len(state.talon) == 1 and len(state.discard) == 1


def test_rule54_great_poverty_is_played_on_the_cards_dealt():
    """«При объявлении большой бедности игрок обязуется, не относя ни одной карты, не сделать ни одной взятки»."""
    start = fresh(seed=4)
    state = bids(start, "pass", "great-poverty", "pass")
    assert state.declarer == B and state.phase is Phase.CONTRACT and state.hands == start.hands
    assert [a.token for a in legal_actions(state)] == ["misere-bp"]
    state = apply(state, Declare(B, "misere-bp"))
    assert state.phase is Phase.PLAY and state.talon == start.talon


def test_rule52_little_poverty_with_the_talon_changes_two_cards_great_poverty_cannot_be_bought():
    """«Эту игру опасно играть с талоном, несмотря на то, что можно переменить две карты»."""
    state = bids(fresh(), "pass", "pass", "pass", "buy")
    assert all(len(a.cards) == 2 for a in legal_actions(state))
    state = apply(state, Discard(A, state.hands[A][:2]))
    tokens = [a.token for a in legal_actions(state)]
    assert "misere" in tokens and "misere-bp" not in tokens and "10H" in tokens and "7S" in tokens


def test_rule56_totus_is_defended_by_both_and_pays_eleven_prizes_a_trick():
    """«тотус ... разыгрывается без виста, но оба противника должны стараться обремизить игрока ... если не
    возьмут ни одной взятки — то ремиза не ставят, а за сделанные ими взятки проигравший игру платит по 11 призов
    за каждую»."""
    state = bids(fresh(), "totus", "pass", "pass")
    state = apply(state, Declare(A, "10H-bp"))
    assert [a.call for a in legal_actions(state)] == [WHIST]
    lost = game(A, Contract(10, Suit.HEARTS, no_talon=True), (8, 1, 1), ((B, WHIST), (C, WHIST)))
    _, lines = score_hand(new_sheet(FULL, 3), lost, FULL)
    assert summary(lines) == [(A, "gora", 11, None), (B, "whists", 11, A), (C, "whists", 11, A)]
    won = game(A, Contract(10, Suit.HEARTS, no_talon=True), (10, 0, 0), ((B, WHIST), (C, WHIST)))
    _, lines = score_hand(new_sheet(FULL, 3), won, FULL)
    assert summary(lines) == [(A, "pulya", 11, None)]


def test_rule79_extended_prices_rise_by_one_a_rung():
    """Rule 79's surviving table (♠1 ♣2 ♦3 ♥4, без козырей 5, then the next rungs) extended along rule 50's ladder;
    «каждое из этих чисел увеличивается десятком» without the talon."""
    prices = [
        (Contract(6, Suit.SPADES), 1),
        (Contract(6, Suit.HEARTS), 4),
        (Contract(6, None), 5),
        (Contract(7, Suit.CLUBS), 6),
        (Contract(None, None, misere=True), 7),
        (Contract(8, Suit.SPADES), 8),
        (Contract(9, Suit.HEARTS), 9),
        (Contract(10, Suit.DIAMONDS), 10),
        (Contract(10, Suit.DIAMONDS, no_talon=True), 11),
        (Contract(None, None, misere=True, no_talon=True), 12),
    ]
    for contract, price in prices:
        assert contract_value(game(A, contract, (9, 1, 0), ()), FULL) == price


def test_caught_poverty_is_a_remiz_per_trick_with_kadili_once_without():
    """Rule 31: «Если же сам игрок не доделает своих взяток, то он ставит ремиз»; rule 43 «с кадилями»: per trick."""
    _, lines = score_hand(new_sheet(FULL, 3), poverty(A, (2, 4, 4), no_talon=False), FULL)
    assert summary(lines) == [(A, "gora", 7, None)]
    _, lines = score_hand(new_sheet(FULL_KADILI, 3), poverty(A, (2, 4, 4), no_talon=False), FULL_KADILI)
    assert summary(lines) == [(A, "gora", 14, None)]
    _, lines = score_hand(new_sheet(FULL, 3), poverty(B, (5, 0, 5), no_talon=True), FULL)
    assert summary(lines) == [(B, "pulya", 12, None)]


def test_rule51_against_seven_the_last_whister_may_take_one():
    """«При объявлении семь ... вист должен набрать две взятки; при двух же вистах только подручный игроку обязан
    сделать две взятки, а последний игрок может взять и одну»."""
    seven = Contract(7, Suit.SPADES)
    _, lines = score_hand(new_sheet(FULL, 3), game(A, seven, (8, 1, 1), ((B, WHIST), (C, WHIST))), FULL)
    assert (B, "gora", 6, None) in summary(lines) and all(line.seat != C or line.column != "gora" for line in lines)
    _, lines = score_hand(new_sheet(FULL, 3), game(A, seven, (7, 2, 1), ((B, WHIST), (C, WHIST))), FULL)
    assert [line for line in lines if line.column == "gora"] == []
    _, lines = score_hand(new_sheet(FULL, 3), game(A, seven, (8, 0, 2), ((B, PASS), (C, WHIST))), FULL)
    assert summary(lines) == [(A, "pulya", 6, None), (C, "whists", 12, A)]


def test_log_vocabulary_knows_the_new_words():
    for token in ("seven", "little-poverty", "totus", "great-poverty"):
        assert is_bid(token, FULL.name)
    for token in ("7S", "10H-bp", "misere", "misere-bp"):
        assert is_contract(token, FULL.name)


def test_a_recorded_little_poverty_replays():
    state = bids(fresh(seed=5), "little-poverty", "pass", "pass")
    state = apply(state, Discard(A, (state.hands[A][0],)))
    state = apply(state, Declare(A, "misere"))
    while not is_over(state):
        state = apply(state, legal_actions(state)[0])
    record = to_record(state)
    assert len(record["discard"]) == 1 and result(state).kind is HandKind.MISERE
    assert replay_record(record, FULL, 3) == state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), conv=st.sampled_from(SYSTEMS), seats=st.sampled_from([2, 3, 4, 5]))
def test_random_legal_hands_conserve_cards_end_and_replay(seed, conv, seats):
    state = random_hand(conv, seats, seed)
    assert_cards_conserved(state)
    assert not result(state).played or len(state.tricks) == 10
    assert replay_record(to_record(state), conv, seats) == state


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), conv=st.sampled_from(SYSTEMS), random_bots=st.booleans())
def test_random_evenings_settle_to_zero(seed, conv, random_bots):
    played = three_player_evening(conv, seed, random_bots, max_hands=40)
    assert sum(played.settlement.amounts) == 0


def test_cli_lists_plays_and_recounts_mixed_full(tmp_path):
    runner = CliRunner()
    listed = runner.invoke(cli, ["systems", "--json"])
    assert listed.exit_code == 0 and "preferans-1800s-mixed-full" in listed.output
    log = tmp_path / "evening.jsonl"
    played = runner.invoke(
        cli, ["play", "--system", "preferans-1800s-mixed-full", "--seed", "9", "--hands", "25", "--out", str(log)]
    )
    assert played.exit_code == 0, played.output
    assert "Ремизы (ставка 21)" in played.output
    again = runner.invoke(cli, ["sheet", str(log)])
    assert again.exit_code == 0, again.output
    assert again.output.rstrip().endswith("every logged score line matches")


def test_the_new_words_stay_out_of_the_other_1800s_systems():
    assert not is_bid("totus", "preferans-1800s-mixed") and not is_contract("misere", "preferans-1800s")
    assert not is_contract("7S", "preferans-1800s") and not is_contract("10NT", FULL.name)
