"""What a block's deals gave each seat and the buyer's talon, as exact integer sums that merge in any order.

For each deal the value (``model.ValueModel``) of every seated hand, and the talon's worth to its buyer (the
tricks it adds, averaged over the candidate buyers: the auditor does not read the auction), are turned into
normal scores ``z`` by the honest law of that value, estimated once by Monte Carlo over uniform deals with a fixed
seed (``honest_null``). A cheat who acts in some deals moves those deals' scores far, so each deal adds the log
likelihood ratio of "a share RATE of deals shifted by SHIFT" in each direction (``up``: fed, ``down``: sunk); the
honest law of one deal's ratio is kept as a lattice law for the verdict's exact test (``family``). Sums are kept per
(dealer, cutter, target) in integer units, so any split of a log into blocks, in workers or on dask, adds up to the
same numbers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.benefit.model import (
    SCORE_UNITS,
    Scoring,
    ValueModel,
    geometry_for,
    value_model,
)
from fairdeal.audit.fastpath import CUT
from fairdeal.audit.features.depth import fold_depth_aces
from fairdeal.audit.features.fold import fold_features
from fairdeal.audit.tails import normal_ppf
from fairdeal.cards import NUM_CODES
from fairdeal.deal import get_pattern
from fairdeal.errors import FairdealError
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Cut

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import CompiledShuffle, Hands, Layout
    from fairdeal.audit.summary import Sums
    from fairdeal.deal import DealPattern

NULL_DEALS = 40_000
NULL_SEED = 20261201
RATE, SHIFT = 0.25, 1.5  # the alternative the ratio is tuned to: a quarter of the deals, 1.5 sd away
RATIO_UNITS = 64  # per-deal log ratios are summed as integers of 1/64


@dataclass(frozen=True)
class Lattice:
    """A law on the integers ``offset .. offset + len(pmf) - 1`` (a per-deal ratio in 1/RATIO_UNITS)."""

    offset: int
    pmf: np.ndarray

    @staticmethod
    def of(sample: np.ndarray) -> Lattice:
        low = int(sample.min())
        return Lattice(low, np.bincount(sample - low) / len(sample))

    @property
    def mean(self) -> float:
        return float(self.offset + np.arange(len(self.pmf)) @ self.pmf)

    @property
    def variance(self) -> float:
        return float((np.arange(len(self.pmf)) + self.offset - self.mean) ** 2 @ self.pmf)


@dataclass(frozen=True)
class HonestNull:
    """The honest law of each target's value at a table: sorted Monte Carlo values and each ratio's lattice law."""

    hand_values: np.ndarray  # (hands, deals) sorted values of each hand index
    talon_gains: np.ndarray  # (deals,) sorted worths of the talon to its buyer
    up: tuple[Lattice, ...]  # per hand index, then the talon: the law of one deal's "fed" ratio
    down: tuple[Lattice, ...]  # the same for "sunk"
    mean_value: np.ndarray  # (hands + 1,) mean value in points (for the report's "expected")


def model_of(pattern: DealPattern, scoring: Scoring) -> ValueModel:
    return value_model(geometry_for(pattern).name, scoring)


def random_receivers(pattern: DealPattern, deals: int, rng: np.random.Generator) -> np.ndarray:
    """``(deals, 32)`` receivers (hand index, or hands + talon index; -1 off the deck) of uniform deals."""
    codes = pattern.deck.codes()[np.argsort(rng.random((deals, pattern.deck.size)), axis=1)]
    where = np.full(pattern.deck.size, -1, dtype=np.int64)
    for h in range(pattern.hands):
        where[pattern.hand_positions[h]] = h
    for t in range(pattern.talons):
        where[pattern.talon_positions[t]] = pattern.hands + t
    recv = np.full((deals, NUM_CODES), -1, dtype=np.int64)
    np.put_along_axis(recv, codes.astype(np.int64), np.broadcast_to(where, codes.shape), axis=1)
    return recv


def deal_values(recv: np.ndarray, pattern: DealPattern, model: ValueModel, seated: tuple[int, ...]) -> np.ndarray:
    """``(m, hands + 1)``: each seated hand's value in points (NaN where unseated), then the talon's worth to its
    buyer: the tricks it adds to a seated hand, averaged over the seated hands (the auction is not read, so each
    is a candidate buyer; averaging also halves the noise of which suits one buyer holds)."""
    m = len(recv)
    out = np.full((m, pattern.hands + 1), np.nan)
    talon = recv >= pattern.hands
    gain = np.zeros(m)
    for h in seated:
        index = np.full(m, h)
        held = recv == h
        out[:, h], tricks = model.value_and_tricks(held, index)
        gain += model.tricks(held | talon, index) - tricks
    out[:, -1] = gain / len(seated)
    return out


def normal_scores(sorted_values: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mid-rank normal scores ``Φ⁻¹(F(v))`` under the honest law given by its sorted sample."""
    n = len(sorted_values)
    # Looked up in sorted order and put back: each search starts where the last ended, several times faster.
    order = np.argsort(values, kind="stable")
    rank = np.empty(len(values))
    ordered = values[order]
    below, through = np.searchsorted(sorted_values, ordered, "left"), np.searchsorted(sorted_values, ordered, "right")
    rank[order] = (below + through) / 2
    returned: np.ndarray = normal_ppf(np.clip(rank / n, 0.5 / n, 1 - 0.5 / n))
    return returned


def ratios(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-deal log likelihood ratios, fed and sunk, in integer units: ``log(1 - r + r exp(±δ z - δ²/2))``."""
    up, down = (np.log1p(RATE * np.expm1(sign * SHIFT * z - SHIFT**2 / 2)) for sign in (1.0, -1.0))
    return np.rint(up * RATIO_UNITS).astype(np.int64), np.rint(down * RATIO_UNITS).astype(np.int64)


def _ratios_of(sorted_null: np.ndarray, column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ratios(normal_scores(...))`` of a column, once per distinct value where values repeat (a hand's value
    takes a few hundred values over a block), elementwise so the same to the last bit."""
    distinct, where = np.unique(column, return_inverse=True)
    if 4 * len(distinct) > len(column):
        return ratios(normal_scores(sorted_null, column))
    up, down = ratios(normal_scores(sorted_null, distinct))
    return up[where], down[where]


@functools.lru_cache(maxsize=32)
def honest_null(pattern_name: str, seated: tuple[int, ...], scoring: Scoring) -> HonestNull:
    """The honest law at a table whose seated hands are ``seated``: fixed seed, so every worker agrees."""
    pattern = get_pattern(pattern_name)
    model = model_of(pattern, scoring)
    rng = np.random.default_rng(NULL_SEED)
    fit = deal_values(random_receivers(pattern, NULL_DEALS, rng), pattern, model, seated)
    check = deal_values(random_receivers(pattern, NULL_DEALS, rng), pattern, model, seated)
    hands = np.sort(np.nan_to_num(fit[:, :-1], nan=0.0), axis=0).T
    gains = np.sort(fit[:, -1])
    # The ratios' laws come from a second sample, so they are not tied to the quantiles they are scored against.
    up, down = [], []
    for k in range(pattern.hands + 1):
        z = normal_scores(gains if k == pattern.hands else hands[k], np.nan_to_num(check[:, k]))
        pair = ratios(z)
        up.append(Lattice.of(pair[0]))
        down.append(Lattice.of(pair[1]))
    return HonestNull(hands, gains, tuple(up), tuple(down), np.nan_to_num(check.mean(axis=0), nan=0.0))


def warm_nulls(layout: Layout, system: str) -> None:
    """Compute the table's honest laws now: worker processes forked after this inherit them, and the verdict
    reads them, instead of each process simulating them again."""
    scoring = Scoring.of_system(system)
    for dealer in range(layout.num_seats):
        seated = seated_hands(layout, dealer)
        if seated:
            honest_null(layout.pattern.name, seated, scoring)


def seated_hands(layout: Layout, dealer: int) -> tuple[int, ...]:
    return tuple(sorted(int(h) for h in layout.slot_hand[dealer, : layout.num_seats] if h >= 0))


def last_cuts(
    hands: Hands, simple: np.ndarray, compiled: CompiledShuffle | None, seats: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each hand's last logged cut: the seat that made it (``seats``: no cut, or no seat named for it) and its
    depth (-1: no cut, or a cut of unknown depth)."""
    out = np.full(len(hands), seats, dtype=np.int64)
    depths = np.full(len(hands), -1, dtype=np.int64)
    if compiled is not None and len(simple) and compiled.kinds.shape[1]:  # a block may log no action at all
        cut = compiled.kinds == CUT
        last = np.where(cut.any(axis=1), cut.shape[1] - 1 - np.argmax(cut[:, ::-1], axis=1), -1)
        rows = np.arange(len(simple))
        actor = compiled.actors[rows, np.maximum(last, 0)]
        ok = (last >= 0) & (actor >= 0) & (actor < seats)
        out[simple[ok]] = actor[ok]
        depths[simple[last >= 0]] = compiled.args[rows, np.maximum(last, 0)][last >= 0]
    done = np.zeros(len(hands), dtype=bool)
    done[simple] = True
    for k in np.flatnonzero(~done):
        shuffle = hands[k][1].logged_shuffle
        if shuffle is None:
            continue
        try:
            actions = parse_notation(shuffle).actions
        except FairdealError:
            continue  # the replay has reported it
        cuts = [(a.actor, a.op) for a in actions if isinstance(a.op, Cut)]
        if not cuts:
            continue
        who, op = cuts[-1]
        if isinstance(who, int) and not isinstance(who, bool) and who < seats:
            out[k] = who
        if isinstance(op, Cut) and op.depth is not None:
            depths[k] = op.depth
    return out, depths


def fold_benefit(
    sums: Sums,
    recv: np.ndarray,
    dealers: np.ndarray,
    cutters: np.ndarray,
    layout: Layout,
    system: str,
    depths: np.ndarray | None = None,
) -> None:
    """Add a block's deals to ``benefit_*`` sums ``(dealer, cutter, target)``: target = seat, or seats (the talon);
    their steerable features (``features``), and the talon's aces at each last cut's depth when ``depths`` are
    given (``features.depth``)."""
    fold_features(sums, recv.astype(np.int64), dealers, layout)
    if depths is not None:
        fold_depth_aces(sums, recv.astype(np.int64), dealers, depths, layout)
    pattern = layout.pattern
    scoring = Scoring.of_system(system)
    model = model_of(pattern, scoring)
    seats = layout.num_seats
    recv = recv.astype(np.int64)
    for dealer in np.unique(dealers):
        rows = np.flatnonzero(dealers == dealer)
        seated = seated_hands(layout, int(dealer))
        if not seated:
            continue
        null = honest_null(pattern.name, seated, scoring)
        values = deal_values(recv[rows], pattern, model, seated)
        slot = layout.slot_hand[dealer, :seats]
        for target, hand in [(s, int(slot[s])) for s in range(seats) if slot[s] >= 0] + [(seats, -1)]:
            column = values[:, hand]
            sorted_null = null.talon_gains if hand < 0 else null.hand_values[hand]
            at = (np.full(len(rows), dealer), cutters[rows], np.full(len(rows), target))
            up, down = _ratios_of(sorted_null, column)
            np.add.at(sums.benefit_count, at, 1)
            np.add.at(sums.benefit_up, at, up)
            np.add.at(sums.benefit_down, at, down)
            np.add.at(sums.benefit_points, at, np.rint(column * SCORE_UNITS).astype(np.int64))
