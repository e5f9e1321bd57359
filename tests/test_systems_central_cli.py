"""CLI: `fairdeal play --system NAME` for the Austrian, Croatian and 19th-century systems writes a valid log that
`fairdeal sheet` recounts line by line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.cli.human import action_label, choose
from fairdeal.engine.actions import Announce, Follow, Invite, Kontra
from fairdeal.log import read_log


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize(
    "system, players",
    [
        ("croatian", "3"),
        ("austrian", "3"),
        ("austrian", "4"),
        ("austrian-unlimited", "3"),
        ("austrian-limited", "3"),
        ("austrian-styrian", "3"),
        ("austrian-illustrated", "3"),
        ("austrian-sans-atout", "3"),
        ("preferans-1800s", "3"),
        ("preferans-1800s-kadili", "5"),
        ("preferans-1800s-talon", "4"),
        ("preferans-1800s-mixed", "3"),
        ("austrian-nachgehen", "3"),
    ],
)
def test_play_writes_a_valid_log_that_recounts(tmp_path, system, players):
    log = tmp_path / "evening.jsonl"
    result = run(
        "play", "--system", system, "--players", players, "--seed", "7", "--hands", "15", "--out", str(log), "--json"
    )
    assert result.exit_code == 0, result.output
    items = list(read_log(log))
    assert all(item.ok for item in items), [e for item in items for e in item.errors]
    assert items[0].record.system == system
    again = run("sheet", str(log))
    assert again.exit_code == 0 and "every logged score line matches" in again.output, again.output
    assert sum(json.loads(result.output)["settlement_rounded"].values()) == 0


def test_systems_lists_the_seed_003_systems():
    rows = {row["name"]: row for row in json.loads(run("systems", "--json").output)}
    for name in ("croatian", "austrian", "austrian-illustrated", "preferans-1800s"):
        assert rows[name]["seeds"] == ["003_bf7e0a2721a54502.txt"] and rows[name]["description"]


@pytest.mark.parametrize("system, key", [("croatian", "columns"), ("austrian-unlimited", "pot")])
def test_sheet_catches_a_falsified_column_or_pot(tmp_path, system, key):
    log = tmp_path / "evening.jsonl"
    assert run("play", "--system", system, "--seed", "2", "--hands", "6", "--out", str(log)).exit_code == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    hand = json.loads(lines[1])
    value = hand["extras"][key]
    hand["extras"][key] = [v + 1 for v in value] if isinstance(value, list) else value + 1
    lines[1] = json.dumps(hand, ensure_ascii=False)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("sheet", str(log))
    assert result.exit_code == 1 and "logged sheet extras" in result.output


def test_a_person_can_type_the_new_decisions():
    legal = [Kontra(1, False), Kontra(1, True)]
    assert [action_label(a) for a in legal] == ["pass", "double"] and choose("double", legal)[0] == legal[1]
    assert action_label(Invite(0, True)) == "invite" and action_label(Invite(0, False)) == "alone"
    assert action_label(Announce(2, True)) == "no-aces" and action_label(Follow(0, True)) == "follow"


def test_a_person_plays_a_croatian_evening_in_the_terminal():
    result = CliRunner().invoke(
        cli, ["play", "--system", "croatian", "--human", "0", "--seed", "3", "--hands", "2"], input="pass\n" * 400
    )
    assert result.exit_code == 0, result.output
