"""The common shape of a technique: a frozen value with its names, its sources and what the casebook says of it.

Each technique adds ``plan(gathered_order, goal, rng) -> TrickPlan`` and ``table_goal(dealer, seats, cutter,
partner)``: the goal it pursues at a simulated table.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from fairdeal.tricks.plan import ACES, Goal, TrickPlan


@dataclass(frozen=True)
class Technique(abc.ABC):
    name: str
    title: str
    source: str  # the seed or literature it comes from
    what: str  # what it does, in a few sentences
    leaves: str  # what it leaves in a log
    detector: str  # which detector of the auditor catches it
    deal_time: bool = False

    @abc.abstractmethod
    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        """The actions a cardsharp performs on this gathered order to reach ``goal``, and their result."""

    @property
    def receives_partner(self) -> bool:
        """Whether the trick fills a partner's hand (so naming the partner names the trick too)."""
        return False

    def describe_goal(self, goal: Goal) -> str:
        return goal.describe()

    def table_goal(self, dealer: int, seats: int, cutter: int | None, partner: int | None) -> Goal:
        """What the cheat pursues when he deals at a table: by default, two aces into the talon."""
        return Goal(ACES, 2, None, cutter)
