"""Deal patterns: which receiver (a hand or a talon) gets the card at each deck position.

Positions count from the top of the deck (the back side, seed 004: «Нумерация карт начинается с верха колоды»),
starting at 0. Hand 0 is the first hand, the player left of the dealer; hands follow clockwise. A pattern knows
nothing about seats: the seat helpers below map hand indices to table seats for a given dealer, so the same
3-hand pattern serves 3, 4 and 5 players (the dealer, and at five one more player, sit out; seeds 000, 003). A hand
no seat holds is Gusarik's dummy or, at the 19th-century table of two, the third hand laid aside unseen.

A pattern keeps its receivers as ints and makes its arrays when first asked; numpy is imported by the functions
that deal arrays, not by this module: the engine's replay of a game record runs without numpy in the offline
verifier page (Pyodide, the standard library only).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING

from fairdeal.cards import DeckKind, check_order
from fairdeal.errors import CardError, DealError

if TYPE_CHECKING:
    import numpy as np

# A step of a deal: ``("hands", k)`` gives k cards to every hand in turn; ``("talon", j, k)`` puts k cards on talon j.
Step = tuple[str, int] | tuple[str, int, int]


@dataclass(frozen=True)
class DealPattern:
    """Who receives each deck position; ``receivers[i]`` is a hand index, or ``hands + j`` for talon j."""

    name: str
    deck: DeckKind
    hands: int
    talons: int
    receivers: tuple[int, ...] = field(compare=False, repr=False)
    description: str = ""
    seed: str = ""
    table_sizes: tuple[int, ...] = (3,)  # how many players may sit at a table dealt this way
    dummy_hand: int | None = None  # a hand dealt to nobody at the table (Gusarik's dummy, «болван»)
    aside_hand: int | None = None  # a hand dealt face down, never opened and never played (rule 6, 003)

    @cached_property
    def targets(self) -> np.ndarray:
        """``receivers`` as a read-only ``uint8`` array."""
        import numpy as np

        array = np.array(self.receivers, dtype=np.uint8)
        array.setflags(write=False)
        return array

    @cached_property
    def cards_per_hand(self) -> int:
        return self.receivers.count(0)

    @cached_property
    def talon_size(self) -> int:
        return self.receivers.count(self.hands) if self.talons else 0

    @cached_property
    def hand_positions(self) -> np.ndarray:
        """``(hands, cards_per_hand)`` deck positions in the order each hand receives them."""
        return _positions_by_receiver(self.targets, range(self.hands))

    @cached_property
    def talon_positions(self) -> np.ndarray:
        """``(talons, talon_size)`` deck positions in the order each talon receives them."""
        return _positions_by_receiver(self.targets, range(self.hands, self.hands + self.talons)).reshape(
            self.talons, self.talon_size
        )

    @cached_property
    def player_hands(self) -> tuple[int, ...]:
        """Hand indices held by players at the table (all but the dummy and the hand laid aside), first hand
        first."""
        return tuple(h for h in range(self.hands) if h not in (self.dummy_hand, self.aside_hand))

    @cached_property
    def seat_lists(self) -> int:
        """How many hand lists a deal by seat has beyond the seats: the dummy's, the hand laid aside."""
        return self.hands - len(self.player_hands)


@dataclass(frozen=True)
class Deal:
    """The cards each hand and each talon received, in the order received (``uint8`` codes)."""

    hands: tuple[np.ndarray, ...]
    talons: tuple[np.ndarray, ...]


def _positions_by_receiver(targets: np.ndarray, receivers: range) -> np.ndarray:
    import numpy as np

    rows = [np.flatnonzero(targets == r) for r in receivers]
    if not rows:
        return np.zeros((0, 0), dtype=np.intp)
    return np.stack(rows)


def build_pattern(
    name: str,
    deck: DeckKind,
    hands: int,
    talons: int,
    steps: Sequence[Step],
    *,
    description: str,
    seed: str,
    table_sizes: tuple[int, ...] = (3,),
    dummy_hand: int | None = None,
) -> DealPattern:
    """Build a pattern from dealing steps and check that it deals the whole deck evenly."""
    targets: list[int] = []
    for step in steps:
        if step[0] == "hands":
            for hand in range(hands):
                targets.extend([hand] * step[1])
        elif step[0] == "talon" and len(step) == 3:
            targets.extend([hands + step[1]] * step[2])
        else:
            raise DealError(f"pattern {name}: unknown step {step!r}")
    pattern = DealPattern(name, deck, hands, talons, tuple(targets), description, seed, table_sizes, dummy_hand)
    _check_pattern(pattern)
    return pattern


def _check_pattern(pattern: DealPattern) -> None:
    where = f"pattern {pattern.name}"
    if len(pattern.receivers) != pattern.deck.size:
        raise DealError(
            f"{where} deals {len(pattern.receivers)} cards, the {pattern.deck.value} deck has {pattern.deck.size}"
        )
    tally = Counter(pattern.receivers)
    if not set(tally) <= set(range(pattern.hands + pattern.talons)):
        raise DealError(f"{where} names a receiver beyond its {pattern.hands} hands and {pattern.talons} talons")
    counts = [tally[r] for r in range(pattern.hands + pattern.talons)]
    if len(set(counts[: pattern.hands])) != 1 or (pattern.talons and len(set(counts[pattern.hands :])) != 1):
        raise DealError(f"{where}: hands (or talons) would receive unequal numbers of cards: {counts}")


def russian_pattern(talon_after_round: int = 1) -> DealPattern:
    """Three hands by two, the talon's two cards after round ``talon_after_round`` (1..4: never first, never last)."""
    if not 1 <= talon_after_round <= RUSSIAN_ROUNDS - 1:
        raise DealError(
            f"the talon goes after round 1..{RUSSIAN_ROUNDS - 1} of {RUSSIAN_ROUNDS} "
            f"(«прикуп же кладется не в первую и не в последнюю очередь», seed 000), got {talon_after_round}"
        )
    steps: list[Step] = [("hands", 2)] * talon_after_round + [("talon", 0, 2)]
    steps += [("hands", 2)] * (RUSSIAN_ROUNDS - talon_after_round)
    first = 6 * talon_after_round + 1
    name = "russian" if talon_after_round == 1 else f"russian-talon-after-round-{talon_after_round}"
    return build_pattern(
        name,
        DeckKind.PIQUET32,
        3,
        1,
        steps,
        description=f"by two to three hands, the talon gets positions {first}-{first + 1} (1-based)",
        seed="004" if talon_after_round == 1 else "000",
        table_sizes=(3, 4, 5),
    )


RUSSIAN_ROUNDS = 5  # five rounds of two cards make a hand of ten


def _austrian() -> DealPattern:
    return build_pattern(
        "austrian",
        DeckKind.PIQUET32,
        3,
        1,
        [("hands", 3), ("talon", 0, 2), ("hands", 4), ("hands", 3)],
        description="three each, two to the talon, four each, three each",
        seed="003",
        table_sizes=(3, 4),
    )


def _croatian() -> DealPattern:
    return build_pattern(
        "croatian",
        DeckKind.PIQUET32,
        3,
        1,
        [("hands", 5), ("talon", 0, 2), ("hands", 5)],
        description="five each, two to the talon, five each",
        seed="003",
        table_sizes=(3, 4),
    )


def _hussar() -> DealPattern:
    # Seeds 000/001 say only "ten each, two talons of two at the sides". We read it with the common rule of 000
    # (by two, a talon never first and never last): talon 0 after the first round, talon 1 after the second.
    steps: list[Step] = [("hands", 2), ("talon", 0, 2), ("hands", 2), ("talon", 1, 2), *[("hands", 2)] * 3]
    return build_pattern(
        "hussar",
        DeckKind.HUSSAR24,
        2,
        2,
        steps,
        description="24 cards by two to two hands; talon 0 (first hand's) after round 1, talon 1 after round 2",
        seed="000, 001",
        table_sizes=(2,),
    )


def _laid_aside() -> DealPattern:
    # 003, 19th-century rules 6, 13: «Если играют вдвоём, то карты сдаются, как обыкновенно, на три руки, но на
    # третью руку они кладутся отдельно и не вскрываются до окончания игры».
    base = russian_pattern(1)
    return DealPattern(
        "russian-two",
        base.deck,
        base.hands,
        base.talons,
        base.receivers,
        "two players: dealt by two as for three, the third hand laid aside face down and never opened",
        "003",
        table_sizes=(2,),
        aside_hand=2,
    )


def _gusarik() -> DealPattern:
    base = russian_pattern(1)
    return DealPattern(
        "gusarik",
        base.deck,
        base.hands,
        base.talons,
        base.receivers,
        "two players: dealt as for three, the dummy («болван») is always first hand",
        "003",
        table_sizes=(2,),
        dummy_hand=0,
    )


def _make_patterns() -> dict[str, DealPattern]:
    patterns = [russian_pattern(r) for r in range(1, RUSSIAN_ROUNDS)]
    patterns += [_austrian(), _croatian(), _hussar(), _gusarik(), _laid_aside()]
    return {p.name: p for p in patterns}


PATTERNS: Mapping[str, DealPattern] = MappingProxyType(_make_patterns())

_ROUND_NAME = re.compile(r"russian-talon-after-round-(\d+)")


def get_pattern(name: str) -> DealPattern:
    """The pattern called ``name``; a ``DealError`` lists the known names."""
    key = name.strip().lower()
    if key in PATTERNS:
        return PATTERNS[key]
    match = _ROUND_NAME.fullmatch(key)
    if match:
        return russian_pattern(int(match.group(1)))
    raise DealError(f"unknown deal pattern {name!r}; known patterns: {', '.join(PATTERNS)}")


def deal_order(order: np.ndarray, pattern: DealPattern) -> Deal:
    """Deal one deck order (top first) by ``pattern``."""
    codes = _checked_order(order, pattern)
    return Deal(
        hands=tuple(codes[row] for row in pattern.hand_positions),
        talons=tuple(codes[row] for row in pattern.talon_positions),
    )


def deal_batch(orders: np.ndarray, pattern: DealPattern) -> tuple[np.ndarray, np.ndarray]:
    """Deal ``m`` orders at once: ``(m, hands, cards_per_hand)`` and ``(m, talons, talon_size)`` arrays."""
    import numpy as np

    batch = np.asarray(orders)
    if batch.ndim != 2 or batch.shape[1] != pattern.deck.size:
        raise DealError(
            f"a batch of {pattern.deck.value} orders must have shape (m, {pattern.deck.size}), got {batch.shape}"
        )
    return batch[:, pattern.hand_positions], batch[:, pattern.talon_positions]


def positions_of(deal: Deal, pattern: DealPattern) -> np.ndarray:
    """The deck order a deal came from: the inverse of ``deal_order``."""
    import numpy as np

    _check_shape(deal, pattern)
    order = np.zeros(pattern.deck.size, dtype=np.uint8)
    for row, cards in zip(pattern.hand_positions, deal.hands):
        order[row] = cards
    for row, cards in zip(pattern.talon_positions, deal.talons):
        order[row] = cards
    try:
        check_order(order, pattern.deck)
    except CardError as exc:
        raise DealError(f"these hands and talons are not one {pattern.deck.value} deck: {exc}") from None
    return order


def _checked_order(order: np.ndarray, pattern: DealPattern) -> np.ndarray:
    import numpy as np

    codes = np.asarray(order, dtype=np.uint8)
    try:
        check_order(codes, pattern.deck)
    except CardError as exc:
        raise DealError(f"cannot deal by {pattern.name}: {exc}") from None
    return codes


def _check_shape(deal: Deal, pattern: DealPattern) -> None:
    if len(deal.hands) != pattern.hands or len(deal.talons) != pattern.talons:
        raise DealError(
            f"pattern {pattern.name} deals {pattern.hands} hands and {pattern.talons} talons, "
            f"got {len(deal.hands)} and {len(deal.talons)}"
        )
    for kind, parts, size in (("hand", deal.hands, pattern.cards_per_hand), ("talon", deal.talons, pattern.talon_size)):
        for index, cards in enumerate(parts):
            if len(cards) != size:
                raise DealError(f"{kind} {index} must hold {size} cards, got {len(cards)}")


# Seats: 0..num_seats-1 clockwise; the first hand sits left of (after) the dealer.


def hand_index_to_seat(hand_index: int, dealer: int, num_seats: int, active_count: int) -> int:
    """The seat that receives player hand ``hand_index`` (0 = first hand) when ``active_count`` players take part."""
    _check_table(dealer, num_seats, active_count)
    if not 0 <= hand_index < active_count:
        raise DealError(f"hand index {hand_index} is outside 0..{active_count - 1}")
    return (dealer + 1 + hand_index) % num_seats


def seat_to_hand_index(seat: int, dealer: int, num_seats: int, active_count: int) -> int | None:
    """The hand index ``seat`` holds, or ``None`` when the seat sits out this hand."""
    _check_table(dealer, num_seats, active_count)
    if not 0 <= seat < num_seats:
        raise DealError(f"seat {seat} is outside 0..{num_seats - 1}")
    index = (seat - dealer - 1) % num_seats
    return index if index < active_count else None


def active_seats(dealer: int, num_seats: int, active_count: int) -> tuple[int, ...]:
    """Seats that are dealt a hand, from first hand clockwise (at 4 players the dealer sits out)."""
    return tuple(hand_index_to_seat(i, dealer, num_seats, active_count) for i in range(active_count))


def seats_of_hands(pattern: DealPattern, dealer: int, num_seats: int) -> tuple[int | None, ...]:
    """For each hand of ``pattern`` the seat holding it, ``None`` for the dummy and the hand laid aside."""
    if num_seats not in pattern.table_sizes:
        sizes = ", ".join(map(str, pattern.table_sizes))
        raise DealError(f"pattern {pattern.name} is for tables of {sizes} players, not {num_seats}")
    players = pattern.player_hands
    seats = dict(zip(players, active_seats(dealer, num_seats, len(players))))
    return tuple(seats.get(h) for h in range(pattern.hands))


def _check_table(dealer: int, num_seats: int, active_count: int) -> None:
    if not 1 <= active_count <= num_seats:
        raise DealError(f"{active_count} active players do not fit a table of {num_seats}")
    if not 0 <= dealer < num_seats:
        raise DealError(f"dealer seat {dealer} is outside 0..{num_seats - 1}")


def deal_by_seat(deal: Deal, pattern: DealPattern, dealer: int, num_seats: int) -> tuple[np.ndarray, ...]:
    """The deal's hands in seat order (empty for a seat that sits out), then the dummy's hand or the hand laid
    aside if the pattern has one."""
    import numpy as np

    seats = seats_of_hands(pattern, dealer, num_seats)
    by_seat = [np.zeros(0, dtype=np.uint8) for _ in range(num_seats)]
    extra: list[np.ndarray] = []
    for hand, seat in enumerate(seats):
        if seat is None:
            extra.append(deal.hands[hand])
        else:
            by_seat[seat] = deal.hands[hand]
    return tuple(by_seat + extra)


def deal_from_seats(
    seat_hands: Sequence[np.ndarray], talons: Sequence[np.ndarray], pattern: DealPattern, dealer: int, num_seats: int
) -> Deal:
    """The inverse of ``deal_by_seat``: hands back in hand-index order."""
    import numpy as np

    seats = seats_of_hands(pattern, dealer, num_seats)
    expected = num_seats + pattern.seat_lists
    if len(seat_hands) != expected:
        raise DealError(
            f"expected {expected} seat hands (the dummy or the hand laid aside last, if any), got {len(seat_hands)}"
        )
    hands = [np.asarray(seat_hands[num_seats] if seat is None else seat_hands[seat], dtype=np.uint8) for seat in seats]
    return Deal(tuple(hands), tuple(np.asarray(t, dtype=np.uint8) for t in talons))
