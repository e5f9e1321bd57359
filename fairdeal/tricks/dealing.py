"""Tricks done while dealing: the shuffle is fair and logged, but the cards do not go out in the deck's order.

The dealer knows the order after the cut (he gathered the tricks and saw every action), so he knows where the
aces are. A bottom deal sends a card from the bottom; a second deal holds the top card back and deals the one
under it; a switched talon exchanges a talon card for a card dealt to a hand. The log's deal then differs from
the replay of its own shuffle — the auditor's replay sees it in the first hand it is done.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from fairdeal.errors import TrickError
from fairdeal.tricks.base import Technique
from fairdeal.tricks.honest import HonestDealer
from fairdeal.tricks.plan import DECK_SIZE, RUSSIAN, Goal, TrickPlan, check_gathered, make_plan, replayed

TALON_FIRST = int(RUSSIAN.talon_positions[0, 0])
TALON_PLACES = tuple(int(p) for p in RUSSIAN.talon_positions[0])


def _is_target(order: np.ndarray, goal: Goal) -> np.ndarray:
    return np.isin(order, goal.cards)


def _check(name: str, goal: Goal) -> None:
    if goal.receiver is not None:
        raise TrickError(f"{name} sends cards to the talon, not to a hand")


@dataclass(frozen=True)
class DealTimeTrick(Technique):
    """A fair cover shuffle from ``cover``; ``rearrange`` says how the cards really go out."""

    cover: HonestDealer = HonestDealer()
    deal_time: bool = True

    def plan(self, gathered_order: np.ndarray, goal: Goal, rng: np.random.Generator) -> TrickPlan:
        before = check_gathered(gathered_order)
        _check(self.name, goal)
        actions = self.cover.shuffle(rng, DECK_SIZE, goal.cutter)
        after = replayed(before, actions)
        dealt, cards, places, note = self.rearrange(after, goal)
        return make_plan(self.name, before, actions, cards, places, dealt_order=dealt, note=note)

    @abc.abstractmethod
    def rearrange(self, after: np.ndarray, goal: Goal) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...], str]:
        """The order the cards really go out in, the aimed cards, their places in it, and a note."""


@dataclass(frozen=True)
class BottomDeal(DealTimeTrick):
    """An ace among the bottom two cards goes to the talon by bottom deals (the card under it first, if needed)."""

    def rearrange(self, after: np.ndarray, goal: Goal) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...], str]:
        bottom = np.flatnonzero(_is_target(after[-2:], goal))
        if not len(bottom):
            return after, (), (), "no ace among the bottom two cards: dealt fairly"
        if bottom[-1] == 1:  # the very bottom card: one bottom deal, as the first talon card
            card = after[-1]
            dealt = np.concatenate([after[:TALON_FIRST], after[-1:], after[TALON_FIRST:-1]])
            return dealt, (int(card),), (TALON_FIRST,), "the bottom card dealt as the first talon card"
        card = after[-2]  # second from the bottom: the bottom card goes to the hand before
        dealt = np.concatenate([after[: TALON_FIRST - 1], after[-1:], after[-2:-1], after[TALON_FIRST - 1 : -2]])
        return dealt, (int(card),), (TALON_FIRST,), "two bottom deals: the last hand card, then the talon card"


@dataclass(frozen=True)
class SecondDeal(DealTimeTrick):
    """An ace among the cards dealt before the talon is held on top (seconds dealt under it) until the talon."""

    def rearrange(self, after: np.ndarray, goal: Goal) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...], str]:
        early = np.flatnonzero(_is_target(after[:TALON_FIRST], goal))
        if not len(early):
            return after, (), (), f"no ace among the first {TALON_FIRST} cards: dealt fairly"
        held = int(early[0])
        card = after[held]
        rest = np.delete(after, held)
        dealt = np.insert(rest, TALON_FIRST, card)
        return dealt, (int(card),), (TALON_FIRST,), f"card {held + 1} held back, {TALON_FIRST - held} seconds dealt"


@dataclass(frozen=True)
class SwitchedTalon(DealTimeTrick):
    """A talon card without an ace is switched for an ace dealt to a hand (the hand gets the talon card)."""

    def rearrange(self, after: np.ndarray, goal: Goal) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...], str]:
        aimed = _is_target(after, goal)
        plain = [p for p in TALON_PLACES if not aimed[p]]
        elsewhere = [p for p in np.flatnonzero(aimed) if p not in TALON_PLACES]
        if not plain or not elsewhere:
            return after, (), (), "the talon is already full of aces: nothing to switch"
        place, source = plain[0], int(elsewhere[0])
        dealt = after.copy()
        dealt[[place, source]] = dealt[[source, place]]
        return dealt, (int(after[source]),), (place,), f"talon card {place + 1} switched with card {source + 1}"
