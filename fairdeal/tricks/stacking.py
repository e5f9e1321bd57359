"""Stacking by card-by-card runs: aces into the talon (runs or arrows, a crimped or an open cut), or into a
partner's hand.

The cut comes after the stacking and is made by the dealer's right-hand neighbour, so the cheat aims at the
places the cut will turn into the talon: a cut of depth ``d`` moves deck position ``(6 + d) mod 32`` to the
first talon place 6 (0-based). With a *crimp* (a bent card the cutter's fingers find) the depth is forced;
against an *open* honest cut he can only aim at one depth and hope.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from fairdeal.errors import TrickError
from fairdeal.shuffle.models import CODEX_MIN_EACH_SIDE
from fairdeal.shuffle.ops import Action, ShuffleSequence
from fairdeal.tricks.base import Technique
from fairdeal.tricks.honest import cut_action
from fairdeal.tricks.plan import ACES, DECK_SIZE, Goal, TrickPlan, check_gathered, make_plan
from fairdeal.tricks.runs import place_by_runs, shortest_runs

N = DECK_SIZE
LEGAL_DEPTHS = tuple(range(CODEX_MIN_EACH_SIDE, N - CODEX_MIN_EACH_SIDE + 1))


def positions_of(order: np.ndarray, cards: tuple[int, ...]) -> list[int]:
    return [int(np.flatnonzero(order == c)[0]) for c in cards]


def precut(places: np.ndarray, depth: int) -> tuple[int, ...]:
    """Where cards must lie before a cut of ``depth`` to reach ``places`` after it."""
    return tuple(int((p + depth) % N) for p in places)


def target_sets(goal: Goal, depths: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """Every set of ``goal.count`` pre-cut positions that a cut of one of ``depths`` turns into the goal's places."""
    sets: dict[tuple[int, ...], int] = {}
    for depth in depths:
        for chosen in combinations(goal.places(), goal.count):
            sets.setdefault(tuple(sorted(precut(np.array(chosen), depth))), depth)
    return sets


def runs_to_talon(before: np.ndarray, goal: Goal, depths: tuple[int, ...], kind: str, max_run: int):
    """The shortest runs bringing ``goal.count`` of the goal's cards onto the talon places of a cut in ``depths``."""
    sets = target_sets(goal, depths)
    ops, origin, final = shortest_runs(positions_of(before, goal.cards), goal.count, sets, N, kind, max_run)
    depth = sets[tuple(sorted(final))]
    cards = tuple(int(before[p]) for p in origin)
    return ops, cards, final, depth


@dataclass(frozen=True)
class TalonStack(Technique):
    """Runs (``moves``: "runs" or "arrows") put the goal's cards where the cut will make them the talon.

    ``cut``: "crimp" — the cutter's depth is forced (``crimp_depth``, or per deal the depth needing the fewest
    runs); "open" — an honest cutter cuts at a uniform legal depth, the cheat aims at the depth that needs the
    fewest runs and hits only when the cut falls there.
    """

    moves: str = "runs"
    cut: str = "crimp"
    crimp_depth: int | None = None
    max_run: int = 32

    def plan(self, gathered_order, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        if goal.receiver is not None:
            raise TrickError(f"{self.name} stacks the talon; use partner-stack for a hand")
        depths = LEGAL_DEPTHS if self.crimp_depth is None else (self.crimp_depth,)
        ops, cards, final, aim = runs_to_talon(before, goal, depths, self.moves, self.max_run)
        depth = aim if self.cut == "crimp" else int(rng.choice(LEGAL_DEPTHS))
        actions = ShuffleSequence(tuple(Action(op) for op in ops) + (cut_action(depth, goal.cutter),))
        expected = tuple((p - aim) % N for p in final)
        note = (f"crimp at {aim}: the cut is forced there" if self.cut == "crimp"
                else f"aimed at a cut of {aim}; the honest cut fell at {depth}")
        return make_plan(self.name, before, actions, cards, expected, note=note)


@dataclass(frozen=True)
class PartnerStack(Technique):
    """Plain runs place the goal's cards on the partner's deal positions; the partner, cutting, cuts where agreed.

    The deal goes by two round three hands, so a hand's places come in pairs six apart (two cards times three
    hands): the runs step down the deck in that rhythm. Which of the partner's ten places get the cards is chosen
    to need the fewest runs.
    """

    agreed_depth: int = 11

    def plan(self, gathered_order, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        if goal.receiver is None:
            raise TrickError(f"{self.name} stacks a partner's hand; name the hand in the goal")
        places = precut(goal.places(), self.agreed_depth)
        best = None
        for chosen in combinations(places, goal.count):
            runs = place_by_runs(before, goal.cards, chosen)
            if best is None or len(runs) < len(best[0]):
                best = (runs, chosen)
        runs, chosen = best
        actions = ShuffleSequence(tuple(Action(op) for op in runs) + (cut_action(self.agreed_depth, goal.cutter),))
        stacked = before[ShuffleSequence(tuple(Action(op) for op in runs)).permutation(N)]
        cards = tuple(int(stacked[p]) for p in chosen)
        expected = tuple((p - self.agreed_depth) % N for p in chosen)
        return make_plan(self.name, before, actions, cards, expected, note=f"the partner cuts at {self.agreed_depth}")

    def table_goal(self, dealer: int, seats: int, cutter: int | None, partner: int | None) -> Goal:
        if partner is None:
            raise TrickError(f"{self.name} needs a partner seat at the table")
        hand = (partner - dealer - 1) % seats
        if hand >= 3:
            raise TrickError(f"the partner (seat {partner}) sits out when seat {dealer} deals")
        return Goal(ACES, 3, hand, cutter)
