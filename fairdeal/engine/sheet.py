"""The pulya sheet as a value: the lines written on it, the columns per seat, and when it is played out.

Every scoring method (the pulya, the Croatian countdown, the Austrian pot) writes on this one ``Sheet`` with these
``ScoreLine`` values; ``fairdeal.engine.scoring`` chooses the method and writes a hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from fairdeal.rules.convention import Convention

Column = Literal["pulya", "gora", "whists"]

# Extras of a hand line the sheet writes, not the hand's replay: Classic's bombs, the Croatian/19th-century columns
# and hat, the Austrian pot.
SHEET_EXTRAS = ("bomb", "multiplier", "bombs_earned", "columns", "hat", "pot")


def number(value: Fraction) -> int | float:
    """A sheet amount as a JSON number: whole amounts stay integers."""
    return int(value) if value.denominator == 1 else float(value)


@dataclass(frozen=True)
class ScoreLine:
    """One entry on the sheet: ``seat`` writes ``points`` in ``column`` (whists: ``on`` the seat written on)."""

    seat: int
    column: Column
    points: Fraction
    on: int | None = None

    def to_record(self) -> dict[str, Any]:
        """The log's ``score`` item; whole numbers stay integers."""
        points = int(self.points) if self.points.denominator == 1 else float(self.points)
        record: dict[str, Any] = {"seat": self.seat, "column": self.column, "points": points}
        if self.on is not None:
            record["on"] = self.on
        return record


@dataclass(frozen=True)
class Sheet:
    """The whole pulya sheet; ``whists[a][b]`` are the whists seat ``a`` has written on seat ``b``."""

    num_seats: int
    pulya: tuple[Fraction, ...]
    gora: tuple[Fraction, ...]
    whists: tuple[tuple[Fraction, ...], ...]
    raspasy_streak: int = 0
    hands: int = 0
    bombs: tuple[tuple[int, ...], ...] = ()  # Classic: per seat, the levels of the bombs still to play, in order
    first_closed: int | None = None  # the first seat whose pulya closed (the «скачки» premium)
    refe: tuple[int, ...] = ()  # Croatian: refes each seat holds («рефет»)
    refe_rounds: int = 0  # Croatian: all-pass hands that gave a refe so far

    def refe_seats(self) -> frozenset[int]:
        return frozenset(s for s, count in enumerate(self.refe) if count)

    def column(self, seat: int, start: int) -> Fraction:
        """Croatian: the contract column counted down from ``start`` (written-off pulya, added gora)."""
        return start - self.pulya[seat] + self.gora[seat]

    def next_bomb(self, seat: int) -> int:
        """The level of ``seat``'s next bomb (0 = none left)."""
        return self.bombs[seat][0] if self.bombs and self.bombs[seat] else 0

    def whist_balance(self, seat: int) -> Fraction:
        """Whists ``seat`` wrote on everyone minus whists everyone wrote on ``seat``."""
        return sum((self.whists[seat][o] - self.whists[o][seat] for o in range(self.num_seats)), Fraction(0))

    def apply(self, lines: tuple[ScoreLine, ...]) -> Sheet:
        """The sheet with ``lines`` added (the raspasy streak and hand count are left alone)."""
        pulya, gora = list(self.pulya), list(self.gora)
        whists = [list(row) for row in self.whists]
        for line in lines:
            if line.column == "pulya":
                pulya[line.seat] += line.points
            elif line.column == "gora":
                gora[line.seat] += line.points
            else:
                assert line.on is not None  # whists are written on a seat
                whists[line.seat][line.on] += line.points
        return replace(self, pulya=tuple(pulya), gora=tuple(gora), whists=tuple(tuple(r) for r in whists))


def new_sheet(convention: Convention, num_seats: int) -> Sheet:
    """An empty sheet for ``num_seats`` players of ``convention``."""
    convention.check_players(num_seats)
    zero = tuple(Fraction(0) for _ in range(num_seats))
    return Sheet(num_seats, zero, zero, tuple(zero for _ in range(num_seats)), bombs=((),) * num_seats)


def is_finished(sheet: Sheet, convention: Convention) -> bool:
    """Whether the pulya is played out: every pulya closed, or (Leningrad) their total reached size x players."""
    size = convention.pulya.size
    if convention.pulya.end == "total":
        return sum(sheet.pulya) >= size * sheet.num_seats
    if convention.pulya.end == "countdown":
        return sum(sheet.column(s, size) for s in range(sheet.num_seats)) <= 0
    if convention.pulya.end == "hands":  # the pot game: an evening of ``size`` deals
        return sheet.hands >= size
    return all(p >= size for p in sheet.pulya)
