"""Every registered convention × every player count it allows × both dealing protocols, end to end: `fairdeal deal`
plays a short evening, writes the log and the transcripts, and `fairdeal verify --log` finds every hand proven.

Mental poker is the slower protocol, so its cells play one hand each."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.rules import ALL

CELLS = [(convention.name, players) for convention in ALL for players in convention.players]
HANDS = {"commit-reveal": 2, "mental-poker": 1}


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("protocol", sorted(HANDS))
@pytest.mark.parametrize("system,players", CELLS, ids=[f"{s}-{n}p" for s, n in CELLS])
def test_every_system_and_table_size_deals_plays_and_verifies(tmp_path, protocol, system, players):
    dealt = run("deal", "--protocol", protocol, "--system", system, "--players", str(players),
                "--hands", str(HANDS[protocol]), "--seed", "11", "--out", str(tmp_path))
    assert dealt.exit_code == 0, dealt.output
    lines = [json.loads(line) for line in (tmp_path / "evening.log").read_text(encoding="utf-8").splitlines()]
    header, hands = lines[0], [line for line in lines if line["type"] == "hand"]
    assert (header["system"], len(header["players"]), header["dealing"]) == (system, players, protocol)
    assert len(hands) == HANDS[protocol] and lines[-1]["type"] == "end"
    checked = run("verify", "--log", str(tmp_path / "evening.log"))
    assert checked.exit_code == 0 and f"ok: {len(hands)} transcript(s) verified" in checked.output, checked.output


def test_the_matrix_covers_two_to_five_players_and_every_system():
    assert {players for _, players in CELLS} == {2, 3, 4, 5}
    assert {system for system, _ in CELLS} == {convention.name for convention in ALL}
