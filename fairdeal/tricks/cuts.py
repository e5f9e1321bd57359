"""Cuts that do not cut and shuffles that do not shuffle: the false cut, the pass (вольт), the false riffle.

All three keep a stack the runs built. The false cut is seen and written down (the cut, then the dealer's move
putting the halves back), so the log itself shows two actions that undo each other. The pass is not seen: the
log holds the neighbour's cut, but the cards go out as if it never happened. The false riffle keeps a bottom
stock through honest-looking riffles whose patterns all end in R, and a crimp at ``n - 8`` brings it to the talon.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairdeal.errors import TrickError
from fairdeal.shuffle.models import gsr_riffle
from fairdeal.shuffle.ops import Action, Cut, Riffle, ShuffleSequence
from fairdeal.tricks.base import Technique
from fairdeal.tricks.honest import cut_action, honest_cut
from fairdeal.tricks.plan import DECK_SIZE, Goal, TrickPlan, check_gathered, make_plan, replayed
from fairdeal.tricks.stacking import LEGAL_DEPTHS, runs_to_talon

N = DECK_SIZE


def _talon_only(name: str, goal: Goal) -> None:
    if goal.receiver is not None:
        raise TrickError(f"{name} stacks the talon, not a hand")


def _stack_runs(
    before: np.ndarray, goal: Goal, kind: str = "runs"
) -> tuple[tuple[Action, ...], tuple[int, ...], tuple[int, ...]]:
    """Runs placing the goal's cards on the talon places of the uncut deck (depth 0 = no cut)."""
    ops, cards, final, _ = runs_to_talon(before, goal, (0,), kind, N)
    return tuple(Action(op) for op in ops), cards, final


@dataclass(frozen=True)
class FalseCut(Technique):
    """Stack the talon; the neighbour cuts; the dealer, in full view, puts the halves back as they were."""

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        _talon_only(self.name, goal)
        runs, cards, final = _stack_runs(before, goal)
        cut = honest_cut(rng, N, goal.cutter)
        assert isinstance(cut.op, Cut) and cut.op.depth is not None  # an honest cut is a known cut
        undo = Action(Cut(N - cut.op.depth))
        actions = ShuffleSequence(runs + (cut, undo))
        return make_plan(
            self.name, before, actions, cards, final, note=f"cut at {cut.op.depth}, put back by the dealer"
        )


@dataclass(frozen=True)
class Volt(Technique):
    """Stack the talon; the neighbour cuts; the dealer's pass (вольт) secretly restores the halves before the deal."""

    deal_time: bool = True

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        _talon_only(self.name, goal)
        runs, cards, final = _stack_runs(before, goal)
        cut = honest_cut(rng, N, goal.cutter)
        assert isinstance(cut.op, Cut) and cut.op.depth is not None  # an honest cut is a known cut
        stacked = replayed(before, ShuffleSequence(runs))
        return make_plan(
            self.name,
            before,
            ShuffleSequence(runs + (cut,)),
            cards,
            final,
            dealt_order=stacked,
            note=f"the cut at {cut.op.depth} was undone by a pass nobody saw",
        )


def stock_keeping_riffle(rng: np.random.Generator, n: int, stock: int) -> Riffle:
    """A GSR riffle redrawn until the bottom ``stock`` cards stay at the bottom (the pattern ends in R's)."""
    while True:
        riffle = gsr_riffle(rng, n)
        assert riffle.split is not None and riffle.pattern is not None  # a sampled riffle is known
        if riffle.split <= n - stock and riffle.pattern.endswith("R" * stock):
            return riffle


@dataclass(frozen=True)
class FalseShuffle(Technique):
    """Runs put the goal's cards at the bottom; riffles that keep the bottom stock; a crimp cut at ``n - 8``."""

    riffles: int = 3

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        _talon_only(self.name, goal)
        depth = N - 8
        if depth not in LEGAL_DEPTHS:
            raise TrickError(f"a crimp at {depth} would be an illegal cut")
        ops, cards, final, _ = runs_to_talon(before, goal, (depth,), "both", N)
        stock = N - min(final)
        riffles = tuple(Action(stock_keeping_riffle(rng, N, stock)) for _ in range(self.riffles))
        actions = ShuffleSequence(tuple(Action(op) for op in ops) + riffles + (cut_action(depth, goal.cutter),))
        expected = tuple((p - depth) % N for p in final)
        return make_plan(
            self.name,
            before,
            actions,
            cards,
            expected,
            note=f"bottom stock of {stock} kept through {self.riffles} riffles, crimp at {depth}",
        )
