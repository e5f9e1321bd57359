"""The bots' prices: a hand's end in whists to each seat, as the table's own scoring and settlement value it."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.engine.actions import Play
from fairdeal.engine.bids import ContractBid, parse_bid
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.driver import play_hand, random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, result, to_move
from fairdeal.engine.outcome import DefenceCall, HandKind, HandOutcome
from fairdeal.engine.settlement import moves_pulya_differences, settle
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.system import registered, system_of
from fairdeal.engine.view import view_for
from fairdeal.rules.convention import Convention
from fairdeal.solver import pricing
from fairdeal.systems import get_convention

TABLES = [(system.convention, seats) for system in registered() for seats in system.players]
IDS = [f"{conv.name}-{seats}" for conv, seats in TABLES]


def _settled_worth(convention: Convention, outcome: HandOutcome) -> tuple[Fraction, ...]:
    """The hand settled by ``settle`` itself, its pulya written as that much gora less where the settlement does
    not move pulya differences, and without the premiums of a whole pulya."""
    sheet, _ = system_of(convention).score_hand(new_sheet(convention, outcome.num_seats), outcome)
    if not moves_pulya_differences(convention):
        gora = tuple(g - p for g, p in zip(sheet.gora, sheet.pulya))
        sheet = dataclasses.replace(sheet, gora=gora, pulya=(Fraction(0),) * sheet.num_seats)
    return tuple(row.amount - row.premiums for row in settle(sheet, convention).rows)


def _played_hands(convention: Convention, seats: int, seed: int, hands: int):
    rng = np.random.default_rng(seed)
    for number in range(hands):
        state = play_hand(convention, seats, number % seats, None, [HeuristicBot()] * seats, rng=rng)
        if state.kind in (HandKind.GAME, HandKind.MISERE) and state.tricks:
            yield state


@pytest.mark.parametrize(("convention", "seats"), TABLES, ids=IDS)
def test_the_price_of_the_actual_end_is_what_the_sheet_settles(convention: Convention, seats: int):
    checked = 0
    for state in _played_hands(convention, seats, seed=seats, hands=24):
        outcome = result(state)
        worth = _settled_worth(convention, outcome)
        for seat in outcome.active:
            if convention.scoring.premium_four_aces and seat != outcome.declarer:
                continue  # the declarer's four aces are his own secret until the end
            prices = pricing.play_prices(view_for(state, seat))
            assert prices[outcome.tricks[outcome.declarer]] == pytest.approx(float(worth[seat]), abs=1e-9)
            checked += 1
    assert checked


def _mid_play(convention: Convention, seats: int, seed: int, tricks: int):
    """A hand of heuristic play stopped after ``tricks`` whole tricks of a game or misère, or ``None``."""
    rng = np.random.default_rng(seed)
    state = new_hand(convention, seats, seed % seats, random_deal(rng, convention, seats))
    bots = [HeuristicBot()] * seats
    while not is_over(state):
        seat = to_move(state)
        assert seat is not None
        action = bots[seat].act(view_for(state, seat))
        if isinstance(action, Play) and state.kind not in (HandKind.GAME, HandKind.MISERE):
            return None
        if isinstance(action, Play) and len(state.tricks) == tricks and not state.current:
            return state
        state = apply(state, action)
    return None


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TABLES), st.integers(0, 10_000), st.integers(0, 9))
def test_prices_are_zero_sum_and_monotone(table: tuple[Convention, int], seed: int, tricks: int):
    convention, seats = table
    state = _mid_play(convention, seats, seed, tricks)
    if state is None:
        return
    # Every seat of the table, a sitting-out dealer too (he may be paid for the talon's aces).
    prices = {seat: pricing.play_prices(view_for(state, seat)) for seat in range(seats)}
    reachable = [t for t in range(11) if prices[0][t] is not None]
    assert reachable
    for t in reachable:
        assert sum(prices[s][t] for s in range(seats)) == pytest.approx(0.0, abs=1e-9)
    declarer = prices[state.declarer]
    ordered = [declarer[t] for t in reachable]
    pairs = list(pairwise(ordered))
    if state.kind is HandKind.GAME:
        assert all(a <= b + 1e-9 for a, b in pairs)
    else:
        assert all(a >= b - 1e-9 for a, b in pairs)


def _bidder_view(name: str, seats: int = 3):
    convention = get_convention(name)
    state = new_hand(convention, seats, 0, random_deal(np.random.default_rng(1), convention, seats))
    seat = to_move(state)
    assert seat is not None
    return view_for(state, seat)


@pytest.mark.parametrize(
    "name", ["sochi", "leningrad", "rostov", "mailru", "codex", "classic", "hussar", "gusarik-sochi"]
)
def test_a_contract_is_worth_more_made_than_missed_and_each_undertrick_costs(name: str):
    seats = 2 if name in ("hussar", "gusarik-sochi") else 3
    view = _bidder_view(name, seats)
    prices = pricing.contract_prices(view, ContractBid(7, 0).contract())
    assert prices[7] > 0 > prices[6] > prices[5] > prices[4]
    misere = pricing.contract_prices(view, ContractBid(None, None).contract())
    assert misere[0] > 0 > misere[1] > misere[2]


def test_a_hussar_undertrick_costs_the_whists_hussar_writes():
    hussar = pricing.contract_prices(_bidder_view("hussar", 2), ContractBid(6, 0).contract())
    sochi = pricing.contract_prices(_bidder_view("sochi", 3), ContractBid(6, 0).contract())
    # The old pricing had one undertrick of a six cost exactly what making it earns, at every table.
    assert -hussar[5] / hussar[6] > -sochi[5] / sochi[6] > 1


def test_the_defence_does_not_whist_a_game_it_cannot_touch():
    """Ten sure tricks: declared as a nine, whisting it would cost the defenders their quota, so they pass and
    the nine is worth its pulya only; the ten is worth more."""
    view = _bidder_view("sochi", 3)
    nine = pricing.contract_prices(view, ContractBid(9, 0).contract())
    ten = pricing.contract_prices(view, ContractBid(10, 0).contract())
    assert ten[10] > nine[10]


SITTING_OUT = sorted(
    {c.name for c, seats in TABLES if seats == 3 and (c.defence.lone_whister_invites or c.defence.passer_sits_out)}
)


@pytest.mark.parametrize("name", SITTING_OUT)
def test_a_lone_whister_without_the_passer_is_priced_with_every_defence_trick(name: str) -> None:
    """Where a lone whister who did not invite plays alone against the declarer, the passer's cards out of the
    play, each price is the scored hand in which the whister took every defence trick (the Croatian cap on
    them kept); with the passer brought in, the tricks are shared as evenly as they go."""
    conv = get_convention(name)
    assert SITTING_OUT
    tokens = conv.bidding.number_tokens(conv.bidding.first_number, False)
    contract = next(b for t in tokens if (b := parse_bid(t)).level is not None).contract()
    calls = ((1, DefenceCall.WHIST), (2, DefenceCall.PASS))
    cap = conv.play.defence_trick_cap
    for seat in range(3):
        alone = pricing._prices(conv, 3, 0, (0, 1, 2), HandKind.GAME, 0, contract, calls, False, (0,) * 3, seat, ())
        helped = pricing._prices(conv, 3, 0, (0, 1, 2), HandKind.GAME, 0, contract, calls, True, (0,) * 3, seat, ())
        for tricks in range(11):
            left = 10 - tricks if cap is None else min(10 - tricks, cap)
            whole = HandOutcome(3, 0, (0, 1, 2), HandKind.GAME, (tricks, left, 0), 0, contract, calls)
            assert alone[tricks] == pytest.approx(float(pricing.possible_worth(conv, whole)[seat]))
            shared = [
                HandOutcome(3, 0, (0, 1, 2), HandKind.GAME, split, 0, contract, calls, True)
                for split in pricing.splits((0,) * 3, 0, (1, 2), tricks, left)
            ]
            mean = np.mean([pricing.possible_worth(conv, o)[seat] for o in shared])
            assert helped[tricks] == pytest.approx(float(mean))
            assert {sum(o.tricks[1:]) for o in shared} == {left}
