"""Hussar's whist with one's own talon («с приглашением своей прикупки», seed 001) by price: the sampling bot
prices it beside the pass and the plain whist over layouts that deal its unseen talon, makes the call of highest
price, and never looks at the talon or the declarer's hand."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from priced_bots import Checked

from fairdeal.engine.actions import Defend, Phase
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, to_move
from fairdeal.engine.outcome import DefenceCall
from fairdeal.engine.state import HandState, evolve
from fairdeal.engine.view import view_for
from fairdeal.solver.bots import SamplingBot
from fairdeal.systems import get_convention

CALLS = {DefenceCall.PASS, DefenceCall.WHIST, DefenceCall.WHIST_TALON}


def _talon_whists(hands: int) -> Iterator[HandState]:
    """Hussar defences where the whist with the defender's own talon is legal, the hand bid by the easy bot."""
    conv = get_convention("hussar")
    easy = SamplingBot("easy")
    for seed in range(hands):
        state = new_hand(conv, 2, seed % 2, random_deal(np.random.default_rng(seed), conv, 2))
        while not is_over(state) and state.phase is not Phase.PLAY:
            seat = to_move(state)
            assert seat is not None
            view = view_for(state, seat)
            if view.phase is Phase.DEFENCE and Defend(seat, DefenceCall.WHIST_TALON) in view.legal:
                yield state
                break
            state = apply(state, easy.act(view))


def test_the_whist_with_the_own_talon_is_priced_beside_the_pass_and_the_whist() -> None:
    """Every such defence prices all three calls and makes the one of highest price; over a few hands each of
    the three is chosen somewhere, so the choice is the prices', not a fixed rule."""
    chosen: set[DefenceCall] = set()
    for number, state in enumerate(_talon_whists(40)):
        seat = to_move(state)
        assert seat is not None
        bot = Checked(SamplingBot("medium", seed=number))
        action = bot.act(view_for(state, seat))
        assert isinstance(action, Defend)
        assert {a.call for a in bot.bot.priced if isinstance(a, Defend)} == CALLS
        chosen.add(action.call)
    assert chosen == CALLS


def _own_talon(state: HandState, seat: int) -> int:
    return state.convention.table.own_talon(state.players.index(seat))


def _exchange_unseen(state: HandState, seat: int) -> HandState:
    """One card of the defender's own talon and one the declarer was dealt (not from the shown talon) change
    places: two cards the defender has never seen."""
    declarer = state.declarer
    assert declarer is not None
    index = _own_talon(state, seat)
    mine = state.dealt_talons[index][0]
    theirs = next(c for c in state.hands[declarer] if c in state.dealt_hands[declarer])

    def swapped(cards: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted(theirs if c == mine else mine if c == theirs else c for c in cards))

    hands, dealt = list(state.hands), list(state.dealt_hands)
    hands[declarer], dealt[declarer] = swapped(hands[declarer]), swapped(dealt[declarer])
    talons = list(state.dealt_talons)
    talons[index] = swapped(talons[index])
    return evolve(
        state, hands=tuple(hands), dealt_hands=tuple(dealt), dealt_talons=tuple(talons), talon=swapped(state.talon)
    )


def test_the_whist_with_the_own_talon_never_peeks() -> None:
    """Exchanging a card of the defender's unseen talon with one of the declarer's hand changes what the talon
    would bring, but not the view, the prices or the call."""
    checked = 0
    for number, state in enumerate(_talon_whists(30)):
        seat = to_move(state)
        assert seat is not None
        other = _exchange_unseen(state, seat)
        assert other.dealt_talons != state.dealt_talons
        assert view_for(other, seat) == view_for(state, seat)
        bot = SamplingBot("medium", seed=number)
        first = bot.act(view_for(state, seat))
        prices = dict(bot.priced)
        assert bot.act(view_for(other, seat)) == first and bot.priced == prices
        checked += 1
    assert checked >= 5
