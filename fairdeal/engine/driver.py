"""Play one hand with bots: each bot is asked only with its own ``PlayerView``."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.cards import parse_cards
from fairdeal.deal import Deal, get_pattern
from fairdeal.engine.actions import Phase
from fairdeal.engine.bots import Bot
from fairdeal.engine.hand import apply, new_hand, to_move
from fairdeal.engine.state import HandState
from fairdeal.engine.view import actor_view
from fairdeal.errors import IllegalAction

if TYPE_CHECKING:
    from fairdeal.rules.convention import Convention

_DONE = Phase.DONE

# A hand takes at most: auction (each bid raises the ladder or passes), discard, contract, two defence calls,
# the open choice, 30 cards. 200 is far above any legal hand.
MAX_STEPS = 200


def random_deal(rng: np.random.Generator, convention: Convention | None = None, num_seats: int = 3) -> Deal:
    """A uniformly shuffled deck dealt by the convention's pattern for ``num_seats`` (default: piquet, Russian,
    talon = positions 7-8)."""
    name = convention.table.pattern_name(num_seats) if convention is not None else "russian"
    codes, positions, hands, talons = _dealing(name)
    dealt = rng.permutation(codes)[positions]  # a shuffled copy, read once in hand-then-talon order
    # ``deal_order`` without its check of the order: a permutation of the deck is one, and ``new_hand`` checks.
    return Deal(hands=tuple(dealt[cut] for cut in hands), talons=tuple(dealt[cut] for cut in talons))


@cache
def _dealing(pattern_name: str) -> tuple[np.ndarray, np.ndarray, tuple[slice, ...], tuple[slice, ...]]:
    """A pattern's deck codes, its hands' then talons' deck positions end to end, and where each hand and each
    talon lies in that row."""
    pattern = get_pattern(pattern_name)
    codes = pattern.deck.codes()
    codes.flags.writeable = False
    rows = [*pattern.hand_positions, *pattern.talon_positions]
    ends = np.cumsum([0, *map(len, rows)]).tolist()
    cuts = tuple(slice(start, end) for start, end in pairwise(ends))
    positions = np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)
    return codes, positions, cuts[: pattern.hands], cuts[pattern.hands :]


def deal_from_text(first: str, second: str, third: str, talon: str) -> Deal:
    """A deal written out by hand (``"AS KS 10H ..."``), hands from the first hand clockwise."""

    def codes(text: str) -> np.ndarray:
        return np.array([c.code for c in parse_cards(text)], dtype=np.uint8)

    return Deal(hands=(codes(first), codes(second), codes(third)), talons=(codes(talon),))


def play_hand(
    convention: Convention,
    num_seats: int,
    dealer: int,
    deal: Deal | None,
    bots: Sequence[Bot],
    raspasy_streak: int = 0,
    rng: np.random.Generator | None = None,
    opening_round: int = 0,
    refe_seats: frozenset[int] = frozenset(),
) -> HandState:
    """Play a hand to the end; ``bots[seat]`` acts for ``seat``. Without a ``deal``, ``rng`` shuffles one."""
    if deal is None:
        if rng is None:
            raise IllegalAction("play_hand needs a deal or an rng to shuffle one")
        deal = random_deal(rng, convention, num_seats)
    if len(bots) != num_seats:
        raise IllegalAction(f"play_hand needs one bot per seat ({num_seats}), got {len(bots)}")
    state = new_hand(convention, num_seats, dealer, deal, raspasy_streak, opening_round, refe_seats)
    while state.phase is not _DONE:  # ``is_over``, read once per action
        if state.steps >= MAX_STEPS:
            raise IllegalAction(f"the hand did not finish within {MAX_STEPS} actions")
        seat = to_move(state)
        assert seat is not None  # a hand that is not over has a seat to act
        state = apply(state, bots[seat].act(actor_view(state, seat)))
    return state
