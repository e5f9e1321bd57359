"""The sheet printed under the names each seed gives it: the Croatian contract column, juha and hat, the Austrian
pot, the 19th-century remizes (seed 003)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner
from rich.console import Console

from fairdeal.cli import cli
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import ScoreLine, new_sheet
from fairdeal.engine.sheet_view import SHEET_LABELS, sheet_json, sheet_labels, sheet_table
from fairdeal.systems import conventions

PLAYERS = ("Anna", "Boris", "Vera")


def rendered(table) -> str:
    console = Console(width=250, record=True)
    console.print(table)
    return console.export_text()


def test_every_convention_names_its_sheet():
    for conv in conventions().values():
        assert sheet_labels(conv) is SHEET_LABELS[conv.scoring.sheet_words]
    assert sheet_labels(conventions()["sochi"]).pulya == "пуля"
    assert sheet_labels(conventions()["croatian"]).whists == "юха на {name}"
    assert sheet_labels(conventions()["austrian-styrian"]).gora == "внёс в котёл"
    assert sheet_labels(conventions()["preferans-1800s-kadili"]).column == "ремизы"


def test_croatian_sheet_shows_the_contract_column_juha_and_the_hat():
    # 003: «момент изменения знака записи отмечается на бумаге символом шляпы. Теперь игрок «под шляпой»».
    conv = conventions()["croatian"]
    sheet = new_sheet(conv, 3).apply((ScoreLine(0, "pulya", Fraction(34)), ScoreLine(1, "whists", Fraction(60), 0)))
    text = rendered(sheet_table(sheet, PLAYERS, conv))
    assert "Колонка контрактов и юха (с 30)" in text
    assert "колонка контрактов" in text and "юха на Anna" in text and "шляпа" in text
    anna = next(line for line in text.splitlines() if "Anna" in line and "юха" not in line)
    assert "-4" in anna and "под шляпой" in anna
    data = sheet_json(sheet, settle(sheet, conv), PLAYERS, conv)
    assert data["sheet"]["Anna"]["column"] == -4 and data["sheet"]["Anna"]["under_hat"] is True
    assert data["sheet"]["Boris"]["under_hat"] is False and data["sheet"]["Boris"]["whists"]["Anna"] == 60
    assert data["labels"]["whists"] == "юха на {name}" and data["labels"]["title"] == "Колонка контрактов и юха (с 30)"


def test_austrian_sheet_shows_the_pot():
    # 003: «Разыгрывающий забирает весь котёл ... При ремизе разыгрывающий добавляет в котёл ставки».
    conv = conventions()["austrian"]
    lines = tuple(ScoreLine(s, "gora", Fraction(50)) for s in range(3)) + (ScoreLine(2, "pulya", Fraction(10)),)
    sheet = new_sheet(conv, 3).apply(lines)
    text = rendered(sheet_table(sheet, PLAYERS, conv))
    assert "Котёл: 140" in text and "взял из котла" in text and "получил с Vera" in text
    data = sheet_json(sheet, settle(sheet, conv), PLAYERS, conv)
    assert data["pot"] == 140 and data["labels"]["title"] == "Котёл: 140"
    assert "column" not in data["sheet"]["Vera"] and data["sheet"]["Vera"]["pulya"] == 10


def test_1800s_sheet_counts_the_remizes_left():
    # Rule 31: «списывать ремиз может только игрок, объявивший игру и выигравший её, а ставить могут и игрок, и
    # вистёры»; rule 37: the stake of 21 remizes.
    conv = conventions()["preferans-1800s"]
    sheet = new_sheet(conv, 3).apply((ScoreLine(0, "pulya", Fraction(4)), ScoreLine(1, "gora", Fraction(3))))
    text = rendered(sheet_table(sheet, PLAYERS, conv))
    assert "Ремизы (ставка 21)" in text and "поставлено" in text and "за вист с Boris" in text
    assert "шляпа" not in text
    data = sheet_json(sheet, settle(sheet, conv), PLAYERS, conv)
    assert data["sheet"]["Anna"]["column"] == 17 and data["sheet"]["Boris"]["column"] == 24
    assert "under_hat" not in data["sheet"]["Anna"]


def test_pulya_sheet_keeps_its_names():
    conv = conventions()["sochi"]
    sheet = new_sheet(conv, 3)
    text = rendered(sheet_table(sheet, PLAYERS, conv))
    assert "Пуля" in text and "висты на Boris" in text
    data = sheet_json(sheet, settle(sheet, conv), PLAYERS, conv)
    assert set(data) == {"players", "hands", "raspasy_streak", "labels", "sheet", "settlement", "settlement_rounded"}
    assert set(data["sheet"]["Anna"]) == {"pulya", "gora", "whists"}


@pytest.mark.parametrize(
    "system,words",
    [("croatian", "Колонка контрактов и юха"), ("austrian", "Котёл:"), ("preferans-1800s", "Ремизы (ставка 21)")],
)
def test_play_and_sheet_commands_print_the_seed_names(tmp_path, system, words):
    log = tmp_path / "evening.jsonl"
    played = CliRunner().invoke(
        cli, ["play", "--system", system, "--seed", "5", "--hands", "4", "--out", str(log)], terminal_width=250
    )
    assert played.exit_code == 0, played.output
    assert words in played.output
    again = CliRunner().invoke(cli, ["sheet", str(log), "--json"])
    assert again.exit_code == 0, again.output
    assert (
        json.loads(again.output)["labels"]
        == json.loads(
            CliRunner().invoke(cli, ["play", "--system", system, "--seed", "5", "--hands", "4", "--json"]).output
        )["labels"]
    )
