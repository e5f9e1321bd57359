"""Stacking by card-by-card runs: aces into the talon (runs or arrows, a crimped or an open cut), or into a
partner's hand (card-by-card runs, or the overhand run-up: cards run singly in the deal's rhythm).

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
from fairdeal.shuffle.ops import Action, Overhand, Run, ShuffleOp, ShuffleSequence
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


def runs_to_talon(
    before: np.ndarray, goal: Goal, depths: tuple[int, ...], kind: str, max_run: int
) -> tuple[list[ShuffleOp], tuple[int, ...], tuple[int, ...], int]:
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

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        if goal.receiver is not None:
            raise TrickError(f"{self.name} stacks the talon; use partner-stack for a hand")
        depths = LEGAL_DEPTHS if self.crimp_depth is None else (self.crimp_depth,)
        ops, cards, final, aim = runs_to_talon(before, goal, depths, self.moves, self.max_run)
        depth = aim if self.cut == "crimp" else int(rng.choice(LEGAL_DEPTHS))
        actions = ShuffleSequence(tuple(Action(op) for op in ops) + (cut_action(depth, goal.cutter),))
        expected = tuple((p - aim) % N for p in final)
        note = (
            f"crimp at {aim}: the cut is forced there"
            if self.cut == "crimp"
            else f"aimed at a cut of {aim}; the honest cut fell at {depth}"
        )
        return make_plan(self.name, before, actions, cards, expected, note=note)


@dataclass(frozen=True)
class PartnerHand(Technique):
    """A technique that fills the partner's hand; the partner (the right-hand neighbour) cuts where agreed."""

    agreed_depth: int = 11

    @property
    def receives_partner(self) -> bool:
        return True

    def table_goal(self, dealer: int, seats: int, cutter: int | None, partner: int | None) -> Goal:
        """Three aces into the hand the partner receives when ``dealer`` deals."""
        if partner is None:
            raise TrickError(f"{self.name} needs a partner seat at the table")
        hand = (partner - dealer - 1) % seats
        if hand >= 3:
            raise TrickError(f"the partner (seat {partner}) sits out when seat {dealer} deals")
        return Goal(ACES, 3, hand, cutter)

    def checked(self, gathered_order: np.ndarray, goal: Goal) -> np.ndarray:
        """The gathered order, once the goal is known to name a hand."""
        if goal.receiver is None:
            raise TrickError(f"{self.name} stacks a partner's hand; name the hand in the goal")
        return check_gathered(gathered_order)


@dataclass(frozen=True)
class PartnerStack(PartnerHand):
    """Plain runs place the goal's cards on the partner's deal positions; the partner, cutting, cuts where agreed.

    The deal goes by two round three hands, so a hand's places come in pairs six apart (two cards times three
    hands): the runs step down the deck in that rhythm. Which of the partner's ten places get the cards is chosen
    to need the fewest runs.
    """

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = self.checked(gathered_order, goal)
        places = precut(goal.places(), self.agreed_depth)
        best: tuple[list[Run], tuple[int, ...]] | None = None
        for chosen in combinations(places, goal.count):
            runs = place_by_runs(before, goal.cards, chosen)
            if best is None or len(runs) < len(best[0]):
                best = (runs, chosen)
        assert best is not None  # a hand has at least ``goal.count`` places
        runs, chosen = best
        actions = ShuffleSequence(tuple(Action(op) for op in runs) + (cut_action(self.agreed_depth, goal.cutter),))
        stacked = before[ShuffleSequence(tuple(Action(op) for op in runs)).permutation(N)]
        cards = tuple(int(stacked[p]) for p in chosen)
        expected = tuple((p - self.agreed_depth) % N for p in chosen)
        return make_plan(self.name, before, actions, cards, expected, note=f"the partner cuts at {self.agreed_depth}")


def singles(count: int) -> Overhand:
    """``overhand 1,1,...,1``: ``count`` cards run singly into the left hand, the rest thrown on top — the top
    ``count`` cards end reversed under the rest."""
    return Overhand((1,) * count)


def run_up(
    before: np.ndarray, cards: tuple[int, ...], offsets: tuple[int, ...], first_place: int, depth: int
) -> list[Overhand]:
    """Overhand shuffles after which ``cards[i]`` lies ``offsets[i]`` places after ``cards[0]`` and a cut of
    ``depth`` brings ``cards[0]`` to ``first_place`` (see ``PartnerRunUp``)."""
    order = [int(c) for c in before]
    ops: list[Overhand] = []
    pointer = 0  # the deck's top, as an index into ``order`` read cyclically

    def where(card: int) -> int:
        return (order.index(card) - pointer) % N

    def shuffle_off(count: int) -> None:  # one packet of ``count`` under the rest: the top moves on
        nonlocal pointer
        if count % N:
            ops.append(Overhand((count % N,)))
            pointer = (pointer + count) % N

    def run_singly(count: int) -> None:  # the arc of ``count`` cards at the top reversed, the top past it
        nonlocal pointer
        if count > 1:
            arc = [(pointer + i) % N for i in range(count)]
            values = [order[i] for i in arc]
            for i, v in zip(arc, reversed(values)):
                order[i] = v
        if count:
            ops.append(singles(count))
            pointer = (pointer + count) % N

    for i in range(1, len(cards)):
        shuffle_off(where(cards[0]) + offsets[i - 1] + 1)  # the top just after the last card placed
        gap = offsets[i] - offsets[i - 1] - 1  # cards to lie between it and the next
        j = where(cards[i])
        room = N - offsets[i - 1] - 1  # the cards above the placed arc
        if j + gap + 1 > room:
            run_singly(j + 1)  # the card to the front of the arc first
            shuffle_off(N - (j + 1))
            j = 0
        run_singly(j + gap + 1)
    shuffle_off(where(cards[0]) - (first_place + depth) % N)
    return ops


@dataclass(frozen=True)
class PartnerRunUp(PartnerHand):
    """The overhand run-up: cards run singly put the chosen cards on the partner's places, counted in the deal's
    rhythm; the partner, cutting, cuts where agreed.

    The procedure, every move an overhand shuffle as an observer writes it (``shuffle/ops.Overhand``):
    ``overhand x`` takes one packet of x cards and throws the rest on top (the packet goes under: the deck is
    turned, its cyclic order kept); ``overhand 1,1,...,1`` runs k cards singly and throws the rest on top (the k
    cards go under, reversed). Read as a circle, the first moves nothing and the second reverses k cards in
    place. The first chosen card is the anchor; each next card must lie as many places after it as the
    partner's places lie apart in the deal — by two to three hands a hand's pairs come round every 6 cards
    (two cards times three hands; 8 in the first round, which passes the talon). With the top just after the
    card placed last, running ``j + gap + 1`` singly turns the card at depth ``j`` to depth ``gap``: ``gap``
    cards, two for each other hand, lie between them. A card too deep for that is first run to the front. A last
    ``overhand x`` sets the top so that the partner's agreed cut brings the anchor onto his first chosen place.
    The log shows only overhands with many singles and the agreed cut.
    """

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = self.checked(gathered_order, goal)
        chosen = tuple(int(c) for c in rng.permutation(np.array(goal.cards))[: goal.count])
        best: tuple[list[Overhand], tuple[int, ...]] | None = None
        for places in combinations(sorted(int(p) for p in goal.places()), goal.count):
            offsets = tuple(p - places[0] for p in places)
            ops = run_up(before, chosen, offsets, places[0], self.agreed_depth)
            if best is None or len(ops) < len(best[0]):
                best = (ops, places)
        assert best is not None  # a hand has at least ``goal.count`` places
        ops, places = best
        actions = ShuffleSequence(tuple(Action(op) for op in ops) + (cut_action(self.agreed_depth, goal.cutter),))
        singles_run = sum(len(op.packets or ()) for op in ops if len(op.packets or ()) > 1)
        return make_plan(
            self.name,
            before,
            actions,
            chosen,
            places,
            note=f"{len(ops)} overhand shuffles, {singles_run} cards run singly; the partner cuts at "
            f"{self.agreed_depth}",
        )
