"""The kontra chain by price: on every system with a chain and every table size, the sampling bot's kontra,
rekontra and the calls after them are the argmax of their prices over sampled layouts, its reading of the chain
matches the engine's, and it never looks at a hand its view lacks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from priced_bots import Checked

from fairdeal.engine import record as record_module
from fairdeal.engine.actions import Kontra, Phase
from fairdeal.engine.driver import random_deal
from fairdeal.engine.extra import CentralState
from fairdeal.engine.hand import apply, is_over, new_hand, to_move
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.engine.record import replay_record
from fairdeal.engine.state import HandState, evolve
from fairdeal.engine.view import view_for
from fairdeal.solver import kontra
from fairdeal.solver.bots import SamplingBot
from fairdeal.systems import conventions, get_convention

CHAINS = [
    (name, seats)
    for name, conv in sorted(conventions().items())
    if conv.defence.kontra_levels
    for seats in conv.players
]


def test_the_chain_systems_are_all_here() -> None:
    """Croatian, Slovenian and the Austrian family have a chain; each table size of each is tested."""
    names = {name for name, _ in CHAINS}
    assert {"croatian", "slovenian", "austrian-illustrated"} <= names
    assert ("austrian-illustrated", 4) in CHAINS


def _kontra_states(name: str, seats: int, hands: int) -> Iterator[HandState]:
    """States of the kontra chain: the calls before it drawn at random among the legal ones (so the high
    contracts the Austrian chain answers turn up), the chain played on by the easy bot."""
    conv = get_convention(name)
    easy = SamplingBot("easy")
    for seed in range(hands):
        rng = np.random.default_rng([7, seed])
        state = new_hand(conv, seats, seed % seats, random_deal(rng, conv, seats))
        while not is_over(state) and state.phase is not Phase.PLAY:
            seat = to_move(state)
            assert seat is not None
            view = view_for(state, seat)
            if view.phase is Phase.KONTRA:
                yield state
                action = easy.act(view)
            elif view.phase in (Phase.AUCTION, Phase.DEFENCE, Phase.CONTRACT):
                action = view.legal[int(rng.integers(len(view.legal)))]
            else:
                action = easy.act(view)
            state = apply(state, action)


@pytest.mark.parametrize("name,seats", CHAINS)
def test_the_view_reads_the_chain_as_the_engine_keeps_it(name: str, seats: int) -> None:
    """At every call of the chain, the round and the seats still to call read from the view's public facts are
    the engine's own; and after each call the chain the bot predicts is the one the engine goes on with (or
    the play begins where the bot says it does)."""
    seen = 0
    for state in _kontra_states(name, seats, 60):
        seat = to_move(state)
        assert seat is not None and isinstance(state.extra, CentralState)
        view = view_for(state, seat)
        chain = kontra.chain_of(view)
        assert (chain.round, chain.queue) == (state.extra.kontra_round, state.extra.kontra_queue)
        assert chain.invited == view.invited
        for action in view.legal:
            assert isinstance(action, Kontra)
            then = apply(state, action)
            predicted = kontra.after(view, chain, action.double)
            if then.phase is Phase.KONTRA:
                assert isinstance(then.extra, CentralState)
                assert (predicted.round, predicted.queue) == (then.extra.kontra_round, then.extra.kontra_queue)
                assert predicted.levels == then.extra.kontra and predicted.invited == then.extra.invited
            else:
                assert predicted.queue == ()
        seen += 1
    assert seen >= 3


@pytest.mark.parametrize("name,seats", CHAINS)
def test_every_kontra_call_is_the_argmax_of_its_prices(name: str, seats: int) -> None:
    """Defenders' kontras and the declarer's rekontras alike are priced, pass and double both, and the call
    made is the one of highest price (``Checked`` asserts it)."""
    by_role = {"declarer": 0, "defender": 0}
    for number, state in enumerate(_kontra_states(name, seats, 60)):
        seat = to_move(state)
        assert seat is not None
        view = view_for(state, seat)
        bot = Checked(SamplingBot("medium", seed=number))
        bot.act(view)
        if bot.priced.get(Phase.KONTRA):
            assert {a.double for a in bot.bot.priced if isinstance(a, Kontra)} == {False, True}
            by_role["declarer" if seat == view.declarer else "defender"] += 1
        if by_role["defender"] >= 3 and by_role["declarer"] >= 1:
            return
    assert by_role["defender"] >= 3, by_role
    assert by_role["declarer"] >= 1 or name.startswith("austrian"), by_role


def _swap_hidden(state: HandState, seat: int) -> HandState:
    """The two hands ``seat`` cannot see exchanged (as dealt and as held)."""
    a, b = [s for s in state.active if s != seat][:2]
    hands, dealt = list(state.hands), list(state.dealt_hands)
    hands[a], hands[b] = hands[b], hands[a]
    dealt[a], dealt[b] = dealt[b], dealt[a]
    return evolve(state, hands=tuple(hands), dealt_hands=tuple(dealt))


@pytest.mark.parametrize("name", ["croatian", "austrian-illustrated"])
def test_the_kontra_call_never_peeks(name: str) -> None:
    """A defender's call is the same when the declarer's and the partner's hands change places: the view, and
    so the prices, do not depend on them."""
    checked = 0
    for number, state in enumerate(_kontra_states(name, 3, 60)):
        seat = to_move(state)
        assert seat is not None
        if seat == state.declarer:
            continue
        other = _swap_hidden(state, seat)
        if view_for(other, seat) != view_for(state, seat):
            continue
        bot = SamplingBot("medium", seed=number)
        first = bot.act(view_for(state, seat))
        prices = dict(bot.priced)
        assert bot.act(view_for(other, seat)) == first and bot.priced == prices
        checked += bool(prices)
        if checked >= 3:
            return
    assert checked >= 1


@pytest.mark.parametrize("name,seats", [("croatian", 3), ("slovenian", 3)])
def test_a_view_rebuilt_from_the_log_alone_gives_the_same_kontra_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, seats: int
) -> None:
    """An evening of sampling bots replayed from its log: before each logged kontra call, the bot asked on the
    view the replay rebuilt makes the same call."""
    conv = get_convention(name)
    log = tmp_path / "evening.jsonl"
    bots = [SamplingBot("medium", seed=s) for s in range(seats)]
    play_match(conv, [f"P{s}" for s in range(seats)], bots, source=seeded_source(5, conv), max_hands=8, log=log)
    asked = 0

    def asking(state: HandState, action: Any) -> HandState:
        nonlocal asked
        if isinstance(action, Kontra):
            actor = to_move(state)
            assert actor is not None
            assert bots[actor].act(view_for(state, actor)) == action
            asked += bool(bots[actor].priced)
        return apply(state, action)

    monkeypatch.setattr(record_module, "apply", asking)
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "hand":
            replay_record(entry, conv, seats)
    assert asked >= 1


def test_a_defender_holding_the_contract_s_defeat_doubles() -> None:
    """Croatian, a defender first to call in the chain: holding the top four trumps and the ace-king of every
    other suit, his kontra is priced above his pass and said; holding the lowest cards instead, both his calls
    are priced lower (a lone whister's kontra there still buys the passer's help: it invites)."""
    for state in _kontra_states("croatian", 3, 60):
        seat = to_move(state)
        assert seat is not None and isinstance(state.extra, CentralState)
        contract, declarer = state.contract, state.declarer
        if state.extra.kontra or seat == declarer or contract is None or contract.strain not in range(4):
            continue
        assert declarer is not None
        shown = set(state.talon) | set(state.discard) | set(state.dealt_talon)
        kept = [c for c in state.hands[declarer] if c in shown]
        trump = contract.strain
        strong = [trump * 8 + r for r in (7, 6, 5, 4)] + [s * 8 + r for s in range(4) if s != trump for r in (7, 6)]
        weak = sorted((c for c in range(32) if c not in shown), key=lambda c: c % 8)[:10]
        if set(strong) & shown:
            continue
        prices = []
        for mine in (strong, weak):
            rest = [c for c in range(32) if c not in shown and c not in mine]
            partner = next(s for s in state.active if s not in (seat, declarer))
            hands = list(state.hands)
            hands[seat] = tuple(sorted(mine))
            hands[declarer] = tuple(sorted(kept + rest[: 10 - len(kept)]))
            hands[partner] = tuple(sorted(rest[10 - len(kept) : 20 - len(kept)]))
            view = view_for(evolve(state, hands=tuple(hands)), seat)
            bot = SamplingBot("medium", seed=4)
            action = bot.act(view)
            prices.append({a.double: v for a, v in bot.priced.items() if isinstance(a, Kontra)})
            if mine is strong:
                assert action == Kontra(seat, True) and prices[0][True] > prices[0][False]
        assert prices[1][True] < prices[0][True] and prices[1][False] < prices[0][False]
        return
    pytest.fail("no Croatian kontra with the shown cards clear of the test's hands")
