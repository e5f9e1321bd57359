"""Property tests over random legal play: conservation, termination, trick winners, replay, outcome."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import DeckKind, suit_of
from fairdeal.engine.bids import BidError, ContractBid, all_game_bids, beats, parse_bid
from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.driver import MAX_STEPS, random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, result, to_move
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.view import view_for
from fairdeal.systems import conventions

NAMES = sorted(conventions())


def table(data_seed: int, name: str, heuristic: bool):
    rng = np.random.default_rng(data_seed)
    convention = conventions()[name]
    seats = int(rng.choice(convention.players))
    dealer = int(rng.integers(seats))
    streak = int(rng.integers(0, 4))
    bots = [HeuristicBot() if heuristic else RandomBot(np.random.default_rng(data_seed * 7 + s)) for s in range(seats)]
    opening = int(rng.integers(0, convention.table.opening_raspasy_rounds + 1)) if rng.random() < 0.2 else 0
    return convention, seats, dealer, streak, bots, random_deal(rng, convention, seats), opening


def play_all_states(convention, seats, dealer, streak, bots, deal, opening=0):
    state = new_hand(convention, seats, dealer, deal, streak, opening)
    states = [state]
    while not is_over(state):
        seat = to_move(state)
        state = apply(state, bots[seat].act(view_for(state, seat)))
        states.append(state)
    return states


def cards_in(state) -> list[int]:
    played = [c for t in state.tricks for _, c in t.plays]
    played += [t.talon_card for t in state.tricks if t.talon_card is not None]
    current = [c for _, c in state.current]
    talon_turned = {t.talon_card for t in state.tricks if t.talon_card is not None}
    talon = [c for c in state.talon if c not in talon_turned]
    return (
        [c for h in state.hands for c in h]
        + talon
        + list(state.discard)
        + list(getattr(state.extra, "defence_discard", ()))
        + played
        + current
        + list(state.aside)
    )


def deck_of(convention) -> list[int]:
    return sorted(int(c) for c in DeckKind.parse(convention.table.deck).codes())


def check_trick(trick, trump, talon_owner):
    """An independent reading of «старшая карта в масть, козырь бьёт»."""
    plays = list(trick.plays)
    if trick.talon_card is not None:
        suit = suit_of(trick.talon_card)
        field = plays + ([(talon_owner, trick.talon_card)] if talon_owner is not None else [])
        same = [(c, s) for s, c in field if suit_of(c) == suit]
        if not same:
            first_suit = suit_of(plays[0][1])
            same = [(c, s) for s, c in plays if suit_of(c) == first_suit]
        return max(same)[1]
    ruffs = [(c, s) for s, c in plays if trump is not None and suit_of(c) == trump]
    if ruffs:
        return max(ruffs)[1]
    led = suit_of(plays[0][1])
    return max((c, s) for s, c in plays if suit_of(c) == led)[1]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(NAMES), heuristic=st.booleans())
def test_random_legal_play_keeps_every_invariant(seed, name, heuristic):
    convention, seats, dealer, streak, bots, deal, opening = table(seed, name, heuristic)
    states = play_all_states(convention, seats, dealer, streak, bots, deal, opening)
    final = states[-1]
    deck = deck_of(convention)
    for state in states:  # every card of the deck is somewhere, exactly once, in every state
        assert sorted(cards_in(state)) == deck
    assert len(states) - 1 <= MAX_STEPS
    trump = None if final.kind is not HandKind.GAME or final.contract.strain == 4 else final.contract.strain
    owner = final.dealer if final.dealer not in final.active else None
    for trick in final.tricks:
        assert trick.winner == check_trick(trick, trump, owner)
    outcome = result(final)
    if outcome.played:  # Croatian play stops when the defence takes its fifth trick («не доигрывается»)
        cap = convention.play.defence_trick_cap
        stopped = cap is not None and sum(outcome.tricks[s] for s in outcome.defenders) == cap
        assert sum(outcome.tricks) + outcome.raspasy_talon_tricks == 10 or stopped
    else:
        assert sum(outcome.tricks) == 0 and outcome.kind in (HandKind.GAME, HandKind.REDEAL)
    assert all(outcome.tricks[s] == 0 for s in range(seats) if s not in outcome.active)
    assert (outcome.kind in (HandKind.RASPASY, HandKind.REDEAL)) == (outcome.declarer is None)
    assert replay_record(to_record(final), convention, seats) == final


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(NAMES))
def test_views_never_show_hidden_cards(seed, name):
    convention, seats, dealer, streak, bots, deal, opening = table(seed, name, False)
    for state in play_all_states(convention, seats, dealer, streak, bots, deal, opening):
        for seat in state.active:
            view = view_for(state, seat)
            for other in state.active:
                seen = view.hand_of(other)
                if other != seat and other not in state.open_seats:
                    assert seen is None
            if seat != state.declarer:
                assert view.discard == ()
            if not state.talon_shown:
                assert set(view.talon_seen) <= {t.talon_card for t in state.tricks} | {state.current_talon_card}
            shown = set(view.hand) | {c for _, cards in view.open_hands for c in cards} | set(view.talon_seen)
            assert not shown & set(state.aside)  # rule 6: «не вскрываются до окончания игры»


# Both readings of the no-talon bids: five suited rungs per level (Classic) and Mail.Ru's single «9БП» rung.
LADDER = (
    all_game_bids(frozenset({9, 10}))
    + tuple(ContractBid(level, None, True) for level in (9, 10))
    + (ContractBid(None, None), ContractBid(None, None, True))
)


@given(a=st.sampled_from(LADDER), b=st.sampled_from(LADDER), c=st.sampled_from(LADDER))
def test_the_ladder_is_a_strict_order_on_plain_bids(a, b, c):
    # misère-bp breaks totality on purpose (only no-talon bids beat it); everything else is a strict order
    assert not beats(a, a, 8)
    assert not (beats(a, b, 8) and beats(b, a, 8))
    if not (a.misere and a.no_talon) and not (b.misere and b.no_talon) and a != b:
        assert beats(a, b, 8) != beats(b, a, 8)
    plain = [x for x in (a, b, c) if not (x.misere and x.no_talon)]
    if len(plain) == 3 and beats(a, b, 8) and beats(b, c, 8):
        assert beats(a, c, 8)


@given(
    text=st.one_of(
        st.text(max_size=12), st.from_regex(r"(10|[0-9]|misere)?(S|C|D|H|NT)?(-open)?(-bp)?", fullmatch=True)
    )
)
def test_any_text_reads_as_a_bid_whose_token_reads_back_or_is_refused(text):
    try:
        bid = parse_bid(text)
    except BidError as exc:
        assert "cannot read bid" in str(exc)
        return
    assert parse_bid(bid.token) == bid


def test_every_token_reads_back():
    for bid in LADDER:
        assert parse_bid(bid.token) == bid
