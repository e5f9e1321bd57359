"""The double-dummy solver's Python face: positions as frozen values, goals, batches over numpy arrays.

Seats are numbered in play order (0 → 1 → 2 → 0); a hand is a tuple of card codes. A value is the number of
tricks the counted seats take from the trick in progress on, under optimal play by everyone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from fairdeal.errors import FairdealError
from fairdeal.solver import _dds

Goal = Literal["tricks", "misere"]
GOALS: tuple[str, ...] = ("tricks", "misere")


class SolverError(FairdealError):
    """A position the solver cannot take: unequal hands, a card twice, a seat out of range."""


@dataclass(frozen=True)
class Position:
    """Cards still in hand, the trick in progress and the rules that govern it."""

    hands: tuple[tuple[int, ...], ...]  # per seat in play order (2 or 3 seats)
    leader: int  # the seat that led (or leads) the trick in progress
    current: tuple[int, ...] = ()  # cards already played to it, from the leader on
    trump: int | None = None
    must_overtake: bool = False  # head the trick when able (Austrian, Croatian)
    talon: tuple[int, ...] = ()  # raspasy: talon cards setting the suits of this and the next tricks
    talon_owner: bool = False  # four players: the talon card competes; its tricks are nobody's

    @property
    def seats(self) -> int:
        return len(self.hands)

    @property
    def to_play(self) -> int:
        return (self.leader + len(self.current)) % self.seats


@dataclass(frozen=True)
class Solution:
    value: int  # the counted seats' tricks from the trick in progress on (-1: cut off by the node limit)
    card_values: dict[int, int]  # each legal card of the seat to play -> the value after it
    nodes: int

    @property
    def complete(self) -> bool:
        return self.value >= 0

    def losses(self, maximiser: bool) -> dict[int, int]:
        """What each legal card gives away against the best one, from the side of the seat to play."""
        best = max(self.card_values.values()) if maximiser else min(self.card_values.values())
        return {c: abs(best - v) for c, v in self.card_values.items()}


def mask(cards: Sequence[int]) -> int:
    out = 0
    for c in cards:
        out |= 1 << int(c)
    return out


def sides(seats: int, declarer: int, goal: Goal) -> tuple[int, int]:
    """(counted seats, maximising seats) as bit masks: a game counts and maximises the declarer; in misère the
    declarer minimises his tricks and both others cooperate to raise them."""
    if not 0 <= declarer < seats:
        raise SolverError(f"declarer seat {declarer} is not one of 0..{seats - 1}")
    if goal not in GOALS:
        raise SolverError(f"unknown goal {goal!r}: use tricks or misere")
    count = 1 << declarer
    everyone = (1 << seats) - 1
    return count, (count if goal == "tricks" else everyone & ~count)


def solve(position: Position, count: int, maximisers: int, values: bool = False, node_limit: int = 0) -> Solution:
    """The value for the seats of ``count`` (a bit mask) when those of ``maximisers`` maximise it. A positive
    ``node_limit`` stops the search after that many nodes (the node count of a position is always the same) and
    returns an incomplete solution."""
    trump = -1 if position.trump is None else position.trump
    try:
        value, card_values, nodes = _dds.solve(
            tuple(mask(h) for h in position.hands),
            position.leader,
            position.current,
            trump,
            position.must_overtake,
            count,
            maximisers,
            position.talon,
            position.talon_owner,
            values,
            node_limit,
        )
    except (ValueError, TypeError, OverflowError) as exc:
        raise SolverError(f"cannot solve this position: {exc}") from None
    return Solution(value, card_values or {}, nodes)


def declarer_tricks(position: Position, declarer: int, goal: Goal = "tricks", values: bool = False) -> Solution:
    count, maximisers = sides(position.seats, declarer, goal)
    return solve(position, count, maximisers, values)


def raspasy_guarantees(position: Position) -> tuple[int, ...]:
    """Each seat's guaranteed tricks: the fewest it can hold itself to when the others conspire to load it."""
    return tuple(declarer_tricks(position, s, "misere").value for s in range(position.seats))


def solve_batch(
    hands: np.ndarray,
    leaders: np.ndarray,
    declarers: np.ndarray,
    trumps: np.ndarray,
    misere: np.ndarray,
    must_overtake: bool = False,
) -> np.ndarray:
    """Declarer tricks for many layouts at a trick boundary. ``hands`` is (N, seats) of uint32 card masks;
    ``trumps`` holds -1 for no trumps; ``misere`` is a boolean per layout."""
    hands = np.ascontiguousarray(hands, dtype=np.uint32)
    if hands.ndim != 2 or hands.shape[1] not in (2, 3):
        raise SolverError("hands must be an (N, 2) or (N, 3) array of card masks")
    rows, seats = hands.shape
    declarers = np.asarray(declarers, dtype=np.int64).reshape(rows)
    if ((declarers < 0) | (declarers >= seats)).any():
        raise SolverError(f"declarer seats must be 0..{seats - 1}")
    count = (1 << declarers).astype(np.uint8)
    everyone = (1 << seats) - 1
    maximisers = np.where(np.asarray(misere, dtype=bool).reshape(rows), everyone & ~count, count).astype(np.uint8)
    out = np.zeros(rows, dtype=np.int8)
    try:
        _dds.solve_batch(
            hands,
            np.ascontiguousarray(leaders, dtype=np.int8),
            np.ascontiguousarray(trumps, dtype=np.int8),
            count,
            maximisers,
            out,
            seats,
            must_overtake,
        )
    except ValueError as exc:
        raise SolverError(str(exc)) from None
    return out
