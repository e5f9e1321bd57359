"""`verify`: the last transcript's game record is checked field for field against what the engine writes, since no
later transcript hashes it (issue 19); unreadable input is one failure and the other transcripts are still judged."""

import copy
import json

import pytest
from commit_reveal_helpers import honest_session
from fuzz_helpers import broken_rules, run

from fairdeal.protocols.transcript import write_transcript
from fairdeal.protocols.verify import verify_documents, verify_paths


@pytest.fixture(scope="module")
def session():
    docs = honest_session(2)  # hand 2 is a game: it has a discard
    assert len(docs[-1]["record"]["discard"]) == 2
    return docs


@pytest.fixture(scope="module")
def raspasy():
    docs = honest_session(3)  # hand 3 is raspasy: nobody defends, so no defence is open
    assert docs[-1]["record"]["result"]["kind"] == "raspasy" and docs[-1]["record"]["defence_open"] is False
    return docs


def failures_after(docs, change) -> list[str]:
    docs = copy.deepcopy(docs)
    change(docs[-1]["record"])
    report = verify_documents([(f"hand-{i + 1}", d) for i, d in enumerate(docs)])
    return [f"{f.check}: {f.detail}" for f in report.failures]


CHANGES = {
    "a string for an integer": lambda r: r.__setitem__("dealer", str(r["dealer"])),
    "a lower-case card": lambda r: r["tricks"][0]["cards"].__setitem__(0, r["tricks"][0]["cards"][0].lower()),
    "an extra key": lambda r: r.__setitem__("comment", "fine"),
    "a card of the discard replaced": lambda r: r["discard"].__setitem__(0, r["deal"]["hands"][0][0]),
    "a reordered auction": lambda r: r.__setitem__("auction", r["auction"][::-1]),
}


def test_the_honest_sessions_verify(session, raspasy):
    assert failures_after(session, lambda record: None) == []
    assert failures_after(raspasy, lambda record: None) == []


def test_an_open_defence_without_defenders_fails(raspasy):
    assert failures_after(raspasy, lambda record: record.__setitem__("defence_open", True))


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_record_changed_in_type_or_form_fails(session, name):
    assert failures_after(session, CHANGES[name]), name


def test_an_out_of_range_number_fails_that_transcript_only(session, tmp_path):
    paths = []
    for index, doc in enumerate(session):
        path = tmp_path / f"hand-{index + 1}.json"
        write_transcript(doc, path)
        paths.append(path)
    text = paths[0].read_text()
    paths[0].write_text(text.replace('"hand":1', '"hand":18446744073709551616', 1))
    report = verify_paths(paths)
    assert report.transcripts == 2 and any("out of range" in f.detail for f in report.failures)
    outcome = run(["verify", *map(str, paths), str(tmp_path)])
    assert outcome.code == 1 and not broken_rules(outcome)
    assert "is a folder, not a transcript" in outcome.out + outcome.err


def test_a_deep_transcript_is_one_failure(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"a": 0}).replace("0", "[" * 5000 + "]" * 5000))
    outcome = run(["verify", str(path)])
    assert outcome.code == 1 and not broken_rules(outcome) and "nested more than" in outcome.out + outcome.err
