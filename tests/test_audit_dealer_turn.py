"""The deal passes clockwise, except where the convention keeps it with one dealer (Classic's opening raspasy)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from fairdeal.cli import cli


def _findings(log) -> dict:
    return json.loads(CliRunner().invoke(cli, ["audit", str(log), "--json"]).output)["summary"]["findings_by_kind"]


def test_classic_opening_rounds_keep_the_dealer_and_a_skipped_turn_is_caught(tmp_path):
    log = tmp_path / "classic.jsonl"
    played = CliRunner().invoke(cli, ["play", "--system", "classic", "--hands", "9", "--seed", "3", "--out", str(log)])
    assert played.exit_code == 0, played.output
    lines = log.read_text(encoding="utf-8").splitlines()
    dealers = [json.loads(line)["dealer"] for line in lines[1:10]]
    assert dealers[:2] == [0, 0]  # «сдача не переходила» during the opening raspasy
    assert _findings(log) == {}
    hand = json.loads(lines[1])
    hand["dealer"] = 1  # the first dealer, then a jump back: out of turn
    lines[1] = json.dumps(hand)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert "dealer-out-of-turn" in _findings(log)
