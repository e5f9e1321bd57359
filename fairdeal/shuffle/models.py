"""Honest random shuffles: the null models the auditor compares logged shuffles against.

Each sampler takes a numpy ``Generator`` and the deck size ``n``. Scalar samplers return an op (so a sample
can be logged in the notation); batch samplers return an ``(m, n)`` array of permutations, one per row.

- GSR riffle (Gilbert-Shannon-Reeds): cut at ``Binomial(n, 1/2)``, then drop cards one at a time from the
  bottoms of the two packets, from a packet with probability proportional to its current size. Every
  interleaving of a given cut is then equally likely, so the whole riffle equals "each new position takes
  its card from the top packet with probability 1/2, independently" — the batch sampler uses that form.
- Random cut: depth uniform over the legal depths ``min_each_side..n-min_each_side``.
- Overhand (Pemantle's model): every gap between adjacent cards of the handled block is, independently with
  probability ``1/mean_packet``, a packet boundary, so packet sizes are geometric with mean ``mean_packet``
  (cut short at the block's end); the packets are then laid down in reverse order as in ``Overhand``.
- Pile gather: a pile shuffle whose piles are picked up in a uniformly random order.
- Uniform: every arrangement equally likely (the ideal shuffle).

``model_for(op)`` names the honest model of the same effort as a logged op; ``sample_honest_batch`` draws
honest counterparts of a whole logged sequence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairdeal.errors import ShuffleError
from fairdeal.shuffle.ops import (
    Action,
    Cut,
    Faro,
    Overhand,
    Perm,
    Pile,
    Riffle,
    Run,
    RunUnder,
    ShuffleOp,
    ShuffleSequence,
    Strip,
)
from fairdeal.shuffle.perm import compose, identity, riffle_permutation

DEFAULT_MEAN_PACKET = 4.0
CODEX_MIN_EACH_SIDE = 4  # 1996 Codex (seed 002); the 19th-century rules ask 6


def _require_deck(n: int) -> None:
    if n < 1:
        raise ShuffleError(f"a deck needs at least one card, got {n}")


def gsr_riffle(rng: np.random.Generator, n: int) -> Riffle:
    """One GSR riffle drawn literally: binomial cut, then the size-proportional drop rule."""
    _require_deck(n)
    split = int(rng.binomial(n, 0.5))
    left, right = split, n - split
    dropped_bottom_up = []
    while left + right:
        if rng.random() * (left + right) < left:
            dropped_bottom_up.append("L")
            left -= 1
        else:
            dropped_bottom_up.append("R")
            right -= 1
    return Riffle(split, "".join(reversed(dropped_bottom_up)))


def gsr_riffle_batch(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """``m`` GSR riffles as permutation rows (each position picks its packet by a fair coin)."""
    _require_deck(n)
    return riffle_permutation(rng.random((m, n)) < 0.5)


def _legal_depths(n: int, min_each_side: int) -> tuple[int, int]:
    low, high = max(1, min_each_side), n - max(1, min_each_side)
    if low > high:
        raise ShuffleError(f"no legal cut of a {n}-card deck leaves {min_each_side} cards on each side")
    return low, high


def random_cut(rng: np.random.Generator, n: int, min_each_side: int = CODEX_MIN_EACH_SIDE) -> Cut:
    low, high = _legal_depths(n, min_each_side)
    return Cut(int(rng.integers(low, high + 1)))


def random_cut_batch(rng: np.random.Generator, n: int, m: int, min_each_side: int = CODEX_MIN_EACH_SIDE) -> np.ndarray:
    low, high = _legal_depths(n, min_each_side)
    depths = rng.integers(low, high + 1, size=(m, 1))
    return (np.arange(n)[None, :] + depths) % n


def _check_overhand_args(n: int, cards: int | None, mean_packet: float) -> int:
    _require_deck(n)
    if not mean_packet >= 1:
        raise ShuffleError(f"an overhand's mean packet size must be at least 1, got {mean_packet}")
    block = n if cards is None else cards
    if not 1 <= block <= n:
        raise ShuffleError(f"an overhand of {block} cards does not fit a {n}-card deck")
    return block


def pemantle_overhand(
    rng: np.random.Generator, n: int, mean_packet: float = DEFAULT_MEAN_PACKET, cards: int | None = None
) -> Overhand:
    """An overhand of the top ``cards`` cards (default: all) in Pemantle packets; the rest goes on top."""
    block = _check_overhand_args(n, cards, mean_packet)
    boundaries = np.flatnonzero(rng.random(block - 1) < 1.0 / mean_packet) + 1
    edges = np.concatenate([[0], boundaries, [block]])
    return Overhand(tuple(int(s) for s in np.diff(edges)))


def overhand_batch(
    rng: np.random.Generator,
    n: int,
    m: int,
    mean_packet: float = DEFAULT_MEAN_PACKET,
    cards: int | None = None,
    back_on_top: bool = False,
) -> np.ndarray:
    """``m`` Pemantle overhands of the top ``cards`` cards; the block ends under the rest, or back on top."""
    block = _check_overhand_args(n, cards, mean_packet)
    boundaries = rng.random((m, block - 1)) < 1.0 / mean_packet
    packet = np.concatenate([np.zeros((m, 1), dtype=np.int64), np.cumsum(boundaries, axis=1)], axis=1)
    # Sorting by key lays later packets first (key -packet) and puts the untouched rest before or after them.
    rest_key = 1 if back_on_top else -block
    keys = np.concatenate([-packet, np.full((m, n - block), rest_key, dtype=np.int64)], axis=1)
    return np.argsort(keys, axis=1, kind="stable")


def pile_gather_batch(rng: np.random.Generator, n: int, m: int, piles: int) -> np.ndarray:
    """``m`` pile shuffles into ``piles`` piles picked up in uniformly random order."""
    fixed = Pile(piles).permutation(n)  # piles gathered 1, 2, ..., K: each pile a block of this array
    sizes = np.array([len(range(g, n, piles)) for g in range(piles)])
    block_start = np.cumsum(sizes) - sizes
    pile_of = np.repeat(np.arange(piles), sizes)
    offset_in_pile = np.arange(n) - block_start[pile_of]
    gather = np.argsort(rng.random((m, piles)), axis=1)  # gather[row, t] = pile picked up t-th
    slot_sizes = sizes[gather]
    start_of_pile = np.empty_like(gather)
    np.put_along_axis(start_of_pile, gather, np.cumsum(slot_sizes, axis=1) - slot_sizes, axis=1)
    target = start_of_pile[:, pile_of] + offset_in_pile
    result = np.empty((m, n), dtype=np.intp)
    np.put_along_axis(result, target, np.broadcast_to(fixed, (m, n)), axis=1)
    return result


def uniform_batch(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    return np.argsort(rng.random((m, n)), axis=1)


@dataclass(frozen=True)
class GSRRiffleModel:
    description = "GSR riffle: binomial cut, drops proportional to packet sizes"

    def sample(self, rng: np.random.Generator, n: int) -> ShuffleOp:
        return gsr_riffle(rng, n)

    def sample_batch(self, rng: np.random.Generator, n: int, m: int) -> np.ndarray:
        return gsr_riffle_batch(rng, n, m)


@dataclass(frozen=True)
class RandomCutModel:
    min_each_side: int = CODEX_MIN_EACH_SIDE

    @property
    def description(self) -> str:
        return f"cut at a uniform legal depth (>= {self.min_each_side} cards each side)"

    def sample(self, rng: np.random.Generator, n: int) -> ShuffleOp:
        return random_cut(rng, n, self.min_each_side)

    def sample_batch(self, rng: np.random.Generator, n: int, m: int) -> np.ndarray:
        return random_cut_batch(rng, n, m, self.min_each_side)


@dataclass(frozen=True)
class OverhandModel:
    """Pemantle overhand of the top ``cards`` (None: the whole deck); ``back_on_top`` returns the block to the top."""

    mean_packet: float = DEFAULT_MEAN_PACKET
    cards: int | None = None
    back_on_top: bool = False

    @property
    def description(self) -> str:
        block = "the whole deck" if self.cards is None else f"the top {self.cards} cards"
        place = ", put back on top" if self.back_on_top else ""
        return f"overhand of {block} in geometric packets of mean {self.mean_packet}{place}"

    def sample(self, rng: np.random.Generator, n: int) -> ShuffleOp:
        overhand = pemantle_overhand(rng, n, self.mean_packet, self.cards)
        assert overhand.packets is not None  # a sampled overhand is always known
        block = sum(overhand.packets)
        if not self.back_on_top or block == n:
            return overhand
        return Perm.of(compose(overhand.permutation(n), Cut(n - block).permutation(n)))

    def sample_batch(self, rng: np.random.Generator, n: int, m: int) -> np.ndarray:
        return overhand_batch(rng, n, m, self.mean_packet, self.cards, self.back_on_top)


@dataclass(frozen=True)
class PileGatherModel:
    piles: int

    @property
    def description(self) -> str:
        return f"pile shuffle into {self.piles} piles gathered in random order"

    def sample(self, rng: np.random.Generator, n: int) -> ShuffleOp:
        return Perm.of(self.sample_batch(rng, n, 1)[0])

    def sample_batch(self, rng: np.random.Generator, n: int, m: int) -> np.ndarray:
        return pile_gather_batch(rng, n, m, self.piles)


@dataclass(frozen=True)
class UniformModel:
    description = "uniformly random arrangement"

    def sample(self, rng: np.random.Generator, n: int) -> ShuffleOp:
        _require_deck(n)
        return Perm.of(rng.permutation(n))

    def sample_batch(self, rng: np.random.Generator, n: int, m: int) -> np.ndarray:
        return uniform_batch(rng, n, m)


Model = GSRRiffleModel | RandomCutModel | OverhandModel | PileGatherModel | UniformModel


def model_for(
    logged: ShuffleOp | Action,
    min_each_side: int = CODEX_MIN_EACH_SIDE,
    mean_packet: float = DEFAULT_MEAN_PACKET,
) -> Model:
    """The honest model of the same effort as a logged op.

    riffle / riffle ? / faro -> GSR riffle; cut / cut ? -> random legal cut; a run "n" -> overhand of the
    top n cards put back on top; "n↑" -> overhand of the top n cards (the rest on top); overhand / strip ->
    overhand of as many cards; pile K -> the K piles gathered in random order; perm -> uniform.
    """
    op = logged.op if isinstance(logged, Action) else logged
    if isinstance(op, (Riffle, Faro)):
        return GSRRiffleModel()
    if isinstance(op, Cut):
        return RandomCutModel(min_each_side)
    if isinstance(op, Run):
        return OverhandModel(mean_packet, op.count, back_on_top=True)
    if isinstance(op, RunUnder):
        return OverhandModel(mean_packet, op.count)
    if isinstance(op, (Overhand, Strip)):
        return OverhandModel(mean_packet, None if op.packets is None else sum(op.packets))
    if isinstance(op, Pile):
        return PileGatherModel(op.piles)
    if isinstance(op, Perm):
        return UniformModel()
    raise ShuffleError(f"no honest model for {op!r}")


def sample_honest_batch(
    sequence: ShuffleSequence,
    rng: np.random.Generator,
    n: int,
    m: int,
    min_each_side: int = CODEX_MIN_EACH_SIDE,
    mean_packet: float = DEFAULT_MEAN_PACKET,
) -> np.ndarray:
    """``m`` permutations, each the composition of one honest draw per logged action (first action first)."""
    result = np.broadcast_to(identity(n), (m, n))
    for action in sequence:
        step = model_for(action, min_each_side, mean_packet).sample_batch(rng, n, m)
        result = np.take_along_axis(result, step, axis=1)
    return np.ascontiguousarray(result)
