"""Importers and exporters: PPN both ways (round trips on engine-played evenings of every system and table
size), the deals-only CSV/JSON form; every record that cannot be mapped is reported with its line and field."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.cli import cli
from fairdeal.engine.bots import RandomBot
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.log import read_log
from fairdeal.log.formats.deals import TableFacts, read_csv, read_json
from fairdeal.log.formats.ppn import read_ppn, to_ppn, write_ppn
from fairdeal.rules import SOCHI
from fairdeal.systems import conventions

SIZES = [(convention, seats) for convention in conventions().values() for seats in convention.players]


def evening(folder, convention, seats, seed=3, hands=5):
    log = folder / f"{convention.name}-{seats}.jsonl"
    bots = [RandomBot(np.random.default_rng([seed, s])) for s in range(seats)]
    play_match(
        convention,
        [f"P{s}" for s in range(seats)],
        bots,
        source=seeded_source(seed, convention),
        max_hands=hands,
        log=log,
    )
    return log


@pytest.mark.parametrize("convention, seats", SIZES, ids=[f"{c.name}-{n}" for c, n in SIZES])
def test_ppn_round_trips_an_evening_of_every_system(tmp_path, convention, seats):
    log = evening(tmp_path, convention, seats)
    records = [item.record for item in read_log(log)]
    text, problems = write_ppn(log)
    assert not problems
    imported = read_ppn(text)
    assert imported.problems == [] and imported.records == records  # fairdeal -> PPN -> fairdeal
    assert to_ppn(imported.records) == text  # PPN -> fairdeal -> PPN


PPN = """[Format "PPN 1"]
[System "sochi"]
[Player0 "Anna"]
[Player1 "Boris"]
[Player2 "Vera"]
[Deck "piquet32"]
[Pattern "russian"]
[Dealing "physical"]

[Hand "1"]
[Dealer "2"]
[Deal "AS KS QS JS 10S 9S 8S 7S AC KC / QC JC 10C 9C 8C 7C AD KD QD JD / 10D 9D 8D 7D AH KH QH JH 10H 9H | 8H 7H"]
[Auction "0:6S 1:pass 2:pass"]
[Contract "0:6S"]

[Hand "2"]
[Dealer "0"]
[Deal "AS KS QS JS 10S 9S 8S 7S AC KC / QC JC 10C 9C 8C 7C AD KD QD JD / 10D 9D 8D 7D AH KH QH JH 10H 9H | 8H 8H"]

[Hand "3"]
[Dealer "1"]
[Auction "0=6S"]

[Hand "4"]
[Dealer "1"]
1. 0 AS 7S = 2
"""


def test_ppn_problems_name_their_line_and_tag():
    imported = read_ppn(PPN)
    assert [r.hand for r in imported.records[1:]] == [1]
    shown = [(p.line, p.field) for p in imported.problems]
    assert (18, "Deal") in shown  # 8H twice
    assert (22, "Auction") in shown  # not SEAT:WORD
    assert any(field == "Play" for _, field in shown)
    assert all(p.message for p in imported.problems)


def test_export_and_import_commands(tmp_path):
    log = evening(tmp_path, SOCHI, 3)
    runner = CliRunner()
    exported = runner.invoke(cli, ["export", "ppn", str(log), "--out", str(tmp_path / "e.ppn")])
    assert exported.exit_code == 0, exported.output
    back = runner.invoke(cli, ["import", "ppn", str(tmp_path / "e.ppn"), "--out", str(tmp_path / "back.jsonl")])
    assert back.exit_code == 0, back.output
    assert (tmp_path / "back.jsonl").read_bytes() == log.read_bytes()
    bad = tmp_path / "bad.ppn"
    bad.write_text(PPN)
    result = runner.invoke(cli, ["import", "ppn", str(bad), "--out", str(tmp_path / "bad.jsonl")])
    assert result.exit_code == 1 and f"{bad}:18: Deal:" in result.output and "Traceback" not in result.output


def test_export_reports_malformed_log_lines(tmp_path):
    log = tmp_path / "m.jsonl"
    text = evening(tmp_path, SOCHI, 3).read_text().splitlines()
    log.write_text("\n".join(text[:2] + ['{"type":"hand","hand":"x"}'] + text[2:]) + "\n")
    ppn, problems = write_ppn(log)
    assert [p.line for p in problems] == [3] and ppn.count("[Hand ") == len(text) - 2


CSV = """hand,dealer,Anna,Boris,Vera,Gleb,talon,shuffle
1,Anna,,QC JC 10C 9C 8C 7C AD KD QD JD,10D 9D 8D 7D AH KH QH JH 10H 9H,AS KS QS JS 10S 9S 8S 7S AC KC,8H 7H,3 4 cut@3 12
2,1,A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ A♣ K♣,,10D 9D 8D 7D AH KH QH JH 10H 9H,QC JC 10C 9C 8C 7C AD KD QD JD,8H 7H,
3,Vera,AS KS QS JS 10S 9S 8S 7S AC KC,QC JC 10C 9C 8C 7C AD KD QD JD,,10D 9D 8D 7D AH KH QH JH 10H 9H,8H 8H,
4,Zed,,,,,,
5,Gleb,AS KS,QC,,,8H 7H
"""


def test_deals_csv_maps_rows_and_reports_each_bad_one():
    imported = read_csv(CSV, TableFacts("russian", "sochi", "physical", "2026-11-29T20:00:00+00:00"))
    header, *hands = imported.records
    assert header.players == ["Anna", "Boris", "Vera", "Gleb"] and header.started.startswith("2026-11-29")
    assert [h.hand for h in hands] == [1, 2] and hands[0].shuffle == "3 4 cut@3 12"
    assert hands[1].deal.hands[0][:2] == ["AS", "KS"] and hands[1].deal.talons == [["8H", "7H"]]
    problems = {(p.line, p.field) for p in imported.problems}
    assert (4, "talon") in problems and (5, "dealer") in problems and (6, "$") in problems


def test_deals_json_maps_by_name_or_seat_and_two_talons():
    deck = [f"{r}{s}" for s in "SCDH" for r in ("9", "10", "J", "Q", "K", "A")]
    lines = [
        json.dumps({"players": ["Anna", "Boris"], "pattern": "hussar", "system": "hussar"}),
        json.dumps({"dealer": "Boris", "hands": {"Anna": deck[:10], "Boris": deck[10:20]}, "talon": deck[20:24]}),
        json.dumps({"hand": 5, "dealer": 0, "hands": [deck[:10], deck[10:20]], "talon": deck[20:23]}),
        json.dumps({"dealer": 0, "hands": [], "talon": [], "colour": "red"}),
        "[1]",
        "{",
    ]
    imported = read_json("\n".join(lines))
    header, hand = imported.records
    assert header.deal_pattern == "hussar" and hand.dealer == 1 and hand.deal.talons == [deck[20:22], deck[22:24]]
    assert sorted({(p.line, p.field) for p in imported.problems}) == [(3, "talon"), (4, "colour"), (5, "$"), (6, "$")]


def test_import_command_for_deals(tmp_path):
    source = tmp_path / "deals.csv"
    source.write_text(CSV)
    result = CliRunner().invoke(cli, ["import", "deals-csv", str(source), "--out", str(tmp_path / "d.jsonl")])
    assert result.exit_code == 1 and "2 hands written" in result.output and f"{source}:5: dealer:" in result.output
    assert all(item.ok for item in read_log(tmp_path / "d.jsonl"))


GAMBLER = """begin
NUMOFPLAYERS 3
FIRSTPLAYER 2
HAND 1 AS KS QS JS 10S 9S 8S 7S AC KC
HAND 2 QC JC 10C 9C 8C 7C AD KD QD JD
HAND 3 10D 9D 8D 7D AH KH QH JH 10H 9H
WIDOW 8H 7H
TRADE 2 6S
TRADE 3 PASS
TRADE 1 7BK
TRADE 2 PASS
CONTRACT 1 7BK
MOVE 2 QC
MOVE 3 10D
MOVE 1 AC
end
begin
NUMOFPLAYERS 3
FIRSTPLAYER 3
HAND 1 AS KS QS JS 10S 9S 8S 7S AC KC
HAND 2 QC JC 10C 9C 8C 7C AD KD QD JD
HAND 3 10D 9D 8D 7D AH KH QH JH 10H 9H
WIDOW 8H 8H
end
SHUFFLE 1
"""


def test_gambler_blocks_become_hands_and_bad_lines_are_named():
    from fairdeal.log.formats.gambler import read_gambler

    imported = read_gambler(GAMBLER)
    header, hand = imported.records
    assert header.players == ["Player1", "Player2", "Player3"]
    assert hand.dealer == 0 and hand.contract.bid == "7NT" and hand.contract.declarer == 0
    assert [b.bid for b in hand.auction] == ["6S", "pass", "7NT", "pass"]
    assert hand.tricks[0].lead == 1 and hand.tricks[0].winner == 0  # the ace of clubs takes it (no trump)
    assert {(p.line, p.field) for p in imported.problems} == {(23, "WIDOW"), (25, "SHUFFLE")}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_readers_never_raise_on_mangled_input(data):
    """Fuzz: every reader turns any text into records and problems, never an exception."""
    from fairdeal.log.formats.gambler import read_gambler

    base = data.draw(st.sampled_from([PPN, CSV, GAMBLER]))
    cut = data.draw(st.integers(0, len(base)))
    noise = data.draw(st.text(alphabet=st.sampled_from(list('[]":/|=*.,-0123456789 ASKQJ\n{}')), max_size=40))
    text = base[:cut] + noise + base[cut:]
    for read in (read_ppn, read_csv, read_json, read_gambler):
        imported = read(text)
        assert all(p.line >= 1 and p.message for p in imported.problems)
