"""A fingerprint of the engine's observable behaviour, pinned so that a speed-up or a refactor of the state machine
can prove it changed nothing: for every registered system and table size, random-legal and heuristic hands (with
raspasy streaks, refe seats and opening rounds where the system has them), every seat's view of every state, every
record and its replay, and every outcome are hashed into one digest per system. A change of a rule changes a digest
on purpose; then the digest is pinned anew in the same commit, with the reason."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from fairdeal.engine.bots import Bot, HeuristicBot, RandomBot
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, result, to_move
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.state import HandState
from fairdeal.engine.view import PlayerView, view_for
from fairdeal.systems import System, registered

HANDS = 6
VIEW_FIELDS = [f.name for f in dataclasses.fields(PlayerView) if f.name != "convention"]


def _hand_states(
    system: System, seats: int, number: int, rng: np.random.Generator, bots: Sequence[Bot]
) -> Iterator[HandState]:
    """Every state of one hand; the hand number varies the dealer, the raspasy streak, refe and opening rounds."""
    convention = system.convention
    streak = number % 3
    opening = 1 if number == 3 and convention.table.opening_raspasy_rounds else 0
    refe = frozenset({number % seats}) if number % 2 and convention.scoring.refe_limits else frozenset()
    state = new_hand(convention, seats, number % seats, random_deal(rng, convention, seats), streak, opening, refe)
    yield state
    while not is_over(state):
        seat = to_move(state)
        assert seat is not None
        state = apply(state, bots[seat].act(view_for(state, seat)))
        yield state


def _view_text(state: HandState, seat: int) -> str:
    view = view_for(state, seat)
    return repr([getattr(view, name) for name in VIEW_FIELDS])


def fingerprint(system: System, seats: int) -> str:
    digest = hashlib.sha256()
    rng = np.random.default_rng([seats, *system.name.encode()])
    for heuristic in (False, True):
        bots: list[Bot] = [HeuristicBot() if heuristic else RandomBot(rng) for _ in range(seats)]
        for number in range(HANDS):
            for state in _hand_states(system, seats, number, rng, bots):
                for seat in range(seats):
                    digest.update(_view_text(state, seat).encode())
            record = to_record(state)
            digest.update(json.dumps(record, sort_keys=True).encode())
            digest.update(repr(result(state)).encode())
            replayed = replay_record(json.loads(json.dumps(record)), system.convention, seats)
            assert to_record(replayed) == record
            assert result(replayed) == result(state)
    return digest.hexdigest()[:16]


TABLES = [(system, seats) for system in registered() for seats in system.players]


@pytest.mark.parametrize("system,seats", TABLES, ids=[f"{s.name}-{n}" for s, n in TABLES])
def test_engine_behaviour_is_the_pinned_one(system: System, seats: int) -> None:
    assert fingerprint(system, seats) == PINNED[f"{system.name}-{seats}"]


PINNED: dict[str, str] = {
    "sochi-3": "5bf4a929514a74c7",
    "sochi-4": "c8364f6b3ad40dc1",
    "sochi-5": "375318f2c6c8ddec",
    "leningrad-3": "5bb3fe99da981da6",
    "leningrad-4": "2d51b56b5ef150f0",
    "leningrad-5": "7a480a0f311f4116",
    "rostov-3": "1a78d7ab15cf5fa7",
    "rostov-4": "167b7e65adbe66aa",
    "rostov-5": "d978e7924fdbe6dd",
    "mailru-3": "270488425cd4b8fe",
    "codex-3": "23c5575ef6a0a9ca",
    "codex-4": "05b435609918f765",
    "classic-3": "97ddb365972e9b20",
    "classic-4": "9d7c35154788552a",
    "classic-5": "416a931e1db0f3dc",
    "hussar-2": "4e517b80c502f527",
    "gusarik-sochi-2": "6192d69f14748a65",
    "gusarik-leningrad-2": "fdf159fcbc10e80a",
    "gusarik-rostov-2": "9115f8356ed846e2",
    "croatian-3": "82b00968385cc3a7",
    "austrian-3": "d8e9e558337add59",
    "austrian-4": "766888281df540a6",
    "austrian-unlimited-3": "ab571ece4e0e80b1",
    "austrian-unlimited-4": "c2853acf00ffc43e",
    "austrian-limited-3": "fd287de5da22e1c2",
    "austrian-limited-4": "ddd64683c4583e41",
    "austrian-styrian-3": "80f5932f4c2dfe1b",
    "austrian-styrian-4": "1ba86acc652bf095",
    "austrian-illustrated-3": "700c0206d426bb66",
    "austrian-illustrated-4": "d6258710483cd656",
    "austrian-sans-atout-3": "f7a5d6158b77e293",
    "austrian-sans-atout-4": "e9e0dede44bbf4bf",
    "austrian-nachgehen-3": "192b81be0854df08",
    "austrian-nachgehen-4": "ec55e69a2e7b5b2a",
    "preferans-1800s-2": "f79ed43842a0ae1d",
    "preferans-1800s-3": "d126a7a33afe8400",
    "preferans-1800s-4": "55a5a85b41daf99f",
    "preferans-1800s-5": "0bee254dba000db9",
    "preferans-1800s-kadili-2": "5dcf1be0b5a834e6",
    "preferans-1800s-kadili-3": "93aff42dc34032dc",
    "preferans-1800s-kadili-4": "c6d31f15249a3d66",
    "preferans-1800s-kadili-5": "af598b89eac966cc",
    "preferans-1800s-talon-2": "14c34d58fa233a7e",
    "preferans-1800s-talon-3": "13084cb040e674cd",
    "preferans-1800s-talon-4": "54f8be0654510398",
    "preferans-1800s-talon-5": "2aebfe93b5d6d9c3",
    "preferans-1800s-mixed-2": "4c2748e339ce9253",
    "preferans-1800s-mixed-3": "fc44869427534cdd",
    "preferans-1800s-mixed-4": "c24ae8232d483fc7",
    "preferans-1800s-mixed-5": "4427f204b47baf47",
    "preferans-1800s-mixed-full-2": "f4dedc61a774c802",
    "preferans-1800s-mixed-full-3": "9788f6b683de1832",
    "preferans-1800s-mixed-full-4": "8c638bc8099ae071",
    "preferans-1800s-mixed-full-5": "0820b3772ba3cdde",
    "preferans-1800s-mixed-full-kadili-2": "73d83f6d1d913544",
    "preferans-1800s-mixed-full-kadili-3": "fa9e29250b078ae0",
    "preferans-1800s-mixed-full-kadili-4": "e96c37fd582f53e7",
    "preferans-1800s-mixed-full-kadili-5": "c3c3146d9f1f78e7",
    "slovenian-3": "53941cda22c55e58",
}
