"""The table a dealing session states: system, house rules and pulya, every table fact derived from the rebuilt
convention; statements and samples written before house rules travelled still verify; a log whose header names
another convention, or an evening cut short, does not."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from commit_reveal_helpers import honest_session
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.errors import FairdealError, ProtocolError
from fairdeal.protocols.mental_poker.player import Player, Unresponsive
from fairdeal.protocols.mental_poker.source import MentalPokerSource
from fairdeal.protocols.table import TableSpec, stated_convention
from fairdeal.protocols.verify import verify_documents, verify_log, verify_paths
from fairdeal.rules import CROATIAN, SOCHI
from fairdeal.systems import get_convention, rebuild_convention

ROOT = Path(__file__).resolve().parent.parent
LEGACY = sorted((Path(__file__).resolve().parent / "data" / "legacy-commit-reveal").glob("*.json"))


def test_the_statement_derives_every_table_fact_from_the_convention():
    house = rebuild_convention("croatian", {"raspasy.price_per_trick": 3}, 40)
    fields = TableSpec("t", "s", 1, ("a", "b", "c"), house).convention_fields()
    assert fields == {
        "system": "croatian",
        "convention": {"raspasy.price_per_trick": 3},
        "pulya": 40,
        "deck": "piquet32",
        "deal_pattern": "croatian",
    }
    assert stated_convention(fields) == house


def test_a_statement_whose_facts_are_not_its_conventions_is_refused():
    fields = TableSpec("t", "s", 1, ("a", "b", "c"), CROATIAN).convention_fields()
    with pytest.raises(ProtocolError, match="deal_pattern 'russian' is not 'croatian'"):
        stated_convention(dict(fields, deal_pattern="russian"))


def test_a_table_the_convention_does_not_seat_is_refused():
    with pytest.raises(ProtocolError, match="played by 2 players, not 3"):
        TableSpec("t", "s", 1, ("a", "b", "c"), get_convention("hussar"))


def test_statements_written_before_house_rules_travelled_still_verify():
    report = verify_paths(LEGACY)
    assert len(LEGACY) == 5 and report.ok and report.transcripts == 5, report.failures
    for name in ("commit-reveal-evening.jsonl", "mental-poker-evening.jsonl"):
        report = verify_log(ROOT / "samples" / name)
        assert report.ok and report.transcripts > 0, report.failures


def test_a_transcript_whose_signed_pattern_is_not_the_systems_is_the_services_fault():
    doc = copy.deepcopy(honest_session(1, with_records=False)[0])
    doc["session"]["statement"]["deal_pattern"] = "croatian"  # breaks the signature too: stop at it
    found = [(f.party, f.check) for f in verify_documents([("doc", doc)]).failures]
    assert found == [("service", "session signature")]


def _deal(tmp_path: Path, *options: str) -> Path:
    from click.testing import CliRunner

    from fairdeal.cli import cli

    result = CliRunner().invoke(cli, ["deal", *options, "--out", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return tmp_path / "evening.log"


@pytest.mark.parametrize("protocol", ["commit-reveal", "mental-poker"])
def test_a_house_rule_evening_verifies_and_a_header_naming_another_convention_is_rejected(tmp_path, protocol):
    log = _deal(
        tmp_path,
        "--protocol",
        protocol,
        "--system",
        "leningrad",
        "--hands",
        "1",
        "--seed",
        "3",
        "--rule",
        "raspasy.price_per_trick=4",
        "--pulya",
        "30",
    )
    report = verify_log(log)
    assert report.ok and report.transcripts == 1, report.failures
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["convention"] == {"raspasy.price_per_trick": 4} and header["pulya"] == 30
    header["convention"] = {}
    log.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n", encoding="utf-8")
    found = verify_log(log).failures
    assert [(f.party, f.check) for f in found] == [("record", "convention")]
    assert "raspasy.price_per_trick=4" in found[0].detail and "log header leningrad to a pulya of 30" in found[0].detail


def test_an_evening_cut_short_says_what_is_missing(tmp_path):
    log = _deal(tmp_path, "--system", "sochi", "--hands", "2", "--seed", "1")
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    found = verify_log(log).failures
    assert [(f.party, f.check) for f in found] == [("record", "game log")]
    assert "without its settlement line" in found[0].detail
    log.write_text(lines[0] + "\n", encoding="utf-8")
    report = verify_log(log)
    assert not report.ok and "the log holds no hand" in report.failures[0].detail


def test_a_log_not_dealt_by_a_protocol_has_nothing_to_verify(tmp_path):
    report = verify_log(ROOT / "samples" / "sochi-3p-honest.jsonl")
    assert not report.ok and "not by a protocol with transcripts" in report.failures[0].detail


class _SilentAtHand(Player):
    """Stops answering at the shuffle of one hand (a dropped connection mid-evening)."""

    silent_hand = 2

    def shuffle(self):
        if self.setup.context.hand == self.silent_hand:
            raise Unresponsive()
        return super().shuffle()


@pytest.mark.parametrize("hand", [2, 1])
def test_an_evening_whose_hand_is_abandoned_for_good_ends_with_the_absent_player_charged(tmp_path, hand):
    players = ("ann", "bob", "cyd")
    spec = TableSpec("t", "s", 3, players, SOCHI)
    silent = type("Silent", (_SilentAtHand,), {"silent_hand": hand})
    source = MentalPokerSource(spec, lambda setup, name: (silent if name == "bob" else Player)(setup, name))
    log = tmp_path / "evening.log"
    result = play_match(SOCHI, players, [HeuristicBot() for _ in players], source=source, max_hands=3, log=log)
    assert not result.finished and source.end == {"hand": hand, "charged": ["bob"]}
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["dealing"] == "mental-poker" and lines[-1]["type"] == "end" and lines[-1]["penalty"]
    # Without the stopped hand's transcript beside it (the CLI files it) the end is unproved.
    assert not verify_log(log).ok
    stopped = source.transcripts[-1]
    source.write_transcript(stopped, tmp_path / "evening.log.transcripts" / f"hand-{hand:04d}.json")
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 500) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=24), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    system=st.sampled_from(["sochi", "hussar", "croatian", "nonesuch"]) | JSON,
    overrides=st.dictionaries(
        st.sampled_from(
            ["raspasy.price_per_trick", "table.deal_pattern", "players", "table.deck", "pulya.size", "x.y"]
        ),
        JSON,
        max_size=3,
    )
    | JSON,
    pulya=JSON,
    facts=st.dictionaries(st.sampled_from(["deck", "deal_pattern"]), JSON, max_size=2),
)
def test_any_stated_table_is_rebuilt_or_refused_with_a_reason(system, overrides, pulya, facts):
    statement = {"system": system, "convention": overrides, "pulya": pulya, **facts}
    try:
        convention = stated_convention(statement)
    except FairdealError as exc:
        assert str(exc)
    else:
        assert convention.name == system and convention.pulya.size == (pulya or convention.pulya.size)
