"""What a cardsharp wants (a ``Goal``) and what he does to get it (a ``TrickPlan``).

A plan is always told through the shuffle notation: ``deck_after`` is computed from ``actions`` by the ordinary
shuffle algebra (``before[actions.permutation(n)]``), so it is exactly what the auditor's replay of the log gives.
``dealt_order`` is the order the cards really went out in: the same as ``deck_after`` except for the deal-time
tricks (bottom deal, second deal, switched talon), where the difference is the trick.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fairdeal.cards import Rank, format_cards, rank_of
from fairdeal.deal import Deal, DealPattern, deal_order, get_pattern
from fairdeal.errors import TrickError
from fairdeal.shuffle.ops import ShuffleSequence

RUSSIAN = get_pattern("russian")
DECK_SIZE = RUSSIAN.deck.size
ACES = tuple(int(c) for c in RUSSIAN.deck.codes() if rank_of(int(c)) == int(Rank.ACE))


@dataclass(frozen=True)
class Goal:
    """Put ``count`` cards of ``cards`` into a receiver: the talon (``receiver`` None) or hand ``receiver``
    (pattern order, 0 = first hand). ``cutter`` is the seat that cuts (None: the dealer cuts himself)."""

    cards: tuple[int, ...] = ACES
    count: int = 2
    receiver: int | None = None
    cutter: int | None = None

    def __post_init__(self) -> None:
        if not self.cards or len(set(self.cards)) != len(self.cards) or not all(0 <= c < DECK_SIZE for c in self.cards):
            raise TrickError(f"a goal names distinct cards of the {DECK_SIZE}-card deck, got {self.cards!r}")
        room = RUSSIAN.talon_size if self.receiver is None else RUSSIAN.cards_per_hand
        if not 1 <= self.count <= min(room, len(self.cards)):
            raise TrickError(
                f"a goal of {self.count} card(s) does not fit {self.where} ({room} places, "
                f"{len(self.cards)} cards named)"
            )
        if self.receiver is not None and not 0 <= self.receiver < RUSSIAN.hands:
            raise TrickError(f"hand {self.receiver} does not exist: the russian deal has hands 0..{RUSSIAN.hands - 1}")

    @property
    def where(self) -> str:
        return "the talon" if self.receiver is None else f"hand {self.receiver}"

    def places(self, pattern: DealPattern = RUSSIAN) -> np.ndarray:
        """The deck positions (after the whole shuffle, 0 = top) that deal to the receiver."""
        positions: np.ndarray = (
            pattern.talon_positions[0] if self.receiver is None else pattern.hand_positions[self.receiver]
        )
        return positions

    def describe(self) -> str:
        return f"{self.count} of {format_cards(self.cards)} into {self.where}"


@dataclass(frozen=True)
class TrickPlan:
    """One application of a technique to a known gathered order."""

    trick: str
    before: np.ndarray = field(compare=False)
    actions: ShuffleSequence
    deck_after: np.ndarray = field(compare=False)  # the replay of ``actions`` on ``before``
    dealt_order: np.ndarray = field(compare=False)  # the order the deal really followed
    deal: Deal = field(compare=False)
    targeted: tuple[int, ...]  # the cards the trick aimed
    expected_positions: tuple[int, ...]  # where in ``dealt_order`` they were meant to be
    note: str = ""

    @property
    def notation(self) -> str:
        return self.actions.notation()

    @property
    def hits(self) -> int:
        """How many targeted cards went out from the position the cheat meant for them."""
        return sum(int(self.dealt_order[p]) == c for c, p in zip(self.targeted, self.expected_positions))

    @property
    def achieved(self) -> bool:
        """Whether the trick was done (it aimed at some cards) and every aimed card landed where meant."""
        return bool(self.targeted) and self.hits == len(self.targeted)

    @property
    def deal_differs(self) -> bool:
        """True for a deal-time trick: the cards did not go out in the order the logged shuffle leaves."""
        return bool((self.dealt_order != self.deck_after).any())


def replayed(before: np.ndarray, actions: ShuffleSequence) -> np.ndarray:
    """The deck after ``actions``, by the shuffle algebra (what the auditor's replay computes)."""
    order = np.asarray(before, dtype=np.uint8)
    after: np.ndarray = order[actions.permutation(len(order))]
    return after


def make_plan(
    trick: str,
    before: np.ndarray,
    actions: ShuffleSequence,
    targeted: tuple[int, ...],
    expected: tuple[int, ...],
    dealt_order: np.ndarray | None = None,
    note: str = "",
) -> TrickPlan:
    """Build a plan whose deck after the shuffle is the replay of ``actions`` (never computed any other way)."""
    before = np.asarray(before, dtype=np.uint8)
    after = replayed(before, actions)
    dealt = after if dealt_order is None else np.asarray(dealt_order, dtype=np.uint8)
    if sorted(dealt.tolist()) != sorted(before.tolist()):
        raise TrickError(f"{trick}: the dealt order is not the same deck")
    return TrickPlan(
        trick,
        before,
        actions,
        after,
        dealt,
        deal_order(dealt, RUSSIAN),
        tuple(int(c) for c in targeted),
        tuple(int(p) for p in expected),
        note,
    )


def check_gathered(order: np.ndarray) -> np.ndarray:
    codes = np.asarray(order)
    if codes.shape != (DECK_SIZE,) or sorted(codes.tolist()) != list(range(DECK_SIZE)):
        raise TrickError(f"a gathered order must be the {DECK_SIZE} cards of the piquet deck, each once")
    return codes.astype(np.uint8)
