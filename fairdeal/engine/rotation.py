"""Who deals each hand of a pulya, and which of Classic's opening raspasy rounds it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairdeal.rules.convention import Convention


def dealer_of(convention: Convention, index: int, first_dealer: int, num_seats: int) -> tuple[int, int]:
    """(dealer, opening round) of the hand at 0-based ``index``: the deal passes clockwise, but during Classic's
    opening raspasy each dealer deals ``opening_raspasy_rounds`` times in a row («сдача не переходила»), the k-th
    of them being opening round k."""
    rounds = convention.table.opening_raspasy_rounds
    if index < rounds * num_seats:
        return (first_dealer + index // rounds) % num_seats, index % rounds + 1
    return (first_dealer + index) % num_seats, 0


def first_dealer_from(convention: Convention, index: int, dealer: int, num_seats: int) -> int:
    """The first dealer of a pulya whose hand at 0-based ``index`` was dealt by ``dealer`` (``dealer_of`` inverted)."""
    rounds = convention.table.opening_raspasy_rounds
    steps = index // rounds if index < rounds * num_seats else index
    return (dealer - steps) % num_seats
