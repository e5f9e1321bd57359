"""Readers that never fall over (issue 19): every command on mutated logs exits 0, 1 or 2 with short one-line
errors, and counts every hand the validator accepts; plus the inputs that used to crash or hang a reader."""

import json

import numpy as np
import pytest
from fuzz_helpers import HANDS, HEADER, broken_rules, fuzz_log, named_lines, rejected, run, valid_hand_lines
from fuzz_mutators import document_paths, replaced
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fairdeal.protocols.canonical import decode
from fairdeal.protocols.verify import verify_documents
from fairdeal.systems import conventions

FUZZ = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
COMMANDS = (
    ["log", "validate"],
    ["sheet", "--json"],
    ["audit", "--json", "--workers", "1", "--no-targeting", "--no-tells"],
)


def write(tmp_path, name: str, lines: list[bytes]):
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def hand(index: int = 1, **fields) -> bytes:
    document = json.loads(HANDS[index])
    document.update(fields)
    return json.dumps(document).encode()


def commands_agree(path) -> None:
    """Every command keeps the rules, and counts each hand the validator accepts."""
    valid = valid_hand_lines(path)
    for argv in COMMANDS:
        outcome = run([*argv, str(path)])
        assert not broken_rules(outcome), (argv, broken_rules(outcome))
        if argv[0] == "log":
            assert f"{len(valid)} hands valid" in outcome.out
        elif argv[0] == "sheet" and outcome.code != 2:
            assert rejected(path) <= named_lines(json.loads(outcome.out)["mismatches"]), "sheet: a line unreported"
        elif argv[0] == "audit" and outcome.code != 2:
            report = json.loads(outcome.out)
            named = named_lines(report["malformed"]) | {f["line"] for f in report["findings"]}
            unnamed = valid - named  # a hand it cannot audit is named, not dropped
            assert report["summary"]["hands"] >= len(unnamed), "a valid hand was dropped"
            assert rejected(path) <= named, "a line the validator rejects went unreported"


@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=184)  # every hand the bulk pass replays logs no shuffle action: an op table without columns
def test_every_command_survives_a_mutated_log(tmp_path, seed):
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(fuzz_log(np.random.default_rng(seed)))
    commands_agree(path)


@pytest.mark.parametrize("system", sorted(conventions()))
def test_every_system_at_its_largest_table_survives_mutated_lines(tmp_path, system):
    # The narrow reader of the statistics must not take a line the validator rejects silently, in any pattern.
    played = tmp_path / "played.jsonl"
    players = str(max(conventions()[system].players))
    assert (
        run(
            ["play", "--system", system, "--players", players, "--hands", "6", "--seed", "5", "--out", str(played)]
        ).code
        == 0
    )
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(fuzz_log(np.random.default_rng(len(system)), hands=6, bad=2, log=played.read_bytes().splitlines()))
    commands_agree(path)


def test_the_inputs_that_crashed_a_reader_are_one_located_line_each(tmp_path):
    deal = json.loads(HANDS[1])["deal"]
    twice = {"hands": [[deal["hands"][1][0], *deal["hands"][0][1:]], *deal["hands"][1:]], "talons": deal["talons"]}
    order = json.loads(HANDS[1])["order_before"]
    bad = {
        "deep": hand(extras={"x": 0}).replace(b'"x": 0', b'"x": ' + b"[" * 1200 + b"]" * 1200),
        "hat": hand(extras={"hat": 5}),
        "kontra": hand(extras={"kontra": "x"}),
        "nachgehen": hand(extras={"nachgehen": 3}),
        "hand 2^63": hand(hand=2**63),
        "hand 2^64": hand(hand=2**64),
        "non-card order on a bad deal": hand(deal=twice, order_before=["ZZ", *order[1:]]),
        "number in a bad deal": hand(deal={**twice, "hands": [[1, *twice["hands"][0][1:]], *twice["hands"][1:]]}),
        "33-card order": hand(deal=twice, order_before=[*order, "AS"]),
        "two hands on a line": HANDS[1] + b"," + HANDS[2],
        "newline in a key": hand(**{"a\nline 9: fake": 1}),
        "a 1 MB card": hand(order_before=["X" * 1_000_000, *order[1:]]),
        "a shuffle of 1,001 runs": hand(shuffle=" ".join(["1"] * 1001)),
    }
    for name, line in bad.items():
        path = write(tmp_path, "bad.jsonl", [HEADER, HANDS[0], line, HANDS[2]])
        outcome = run(["log", "validate", str(path)])
        errors = [e for e in outcome.out.splitlines() if e.startswith(f"{path}:3: ")]
        assert outcome.code == 1 and errors, name
        assert all(len(e) < 300 for e in errors), name
        printed = outcome.out.splitlines()
        assert all(e.startswith(f"{path}:") for e in printed), name  # one line per error, nothing else
        assert printed[-1].endswith(f"{len(printed) - 1} errors"), name
        commands_agree(path)


def test_a_byte_order_mark_is_accepted_and_an_empty_log_is_invalid(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join([HEADER, *HANDS[:3]]) + b"\n")
    assert run(["log", "validate", str(path)]).code == 0
    assert json.loads(run(["audit", "--json", "--workers", "1", str(path)]).out)["summary"]["hands"] == 3
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    outcome = run(["log", "validate", str(empty)])
    assert outcome.code == 1 and f"{empty}:1: $: the log is empty" in outcome.out


def test_two_records_on_one_line_move_no_other_line(tmp_path):
    path = write(tmp_path, "joined.jsonl", [HEADER, HANDS[0], HANDS[1] + b"," + HANDS[2], HANDS[3], HANDS[4]])
    summary = json.loads(run(["audit", "--json", "--workers", "1", str(path)]).out)
    assert summary["summary"]["hands"] == 3 and summary["summary"]["malformed_lines"] == 1
    assert summary["malformed"][0].startswith("line 3")


def test_a_directory_or_a_missing_file_is_a_usage_error(tmp_path):
    for argv in (["log", "validate"], ["sheet"], ["audit"], ["verify"]):
        for target in (tmp_path, tmp_path / "missing.jsonl"):
            outcome = run([*argv, str(target)])
            assert outcome.code in (1, 2) and not broken_rules(outcome), (argv, target, outcome)


def test_an_engine_refusal_quoting_a_long_value_stays_short(tmp_path):
    # A call the validator takes as a word but the engine refuses: the replay's message quotes it.
    line = hand(5, defence=[{"seat": 1, "call": "X" * 5000}])
    path = write(tmp_path, "long.jsonl", [HEADER, HANDS[4], line, HANDS[6]])
    for argv in COMMANDS:
        assert not broken_rules(run([*argv, str(path)])), argv


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63) + 1, 2**63 - 1) | st.text(max_size=80),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def signed_evenings(tmp_path_factory):
    """Two hands and the settlement of each protocol, as `fairdeal deal` writes them."""
    evenings = {}
    for protocol in ("commit-reveal", "mental-poker"):
        out = tmp_path_factory.mktemp(protocol)
        args = ["deal", "--protocol", protocol, "--hands", "2", "--seed", "3", "--out", str(out)]
        assert run(args).code == 0
        folder = out / "evening.log.transcripts"
        evenings[protocol] = [(p.name, decode(p.read_bytes())) for p in sorted(folder.glob("*.json"))]
    return evenings


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_field_of_a_signed_document_replaced_is_a_finding(signed_evenings, data):
    """A hostile publisher replaces one field of a transcript or settlement with any JSON value: `verify` reports
    findings (one line each) and never raises."""
    docs = signed_evenings[data.draw(st.sampled_from(sorted(signed_evenings)), label="protocol")]
    index = data.draw(st.integers(0, len(docs) - 1), label="document")
    name, doc = docs[index]
    path = data.draw(st.sampled_from(document_paths(doc)[1:]), label="path")
    value = data.draw(JSON_VALUES, label="value")
    changed = replaced(doc, path, value)
    report = verify_documents([*docs[:index], (name, changed), *docs[index + 1 :]])
    if changed != doc:
        assert not report.ok
    assert all("\n" not in failure.line() for failure in report.failures)
