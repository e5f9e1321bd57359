"""CLI: `fairdeal systems` and `fairdeal play --system NAME` for Classic, Hussar, Gusarik and five players."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.log import read_log
from fairdeal.systems import conventions


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_systems_lists_every_system_with_its_description_and_seeds():
    result = run("systems", "--json")
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.output)}
    assert set(rows) == set(conventions())
    assert rows["hussar"]["players"] == [2] and rows["hussar"]["seeds"][0].startswith("001")
    assert rows["classic"]["players"] == [3, 4, 5] and all(row["description"] for row in rows.values())
    table = run("systems")
    assert table.exit_code == 0 and "gusarik-rostov" in table.output and "001, 000" in table.output


@pytest.mark.parametrize(
    "system, players",
    [
        ("classic", "3"),
        ("classic", "5"),
        ("hussar", "2"),
        ("gusarik-sochi", "2"),
        ("gusarik-leningrad", "2"),
        ("sochi", "5"),
    ],
)
def test_play_every_system_writes_a_valid_log_that_recounts(tmp_path, system, players):
    log = tmp_path / "evening.jsonl"
    result = run("play", "--system", system, "--players", players, "--seed", "3", "--hands", "12", "--out", str(log))
    assert result.exit_code == 0, result.output
    items = list(read_log(log))
    assert all(item.ok for item in items), [e for item in items for e in item.errors]
    assert items[0].record.system == system and len(items[0].record.players) == int(players)
    again = run("sheet", str(log))
    assert again.exit_code == 0, again.output


def test_play_defaults_to_the_systems_table_and_refuses_a_wrong_one():
    assert run("play", "--system", "hussar", "--seed", "1", "--hands", "3").exit_code == 0
    refused = run("play", "--system", "hussar", "--players", "3", "--hands", "1")
    assert refused.exit_code == 2 and "hussar is played by 2 players, not 3" in refused.output
