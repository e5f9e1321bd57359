"""The hand run from public information (``fairdeal.engine.public_hand``): at every table, the service and each seat,
told only what the rules open to them, keep the true hand's flow, public fields and legal choices, and a card no
deal allows is refused."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from public_table import TABLES, PublicTable

from fairdeal.engine.actions import Announce, Phase, Play
from fairdeal.engine.hand import apply, result, to_move
from fairdeal.engine.public_hand import match_cards
from fairdeal.engine.state import HandState
from fairdeal.engine.view import actor_view
from fairdeal.errors import NoConsistentDeal


def _result_seen(state: HandState):
    outcome = result(state)
    return outcome.kind, outcome.tricks, outcome.declarer, outcome.contract, outcome.defence


@pytest.mark.parametrize(("system", "players"), TABLES)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_party_keeps_the_true_hands_flow_from_what_it_is_shown(system: str, players: int, seed: int) -> None:
    table = PublicTable(system, players, seed)
    while table.true.phase is not Phase.DONE and not table.stopped:
        table.step()
        table.assert_agrees()
    for hand in table.parties.values() if not table.stopped else ():
        assert _result_seen(hand.state) == _result_seen(table.true)


def _void(true: HandState, seat: int) -> int | None:
    """A suit ``seat`` has shown it lacks: it played another card to a trick led in that suit."""
    for trick in true.tricks:
        led = (trick.talon_card if trick.talon_card is not None else trick.plays[0][1]) // 8
        if any(s == seat and card // 8 != led for s, card in trick.plays):
            return led
    return None


def test_a_card_the_earlier_plays_rule_out_is_refused_and_changes_nothing() -> None:
    """A seat that did not follow a suit cannot play it later: no deal allows it, and the hand stays as it was."""
    for seed in range(200):
        table = PublicTable("sochi", 3, seed)
        while table.true.phase is not Phase.DONE:
            true, service = table.true, table.parties[None]
            suit = _void(true, true.turn) if true.phase is Phase.PLAY else None
            played = {card for trick in true.tricks for _, card in trick.plays} | {c for _, c in true.current}
            unplayed = (
                [card for card in range(suit * 8, suit * 8 + 8) if card not in played] if suit is not None else []
            )
            if unplayed:
                before = service.state
                with pytest.raises(NoConsistentDeal, match=f"seat {true.turn}"):
                    service.act(Play(true.turn, unplayed[0]))
                assert service.state is before
                table.step()
                table.assert_agrees()
                return
            table.step()
    pytest.fail("no seat showed a void in 200 hands")


@st.composite
def _placings(draw):
    """A few cards, a few places of given sizes, the places each card may lie, and where each lies now."""
    cards = draw(st.integers(1, 7))
    sizes = draw(st.lists(st.integers(0, cards), min_size=1, max_size=3).filter(lambda s: sum(s) <= cards))
    sizes[-1] += cards - sum(sizes)
    slots = [("hand", k) for k in range(len(sizes))]
    allowed = {c: set(draw(st.sets(st.sampled_from(slots)))) for c in range(cards)}
    lying = [slot for slot, size in zip(slots, sizes) for _ in range(size)]
    now = dict(zip(draw(st.permutations(range(cards))), lying))
    return dict(zip(slots, sizes)), allowed, now


@given(_placings())
def test_cards_are_matched_to_places_exactly_when_some_assignment_exists(placing) -> None:
    capacity, allowed, now = placing
    matched = match_cards(capacity, allowed, now)
    slots = list(capacity)
    exists = any(
        all(slot in allowed[c] for c, slot in enumerate(choice))
        and all(choice.count(slot) == size for slot, size in capacity.items())
        for choice in itertools.product(slots, repeat=len(allowed))
    )
    assert (matched is not None) == exists
    if matched is not None:
        assert sorted(c for cards in matched.values() for c in cards) == sorted(allowed)
        assert all(len(matched.get(slot, ())) == size for slot, size in capacity.items())
        assert all(slot in allowed[c] for slot, cards in matched.items() for c in cards)


def test_a_false_announcement_of_no_aces_is_caught_when_the_declarer_plays_an_ace() -> None:
    """The service cannot see the declarer's aces when he announces he has none; the first ace he plays proves
    the announcement false, and the service refuses that card."""
    for seed in range(400):
        table = PublicTable("austrian", 3, seed)
        while table.true.phase is not Phase.DONE and not table.parties[None].undecided:
            table.step()
        true, service = table.true, table.parties[None]
        if not service.undecided or true.phase is not Phase.PLAY:
            continue
        aces = [c for c in true.hands[true.declarer] if c % 8 == 7]
        if not aces:
            continue
        service.act(Announce(true.declarer, True))
        while table.true.phase is not Phase.DONE:
            seat = to_move(table.true)
            action = table.bots[seat].act(actor_view(table.true, seat))
            if isinstance(action, Play) and action.seat == true.declarer and action.card % 8 == 7:
                before = service.state
                with pytest.raises(NoConsistentDeal):
                    service.act(action)
                assert service.state is before
                return
            service.act(action)
            table.true = apply(table.true, action)
    pytest.fail("no Austrian declarer held an ace he could have hidden in 400 hands")
