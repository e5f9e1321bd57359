"""The sheet and its settlement as players read them: rich tables for the terminal, a dict for ``--json``.

Every scoring method writes the same ``Sheet`` (pulya, gora, whists); the columns are printed under the names the
seed gives them (``ScoringRules.sheet_words``), with what each method reads off them: the Croatian contract column
and the hat, the Austrian pot, the 19th-century remizes left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rich.table import Table

from fairdeal.engine.countdown import under_hat
from fairdeal.engine.pot import pot_of
from fairdeal.engine.settlement import Settlement
from fairdeal.engine.sheet import Sheet, number
from fairdeal.rules.convention import Convention


@dataclass(frozen=True)
class SheetLabels:
    """The printed names of the sheet's parts: ``title`` is a template with ``{start}`` (the column's start) and
    ``{pot}``, ``whists`` one with ``{name}`` (the other player)."""

    title: str
    pulya: str
    gora: str
    whists: str
    column: str | None = None  # the counted-down column, where the method has one

    def to_record(self) -> dict[str, Any]:
        record = {"title": self.title, "pulya": self.pulya, "gora": self.gora, "whists": self.whists}
        if self.column is not None:
            record["column"] = self.column
        return record


SHEET_LABELS = {
    "pulya": SheetLabels("Пуля", "пуля", "гора", "висты на {name}"),
    # 003 Croatian: «Колонка контрактов начинается с отрицательной записи (т. е. стоимость сыгранных контрактов
    # списывается ...)», «приписывает», «Левая и правая колонки называются юха».
    "contracts": SheetLabels(
        "Колонка контрактов и юха (с {start})", "списано", "приписано", "юха на {name}", "колонка контрактов"
    ),
    # 003 Austrian: «Разыгрывающий забирает весь котёл и выплачивает вистующим», «вносит в котёл».
    "pot": SheetLabels("Котёл: {pot}", "взял из котла", "внёс в котёл", "получил с {name}"),
    # 003 19th century, rules 31, 40: «списывать ремиз может только игрок, объявивший игру и выигравший её, а ставить
    # могут и игрок, и вистёры»; «приписывает к счёту за вист с того игрока».
    # Rule 37: the stake is «условленное число ремизов ... записывает это число над проведённою мелом чертою».
    "remizes": SheetLabels("Ремизы (ставка {start})", "списано", "поставлено", "за вист с {name}", "ремизы"),
}
HAT = "под шляпой"


def sheet_labels(convention: Convention) -> SheetLabels:
    """The names ``convention``'s seed gives the sheet."""
    return SHEET_LABELS[convention.scoring.sheet_words]


def amount_text(value: Fraction) -> str:
    """Whole amounts as integers, others to two decimals (exact values stay in the JSON and the log)."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}"


def sheet_table(sheet: Sheet, players: Sequence[str], convention: Convention) -> Table:
    """One row per player: the counted-down column (and the hat and refes) where the method has one, the two
    written columns, what was written on each opponent, and the whist balance."""
    labels = sheet_labels(convention)
    table = Table(title=_title(sheet, convention, labels))
    extras = _extra_columns(sheet, convention, labels)
    table.add_column("player")
    for header, _ in extras:
        table.add_column(header, justify="right")
    table.add_column(labels.pulya, justify="right")
    table.add_column(labels.gora, justify="right")
    for name in players:
        table.add_column(labels.whists.format(name=name), justify="right")
    table.add_column("balance", justify="right")
    for seat, name in enumerate(players):
        whists = ["—" if other == seat else amount_text(sheet.whists[seat][other]) for other in range(len(players))]
        table.add_row(
            name,
            *(values[seat] for _, values in extras),
            amount_text(sheet.pulya[seat]),
            amount_text(sheet.gora[seat]),
            *whists,
            amount_text(sheet.whist_balance(seat)),
        )
    return table


def _title(sheet: Sheet, convention: Convention, labels: SheetLabels) -> str:
    return labels.title.format(start=convention.pulya.size, pot=amount_text(pot_of(sheet)))


def _extra_columns(sheet: Sheet, convention: Convention, labels: SheetLabels) -> list[tuple[str, list[str]]]:
    """(header, one text per seat) for what the method reads off the sheet beyond its two written columns."""
    if convention.scoring.method != "countdown":
        return []
    assert labels.column is not None  # the labels of a countdown method name its column
    seats = range(sheet.num_seats)
    columns = [(labels.column, [amount_text(sheet.column(s, convention.pulya.size)) for s in seats])]
    if convention.scoring.refe_limits:
        hat = set(under_hat(sheet, convention))
        refe = sheet.refe or (0,) * sheet.num_seats
        columns += [("шляпа", [HAT if s in hat else "" for s in seats]), ("рефе", [str(refe[s]) for s in seats])]
    return columns


def settlement_table(settlement: Settlement, players: Sequence[str], title: str = "Settlement (whists)") -> Table:
    """How each amount is made: gora after x10 and amnesty, its share, the whist balance, the total."""
    table = Table(title=title)
    for column in ("player", "гора ×10 − min", "gora part", "whist balance", "amount", "rounded"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for row, rounded in zip(settlement.rows, settlement.rounded()):
        table.add_row(
            players[row.seat],
            amount_text(row.gora_after_amnesty),
            amount_text(row.gora_part),
            amount_text(row.whist_balance),
            amount_text(row.amount),
            str(rounded),
        )
    return table


def sheet_json(sheet: Sheet, settlement: Settlement, players: Sequence[str], convention: Convention) -> dict[str, Any]:
    """The sheet and settlement by player name; amounts are numbers (fractions as floats). The keys are the same
    for every method (docs/systems.md, «Reading the sheet»); ``labels`` names them as the seed does, and the
    countdown adds ``column`` (and ``under_hat``, ``refe``) per player, the pot the ``pot`` left."""
    labels = sheet_labels(convention)
    data = {
        "players": list(players),
        "hands": sheet.hands,
        "raspasy_streak": sheet.raspasy_streak,
        "labels": {**labels.to_record(), "title": _title(sheet, convention, labels)},
        "sheet": {name: _seat_json(sheet, seat, players, convention) for seat, name in enumerate(players)},
        "settlement": {name: number(a) for name, a in zip(players, settlement.amounts)},
        "settlement_rounded": dict(zip(players, settlement.rounded())),
    }
    if convention.scoring.method == "pot":
        data["pot"] = number(pot_of(sheet))
    return data


def _seat_json(sheet: Sheet, seat: int, players: Sequence[str], convention: Convention) -> dict[str, Any]:
    record = {
        "pulya": number(sheet.pulya[seat]),
        "gora": number(sheet.gora[seat]),
        "whists": {other: number(sheet.whists[seat][o]) for o, other in enumerate(players) if o != seat},
    }
    if convention.scoring.method == "countdown":
        record["column"] = number(sheet.column(seat, convention.pulya.size))
        if convention.scoring.refe_limits:
            record["under_hat"] = seat in under_hat(sheet, convention)
            record["refe"] = (sheet.refe or (0,) * sheet.num_seats)[seat]
    return record
