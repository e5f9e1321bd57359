"""The conformance matrix, after OpenSpiel's random simulation test: every registered system, every table size it
allows, every dealing kind. Random legal play through the engine conserves the cards and ends; an evening dealt
by each kind is logged, validated, re-scored, verified and audited with zero findings, and settles to exactly zero.

The matrix is read from the registry: a new system is tested here the moment it is registered.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.engine.bots import RandomBot
from fairdeal.engine.driver import play_hand
from fairdeal.engine.hand import legal_actions, result
from fairdeal.engine.recount import sheet_from_log
from fairdeal.systems import registered

TABLES = [(system.name, players) for system in registered() for players in system.players]
KINDS = ("physical", "commit-reveal", "mental-poker")
HANDS = {"physical": 6, "commit-reveal": 3, "mental-poker": 1}


def _ids(cell: tuple[str, int]) -> str:
    return f"{cell[0]}-{cell[1]}p"


@pytest.mark.parametrize("table", TABLES, ids=_ids)
def test_random_legal_play_conserves_cards_and_ends(table):
    name, players = table
    system = next(s for s in registered() if s.name == name)
    deck = sorted(int(c) for c in system.deck.codes())
    for seed in range(12):
        rng = np.random.default_rng([seed, players])
        bots = [RandomBot(np.random.default_rng([seed, seat])) for seat in range(players)]
        state = play_hand(system.convention, players, seed % players, None, bots, rng=rng)
        held = [c for hand in state.hands for c in hand]
        played = [c for trick in state.tricks for _, c in trick.plays]
        aside = [*state.talon, *state.discard, *getattr(state.extra, "defence_discard", ()), *state.aside]
        assert sorted(held + played + aside) == deck
        assert legal_actions(state) == []
        outcome = result(state)
        assert sum(outcome.tricks) + outcome.raspasy_talon_tricks in (0, len(state.tricks))


def _evening(kind: str, name: str, players: int, out) -> tuple[list[str], dict]:
    """Deal and play an evening by ``kind``; the log's path and the command's JSON result."""
    runner = CliRunner()
    common = ["--system", name, "--players", str(players), "--hands", str(HANDS[kind]), "--seed", "7", "--json"]
    if kind == "physical":
        log = out / "evening.jsonl"
        args = ["play", *common, "--bots", "random", "--out", str(log)]
    else:
        log = out / "evening.log"
        args = ["deal", "--protocol", kind, *common, "--out", str(out)]
    played = runner.invoke(cli, args)
    assert played.exit_code == 0, played.output
    return str(log), json.loads(played.output.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("table", TABLES, ids=_ids)
def test_every_dealing_kind_logs_verifies_and_audits_clean(table, kind, tmp_path):
    name, players = table
    log, played = _evening(kind, name, players, tmp_path)
    runner = CliRunner()
    validated = runner.invoke(cli, ["log", "validate", log])
    assert validated.exit_code == 0, validated.output
    sheet = runner.invoke(cli, ["sheet", log])
    assert sheet.exit_code == 0, sheet.output
    recount = sheet_from_log(log)
    assert recount.problems == () and recount.hands == played["hands"]
    assert sum(recount.settlement.amounts, Fraction(0)) == 0
    if kind != "physical":
        verified = runner.invoke(cli, ["verify", "--log", log])
        assert verified.exit_code == 0, verified.output
        assert f"ok: {played['hands']} transcript(s) verified" in verified.output
    if kind == "mental-poker":  # protocol v4: signed messages, signed records, a signed settlement
        folder = tmp_path / "evening.log.transcripts"
        first = json.loads(sorted(folder.glob("hand-*.json"))[0].read_text(encoding="utf-8"))
        assert first["protocol"] == "fairdeal-mental-poker/4" and len(first["statements"]) == players
        assert (folder / "settlement.json").is_file()
    audit = runner.invoke(cli, ["audit", log, "--json"])
    report = json.loads(audit.output)
    assert report["summary"]["findings_by_kind"] == {}, report["summary"]
    assert report["summary"]["malformed_lines"] == 0
