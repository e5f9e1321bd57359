"""The pulya sheet and its settlement as players read them: rich tables for the terminal, a dict for ``--json``."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from rich.table import Table

from fairdeal.engine.match_log import number
from fairdeal.engine.scoring import Sheet
from fairdeal.engine.settlement import Settlement


def amount_text(value: Fraction) -> str:
    """Whole amounts as integers, others to two decimals (exact values stay in the JSON and the log)."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}"


def sheet_table(sheet: Sheet, players: Sequence[str], title: str = "Пуля") -> Table:
    """One row per player: пуля, гора, the whists written on each opponent, and the whist balance."""
    table = Table(title=title)
    table.add_column("player")
    table.add_column("пуля", justify="right")
    table.add_column("гора", justify="right")
    for name in players:
        table.add_column(f"висты на {name}", justify="right")
    table.add_column("balance", justify="right")
    for seat, name in enumerate(players):
        whists = ["—" if other == seat else amount_text(sheet.whists[seat][other]) for other in range(len(players))]
        table.add_row(name, amount_text(sheet.pulya[seat]), amount_text(sheet.gora[seat]), *whists,
                      amount_text(sheet.whist_balance(seat)))
    return table


def settlement_table(settlement: Settlement, players: Sequence[str], title: str = "Settlement (whists)") -> Table:
    """How each amount is made: gora after x10 and amnesty, its share, the whist balance, the total."""
    table = Table(title=title)
    for column in ("player", "гора ×10 − min", "gora part", "whist balance", "amount", "rounded"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for row, rounded in zip(settlement.rows, settlement.rounded()):
        table.add_row(players[row.seat], amount_text(row.gora_after_amnesty), amount_text(row.gora_part),
                      amount_text(row.whist_balance), amount_text(row.amount), str(rounded))
    return table


def sheet_json(sheet: Sheet, settlement: Settlement, players: Sequence[str]) -> dict:
    """The sheet and settlement by player name; amounts are numbers (fractions as floats)."""
    return {
        "players": list(players),
        "hands": sheet.hands,
        "raspasy_streak": sheet.raspasy_streak,
        "sheet": {
            name: {
                "pulya": number(sheet.pulya[seat]),
                "gora": number(sheet.gora[seat]),
                "whists": {other: number(sheet.whists[seat][o]) for o, other in enumerate(players) if o != seat},
            }
            for seat, name in enumerate(players)
        },
        "settlement": {name: number(a) for name, a in zip(players, settlement.amounts)},
        "settlement_rounded": dict(zip(players, settlement.rounded())),
    }
