"""The sampling bot's priced decisions: on every ladder it bids, names the contract and answers the declared game
by expected price, each decision the argmax of the prices it computed, legal, and blind to what its view lacks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from priced_bots import Checked

from fairdeal.cards import parse_card
from fairdeal.engine import record as record_module
from fairdeal.engine.actions import Bid, ChooseOpen, Declare, Defend, Discard, Invite, Phase, Play
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, to_move
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.engine.outcome import DefenceCall
from fairdeal.engine.record import replay_record
from fairdeal.engine.state import HandState, evolve
from fairdeal.engine.view import PlayerView, view_for
from fairdeal.rules.convention import Convention
from fairdeal.solver import pricing, whist
from fairdeal.solver.bots import SamplingBot
from fairdeal.systems import get_convention


def _cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_card(c).code for c in text.split()))


def _decisions(conv: Convention, seed: int, seats: int = 3) -> Iterator[HandState]:
    """States before the play where a seat has a choice, the hand played on by the easy bot."""
    easy = SamplingBot("easy")
    state = new_hand(conv, seats, seed % seats, random_deal(np.random.default_rng(seed), conv, seats))
    while not is_over(state) and state.phase is not Phase.PLAY:
        seat = to_move(state)
        assert seat is not None
        view = view_for(state, seat)
        if len(view.legal) > 1:
            yield state
        state = apply(state, easy.act(view))


LADDERS = ["croatian", "slovenian", "austrian", "austrian-illustrated", "preferans-1800s", "preferans-1800s-mixed-full"]


@pytest.mark.parametrize("name", LADDERS)
def test_the_number_and_suit_ladders_bid_name_and_whist_by_price(name: str) -> None:
    """Bids, contracts and whists of the number and suit ladders are priced (no trick margins): a pass is worth
    nothing and every other priced call is a contract's price in whists."""
    conv = get_convention(name)
    priced: dict[Phase, int] = {}
    for seed in range(30):
        for state in _decisions(conv, seed):
            seat = to_move(state)
            assert seat is not None
            view = view_for(state, seat)
            if view.phase not in (Phase.AUCTION, Phase.CONTRACT, Phase.DEFENCE):
                continue
            bot = Checked(SamplingBot("medium", seed=seed))
            bot.act(view)
            for phase in bot.priced:
                priced[phase] = priced.get(phase, 0) + 1
            if Bid(seat, "pass") in bot.bot.priced:
                assert bot.bot.priced[Bid(seat, "pass")] == 0.0
        if all(priced.get(p, 0) >= 2 for p in (Phase.AUCTION, Phase.CONTRACT, Phase.DEFENCE)):
            return
    pytest.fail(f"priced decisions too few: {priced}")


def _croatian_opening(hand: str) -> PlayerView:
    """Croatian, first hand to speak holding ``hand``, the rest dealt at random."""
    conv = get_convention("croatian")
    state = next(_decisions(conv, 0))
    seat = to_move(state)
    assert seat is not None and not state.auction
    mine = _cards(hand)
    rest = [c for c in range(32) if c not in mine]
    hands = list(state.hands)
    others = [s for s in range(3) if s != seat]
    hands[seat] = mine
    hands[others[0]], hands[others[1]] = tuple(rest[:10]), tuple(rest[10:20])
    talon = tuple(rest[20:])
    fixed = evolve(state, hands=tuple(hands), dealt_hands=tuple(hands), talon=talon, dealt_talon=talon)
    return view_for(fixed, seat)


def test_a_hand_of_sure_tricks_bids_a_game_without_the_talon() -> None:
    """♠AKQJ10 ♥AKQ ♦AK make six tricks in any strain without the talon: a no-talon game (Sanac, named at once,
    the highest number) is priced highest, well above nothing, and bid."""
    view = _croatian_opening("AS KS QS JS TS AH KH QH AD KD")
    bot = SamplingBot("medium", seed=1)
    action = bot.act(view)
    prices = {a.token: v for a, v in bot.priced.items() if isinstance(a, Bid)}
    assert action == Bid(view.seat, "sanac") and prices["sanac"] > 0
    assert prices["sanac"] == max(prices.values()) and prices["pass"] == 0.0


def test_a_hand_without_a_trick_bids_bettel_and_a_middling_hand_passes() -> None:
    """Sevens to nines take no trick: Bettel without the talon (the misère named at once) is priced highest and
    bid. Scattered middle cards make no game and no misère: nothing but the pass is worth pricing."""
    view = _croatian_opening("7S 8S 9S 7C 8C 9C 7D 8D 7H 8H")
    bot = SamplingBot("medium", seed=1)
    assert bot.act(view) == Bid(view.seat, "bettel")
    assert bot.priced[Bid(view.seat, "bettel")] == max(bot.priced.values()) > 0
    view = _croatian_opening("7S JS KS 8C TC QC 9D JD 9H KH")
    assert bot.act(view) == Bid(view.seat, "pass") and bot.priced == {Bid(view.seat, "pass"): 0.0}


def _defence(name: str, want: DefenceCall) -> Iterator[PlayerView]:
    """Defence decisions of ``name`` where ``want`` is among the legal calls."""
    conv = get_convention(name)
    for seed in range(80):
        for state in _decisions(conv, seed):
            seat = to_move(state)
            assert seat is not None
            view = view_for(state, seat)
            if view.phase is Phase.DEFENCE and Defend(seat, want) in view.legal:
                yield view


def test_the_half_whist_is_priced_where_the_system_has_it() -> None:
    """Mail.Ru's second defender after a pass prices the half-whist too, and a half-whist is written without
    play, so its price is the same at every number of tricks."""
    for view in _defence("mailru", DefenceCall.HALF_WHIST):
        bot = SamplingBot("medium", seed=2)
        bot.act(view)
        if Defend(view.seat, DefenceCall.HALF_WHIST) in bot.priced:
            assert {a.call for a in bot.priced if isinstance(a, Defend)} == set(whist.PRICED)
            calls = (*view.defence, (view.seat, DefenceCall.HALF_WHIST))
            by_tricks = pricing.answer_prices(view, calls, False, view.seat)
            assert len(set(by_tricks)) == 1
            return
    pytest.fail("no half-whist priced")


def test_a_defender_with_no_trick_passes_and_one_with_the_game_s_defeat_whists() -> None:
    """Against a declared 6♠ in Sochi, the first defender holding nothing passes; holding the game's defeat in
    his own hand (four aces, the ♠ king-queen and more), he whists."""
    conv = get_convention("sochi")
    for seed in range(60):
        for state in _decisions(conv, seed):
            if state.phase is not Phase.DEFENCE or state.defence or state.contract is None:
                continue
            if state.contract.level != 6:
                continue
            seat = to_move(state)
            assert seat is not None
            declarer = state.declarer
            assert declarer is not None
            for hand, call in (("7S 8C 9C 7D 8D 9D 7H 8H 9H TH", "pass"), ("AS AC KC AD KD AH KH QH QC QD", "whist")):
                mine = _cards(hand)
                others = [c for c in range(32) if c not in mine and c not in state.hands[declarer]]
                partner = next(s for s in state.callers if s != seat)
                hands = list(state.hands)
                hands[seat], hands[partner] = mine, tuple(sorted(others[:10]))
                fixed = evolve(state, hands=tuple(hands))
                bot = SamplingBot("medium", seed=1)
                action = bot.act(view_for(fixed, seat))
                assert action == Defend(seat, DefenceCall(call)), hand
            return
    pytest.fail("no 6-level defence found")


REBUILT = [
    ("croatian", 3),
    ("slovenian", 3),
    ("austrian-illustrated", 4),
    ("preferans-1800s", 3),
    ("leningrad", 3),
    ("hussar", 2),
    ("gusarik-rostov", 2),
]


@pytest.mark.parametrize("name,seats", REBUILT)
def test_a_view_rebuilt_from_the_log_alone_gives_the_same_decisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, seats: int
) -> None:
    """Play an evening with the sampling bots, then replay each hand of the log through the engine and, before
    each logged action, ask the bot to move on the view the replay has rebuilt: the same bid, discard, contract,
    whist, invitation, open or closed play and kontra."""
    conv = get_convention(name)
    log = tmp_path / "evening.jsonl"
    bots = [SamplingBot("medium", seed=s) for s in range(seats)]
    play_match(conv, [f"P{s}" for s in range(seats)], bots, source=seeded_source(11, conv), max_hands=4, log=log)
    asked: dict[type, int] = {}

    def asking(state: HandState, action: Any) -> HandState:
        actor = to_move(state)
        assert actor is not None
        if isinstance(action, Play):  # the cards: tests/test_solver_bots.py
            return apply(state, action)
        answer = bots[actor].act(view_for(state, actor))
        if isinstance(answer, Discard):
            assert sorted(answer.cards) == sorted(action.cards)
        else:
            assert answer == action
        asked[type(action)] = asked.get(type(action), 0) + 1
        return apply(state, action)

    monkeypatch.setattr(record_module, "apply", asking)
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "hand":
            replay_record(entry, conv, seats)
    assert asked.get(Bid, 0) >= 4
    assert asked.get(Declare, 0) + asked.get(Defend, 0) + asked.get(Invite, 0) + asked.get(ChooseOpen, 0) >= 1


def _swap_others(state: HandState, seat: int) -> HandState:
    """The two hands ``seat`` cannot see exchanged, as dealt and as held (the talon kept)."""
    a, b = [s for s in state.active if s != seat][:2]
    hands, dealt = list(state.hands), list(state.dealt_hands)
    hands[a], hands[b] = hands[b], hands[a]
    dealt[a], dealt[b] = dealt[b], dealt[a]
    return evolve(state, hands=tuple(hands), dealt_hands=tuple(dealt))


@pytest.mark.parametrize("name", ["croatian", "austrian-illustrated", "preferans-1800s"])
def test_priced_bids_contracts_and_whists_never_peek(name: str) -> None:
    """Exchanging the hands the bot cannot see leaves its view, and so each priced decision, unchanged."""
    conv = get_convention(name)
    checked: dict[Phase, int] = {}
    for seed in range(15):
        for state in _decisions(conv, seed):
            seat = to_move(state)
            assert seat is not None
            if checked.get(state.phase, 0) >= 2 or len(state.active) < 3:
                continue
            other = _swap_others(state, seat)
            if other.hands == state.hands or view_for(other, seat) != view_for(state, seat):
                continue  # a hand the view shows (the open whist) is not hidden
            bot = SamplingBot("medium", seed=3)
            assert bot.act(view_for(other, seat)) == bot.act(view_for(state, seat))
            if bot.priced:
                checked[state.phase] = checked.get(state.phase, 0) + 1
    assert checked.get(Phase.AUCTION, 0) >= 2 and checked.get(Phase.DEFENCE, 0) >= 1
