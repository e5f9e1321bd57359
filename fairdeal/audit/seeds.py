"""The weak-server seed search: were a digital log's deals drawn from a clock-seeded 32-bit generator?

The generator searched for (a common mistake, written down so anyone can check it): the seed is the Unix time of
the deal in seconds; a 32-bit linear congruential generator (Numerical Recipes: ``x <- 1664525 x + 1013904223
mod 2^32``) drives a Fisher-Yates shuffle of a fresh deck, for ``i = 31 .. 1`` swapping position ``i`` with
``j = (x >> 16) mod (i + 1)``. Every deck of a window of seeds is a batch row, and because Fisher-Yates fixes
position ``i`` at step ``i``, a row is dropped as soon as one known position disagrees — after five steps only
1/32 of the batch is left. A fitting seed is a finding, not a statistical test: an honest generator puts one
hand's ten cards on their ten places by chance with probability ``window / (32!/22!)`` (4.5e-9 for a 2^20
window, 2e-5 for all 2^32 seeds), and the talon must then match too. Opt-in
(``fairdeal audit --server-seed-window BITS``): it needs a time window.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from msgspec import UNSET

from fairdeal.audit.replay import Finding
from fairdeal.cards import from_ascii_list
from fairdeal.deal import Deal, deal_order, get_pattern
from fairdeal.errors import AuditError
from fairdeal.log.reader import read_log
from fairdeal.log.records import HandRecord

LCG_MULTIPLIER = 1664525
LCG_INCREMENT = 1013904223
SEED_SPACE = 1 << 32
DEFAULT_BATCH = 1 << 20
RUSSIAN = get_pattern("russian")
DECK_SIZE = RUSSIAN.deck.size
SCANNED_HANDS = 3


def server_deck(seed: int, n: int = DECK_SIZE) -> np.ndarray:
    """The server's deck for ``seed``, step by step in plain integers (the reference the search must match)."""
    if not 0 <= seed < SEED_SPACE:
        raise AuditError(f"a server seed is a 32-bit number, got {seed}")
    x, deck = seed, list(range(n))
    for i in range(n - 1, 0, -1):
        x = (LCG_MULTIPLIER * x + LCG_INCREMENT) % SEED_SPACE
        j = (x >> 16) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return np.array(deck, dtype=np.uint8)


def search_seeds(
    known: Mapping[int, int], start: int, stop: int, batch: int = DEFAULT_BATCH, n: int = DECK_SIZE
) -> list[int]:
    """Every seed in ``[start, stop)`` whose deck holds card ``known[p]`` at each position ``p``."""
    if not 0 <= start <= stop <= SEED_SPACE:
        raise AuditError(f"a seed range lies within 0..2^32, got [{start}, {stop})")
    if not known or not all(0 <= p < n for p in known):
        raise AuditError(f"the search needs known cards at positions 0..{n - 1}")
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


def recover_deal(
    hand: Sequence[int] | np.ndarray, hand_index: int, start: int, stop: int, batch: int = DEFAULT_BATCH
) -> Recovery:
    """From one hand's cards in the order received, every other hand and the talon (seeds ``[start, stop)``)."""
    positions = RUSSIAN.hand_positions[hand_index]
    if len(hand) != len(positions):
        raise AuditError(f"a hand of the russian deal has {len(positions)} cards, got {len(hand)}")
    began = time.perf_counter()
    candidates = search_seeds(dict(zip(positions.tolist(), (int(c) for c in hand))), start, stop, batch)
    seconds = time.perf_counter() - began
    deal = deal_order(server_deck(candidates[0]), RUSSIAN) if len(candidates) == 1 else None
    return Recovery(tuple(candidates), stop - start, seconds, deal)


def seed_window(seed: int, bits: int) -> tuple[int, int]:
    """The aligned block of ``2^bits`` seeds around ``seed``: what a player who knows the time searches."""
    if not 0 < bits <= 32:
        raise AuditError(f"a search window has 1..32 bits, got {bits}")
    start = seed - seed % (1 << bits)
    return start, start + (1 << bits)


def unix_time(started: str) -> int:
    """A log header's ISO-8601 ``started`` as Unix seconds (a time without zone is taken as UTC)."""
    try:
        moment = datetime.fromisoformat(started)
    except ValueError:
        raise AuditError(f"the table's start time {started!r} is not an ISO-8601 date/time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


@dataclass(frozen=True)
class SeedScan:
    hands: int  # hands searched
    found: tuple[tuple[int, int, int], ...]  # line, hand number, seed whose deal matches the whole logged deal
    seconds: float
    seeds_per_second: float

    def findings(self) -> list[tuple[int, int, str, Finding]]:
        return [
            (
                line,
                hand,
                "",
                Finding(
                    "weak-seed",
                    f"hand {hand}: the whole deal is the clock-seeded 32-bit "
                    f"generator's deck for seed {seed}; every hand can be read from one",
                ),
            )
            for line, hand, seed in self.found
        ]


def scan_seeds(path: str | Path, around: int, bits: int, max_hands: int = SCANNED_HANDS) -> SeedScan:
    """Search ``2^bits`` seeds centred on ``around`` for the first hands' deals (the first seat's ten cards, then
    the whole deal checked against the seed's deck)."""
    if not 1 <= bits <= 32:
        raise AuditError(f"a seed window has 1..32 bits, got {bits}")
    start = min(max(0, around - (1 << (bits - 1))), SEED_SPACE - (1 << bits))
    stop = start + (1 << bits)
    found, hands, began = [], 0, time.perf_counter()
    for item in read_log(path):
        record = item.record
        if hands >= max_hands:
            break
        if item.errors or not isinstance(record, HandRecord) or record.deal is UNSET:
            continue
        hands += 1
        seats = len(record.deal.hands)
        hand_index = (0 - record.dealer - 1) % seats
        if hand_index >= RUSSIAN.hands:
            continue
        recovery = recover_deal(from_ascii_list(record.deal.hands[0]), hand_index, start, stop)
        for seed in recovery.candidates:
            whole = deal_order(server_deck(seed), RUSSIAN)
            if sorted(map(int, whole.talons[0])) == sorted(map(int, from_ascii_list(record.deal.talons[0]))):
                found.append((item.line, record.hand, seed))
    seconds = time.perf_counter() - began
    return SeedScan(hands, tuple(found), seconds, hands * (stop - start) / seconds if seconds > 0 else 0.0)
