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
    "sochi-3": "bbda73f11bc3e0f5",
    "sochi-4": "0a674c0e42bd7a98",
    "sochi-5": "a5630599412f7325",
    "leningrad-3": "00f10ee36176d50f",
    "leningrad-4": "3f1400870b5610ea",
    "leningrad-5": "d9068230f1b844cb",
    "rostov-3": "608aa151a9f42c4a",
    "rostov-4": "1f2aa9dc9ba8d06f",
    "rostov-5": "017e6f234dd0ad70",
    "mailru-3": "cb2e411c4493f1e5",
    "codex-3": "9b584f42aa730442",
    "codex-4": "05064062dba30e5e",
    "classic-3": "3f0da01d578dda63",
    "classic-4": "7c738188a6f4f5ea",
    "classic-5": "5ed8547704a6fc01",
    "hussar-2": "aeefbf6571a9ccc0",
    "gusarik-sochi-2": "e17e619d0997c15b",
    "gusarik-leningrad-2": "d1cf10d8d6cc4d07",
    "gusarik-rostov-2": "e6232841676d43d7",
    "croatian-3": "40d83ae1c987617b",
    "austrian-3": "8613626b640168b5",
    "austrian-4": "e3732d311575d101",
    "austrian-unlimited-3": "b2cdb572c1d8ec34",
    "austrian-unlimited-4": "1dc3250687626eca",
    "austrian-limited-3": "81ac0db7d034af71",
    "austrian-limited-4": "a9f0285aefc81944",
    "austrian-styrian-3": "e109d768aaa57e16",
    "austrian-styrian-4": "d85f61c355d70ba4",
    "austrian-illustrated-3": "d165dcc4b4066545",
    "austrian-illustrated-4": "8caa12f514fdc43b",
    "austrian-sans-atout-3": "2d22c462edb8bfd1",
    "austrian-sans-atout-4": "959c652e1083dd3f",
    "austrian-nachgehen-3": "31ef264d9e2ad818",
    "austrian-nachgehen-4": "09ddf9013523894e",
    "preferans-1800s-2": "ceedf108c9dfc98a",
    "preferans-1800s-3": "b6ccc89c0c706d79",
    "preferans-1800s-4": "29b4a3d1544e1503",
    "preferans-1800s-5": "fab11f14d5d0b8fb",
    "preferans-1800s-kadili-2": "cad6f004db90572f",
    "preferans-1800s-kadili-3": "77faf6b82af8e378",
    "preferans-1800s-kadili-4": "e7c3e61ee93b38e8",
    "preferans-1800s-kadili-5": "b54fd30eb51c5353",
    "preferans-1800s-talon-2": "3c2bf03c0a9cbb95",
    "preferans-1800s-talon-3": "c0e4492f7799fbd1",
    "preferans-1800s-talon-4": "c1f380ad7241ac4e",
    "preferans-1800s-talon-5": "42aab9fb943f16a8",
    "preferans-1800s-mixed-2": "211a970d4e040b26",
    "preferans-1800s-mixed-3": "14966be7a9920301",
    "preferans-1800s-mixed-4": "6f04dec3d8c20f70",
    "preferans-1800s-mixed-5": "d832b01f1b155a5f",
    "preferans-1800s-mixed-full-2": "0904c5a5730542ab",
    "preferans-1800s-mixed-full-3": "08989babb8a96822",
    "preferans-1800s-mixed-full-4": "04465cf963863f95",
    "preferans-1800s-mixed-full-5": "d13bbba9b20ea3e2",
    "preferans-1800s-mixed-full-kadili-2": "970b00670296cc9f",
    "preferans-1800s-mixed-full-kadili-3": "29f58a9a233cc831",
    "preferans-1800s-mixed-full-kadili-4": "3a2d113186c81928",
    "preferans-1800s-mixed-full-kadili-5": "e89a6590f5fc1488",
    "slovenian-3": "db32d8155d153073",
}
