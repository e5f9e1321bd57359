"""The Slovenian variant (seed 003, «Варианты» of Croatian preferans), added as one module: Berac and sans atout
named at once, sans atout led into the declarer, an unkontra'd plain two writing nothing but a radlc for all."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from fairdeal.cards import Suit
from fairdeal.cli import cli
from fairdeal.engine.actions import Bid, Declare, Defend, Discard, Invite, Kontra, Phase
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, legal_actions, new_hand, to_move
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.sheet import ScoreLine, new_sheet
from fairdeal.systems import get_system
from fairdeal.systems.slovenian import SLOVENIAN

WHIST, PASS = DefenceCall.WHIST, DefenceCall.PASS
A, B, C = 0, 1, 2
SYSTEM = get_system("slovenian")
CROATIAN = get_system("croatian")


def two(kontra=()):
    return HandOutcome(
        num_seats=3,
        dealer=2,
        active=(0, 1, 2),
        kind=HandKind.GAME,
        tricks=(6, 2, 2),
        declarer=A,
        contract=Contract(6, Suit.SPADES),
        defence=((B, WHIST), (C, WHIST)),
        extras=(("kontra", kontra),) if kontra else (),
    )


def fresh(seed=0, dealer=2):
    return new_hand(SLOVENIAN, 3, dealer, random_deal(np.random.default_rng(seed), SLOVENIAN))


def bids(state, *tokens):
    for token in tokens:
        state = apply(state, Bid(to_move(state), token))
    return state


def test_the_registry_finds_the_new_module_and_its_words():
    assert type(SYSTEM).__name__ == "Slovenian" and SYSTEM.family == "central"
    assert SYSTEM.vocabulary.is_bid("berac") and SYSTEM.vocabulary.is_bid("sans-atout")
    assert not CROATIAN.vocabulary.is_bid("berac")


def test_an_unkontrad_plain_two_writes_nothing_and_gives_everyone_a_radlc():
    """«Если играется контракт два (просто пика) и никто не законтрил, то никто ничего не пишет; а если никто не
    «под шляпой», то все получают рефет»."""
    sheet, lines = SYSTEM.score_hand(new_sheet(SLOVENIAN, 3), two())
    assert lines == () and sheet.refe == (1, 1, 1)
    croatian_sheet, croatian_lines = CROATIAN.score_hand(new_sheet(CROATIAN.convention, 3), two())
    assert croatian_lines and croatian_sheet.refe == (0, 0, 0)


def test_a_kontrad_two_is_scored_as_in_croatia():
    kontra = ((B, 1),)
    ours = SYSTEM.score_hand(new_sheet(SLOVENIAN, 3), two(kontra))[1]
    theirs = CROATIAN.score_hand(new_sheet(CROATIAN.convention, 3), two(kontra))[1]
    assert ours == theirs and ScoreLine(A, "pulya", ours[0].points) == ours[0]


def test_no_radlc_while_someone_is_under_the_hat():
    sheet = new_sheet(SLOVENIAN, 3)
    sheet = sheet.apply((ScoreLine(B, "pulya", SLOVENIAN.pulya.size + 2),))
    after, lines = SYSTEM.score_hand(sheet, two())
    assert lines == () and after.refe == (0, 0, 0)


def test_berac_and_sans_atout_are_named_at_once():
    assert [a.token for a in legal_actions(fresh())] == ["pass", "two", "game", "berac", "sans-atout"]


def test_sans_atout_is_led_into_the_declarer():
    """«первый ход всегда под разыгрывающего»: the declarer's right-hand neighbour leads."""
    state = bids(fresh(dealer=2), "pass", "sans-atout", "pass")  # B, the second hand, plays sans atout
    state = apply(state, Declare(B, "6NT-bp"))
    state = apply(apply(state, Defend(C, WHIST)), Defend(A, WHIST))
    state = apply(apply(state, Kontra(C, False)), Kontra(A, False))
    assert state.phase is Phase.PLAY and state.turn == A  # A sits at B's right


def test_an_unkontrad_two_is_played_here():
    state = bids(fresh(), "two", "pass", "pass")
    state = apply(state, Discard(A, state.hands[A][:2]))
    state = apply(state, Declare(A, "6S"))
    state = apply(apply(state, Defend(B, WHIST)), Defend(C, PASS))
    state = apply(state, Invite(B, False))
    state = apply(state, Kontra(B, False))
    assert state.phase is Phase.PLAY


def test_a_slovenian_evening_reads_back_with_no_finding(tmp_path):
    log = tmp_path / "slovenian.jsonl"
    runner = CliRunner()
    played = runner.invoke(cli, ["play", "--system", "slovenian", "--hands", "40", "--seed", "4", "--out", str(log)])
    assert played.exit_code == 0, played.output
    for command in (["sheet", str(log)], ["log", "validate", str(log)]):
        checked = runner.invoke(cli, command)
        assert checked.exit_code == 0, checked.output
    report = json.loads(runner.invoke(cli, ["audit", str(log), "--json"]).output)
    assert report["summary"]["findings_by_kind"] == {}
