"""Honest dealers: how a fair player shuffles, logged in the notation exactly as an observer would write it.

Two styles: ``riffle`` — several GSR riffles, each written with its split and full L/R pattern; ``runs`` — a few
card-by-card runs of random lengths (seed 004's "2", "4", ...). Either way the right-hand neighbour then cuts at
a uniform legal depth (at least four cards each side, the Codex of seed 002). The same code makes the cover
shuffle of a cheat who does his work at the deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fairdeal.errors import TrickError
from fairdeal.shuffle.models import CODEX_MIN_EACH_SIDE, gsr_riffle, random_cut
from fairdeal.shuffle.ops import Action, Actor, Cut, Run, ShuffleSequence

STYLES = ("riffle", "runs")
THOROUGH_RIFFLES = 6  # about where the separation distance of a 32-card deck falls below 1/2 (shuffle/theory.py)


def cut_action(depth: int, cutter: Actor) -> Action:
    """The cut, made by ``cutter`` (a seat) or by the dealer himself (None)."""
    return Action(Cut(depth), cutter)


def honest_cut(rng: np.random.Generator, n: int, cutter: Actor) -> Action:
    return Action(random_cut(rng, n, CODEX_MIN_EACH_SIDE), cutter)


@dataclass(frozen=True)
class HonestDealer:
    """A fair dealer's habit: the style, and how many riffles (or runs at most) he makes."""

    style: str = "riffle"
    riffles: int = THOROUGH_RIFFLES

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise TrickError(f"an honest dealer's style is one of {', '.join(STYLES)}, got {self.style!r}")
        if self.riffles < 1:
            raise TrickError(f"an honest dealer makes at least one riffle, got {self.riffles}")

    def shuffle(self, rng: np.random.Generator, n: int, cutter: Actor) -> ShuffleSequence:
        """One fair shuffle, then the cut by ``cutter``."""
        if self.style == "riffle":
            body = [Action(gsr_riffle(rng, n)) for _ in range(self.riffles)]
        else:
            sizes = rng.integers(2, 13, size=int(rng.integers(2, 6)))
            body = [Action(Run(int(k))) for k in sizes]
        return ShuffleSequence(tuple(body) + (honest_cut(rng, n, cutter),))
