"""`fairdeal deal` and `fairdeal verify` end to end, and the deal sources behind the match loop."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from click.testing import CliRunner
from commit_reveal_helpers import honest_session

from fairdeal.cards import DeckKind
from fairdeal.cli import cli
from fairdeal.engine.deal_source import ShuffledDeckSource
from fairdeal.errors import MatchError
from fairdeal.protocols.transcript import write_transcript


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("players", [3, 4])
def test_deal_plays_an_evening_whose_transcripts_and_log_verify(tmp_path, players):
    result = run(
        "deal",
        "--protocol",
        "commit-reveal",
        "--system",
        "sochi",
        "--players",
        str(players),
        "--hands",
        "6",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "evening.log.transcripts").glob("hand-*.json"))
    assert len(files) == 6 and "6 hands dealt by commit-reveal and played" in result.output
    settlement = tmp_path / "evening.log.transcripts" / "settlement.json"
    checked = run("verify", "--json", *map(str, files), str(settlement))
    report = json.loads(checked.output)
    assert checked.exit_code == 0 and report["ok"] and report["notes"] == [], report
    assert report["caveats"] and "identities are unpinned" in report["caveats"][0]
    pinned = run("verify", "--json", "--roster", str(tmp_path / "roster.json"), *map(str, files), str(settlement))
    assert json.loads(pinned.output)["caveats"] == []
    lines = [json.loads(line) for line in (tmp_path / "evening.log").read_text(encoding="utf-8").splitlines()]
    assert lines[0]["dealing"] == "commit-reveal"
    for line, path in zip(lines[1:], files):
        assert line["transcript"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        doc = json.loads(path.read_text(encoding="utf-8"))
        record = next(m["body"]["record"] for m in doc["messages"] if m["kind"] == "hand-close")
        assert record["tricks"] == line["tricks"] and record["score"] == line["score"]


def test_deal_only_writes_transcripts_without_play(tmp_path):
    result = run("deal", "--players", "4", "--hands", "5", "--deal-only", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("hand-*.json"))
    assert len(files) == 5 and "hand 5: dealer Anna" in result.output
    checked = run("verify", *map(str, files))
    assert checked.exit_code == 0 and "ok: 5 transcript(s) verified" in checked.output


def test_deal_refuses_a_table_the_convention_does_not_seat(tmp_path):
    result = CliRunner().invoke(cli, ["deal", "--system", "nonesuch", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "Invalid value for '--system'" in result.output
    result = CliRunner().invoke(cli, ["deal", "--system", "hussar", "--players", "3", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "hussar is played by 2 players, not 3" in result.output


def test_verify_names_each_failure_and_exits_nonzero(tmp_path):
    docs = honest_session(3)
    paths = []
    for doc in docs:
        path = tmp_path / f"hand-{doc['hand']}.json"
        write_transcript(doc, path)
        paths.append(str(path))
    assert run("verify", *paths).exit_code == 0
    docs[1]["record"]["score"][0]["points"] += 1
    write_transcript(docs[1], tmp_path / "hand-2.json")
    result = run("verify", *paths)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert any(line.startswith(f"{paths[1]}: hand 2: record: score:") for line in lines)
    report = json.loads(run("verify", "--json", *paths).output)
    assert report["ok"] is False and {f["party"] for f in report["failures"]} == {"record", "service"}
    assert run("verify", "--no-replay", paths[1]).exit_code == 0


def test_a_schema_failure_quoting_a_long_value_is_shortened(tmp_path):
    doc = honest_session(1)[0]
    doc["session"] = ["a long wrong value"] * 100
    path = tmp_path / "hand-1.json"
    write_transcript(doc, path)
    result = run("verify", str(path))
    assert result.exit_code == 1 and "(shortened)" in result.output
    assert max(len(line) for line in result.output.splitlines()) < 400


def test_written_file_hash_is_the_transcript_hash(tmp_path):
    doc = honest_session(1)[0]
    digest = write_transcript(doc, tmp_path / "h.json")
    assert hashlib.sha256((tmp_path / "h.json").read_bytes()).hexdigest() == digest


def test_verify_reports_unreadable_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    result = run("verify", str(bad), str(tmp_path / "missing.json"))
    assert result.exit_code == 1
    assert "bad.json: hand ?: service: transcript file: " in result.output
    assert "no such transcript" in result.output


def test_shuffled_source_from_rng_and_from_recorded_orders():
    source = ShuffledDeckSource(rng=np.random.default_rng(5))
    dealt = source.deal(1, 0)
    assert sorted(dealt.order.tolist()) == list(range(32)) and dealt.evidence["dealing"] == "server-rng"
    assert source.finish(1, {"x": 1})["record"] == {"x": 1}
    recorded = ShuffledDeckSource(orders=[DeckKind.PIQUET32.codes()[::-1]])
    assert recorded.deal(1, 2).order[0] == 31
    with pytest.raises(MatchError, match="no recorded deck order for hand 2"):
        recorded.deal(2, 0)
    with pytest.raises(MatchError, match="never dealt"):
        recorded.finish(7)


def test_verify_log_checks_citations_copies_and_transcripts(tmp_path):
    assert run("deal", "--hands", "4", "--out", str(tmp_path)).exit_code == 0
    log = tmp_path / "evening.log"
    assert run("verify", "--log", str(log)).output.splitlines()[0] == "ok: 4 transcript(s) verified"
    lines = log.read_text(encoding="utf-8").splitlines()
    hand2 = json.loads(lines[2])
    hand2["talon_shown"] = not hand2["talon_shown"]
    lines[2] = json.dumps(hand2)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("verify", "--log", str(log))
    assert result.exit_code == 1 and "hand 2: record: log line:" in result.output
    transcript = tmp_path / "evening.log.transcripts" / "hand-0003.json"
    transcript.write_bytes(transcript.read_bytes() + b" ")
    result = run("verify", "--log", str(log))
    assert "hand 3: record: transcript reference: evening.log.transcripts/hand-0003.json has SHA-256" in result.output
    transcript.unlink()
    assert "hand 3: record: transcript reference: cannot read" in run("verify", "--log", str(log)).output


@pytest.mark.parametrize(
    ("field", "value"), [("pulya", "x"), ("pulya", []), ("pulya", True), ("pulya", 1.5), ("convention", ["AS"])]
)
def test_a_header_convention_of_the_wrong_type_is_one_failure_line(tmp_path, field, value):
    """The log header's pulya or house rules replaced by a value of another type: verify names it, exit 1."""
    assert run("deal", "--hands", "2", "--out", str(tmp_path)).exit_code == 0
    log = tmp_path / "evening.log"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[0] = json.dumps(dict(json.loads(lines[0]), **{field: value}))
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("verify", "--log", str(log))
    assert result.exit_code == 1
    assert f"{field}:" in result.output and "Traceback" not in result.output


def test_verify_needs_transcripts_or_a_log():
    result = CliRunner().invoke(cli, ["verify"])
    assert result.exit_code == 2 and "one of the two" in result.output
