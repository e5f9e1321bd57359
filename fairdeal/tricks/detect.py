"""Detectors the casebook needs beyond ``fairdeal.audit.report``: shuffle laziness, aces gathered before the cut,
and the weak server's seeds.

* ``lazy_dealers``: per hand, the exact p-value of the cyclic guessing score (``audit.quality``: how many cards an
  observer of the gathered order names correctly) against a uniform deck; per dealer, a binomial test of how often
  it falls below ``level``. A dealer who riffles twice fails it almost every hand.
* ``clustered_aces``: the number of aces lying next to each other (cyclically, so the cut does not matter) in the
  replayed deck, against honest shuffles of the same effort from the gathered order; Fisher per dealer. A stack
  aimed at a cut the cardsharp cannot control still leaves its aces side by side.
* ``weak_server_seeds``: the seed search of ``tricks.weak_server`` over a window around a known time.

Each per-dealer family is Holm-corrected across the table's dealers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
from scipy import stats as sps

from fairdeal.audit.quality import shuffle_quality
from fairdeal.audit.stats import holm
from fairdeal.cards import from_ascii_list
from fairdeal.log.reader import read_log
from fairdeal.log.records import UNSET, HandRecord, TableRecord
from fairdeal.shuffle.models import sample_honest_batch
from fairdeal.shuffle.notation import parse_notation
from fairdeal.tricks.plan import ACES, DECK_SIZE, RUSSIAN
from fairdeal.tricks.weak_server import recover_deal

LAZY_LEVEL = 0.001
CLUSTER_DRAWS = 199


@dataclass(frozen=True)
class DealerVerdict:
    dealer: str
    hands: int
    statistic: float
    pvalue: float
    holm: float


@dataclass(frozen=True)
class Detection:
    test: str
    verdicts: tuple[DealerVerdict, ...]
    alpha: float

    def named(self) -> tuple[str, ...]:
        return tuple(v.dealer for v in self.verdicts if v.holm <= self.alpha)


def _replayable(path: str | Path) -> Iterable[tuple[tuple[str, ...], HandRecord, np.ndarray, object]]:
    players: tuple[str, ...] = ()
    for item in read_log(path):
        record = item.record
        if item.errors or record is None:
            continue
        if isinstance(record, TableRecord):
            players = tuple(record.players)
        elif isinstance(record, HandRecord) and record.order_before is not UNSET and record.shuffle is not UNSET:
            sequence = parse_notation(record.shuffle)
            if sequence.is_known:
                yield players, record, from_ascii_list(record.order_before), sequence


def _verdicts(test: str, players: tuple[str, ...], per_dealer: dict[int, tuple[int, float, float]],
              alpha: float) -> Detection:
    dealers = sorted(per_dealer)
    p = np.array([max(per_dealer[d][2], np.finfo(float).tiny) for d in dealers])
    adjusted = holm(p) if len(p) else p
    return Detection(test, tuple(
        DealerVerdict(players[d], per_dealer[d][0], per_dealer[d][1], per_dealer[d][2], float(h))
        for d, h in zip(dealers, adjusted)
    ), alpha)


def lazy_dealers(path: str | Path, alpha: float = 0.01, level: float = LAZY_LEVEL) -> Detection:
    """Dealers whose shuffles leave the gathered order guessable too often (binomial test per dealer)."""
    low: dict[int, list[int]] = {}
    players: tuple[str, ...] = ()
    for players, record, before, sequence in _replayable(path):
        after = before[sequence.permutation(DECK_SIZE)]
        p = float(shuffle_quality(before, after).cyclic_guessing_pvalue[0])
        low.setdefault(record.dealer, []).append(p <= level)
    per_dealer = {d: (len(f), float(sum(f)), float(sps.binom.sf(sum(f) - 1, len(f), level))) for d, f in low.items()}
    return _verdicts(f"cyclic guessing p <= {level} too often", players, per_dealer, alpha)


def adjacent_pairs(orders: np.ndarray, cards: tuple[int, ...] = ACES) -> np.ndarray:
    """Cyclically adjacent pairs of ``cards`` in each order (rows)."""
    marked = np.isin(orders, cards)
    return np.count_nonzero(marked & np.roll(marked, -1, axis=-1), axis=-1)


def clustered_aces(path: str | Path, alpha: float = 0.01, seed: int = 0, draws: int = CLUSTER_DRAWS) -> Detection:
    """Dealers whose replayed decks hold aces side by side more than honest shuffles of the same effort."""
    rng = np.random.default_rng(seed)
    fisher: dict[int, list[float]] = {}
    players: tuple[str, ...] = ()
    for players, record, before, sequence in _replayable(path):
        observed = adjacent_pairs(before[sequence.permutation(DECK_SIZE)])
        simulated = adjacent_pairs(before[sample_honest_batch(sequence, rng, DECK_SIZE, draws)])
        above, ties = np.count_nonzero(simulated > observed), np.count_nonzero(simulated == observed)
        p = (above + rng.random() * (ties + 1)) / (draws + 1)
        fisher.setdefault(record.dealer, []).append(max(p, np.finfo(float).tiny))
    per_dealer = {}
    for dealer, ps in fisher.items():
        statistic = float(-2 * np.log(ps).sum())
        per_dealer[dealer] = (len(ps), statistic, float(sps.chi2.sf(statistic, 2 * len(ps))))
    return _verdicts("aces side by side (same-effort null, Fisher)", players, per_dealer, alpha)


@dataclass(frozen=True)
class SeedScan:
    hands: int
    found: tuple[tuple[int, int], ...]      # hand number, seed
    seeds_per_second: float

    @property
    def weak(self) -> bool:
        return bool(self.found)


def weak_server_seeds(path: str | Path, around: int, bits: int = 16, max_hands: int = 3) -> SeedScan:
    """Search the seeds in a window of ``2^bits`` around ``around`` for the first hands' decks (seat 0's cards)."""
    start = max(0, around - (1 << (bits - 1)))
    stop = min(1 << 32, start + (1 << bits))
    found, hands, rates = [], 0, []
    for item in read_log(path):
        record = item.record
        if item.errors or not isinstance(record, HandRecord) or record.deal is UNSET or hands >= max_hands:
            continue
        hands += 1
        hand_index = (0 - record.dealer - 1) % len(record.deal.hands)
        if hand_index >= RUSSIAN.hands:
            continue
        recovery = recover_deal(from_ascii_list(record.deal.hands[0]), hand_index, start, stop)
        rates.append(recovery.seeds_per_second)
        found += [(record.hand, s) for s in recovery.candidates]
    return SeedScan(hands, tuple(found), float(np.mean(rates)) if rates else 0.0)
