"""The weak online server: every deck comes from a 32-bit seed, so one player's ten cards give away the rest.

The server (a common mistake, written down so anyone can check it): the seed is the Unix time of the deal in
seconds; a 32-bit linear congruential generator (Numerical Recipes: ``x <- 1664525 x + 1013904223 mod 2^32``)
drives a Fisher-Yates shuffle of a fresh deck, for ``i = 31 .. 1`` swapping position ``i`` with
``j = (x >> 16) mod (i + 1)``. A player who knows roughly when the hand was dealt searches the seeds of that
window; every deck is a batch row, and because Fisher-Yates fixes position ``i`` at step ``i``, a row is dropped
as soon as one of the player's own positions disagrees — after five steps only 1/32 of the batch is left.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from fairdeal.deal import Deal, deal_order
from fairdeal.errors import TrickError
from fairdeal.protocols.deal_source import DealEvidence
from fairdeal.shuffle.ops import Perm, ShuffleSequence
from fairdeal.tricks.base import Technique
from fairdeal.tricks.plan import DECK_SIZE, RUSSIAN, Goal, TrickPlan, check_gathered, make_plan

LCG_MULTIPLIER = 1664525
LCG_INCREMENT = 1013904223
SEED_SPACE = 1 << 32
DEFAULT_BATCH = 1 << 20


def server_deck(seed: int, n: int = DECK_SIZE) -> np.ndarray:
    """The server's deck for ``seed``, step by step in plain integers (the reference the search must match)."""
    if not 0 <= seed < SEED_SPACE:
        raise TrickError(f"a server seed is a 32-bit number, got {seed}")
    x, deck = seed, list(range(n))
    for i in range(n - 1, 0, -1):
        x = (LCG_MULTIPLIER * x + LCG_INCREMENT) % SEED_SPACE
        j = (x >> 16) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return np.array(deck, dtype=np.uint8)


def search_seeds(known: Mapping[int, int], start: int, stop: int, batch: int = DEFAULT_BATCH,
                 n: int = DECK_SIZE) -> list[int]:
    """Every seed in ``[start, stop)`` whose deck holds card ``known[p]`` at each position ``p``."""
    if not 0 <= start <= stop <= SEED_SPACE:
        raise TrickError(f"a seed range lies within 0..2^32, got [{start}, {stop})")
    if not known or not all(0 <= p < n for p in known):
        raise TrickError(f"the search needs known cards at positions 0..{n - 1}")
    found: list[int] = []
    for low in range(start, stop, batch):
        found += _search_batch(known, low, min(stop, low + batch), n)
    return found


def _search_batch(known: Mapping[int, int], low: int, high: int, n: int) -> list[int]:
    seeds = np.arange(low, high, dtype=np.uint64).astype(np.uint32)
    x = seeds.copy()
    deck = np.broadcast_to(np.arange(n, dtype=np.uint8), (len(seeds), n)).copy()
    for i in range(n - 1, 0, -1):
        x = x * np.uint32(LCG_MULTIPLIER) + np.uint32(LCG_INCREMENT)
        j = (x >> np.uint32(16)) % np.uint32(i + 1)
        rows = np.arange(len(x))
        swapped = deck[rows, j]
        deck[rows, j] = deck[:, i]
        deck[:, i] = swapped
        fixed = [p for p in (i, 0) if p in known and (p == i or i == 1)]
        if fixed:
            keep = np.logical_and.reduce([deck[:, p] == known[p] for p in fixed])
            seeds, x, deck = seeds[keep], x[keep], deck[keep]
            if not len(seeds):
                return []
    return [int(s) for s in seeds]


@dataclass(frozen=True)
class Recovery:
    """What the brute force found: the seeds that fit, the seeds tried, the time, and the whole deal if unique."""

    candidates: tuple[int, ...]
    tried: int
    seconds: float
    deal: Deal | None

    @property
    def seeds_per_second(self) -> float:
        return self.tried / self.seconds if self.seconds > 0 else float("inf")


def recover_deal(hand: Sequence[int], hand_index: int, start: int, stop: int, batch: int = DEFAULT_BATCH) -> Recovery:
    """From one hand's cards in the order received, every other hand and the talon (seeds ``[start, stop)``)."""
    positions = RUSSIAN.hand_positions[hand_index]
    if len(hand) != len(positions):
        raise TrickError(f"a hand of the russian deal has {len(positions)} cards, got {len(hand)}")
    began = time.perf_counter()
    candidates = search_seeds(dict(zip(positions.tolist(), (int(c) for c in hand))), start, stop, batch)
    seconds = time.perf_counter() - began
    deal = deal_order(server_deck(candidates[0]), RUSSIAN) if len(candidates) == 1 else None
    return Recovery(tuple(candidates), stop - start, seconds, deal)


def seed_window(seed: int, bits: int) -> tuple[int, int]:
    """The aligned block of ``2^bits`` seeds around ``seed``: what a player who knows the time searches."""
    if not 0 < bits <= 32:
        raise TrickError(f"a search window has 1..32 bits, got {bits}")
    start = seed - seed % (1 << bits)
    return start, start + (1 << bits)


@dataclass(frozen=True)
class WeakServer(Technique):
    """The server deals from a clock seed; the player of ``goal.receiver`` recovers the deal from his own cards.

    The plan's ``actions`` is the server's deal written as an explicit ``perm`` of the gathered order (the server
    never looks at it); the targeted cards are every card outside the attacker's hand, as recovered.
    """

    window_bits: int = 16

    def plan(self, gathered_order, goal: Goal, rng: np.random.Generator) -> TrickPlan:
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
            self.name, before, actions, tuple(int(recovered[p]) for p in others), tuple(others),
            note=(f"seed {recovery.candidates[0]} found among {recovery.tried:,} in {recovery.seconds:.3f} s "
                  f"({recovery.seeds_per_second:,.0f} seeds/s)"),
        )

    def table_goal(self, dealer: int, seats: int, cutter: int | None, partner: int | None) -> Goal:
        return Goal(receiver=0, count=1)

    def describe_goal(self, goal: Goal) -> str:
        return f"the player of hand {goal.receiver or 0} learns every other card from his own ten"


class WeakServerSource:
    """A ``DealSource`` for the weak server: hand ``k`` is dealt at ``start + k * interval`` seconds (plus a few
    seconds' jitter), and that time is the seed."""

    def __init__(self, start: int, rng: np.random.Generator, interval: int = 40):
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

    def finish(self, hand: int, record=None) -> dict:
        return {}
