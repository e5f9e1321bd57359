"""Replay of logged shuffles against the deal as received, and the tells in the shuffle itself."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit.replay import CutDepthTally, cut_legality, replay_deal, replay_findings, undone_actions
from fairdeal.cards import to_ascii_list
from fairdeal.deal import Deal, deal_order, get_pattern
from fairdeal.errors import AuditError
from fairdeal.shuffle.notation import parse_notation

RUSSIAN = get_pattern("russian")
SEQUENCE = parse_notation("2 4 2 8 cut 12")


def setting(seed: int):
    before = np.random.default_rng(seed).permutation(RUSSIAN.deck.codes())
    return before, before[SEQUENCE.permutation(32)]


def explanations(before, dealt_from) -> tuple[str, ...]:
    result = replay_deal(before, SEQUENCE, deal_order(dealt_from, RUSSIAN), RUSSIAN)
    assert not result.matches and result.findings[0].kind == "deal-mismatch"
    return result.findings[0].explanations


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_an_honestly_replayed_hand_matches(seed):
    before, after = setting(seed)
    assert replay_deal(before, SEQUENCE, deal_order(after, RUSSIAN), RUSSIAN).matches
    assert replay_findings(before, SEQUENCE, deal_order(after, RUSSIAN), RUSSIAN) == ()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 29))
def test_a_card_from_the_bottom_is_named(seed, at):
    before, after = setting(seed)
    bottom = np.concatenate([after[:at], after[-1:], after[at:-1]])
    found = explanations(before, bottom)
    assert f"a card from the bottom ({to_ascii_list([after[-1]])[0]}) dealt as card {at + 1}" in found


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 5, 7, 13]))
def test_a_second_deal_is_named(seed, at):
    # Positions at and at+1 go to different receivers for these choices (deal by two; talon at 7-8).
    before, after = setting(seed)
    second = after.copy()
    second[[at, at + 1]] = second[[at + 1, at]]
    assert any(e.startswith(f"a second card dealt at card {at + 1}") for e in explanations(before, second))


def test_a_skipped_cut_and_a_switched_talon_are_named():
    before, after = setting(3)
    no_cut = before[parse_notation("2 4 2 8").permutation(32)]
    assert "the logged cut (action 5, cut 12) was not made: a false cut" in explanations(before, no_cut)
    dealt = deal_order(after, RUSSIAN)
    hand, talon = dealt.hands[1], dealt.talons[0]
    switched = Deal((dealt.hands[0], np.concatenate([hand[:8], talon]), dealt.hands[2]), (hand[8:],))
    result = replay_deal(before, SEQUENCE, switched, RUSSIAN)
    assert "talon 0 switched with cards of hand 1" in result.findings[0].explanations
    assert {m.card for m in result.moved} == set(to_ascii_list(np.concatenate([hand[8:], talon])))


def test_an_extra_card_is_named():
    before, after = setting(4)
    dealt = deal_order(after, RUSSIAN)
    extra = Deal(
        (np.concatenate([dealt.hands[0], dealt.hands[1][:1]]), dealt.hands[1][1:], dealt.hands[2]), dealt.talons
    )
    found = replay_deal(before, SEQUENCE, extra, RUSSIAN).findings[0].explanations
    assert "hand 0 holds 11 cards instead of 10: an extra card" in found
    assert "hand 1 holds 9 cards instead of 10: a card short" in found


def test_cut_legality_follows_the_codex_minimum():
    # Seed 002 (Codex): при съёме должно остаться не менее четырёх карт.
    assert cut_legality(parse_notation("cut 4 cut 28"), 32) == ()
    found = cut_legality(parse_notation("cut 3 2 cut 29"), 32)
    assert [f.kind for f in found] == ["illegal-cut", "illegal-cut"] and "action 3" in found[1].message
    assert len(cut_legality(parse_notation("cut 5"), 32, min_each_side=6)) == 1


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 31))
def test_a_cut_undone_by_the_next_cut_is_a_false_cut(depth):
    found = undone_actions(parse_notation(f"4 cut {depth} cut {32 - depth} 2"), RUSSIAN)
    assert [f.kind for f in found] == ["false-cut"] and "actions 2-3" in found[0].message


def test_actions_that_change_no_receiver_are_reported():
    # "2" reverses the top two, both dealt to the first hand: a run of 2 twice cancels; "2 4 4" leaves every set.
    assert [f.kind for f in undone_actions(parse_notation("2 2"), RUSSIAN)] == ["cancelling-actions"]
    assert [f.kind for f in undone_actions(parse_notation("8 4 8 4"), RUSSIAN)] == []
    found = undone_actions(parse_notation("4 2 4"), RUSSIAN)
    assert [f.kind for f in found] == ["no-op-shuffle"]


def test_the_same_cut_depth_again_and_again():
    tally = CutDepthTally.empty(32)
    for _ in range(12):
        tally = tally.merge(CutDepthTally.of(parse_notation("2 4 cut 9"), 32))
    depth, p = tally.repeated_depth()
    assert depth == 9 and p < 1e-10
    rng = np.random.default_rng(0)
    honest = CutDepthTally.empty(32)
    for d in rng.integers(4, 29, size=60):
        honest = honest.merge(CutDepthTally.of(parse_notation(f"cut {d}"), 32))
    assert honest.repeated_depth()[1] > 0.01
    with pytest.raises(AuditError):
        tally.merge(CutDepthTally.empty(24))


def test_a_gathered_order_of_the_wrong_size_is_refused():
    with pytest.raises(AuditError, match="32 cards"):
        replay_deal(np.arange(31), SEQUENCE, deal_order(RUSSIAN.deck.codes(), RUSSIAN), RUSSIAN)
