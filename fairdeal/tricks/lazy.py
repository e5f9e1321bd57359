"""The lazy shuffle: two or three riffles and a cut, honestly done, and an opponent who watched the gathering.

Two riffles leave at most four rising sequences of the gathered order, so the card that lands at a given place
is far from uniform. The attentive opponent knows the gathered order (the tricks went in face up) and sees the
depth of the cut; he simulates the riffles he cannot see and names, for each talon place, the card most likely
to be there. Nobody cheats with the deck; the leak is the dealer's laziness.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairdeal.shuffle.models import gsr_riffle, gsr_riffle_batch
from fairdeal.shuffle.ops import Action, Cut, ShuffleSequence
from fairdeal.tricks.base import Technique
from fairdeal.tricks.honest import honest_cut
from fairdeal.tricks.plan import DECK_SIZE, Goal, TrickPlan, check_gathered, make_plan

N = DECK_SIZE


def guess_places(
    before: np.ndarray, riffles: int, depth: int, places: np.ndarray, rng: np.random.Generator, draws: int = 4000
) -> tuple[int, ...]:
    """For each place, the card most often found there after ``riffles`` GSR riffles and a cut of ``depth``."""
    perms = gsr_riffle_batch(rng, N, draws)
    for _ in range(riffles - 1):
        perms = np.take_along_axis(perms, gsr_riffle_batch(rng, N, draws), axis=1)
    cut = Cut(depth).permutation(N)
    at_places = perms[:, cut[places]]  # old positions landing on each place
    guesses: list[int] = []
    for column in at_places.T:
        counts = np.bincount(column, minlength=N)
        counts[[int(np.flatnonzero(before == g)[0]) for g in guesses]] = -1  # one card cannot be in two places
        guesses.append(int(before[int(np.argmax(counts))]))
    return tuple(guesses)


@dataclass(frozen=True)
class LazyShuffle(Technique):
    """``riffles`` honest GSR riffles and an honest cut; the targeted cards are the attentive opponent's guesses."""

    riffles: int = 2

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        body = tuple(Action(gsr_riffle(rng, N)) for _ in range(self.riffles))
        cut = honest_cut(rng, N, goal.cutter)
        assert isinstance(cut.op, Cut) and cut.op.depth is not None  # an honest cut is a known cut
        actions = ShuffleSequence(body + (cut,))
        places = goal.places()[: goal.count]
        guesses = guess_places(before, self.riffles, cut.op.depth, places, rng)
        return make_plan(
            self.name,
            before,
            actions,
            guesses,
            tuple(int(p) for p in places),
            note=f"the opponent saw the cut at {cut.op.depth} and named {len(guesses)} card(s)",
        )

    def describe_goal(self, goal: Goal) -> str:
        return f"an attentive opponent names the card at each of the first {goal.count} talon place(s)"
