"""`fairdeal shuffle` and `fairdeal theory riffles`, through click and once through the installed script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairdeal.cards import DeckKind, to_ascii_list
from fairdeal.cli import cli
from fairdeal.errors import CardError, NotationError, ShuffleError

FAIRDEAL = Path(sys.executable).with_name("fairdeal")
PIQUET = to_ascii_list(DeckKind.PIQUET32.codes())


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_shuffle_json_applies_seed004_run_of_two():
    result = run("shuffle", "--json", "2")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["before"] == PIQUET
    assert data["after"] == [PIQUET[1], PIQUET[0], *PIQUET[2:]]


def test_shuffle_joins_several_arguments_into_one_notation():
    result = run("shuffle", "--json", "4", "cut@C", "12")
    after = json.loads(result.output)["after"]
    reversed_four = [*PIQUET[:4][::-1], *PIQUET[4:]]
    assert after == reversed_four[12:] + reversed_four[:12]


def test_shuffle_from_a_given_order_on_the_hussar_deck():
    hussar = to_ascii_list(DeckKind.HUSSAR24.codes())
    start = list(reversed(hussar))
    result = run("shuffle", "--deck", "hussar24", "--from", " ".join(start), "--json", "cut 4")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"before": start, "after": start[4:] + start[:4]}


def test_shuffle_prints_a_readable_table_numbered_from_the_top():
    result = run("shuffle", "2")
    assert result.exit_code == 0
    lines = [line for line in result.output.splitlines() if "│" in line]
    assert len(lines) == 32
    assert lines[0].split("│")[0].strip() == "1" and "7♠" in lines[0] and "8♠" in lines[0]


@pytest.mark.parametrize(
    "args, error",
    [
        (["cut", "0"], NotationError),
        (["shuffle!"], NotationError),
        (["cut", "32"], ShuffleError),
        (["riffle", "?"], ShuffleError),
        (["--from", "AS KS", "2"], CardError),
    ],
)
def test_shuffle_errors_are_fairdeal_errors(args, error):
    result = run("shuffle", *args)
    assert result.exit_code != 0
    assert isinstance(result.exception, error)


def test_theory_riffles_reproduces_the_published_table():
    result = run("theory", "riffles", "--cards", "52", "--max", "10", "--json")
    rows = json.loads(result.output)
    assert [row["riffles"] for row in rows] == list(range(1, 11))
    assert [round(row["tv"], 3) for row in rows] == [1.0, 1.0, 1.0, 1.0, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043]
    assert all(0 <= row["tv"] <= row["separation"] <= 1 for row in rows)


def test_theory_riffles_table_defaults_to_twelve_rows():
    result = run("theory", "riffles", "--cards", "52")
    assert result.exit_code == 0
    assert "0.924" in result.output and "0.334" in result.output
    assert sum(1 for line in result.output.splitlines() if "│" in line) == 12


def test_theory_rejects_a_deck_of_no_cards():
    result = run("theory", "riffles", "--cards", "0")
    assert result.exit_code == 2


def test_installed_script_reports_errors_in_one_line_without_a_traceback():
    for args in (["shuffle", "cut", "40"], ["shuffle", "riffle", "16"]):
        done = subprocess.run([str(FAIRDEAL), *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1
