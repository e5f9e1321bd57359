"""The weak online server: every deck comes from a 32-bit clock seed, so one player's ten cards give away the rest.

The server's generator and the seed search are the auditor's (``fairdeal.audit.seeds``, where the generator is
written down): the cheating player runs the same search the auditor runs, over the seeds near the time of a deal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairdeal.audit.seeds import SEED_SPACE, recover_deal, seed_window, server_deck
from fairdeal.engine.deal_source import DealEvidence, Plays
from fairdeal.errors import TrickError
from fairdeal.shuffle.ops import Perm, ShuffleSequence
from fairdeal.tricks.base import Technique
from fairdeal.tricks.plan import DECK_SIZE, RUSSIAN, Goal, TrickPlan, check_gathered, make_plan


@dataclass(frozen=True)
class WeakServer(Technique):
    """The server deals from a clock seed; the player of ``goal.receiver`` recovers the deal from his own cards.

    The plan's ``actions`` is the server's deal written as an explicit ``perm`` of the gathered order (the server
    never looks at it); the targeted cards are every card outside the attacker's hand, as recovered.
    """

    window_bits: int = 16

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        attacker = 0 if goal.receiver is None else goal.receiver
        seed = int(rng.integers(0, SEED_SPACE))
        deck = server_deck(seed)
        where = np.argsort(before)
        actions = ShuffleSequence.of(Perm.of(where[deck]))
        start, stop = seed_window(seed, self.window_bits)
        hand = deck[RUSSIAN.hand_positions[attacker]]
        recovery = recover_deal(hand, attacker, start, stop)
        if recovery.deal is None:
            return make_plan(self.name, before, actions, (), (), note=f"{len(recovery.candidates)} seeds fit")
        recovered = server_deck(recovery.candidates[0])
        others = [p for p in range(DECK_SIZE) if p not in set(RUSSIAN.hand_positions[attacker].tolist())]
        return make_plan(
            self.name,
            before,
            actions,
            tuple(int(recovered[p]) for p in others),
            tuple(others),
            note=(
                f"seed {recovery.candidates[0]} found among {recovery.tried:,} in {recovery.seconds:.3f} s "
                f"({recovery.seeds_per_second:,.0f} seeds/s)"
            ),
        )

    def table_goal(self, dealer: int, seats: int, cutter: int | None, partner: int | None) -> Goal:
        return Goal(receiver=0, count=1)

    def describe_goal(self, goal: Goal) -> str:
        return f"the player of hand {goal.receiver or 0} learns every other card from his own ten"


class WeakServerSource:
    """A ``DealSource`` for the weak server: hand ``k`` is dealt at ``start + k * interval`` seconds (plus a few
    seconds' jitter), and that time is the seed."""

    def __init__(self, start: int, rng: np.random.Generator, interval: int = 40) -> None:
        if not 0 <= start < SEED_SPACE:
            raise TrickError(f"a start time is a 32-bit number of seconds, got {start}")
        self.start = start
        self.rng = rng
        self.interval = interval
        self.seeds: dict[int, int] = {}

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        seed = (self.start + hand * self.interval + int(self.rng.integers(0, 10))) % SEED_SPACE
        self.seeds[hand] = seed
        return DealEvidence(hand, dealer, server_deck(seed), {"dealing": "server-rng"})

    def finish(self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None) -> dict[str, Any]:
        return {}
