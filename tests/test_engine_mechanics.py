"""The system's mechanics are what the one state machine plays by: its auction and its phase table."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest

from fairdeal.engine.actions import Action, ChooseOpen, Defend, Kontra, Phase
from fairdeal.engine.bots import RandomBot
from fairdeal.engine.driver import random_deal
from fairdeal.engine.extra import CentralState, FamilyState, RussianState
from fairdeal.engine.hand import (
    CENTRAL,
    NINETEENTH,
    RUSSIAN,
    apply,
    is_over,
    legal_actions,
    mechanics_for,
    new_hand,
    to_move,
)
from fairdeal.engine.mechanics import Mechanics, PhaseRule
from fairdeal.engine.outcome import DefenceCall
from fairdeal.engine.state import HandState
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.rules import SOCHI
from fairdeal.systems import get_system, registered


def states(mechanics: Mechanics | None, seed: int, hands: int = 40) -> Iterator[HandState]:
    """Every state of random-legal Sochi hands played by ``mechanics``."""
    rng = np.random.default_rng(seed)
    bot = RandomBot(rng)
    for number in range(hands):
        state = new_hand(SOCHI, 3, number % 3, random_deal(rng, SOCHI), mechanics=mechanics)
        yield state
        while not is_over(state) and legal_actions(state):  # a phase without a rule offers nothing: stop there
            seat = to_move(state)
            assert seat is not None
            state = apply(state, bot.act(view_for(state, seat)))
            yield state


def only_whist(state: HandState) -> list[Action]:
    return [Defend(state.turn, DefenceCall.WHIST)]


def test_every_system_plays_by_its_registered_mechanics() -> None:
    for system in registered():
        assert mechanics_for(system.convention) is system.mechanics
        seats = system.players[0]
        state = new_hand(system.convention, seats, 0, random_deal(np.random.default_rng(1), system.convention, seats))
        assert state.mechanics is system.mechanics
    assert {get_system(n).mechanics for n in ("sochi", "croatian", "preferans-1800s")} == {RUSSIAN, CENTRAL, NINETEENTH}


def test_a_house_rule_keeps_its_systems_mechanics_and_an_unknown_convention_its_ladders() -> None:
    house = dataclasses.replace(SOCHI, pulya=dataclasses.replace(SOCHI.pulya, size=30))
    assert mechanics_for(house) is RUSSIAN
    stranger = dataclasses.replace(get_system("croatian").convention, name="no-such-system")
    assert mechanics_for(stranger) is CENTRAL


def test_a_replaced_phase_rule_is_what_the_engine_offers() -> None:
    defence = RUSSIAN.phases[Phase.DEFENCE]
    forced = RUSSIAN.with_phases("forced-whist", {Phase.DEFENCE: PhaseRule(only_whist, defence.handlers)})
    asked = [s for s in states(forced, seed=3) if s.phase is Phase.DEFENCE]
    assert asked and all(legal_actions(s) == [Defend(s.turn, DefenceCall.WHIST)] for s in asked)
    assert RUSSIAN.phases[Phase.DEFENCE] is defence  # the family's table is unchanged


def test_a_phase_the_mechanics_do_not_list_is_not_part_of_the_game() -> None:
    phases: dict[Phase, PhaseRule] = {p: r for p, r in RUSSIAN.phases.items() if p is not Phase.OPEN_CHOICE}
    closed = Mechanics("no-open-choice", RUSSIAN.auction, phases, RUSSIAN.extra)
    reached = [s for s in states(closed, seed=5, hands=200) if s.phase is Phase.OPEN_CHOICE]
    assert reached, "some random hand reaches the lone whister's open choice"
    state = reached[0]
    assert legal_actions(state) == []
    with pytest.raises(IllegalAction, match="not allowed in the open_choice phase"):
        apply(state, ChooseOpen(state.turn, True))


def test_the_kontra_chain_is_a_central_phase_only() -> None:
    assert Phase.KONTRA in CENTRAL.phases
    assert Phase.KONTRA not in RUSSIAN.phases and Phase.KONTRA not in NINETEENTH.phases
    assert Kontra in CENTRAL.phases[Phase.KONTRA].handlers


def test_mechanics_tables_are_read_only() -> None:
    with pytest.raises(TypeError):
        RUSSIAN.phases[Phase.KONTRA] = CENTRAL.phases[Phase.KONTRA]  # type: ignore[index]


def test_each_family_keeps_its_own_typed_state() -> None:
    assert isinstance(RUSSIAN.extra, RussianState) and isinstance(CENTRAL.extra, CentralState)
    assert type(NINETEENTH.extra) is FamilyState
    for system in registered():
        seats = system.players[0]
        state = new_hand(system.convention, seats, 0, random_deal(np.random.default_rng(2), system.convention, seats))
        assert state.extra == system.mechanics.extra


def test_a_phase_of_another_family_is_refused_by_name() -> None:
    mixed = Mechanics("mixed", RUSSIAN.auction, RUSSIAN.phases, CENTRAL.extra)  # the Russian auction, Central state
    rng = np.random.default_rng(4)
    state = new_hand(SOCHI, 3, 0, random_deal(rng, SOCHI), mechanics=mixed)
    with pytest.raises(IllegalAction, match="belongs to the Russian family's mechanics"):
        for _ in range(3):
            state = apply(state, RandomBot(rng).act(view_for(state, state.turn)))
