"""The final settlement of a pulya sheet in whists (seed 000, «пуля расписывается»).

Gora x10, the smallest gora subtracted from every gora (amnesty), the total shared equally, then each player's
pairwise whist balance added; Leningrad first moves the pulya differences to gora (seed 003). Amounts are exact
fractions, so they sum to exactly zero; ``Settlement.rounded`` gives whole whists that still sum to zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from fairdeal.engine.sheet import Sheet
from fairdeal.errors import ScoringError
from fairdeal.rules.convention import Convention


@dataclass(frozen=True)
class SettlementRow:
    """How one seat's amount is made up (all in whists except ``gora``)."""

    seat: int
    gora: Fraction  # gora on the sheet
    pulya_adjustment: Fraction  # Leningrad: added to gora at the end (negative = written off)
    gora_after_amnesty: Fraction  # (gora + adjustment) x multiplier - the smallest such value
    gora_part: Fraction  # what the gora share brings (+ for a small gora)
    whist_balance: Fraction  # whists written on others - whists written on this seat
    amount: Fraction  # gora_part + whist_balance + premiums
    premiums: Fraction = Fraction(0)  # «игра со скачками»: premiums received minus premiums paid


@dataclass(frozen=True)
class Settlement:
    rows: tuple[SettlementRow, ...]

    @property
    def amounts(self) -> tuple[Fraction, ...]:
        return tuple(row.amount for row in self.rows)

    def rounded(self) -> tuple[int, ...]:
        """Whole whists summing to zero: floor every amount, then give the missing units to the largest
        fractional parts (ties to the lower seat)."""
        floors = [math.floor(a) for a in self.amounts]
        missing = -sum(floors)
        by_fraction = sorted(range(len(floors)), key=lambda s: (-(self.amounts[s] - floors[s]), s))
        for seat in by_fraction[:missing]:
            floors[seat] += 1
        return tuple(floors)


def moves_pulya_differences(convention: Convention) -> bool:
    """Whether the settlement itself turns pulya differences into gora (``pulya_adjustments``)."""
    return convention.pulya.end in ("total", "countdown", "hands")


def pulya_adjustments(sheet: Sheet, convention: Convention) -> tuple[Fraction, ...]:
    """Leningrad (003): «Тот, кто не доиграл до среднего арифметического, выносит на гору двойную разницу ...
    Тот, кто переиграл, списывает свою разницу с горы — тоже вдвойне»; Croatian («Привести колонку контрактов
    к нулю ... Делим это число на количество игроков») and the Austrian pot (taken less paid in, the pot left
    shared equally) the same with factor one. Zero under the other conventions."""
    if not moves_pulya_differences(convention):
        return tuple(Fraction(0) for _ in range(sheet.num_seats))
    average = Fraction(sum(sheet.pulya), sheet.num_seats)
    factor = convention.pulya.pulya_difference_factor
    return tuple(factor * (average - p) for p in sheet.pulya)


def gora_parts(gora: tuple[Fraction, ...], convention: Convention) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """(gora after x10 and amnesty, the whists each seat gets from the gora) for the convention's mode."""
    scaled = [g * convention.pulya.gora_multiplier for g in gora]
    smallest = min(scaled)
    amnestied = tuple(g - smallest for g in scaled)
    n = len(gora)
    average = Fraction(sum(amnestied), n)
    if convention.pulya.gora_settlement == "shared":
        parts = tuple(average - g for g in amnestied)
    else:
        # Gusarik (003): each pair settles its gora difference in full: sum over others of (their gora - mine).
        parts = tuple(n * (average - g) for g in amnestied)
    return amnestied, parts


def premiums(sheet: Sheet, convention: Convention) -> tuple[Fraction, ...]:
    """003 Классика, «Игра со скачками»: every other player pays the premium to the first to close his pulya and
    to the one with the least gora (tied winners share it). Zero-sum by construction."""
    n = sheet.num_seats
    result = [Fraction(0)] * n
    least = min(sheet.gora)
    awards = [(convention.pulya.least_gora_premium, [s for s in range(n) if sheet.gora[s] == least])]
    if sheet.first_closed is not None:
        awards.append((convention.pulya.first_closer_premium, [sheet.first_closed]))
    for premium, winners in awards:
        if not premium or len(winners) == n:
            continue
        share = Fraction(premium, len(winners))
        for winner in winners:
            for payer in range(n):
                if payer not in winners:
                    result[winner] += share
                    result[payer] -= share
    return tuple(result)


def settle(sheet: Sheet, convention: Convention) -> Settlement:
    """Per-seat amounts in whists with their breakdown; they sum to exactly zero."""
    if sheet.num_seats < 2:
        raise ScoringError(f"a settlement needs at least two seats, got {sheet.num_seats}")
    adjustments = pulya_adjustments(sheet, convention)
    gora = tuple(g + a for g, a in zip(sheet.gora, adjustments))
    amnestied, parts = gora_parts(gora, convention)
    bonus = premiums(sheet, convention)
    rows = tuple(
        SettlementRow(
            seat=s,
            gora=sheet.gora[s],
            pulya_adjustment=adjustments[s],
            gora_after_amnesty=amnestied[s],
            gora_part=parts[s],
            whist_balance=sheet.whist_balance(s),
            amount=parts[s] + sheet.whist_balance(s) + bonus[s],
            premiums=bonus[s],
        )
        for s in range(sheet.num_seats)
    )
    return Settlement(rows)
