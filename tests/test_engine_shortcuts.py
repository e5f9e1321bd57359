"""The engine's speed shortcuts give the rules' own answers: remembered auction rules, the per-state memo, shared
action objects, the lazily filled view, the deck check's fast path, states that store only the fields a hand set,
the random deal's single index and the bots' per-suit hand shares."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import DeckKind, check_order
from fairdeal.deal import get_pattern
from fairdeal.engine import auction
from fairdeal.engine.actions import Bid, Declare, Defend, Discard, Phase, Play
from fairdeal.engine.bots import RandomBot
from fairdeal.engine.driver import random_deal
from fairdeal.engine.evaluate import best_strain, ranks_by_suit, stopped, strain_tricks, top_tricks, trump_tricks
from fairdeal.engine.hand import apply, is_over, legal_actions, legal_tuple, new_hand, to_move
from fairdeal.engine.play import suit_cards, trick_winner
from fairdeal.engine.state import HandState, make_state, per_state
from fairdeal.engine.view import PlayerView, actor_view, view_for
from fairdeal.errors import CardError
from fairdeal.systems import conventions

TABLES = [(name, seats) for name in sorted(conventions()) for seats in conventions()[name].players]


def random_states(name: str, seats: int, seed: int, hands: int = 3):
    """Every state of a few random-legal hands (raspasy streaks vary the exit level)."""
    convention = conventions()[name]
    rng = np.random.default_rng(seed)
    bot = RandomBot(rng)
    for number in range(hands):
        state = new_hand(convention, seats, number % seats, random_deal(rng, convention), int(rng.integers(0, 4)))
        yield state
        while not is_over(state):
            state = apply(state, bot.act(view_for(state, to_move(state))))
            yield state


@pytest.mark.parametrize("name,seats", TABLES)
def test_remembered_auction_rules_answer_as_the_rules(name, seats):
    for state in random_states(name, seats, seed=len(name) * 31 + seats):
        if state.convention.bidding.ladder != "russian":
            continue
        if state.phase is Phase.AUCTION:
            assert auction._game_bids(state) == auction._game_bids.__wrapped__(state)
            assert auction.legal_tokens(state) == auction.legal_tokens.__wrapped__(state)
            if state.turn not in state.misere_bidders:
                assert auction._open_tokens(state) == auction._open_tokens.__wrapped__(state)
        if state.final_bid is not None and not state.final_bid.misere:
            assert auction.legal_contracts(state) == auction.legal_contracts.__wrapped__(state)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(TABLES), st.integers(0, 2**32 - 1))
def test_remembered_rules_over_random_auctions(table, seed):
    name, seats = table
    for state in random_states(name, seats, seed, hands=2):
        if state.phase is Phase.PLAY:
            assert legal_tuple(state) == legal_tuple.__wrapped__(state)
        if state.phase is Phase.AUCTION and state.convention.bidding.ladder == "russian":
            assert auction._game_bids(state) == auction._game_bids.__wrapped__(state)
            if state.turn not in state.misere_bidders:
                assert auction._open_tokens(state) == auction._open_tokens.__wrapped__(state)


def test_remembered_answers_are_fresh_lists():
    state = new_hand(conventions()["sochi"], 3, 0, random_deal(np.random.default_rng(1)))
    first = auction.legal_tokens(state)
    first.append("garbage")
    assert "garbage" not in auction.legal_tokens(state)
    bids = auction._game_bids(state)
    bids.clear()
    assert auction._game_bids(state)


def test_per_state_asks_again_for_another_state():
    calls = []

    @per_state
    def rule(state):
        calls.append(state)
        return [state.turn]

    rng = np.random.default_rng(2)
    one = new_hand(conventions()["sochi"], 3, 0, random_deal(rng))
    other = new_hand(conventions()["sochi"], 3, 1, random_deal(rng))
    assert rule(one) == rule(one) == [one.turn]
    assert rule(other) == [other.turn] and rule(one) == [one.turn]
    assert calls == [one, other, one]


@pytest.mark.parametrize("name,seats", TABLES)
def test_view_fields_are_what_the_seat_may_see(name, seats):
    names = [f.name for f in dataclasses.fields(PlayerView)]
    for state in random_states(name, seats, seed=seats * 1000 + len(name), hands=2):
        actor = to_move(state)
        for seat in range(seats):
            view = view_for(state, seat)
            assert isinstance(view, PlayerView)
            assert view.hand == state.hands[seat]
            assert view.discard == (state.discard if seat == state.declarer else ())
            assert view.legal == (tuple(legal_actions(state)) if seat == actor else ())
            assert all(s != seat and cards == state.hands[s] for s, cards in view.open_hands)
            assert {s for s, _ in view.open_hands} == set(state.open_seats) - {seat}
            assert (view.tricks, view.current, view.auction, view.won) == (
                state.tricks,
                state.current,
                state.auction,
                state.won,
            )
            eager = PlayerView(**{n: getattr(view, n) for n in names})
            assert all(getattr(eager, n) == getattr(view, n) for n in names)


def test_view_is_read_only():
    view = view_for(new_hand(conventions()["sochi"], 3, 0, random_deal(np.random.default_rng(3))), 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.hand = ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.legal = ()
    assert view.legal and view.hand


def test_shared_actions_equal_new_ones():
    for state in random_states("sochi", 3, seed=4, hands=4):
        for action in legal_actions(state):
            if isinstance(action, (Bid, Declare, Defend, Discard, Play)):
                assert action == type(action)(*dataclasses.astuple(action))


@pytest.mark.parametrize("deck", list(DeckKind))
def test_deck_check_fast_path_still_reports(deck):
    codes = deck.codes()
    check_order(np.random.default_rng(5).permutation(codes), deck)
    doubled = codes.copy()
    doubled[1] = doubled[0]
    with pytest.raises(CardError, match="more than once"):
        check_order(doubled, deck)
    foreign = codes.copy()
    foreign[0] = 40
    with pytest.raises(CardError):
        check_order(foreign, deck)
    codes[0] = 99  # the copy handed out is the caller's: the deck itself is unchanged
    assert deck.codes()[0] != 99


def test_make_state_is_the_dataclass_constructor():
    state = new_hand(conventions()["sochi"], 3, 2, random_deal(np.random.default_rng(6)))
    given = {
        "convention",
        "mechanics",
        "num_seats",
        "dealer",
        "active",
        "raspasy_streak",
        "dealt_hands",
        "dealt_talon",
        "hands",
        "talon",
        "phase",
        "turn",
    }
    values = {name: getattr(state, name) for name in given}
    assert make_state(**values) == HandState(**values)
    with pytest.raises(TypeError, match="needs"):
        make_state(**{k: v for k, v in values.items() if k != "turn"})
    with pytest.raises(TypeError, match="needs"):
        make_state(**values, colour="red")


def test_a_state_stores_only_what_was_set_and_reads_the_rest_as_defaults():
    state = new_hand(conventions()["sochi"], 3, 1, random_deal(np.random.default_rng(8)))
    defaults = {f.name: f.default for f in dataclasses.fields(HandState) if f.default is not dataclasses.MISSING}
    unset = set(defaults) - set(vars(state))
    assert {"tricks", "current", "declarer", "contract", "kind"} <= unset
    assert all(getattr(state, name) is defaults[name] for name in unset)
    rebuilt = HandState(**{f.name: getattr(state, f.name) for f in dataclasses.fields(HandState)})
    assert rebuilt == state and repr(rebuilt) == repr(state)


@pytest.mark.parametrize("name,seats", TABLES)
def test_random_deal_is_the_shuffled_deck_dealt_row_by_row(name, seats):
    convention = conventions()[name]
    pattern = get_pattern(convention.table.pattern_name(seats))
    for seed in range(4):
        order = np.random.default_rng(seed).permutation(pattern.deck.codes())
        deal = random_deal(np.random.default_rng(seed), convention, seats)
        assert [cards.tolist() for cards in deal.hands] == [order[row].tolist() for row in pattern.hand_positions]
        assert [cards.tolist() for cards in deal.talons] == [order[row].tolist() for row in pattern.talon_positions]
        assert all(cards.dtype == np.uint8 for cards in deal.hands + deal.talons)


def _strain_tricks_by_the_book(cards, strain: int) -> float:
    """evaluate's rule of thumb written out suit by suit, as it read before the per-suit shares."""
    suits = ranks_by_suit(cards)
    if strain == 4:
        total = 0.0
        for ranks in suits:
            top = top_tricks(ranks)
            total += max(top, len(ranks) - 3) if top >= 2 else top
            if not stopped(ranks):
                total -= 1.5
        return total
    total = float(trump_tricks(suits[strain]))
    for suit, ranks in enumerate(suits):
        if suit != strain:
            total += top_tricks(ranks)
            if len(suits[strain]) >= 4 and not ranks:
                total += 0.5
    return min(total, 10.0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 31), min_size=0, max_size=12, unique=True))
def test_strain_tricks_from_suit_shares_are_the_rule_of_thumb(cards):
    by_book = [_strain_tricks_by_the_book(cards, strain) for strain in range(5)]
    assert [strain_tricks(cards, strain) for strain in range(5)] == by_book
    assert best_strain(cards) == max(enumerate(by_book), key=lambda item: (item[1], item[0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 31), min_size=0, max_size=12, unique=True), st.integers(0, 3))
def test_suit_slice_is_the_suit_filter(cards, suit):
    assert suit_cards(tuple(sorted(cards)), suit) == tuple(c for c in sorted(cards) if c // 8 == suit)


def _trick_winner_by_the_book(plays, trump):
    """The winner as the rule reads: the highest trump if any was played, else the highest card of the led suit."""
    trumps = [(c, s) for s, c in plays if trump is not None and c // 8 == trump]
    if trumps:
        return max(trumps)[1]
    return max((c, s) for s, c in plays if c // 8 == plays[0][1] // 8)[1]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.integers(0, 31), min_size=2, max_size=4, unique=True),
    st.one_of(st.none(), st.integers(0, 3)),
)
def test_one_pass_trick_winner_is_the_rule(cards, trump):
    plays = tuple(enumerate(cards))
    assert trick_winner(plays, None, trump) == _trick_winner_by_the_book(plays, trump)


@pytest.mark.parametrize("name,seats", TABLES)
def test_the_drivers_view_is_the_seats_view(name, seats):
    names = [f.name for f in dataclasses.fields(PlayerView)]
    for state in random_states(name, seats, seed=seats * 7 + len(name), hands=2):
        seat = to_move(state)
        if seat is None:
            continue
        driven, plain = actor_view(state, seat), view_for(state, seat)
        assert [getattr(driven, n) for n in names] == [getattr(plain, n) for n in names]
