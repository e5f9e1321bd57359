"""Bidding, the discard and the contract by simulation: blind to hidden cards, deterministic, and right on hands
whose answer is plain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from priced_bots import Checked

from fairdeal.cards import parse_card
from fairdeal.engine.actions import Bid, Declare, Defend, Discard, Phase
from fairdeal.engine.bids import parse_bid
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, to_move
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.engine.outcome import DefenceCall
from fairdeal.engine.record import replay_record
from fairdeal.engine.state import HandState, evolve
from fairdeal.engine.view import view_for
from fairdeal.rules.convention import Convention
from fairdeal.solver import ladders, pricing, simulate
from fairdeal.solver.bots import SamplingBot
from fairdeal.solver.budget import Budget
from fairdeal.solver.dds import Position, solve
from fairdeal.systems import conventions, get_convention

SIMULATED = (Phase.AUCTION, Phase.DISCARD, Phase.CONTRACT, Phase.DEFENCE)


def _cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_card(c).code for c in text.split()))


def _decisions(conv: Convention, seed: int, seats: int = 3) -> Iterator[HandState]:
    """States of one hand where a seat faces a simulated phase with a choice, played by the easy bot."""
    easy = SamplingBot("easy")
    state = new_hand(conv, seats, seed % seats, random_deal(np.random.default_rng(seed), conv))
    while not is_over(state) and state.phase is not Phase.PLAY:
        seat = to_move(state)
        view = view_for(state, seat)
        if view.phase in SIMULATED and len(view.legal) > 1:
            yield state
        state = apply(state, easy.act(view))


def _swap_others(state, seat):
    """The hands ``seat`` cannot see exchanged (the two other players'), the talon kept."""
    others = [s for s in state.active if s != seat]
    hands = list(state.hands)
    hands[others[0]], hands[others[1]] = hands[others[1]], hands[others[0]]
    dealt = list(state.dealt_hands)
    dealt[others[0]], dealt[others[1]] = dealt[others[1]], dealt[others[0]]
    return evolve(state, hands=tuple(hands), dealt_hands=tuple(dealt))


@pytest.mark.parametrize("name", ["sochi", "leningrad", "rostov"])
def test_bids_discards_and_contracts_never_peek(name):
    conv = get_convention(name)
    checked: dict[Phase, int] = {}
    for seed in range(12):
        for state in _decisions(conv, seed):
            if checked.get(state.phase, 0) >= 2:
                continue
            seat = to_move(state)
            other = _swap_others(state, seat)
            if other.hands == state.hands:
                continue
            assert view_for(other, seat) == view_for(state, seat)
            bot = SamplingBot("medium", seed=3)
            assert bot.act(view_for(other, seat)) == bot.act(view_for(state, seat))
            checked[state.phase] = checked.get(state.phase, 0) + 1
    assert {Phase.AUCTION, Phase.DISCARD, Phase.CONTRACT, Phase.DEFENCE} <= set(checked)


def test_a_view_rebuilt_from_the_log_alone_gives_the_same_bids_discard_contract_and_whists(tmp_path):
    conv = get_convention("sochi")
    log = tmp_path / "evening.jsonl"
    bots = [SamplingBot("medium", seed=s) for s in range(3)]
    play_match(conv, ["A", "B", "C"], bots, source=seeded_source(5, conv), max_hands=4, log=log)
    asked = {Bid: 0, Discard: 0, Declare: 0, Defend: 0}
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") != "hand":
            continue
        state = replay_record({k: record[k] for k in ("hand", "dealer", "deal")} | {"auction": []}, conv, 3)
        logged = [Bid(e["seat"], e["bid"]) for e in record["auction"]]
        if "discard" in record and record.get("contract"):
            declarer = record["contract"]["declarer"]
            logged.append(Discard(declarer, tuple(sorted(parse_card(c).code for c in record["discard"]))))
            logged.append(Declare(declarer, record["contract"]["bid"]))
        logged += [Defend(e["seat"], DefenceCall(e["call"])) for e in record.get("defence", [])]
        for expected in logged:
            actor = to_move(state)
            action = bots[actor].act(view_for(state, actor))
            if isinstance(action, Discard):
                action = Discard(action.seat, tuple(sorted(action.cards)))
            assert action == expected
            asked[type(expected)] += 1
            state = apply(state, action)
    assert asked[Bid] >= 8 and asked[Discard] >= 1 and asked[Declare] >= 1 and asked[Defend] >= 1


def test_deterministic_with_a_seed():
    conv = get_convention("rostov")
    for state in list(_decisions(conv, 2))[:6]:
        view = view_for(state, to_move(state))
        assert SamplingBot("medium", seed=4).act(view) == SamplingBot("medium", seed=4).act(view)


def _auction_state(conv, bot_hand: str, bids: list[tuple[int, str]]):
    """Seat 1 (first to speak after seat 0; dealer 2) holds ``bot_hand``; the rest is dealt at random and the
    given bids are made first."""
    mine = _cards(bot_hand)
    rest = [c for c in range(32) if c not in mine]
    rng = np.random.default_rng(0)
    rng.shuffle(rest)
    deal = random_deal(np.random.default_rng(1), conv)
    hands = [tuple(sorted(rest[:10])), mine, tuple(sorted(rest[10:20]))]
    deal = type(deal)(hands=hands, talons=(tuple(rest[20:22]),))
    state = new_hand(conv, 3, 2, deal)
    for seat, token in bids:
        state = apply(state, Bid(seat, token))
    return state


def test_a_hand_of_eight_sure_spade_tricks_bids_past_seven():
    """♠AKQJ1098 ♣A ♦A ♥7 takes eight tricks in spades against any talon and layout (a ruff with the ♠7 costs
    one ace at most): over a 7♠ bid the simulation bids on (its limit is 8♠)."""
    conv = get_convention("sochi")
    hand = "AS KS QS JS TS 9S 8S AC AD 7H"
    state = _auction_state(conv, hand, [(0, "6S"), (1, "6C"), (2, "6D"), (0, "6H"), (1, "6NT"), (2, "7S"), (0, "pass")])
    view = view_for(state, 1)
    estimates = simulate.auction_estimates(view, np.random.default_rng(0), 10, False, Budget(10**9))
    assert min(estimates[0].tricks) >= 8
    action = SamplingBot("medium", seed=1).act(view)
    assert action in (Bid(1, "mine"), Bid(1, "7C")) and action in view.legal


def test_a_hand_without_a_game_passes():
    conv = get_convention("leningrad")
    state = _auction_state(conv, "7S 8S 9C TC JD 8D 9H TH JH QH", [(0, "6S")])
    view = view_for(state, 1)
    assert SamplingBot("medium", seed=1).act(view) == Bid(1, "pass")


def test_the_discard_keeps_the_winners_and_the_contract_prices_them():
    """Declarer with ♠AKQJ10 ♥AKQ ♦AK and the talon's ♣7 ♣8: away go the two clubs, and the contract named is
    the ten it then makes in spades against any defence."""
    conv = get_convention("sochi")
    mine = _cards("AS KS QS JS TS AH KH QH AD KD")
    talon = _cards("7C 8C")
    rest = [c for c in range(32) if c not in mine + talon]
    deal = random_deal(np.random.default_rng(1), conv)
    deal = type(deal)(hands=[tuple(rest[:10]), mine, tuple(rest[10:])], talons=(talon,))
    state = new_hand(conv, 3, 2, deal)
    for seat, token in [(0, "pass"), (1, "6S"), (2, "pass")]:
        state = apply(state, Bid(seat, token))
    assert state.phase is Phase.DISCARD
    bot = SamplingBot("medium", seed=2)
    action = bot.act(view_for(state, 1))
    assert sorted(action.cards) == sorted(talon)
    state = apply(state, action)
    declared = bot.act(view_for(state, 1))
    assert declared == Declare(1, "10S") or declared.token in ("10NT", "10H")


def _mover(state: HandState) -> int:
    seat = to_move(state)
    assert seat is not None
    return seat


TABLES = [(conv, seats) for conv in conventions().values() for seats in conv.players]


@pytest.mark.parametrize("conv,seats", TABLES, ids=[f"{c.name}-{s}" for c, s in TABLES])
def test_every_table_bids_by_simulation(conv: Convention, seats: int) -> None:
    """Every registered system and table size: the first bids with a choice are simulated and legal."""
    asked = 0
    for seed in range(3):
        for state in _decisions(conv, seed, seats):
            view = view_for(state, _mover(state))
            if view.phase is not Phase.AUCTION:
                continue
            assert simulate.models(view)
            action = SamplingBot("medium", seed=seed, samples=4).act(view)
            assert action in view.legal
            asked += 1
    assert asked >= 1


@pytest.mark.parametrize("name", ["croatian", "austrian", "slovenian", "preferans-1800s"])
def test_number_ladder_prices_are_the_solver_s_tricks_priced(name: str) -> None:
    """The number ladders' simulated tricks are the double-dummy values of the sampled layouts, and a
    contract's price is the mean of its prices at those tricks."""
    conv = get_convention(name)
    rules = conv.bidding
    numbers = range(rules.first_number, rules.last_number + 1)
    games = [b for n in numbers for t in rules.number_tokens(n, True) if not (b := parse_bid(t)).misere]
    checked = 0
    for state in (s for seed in range(20) for s in _decisions(conv, seed) if s.phase is Phase.AUCTION):
        view = view_for(state, _mover(state))
        prices = ladders.LadderPrices(view, np.random.default_rng(3), 5, Budget(10**9))
        for bid in games:
            price = prices.price(bid)
            if price is None:
                continue
            direct = []
            for others, _ in prices.layouts:
                hands = dict(others)
                hands[view.seat] = view.hand
                order = tuple(view.active)
                trump = None if bid.strain == 4 else bid.strain
                position = Position(tuple(hands[s] for s in order), 0, (), trump, conv.play.must_overtake)
                bit = 1 << order.index(view.seat)
                direct.append(solve(position, bit, bit).value)
            assert prices.tricks(bid.strain, True) == tuple(direct)
            by_tricks = pricing.contract_prices(view, bid.contract())
            assert price == pytest.approx(np.mean([by_tricks[t] for t in direct]))
            checked += 1
        if checked >= 2:
            return
    pytest.fail("no contract priced")


def test_a_strong_hand_bids_on_a_number_ladder() -> None:
    """Eight sure spades and two aces: the simulation finds the tricks and bids."""
    conv = get_convention("croatian")
    hand = _cards("AS KS QS JS 10S 9S 8S 7S AH AD")
    for seed in range(40):
        for state in _decisions(conv, seed):
            if state.phase is Phase.AUCTION and not state.auction:
                seat = _mover(state)
                rest = [c for c in range(32) if c not in hand]
                hands = list(state.hands)
                others = [s for s in range(3) if s != seat]
                hands[seat] = hand
                hands[others[0]], hands[others[1]] = tuple(rest[:10]), tuple(rest[10:20])
                talon = tuple(rest[20:])
                fixed = evolve(state, hands=tuple(hands), dealt_hands=tuple(hands), talon=talon, dealt_talon=talon)
                view = view_for(fixed, seat)
                action = SamplingBot("medium", seed=1).act(view)
                assert isinstance(action, Bid) and action.token != "pass"
                return
    pytest.fail("no opening auction decision found")


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("conv,seats", TABLES, ids=[f"{c.name}-{s}" for c, s in TABLES])
def test_evenings_of_every_table_are_deterministic_legal_and_the_argmax_of_their_prices(
    conv: Convention, seats: int, level: str, tmp_path: Path
) -> None:
    """A short evening of sampling bots at every table plays to its cap, every decision legal and every priced
    one the argmax of its prices, and replaying it with the same seeds writes the same log."""
    logs = []
    for run in range(2):
        log = tmp_path / f"{run}.jsonl"
        bots = [Checked(SamplingBot(level, seed=s, samples=3)) for s in range(seats)]
        players = [f"P{s}" for s in range(seats)]
        hands = 2 if level == "medium" else 1
        play_match(conv, players, bots, source=seeded_source(7, conv), max_hands=hands, log=log)
        logs.append(log.read_text())
        assert sum(n for bot in bots for n in bot.priced.values()) >= 1
    assert logs[0] == logs[1] and '"type":"hand"' in logs[0]
