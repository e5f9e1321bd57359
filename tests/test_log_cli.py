"""CLI: `fairdeal deal-pattern` and `fairdeal log validate` through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairdeal.cards import DeckKind, format_cards
from fairdeal.cli import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "format-example.jsonl"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_validate_a_good_log():
    result = run("log", "validate", str(SAMPLE))
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("valid: 5 hands valid, 0 errors")


def test_validate_reports_each_error_with_file_line_and_field(tmp_path):
    lines = SAMPLE.read_text().splitlines()
    doc = json.loads(lines[2])
    doc["deal"]["hands"][1][3] = doc["deal"]["hands"][0][0]
    lines[2] = json.dumps(doc)
    lines[4] = lines[4][:50]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = run("log", "validate", str(bad))
    assert result.exit_code == 1
    out = result.output.splitlines()
    assert f"{bad}:3: deal.hands[1][3]: 9C appears twice" in out[0] or out[0].startswith(f"{bad}:3: deal.hands[1][3]: ")
    assert any(line.startswith(f"{bad}:5: $: not a JSON object") for line in out)
    assert out[-1] == f"{bad}: INVALID: 3 hands valid, 2 errors"


def test_validate_an_unreadable_file(tmp_path):
    result = run("log", "validate", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2


def test_deal_pattern_json_lists_every_receiver():
    result = run("deal-pattern", "--system", "russian", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["receivers"][6:8] == ["talon 0", "talon 0"]
    assert len(data["targets"]) == 32


def test_deal_pattern_from_an_order():
    order = format_cards(DeckKind.HUSSAR24.codes(), "ascii")
    result = run("deal-pattern", "--system", "hussar", "--from", order, "--json")
    data = json.loads(result.output)
    # 9S 10S | JS QS | talon 0: KS AS | 9C 10C | JC QC | talon 1: KC AC | ...
    assert data["deal"]["talons"] == [["KS", "AS"], ["KC", "AC"]]
    assert data["deal"]["hands"][0][:4] == ["9S", "10S", "9C", "10C"]


def test_deal_pattern_table_shows_cards():
    result = run("deal-pattern", "--system", "gusarik", "--from", format_cards(DeckKind.PIQUET32.codes(), "ascii"))
    assert result.exit_code == 0, result.output
    assert "dummy: 7♠ 8♠" in result.output and "talon 0: K♠ A♠" in result.output


@pytest.mark.parametrize(
    "args, needle",
    [
        (("deal-pattern", "--system", "whist"), "known patterns"),
        (("deal-pattern", "--system", "russian", "--from", "AS KS"), "32 cards"),
    ],
)
def test_deal_pattern_bad_input_is_a_clear_error(args, needle):
    result = run(*args)
    assert result.exit_code != 0
    assert needle in str(result.exception) or needle in result.output
