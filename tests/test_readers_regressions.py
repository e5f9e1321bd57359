"""The faults the structured fuzzing of issue 19 found (benchmarks/bench_fuzz.py), each a test that fails if it
comes back; the shipped samples replay; and a bounded hypothesis fuzz over the structured mutators."""

import json
from pathlib import Path

import numpy as np
import pytest
from fuzz_helpers import HANDS, HEADER, broken_rules, disagreement, rejected, run, valid_hand_lines
from fuzz_mutators import mutate, mutate_file
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fairdeal.audit import legality
from fairdeal.audit.replay import undone_actions
from fairdeal.deal import get_pattern
from fairdeal.engine.record import replay_record
from fairdeal.errors import IllegalAction
from fairdeal.resources import sample
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.perm import compose, identity
from fairdeal.systems import get_convention

COMMANDS = {
    "log validate": ["log", "validate"],
    "sheet": ["sheet", "--json"],
    "audit": ["audit", "--json", "--workers", "1", "--no-targeting", "--no-tells"],
}
RUSSIAN = get_pattern("russian")


def write(tmp_path: Path, lines: list[bytes], name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def agree(path: Path) -> None:
    """Every log command keeps the rules on ``path`` and judges its lines as the reader does."""
    valid, bad = valid_hand_lines(path), rejected(path)
    header_bad = bool(bad) and min(bad) == min(valid | bad)  # then sheet and audit have no table to read
    for name, argv in COMMANDS.items():
        outcome = run([*argv, str(path)])
        assert not broken_rules(outcome), (name, broken_rules(outcome))
        assert outcome.code in (0, 1) or (outcome.code == 2 and header_bad), (name, outcome.err)
        if outcome.code == 2:
            continue
        problems, dropped = disagreement(name, outcome, path, valid, bad)
        assert not problems and not dropped, (name, problems)


def hand(index: int, **fields: object) -> bytes:
    return json.dumps({**json.loads(HANDS[index]), **fields}).encode()


def test_hand_numbering_is_checked_across_the_audits_blocks(tmp_path: Path) -> None:
    # The audit's legality pass reads the log in blocks of 256 KB; a repeated hand number just past a block's end
    # was taken as a hand. Each hand repeated: every second line is rejected, in every block.
    lines = [HEADER]
    for line in HANDS[:200]:
        lines += [line, line]
    path = write(tmp_path, lines)
    assert path.stat().st_size > 2 * 256 * 1024
    assert len(rejected(path)) == 200
    agree(path)


def test_a_cut_deeper_than_the_deck_is_one_located_line_not_the_end_of_the_audit(tmp_path: Path) -> None:
    line = hand(1, shuffle=json.loads(HANDS[1])["shuffle"] + " cut@1 32")
    path = write(tmp_path, [HEADER, HANDS[0], line, HANDS[2]])
    outcome = run([*COMMANDS["audit"], str(path)])
    summary = json.loads(outcome.out)["summary"]
    # The line is reported where it is; the recount resynchronises after it, so no knock-on finding follows.
    assert outcome.code == 0 and summary["hands"] >= 2 and summary["malformed_lines"] == 1
    agree(path)


def test_a_shuffle_of_hundreds_of_repeated_actions_is_audited_in_linear_time(tmp_path: Path) -> None:
    # The search for actions that undo each other was cubic in their number: 300 actions took 24 s.
    shuffle = " ".join([json.loads(HANDS[1])["shuffle"]] * 40)
    path = write(tmp_path, [HEADER, HANDS[0], hand(1, shuffle=shuffle), HANDS[2]])
    agree(path)


def _undone_by_search(text: str) -> list[tuple[str, str]]:
    """The definition: every window of two or more actions that composes to the identity or moves no card to
    another receiver, shortest first, skipping a window that holds one already found."""
    sequence = parse_notation(text)
    steps = sequence.steps(32)
    targets = np.asarray(RUSSIAN.targets)
    found: list[tuple[str, str]] = []
    reported: list[tuple[int, int]] = []
    for length in range(2, len(steps) + 1):
        for start in range(len(steps) - length + 1):
            stop = start + length
            if any(start <= a and b <= stop for a, b in reported):
                continue
            p = compose(*steps[start:stop])
            if (p == identity(32)).all():
                found.append(("undo", f"actions {start + 1}-{stop} "))
            elif (targets[p] == targets).all():
                found.append(("no-op-shuffle", f"actions {start + 1}-{stop} "))
            else:
                continue
            reported.append((start, stop))
    return found


ACTIONS = st.sampled_from(
    ["2", "4", "8", "16", "cut 16", "cut 8", "cut 24", "cut 4", "faro in", "faro out", "strip 8", "pile 2"]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(ACTIONS, min_size=1, max_size=10))
def test_the_linear_search_for_undone_actions_finds_what_the_window_search_finds(actions: list[str]) -> None:
    text = " ".join(actions)
    fast = [
        ("no-op-shuffle" if f.kind == "no-op-shuffle" else "undo", f.message.split("(")[0])
        for f in undone_actions(parse_notation(text), RUSSIAN)
    ]
    assert fast == _undone_by_search(text)


def test_a_hand_the_sheet_cannot_replay_is_named_by_its_line(tmp_path: Path) -> None:
    deal = json.loads(HANDS[1])["deal"]
    path = write(tmp_path, [HEADER, HANDS[0], hand(1, auction=[{"seat": 0, "bid": "10NT"}]), HANDS[2]])
    mismatches = json.loads(run(["sheet", "--json", str(path)]).out)["mismatches"]
    assert any(m.startswith("line 3, hand 2: cannot be replayed") for m in mismatches), mismatches
    assert deal  # the hand keeps its deal: only the auction is at fault


def test_a_key_with_a_colon_or_a_space_cannot_shift_the_message(tmp_path: Path) -> None:
    document = json.loads(HANDS[2])
    document["contract"]["b: [id"] = 1
    path = write(tmp_path, [HEADER, HANDS[1], json.dumps(document).encode(), HANDS[3]])
    printed = run(["log", "validate", str(path)]).out.splitlines()
    assert printed[0] == f"{path}:3: contract.b\\u003a\\u0020[id: Object contains unknown field `b: [id`"
    agree(path)


def test_a_huge_number_in_a_signed_statement_names_its_file_and_keeps_the_others(tmp_path: Path) -> None:
    paths = []
    for source in sorted(sample("commit-reveal-evening.jsonl.transcripts").glob("hand-*.json"))[:2]:
        paths.append(tmp_path / source.name)
        paths[-1].write_bytes(source.read_bytes())
    text = paths[1].read_text()
    at = text.index('"statement":{')
    paths[1].write_text(text[:at] + text[at:].replace('"hand":2', '"hand":18446744073709551616', 1))
    outcome = run(["verify", "--json", *map(str, paths)])
    assert outcome.code == 1 and not broken_rules(outcome)
    report = json.loads(outcome.out)
    assert report["transcripts"] == 2
    assert [f["source"] for f in report["failures"]] == [str(paths[1])], report["failures"]
    assert "out of range" in report["failures"][0]["detail"]


def test_every_sample_validates_and_replays_under_sheet_and_audit() -> None:
    for path in sorted(sample("format-example.jsonl").parent.glob("*.jsonl")):
        if path.name == "malformed-lines.jsonl":
            continue
        validated = run(["log", "validate", str(path)])
        assert validated.code == 0, (path.name, validated.out[-500:])
        sheet = json.loads(run(["sheet", "--json", str(path)]).out)
        assert not [m for m in sheet["mismatches"] if "cannot be replayed" in m], (path.name, sheet["mismatches"])
        audit = json.loads(run(["audit", "--json", "--workers", "1", "--no-tells", str(path)]).out)
        assert audit["summary"]["malformed_lines"] == 0, (path.name, audit["malformed"])
        assert not [f for f in audit["findings"] if f["kind"].startswith("illegal")], path.name
    example = sample("format-example.jsonl")
    assert json.loads(run(["sheet", "--json", str(example)]).out)["mismatches"] == []


def test_the_malformed_sample_is_reported_line_for_line_by_every_command() -> None:
    path = sample("malformed-lines.jsonl")
    assert rejected(path) == {10, 11, 12, 13}
    agree(path)


FUZZ = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), layout=st.booleans())
@example(seed=29389, layout=False)  # a drawn evidence hand quoted the card "AS\n" as logged, newline and all
def test_structured_mutations_keep_every_command_in_step(tmp_path: Path, seed: int, layout: bool) -> None:
    rng = np.random.default_rng(seed)
    start = int(rng.integers(0, len(HANDS) - 6))
    body = list(HANDS[start : start + 6])
    for _ in range(12):
        at = int(rng.integers(len(body) + 1))
        _, changed = mutate(HANDS[start + min(at, 5)], rng, HANDS[start + (at + 1) % 6])
        body.insert(at, changed.replace(b"\n", b" "))
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(mutate_file([HEADER, *body], rng)[1] if layout else b"\n".join([HEADER, *body]) + b"\n")
    agree(path)


def test_a_deal_repeated_many_times_is_one_short_finding(tmp_path: Path) -> None:
    # Each copy of a hand is rejected (its number does not increase), but its deal reaches the repeated-deal test,
    # whose message listed every copy: 400 copies made a line of thousands of characters.
    played = tmp_path / "played.jsonl"  # a server-dealt evening: the repeated-deal test is for digital deals
    assert run(["play", "--system", "sochi", "--hands", "3", "--seed", "2", "--out", str(played)]).code == 0
    header, first, second, *rest = played.read_bytes().splitlines()
    path = write(tmp_path, [header, first, *[second] * 60, *rest])
    outcome = run([*COMMANDS["audit"], str(path)])
    assert not broken_rules(outcome)
    repeated = [f for f in json.loads(outcome.out)["findings"] if f["kind"] == "repeated-deal"]
    assert repeated and repeated[0]["message"].endswith("and 50 more received exactly the same deal")
    agree(path)


def test_a_transcript_with_a_non_number_is_one_failure(tmp_path: Path) -> None:
    # Python's json reads NaN and Infinity; the replay then met a float infinity (exit 70).
    source = sample("commit-reveal-evening.jsonl.transcripts") / "hand-0003.json"
    path = tmp_path / source.name
    path.write_text(source.read_text().replace('"winner":0', '"winner":-Infinity', 1))
    outcome = run(["verify", str(path)])
    assert outcome.code == 1 and not broken_rules(outcome)
    assert "-Infinity is not a JSON number" in outcome.out


@pytest.mark.parametrize(
    "change",
    [
        {"tricks": [{"lead": float("inf"), "cards": [], "winner": 0}]},
        {"tricks": [{"lead": {}, "cards": ["AS"], "winner": 0}]},
        {"discard": ["X" * 6000, "AS"]},
        {"auction": [{"seat": None, "bid": "pass"}]},
        {"deal": {"hands": 5}},
        {"extras": {"kontra": [{"seat": 10**30, "call": "kontra"}]}},
    ],
)
def test_any_value_in_a_record_ends_as_one_short_refusal(change: dict[str, object]) -> None:
    # The replay reads transcripts' records, which no schema checked: every failure is one IllegalAction.
    record = {**json.loads(HANDS[2]), **change}
    with pytest.raises(IllegalAction) as refused:
        replay_record(record, get_convention("sochi"), 3)
    assert len(str(refused.value)) <= 300 and "\n" not in str(refused.value)


def test_a_shuffle_at_the_limit_and_far_past_it_are_read_in_time(tmp_path: Path) -> None:
    # 1,000 actions is the documented limit (protocols/shuffle-notation.md); at the limit the audit's search for
    # actions that undo each other was cubic (hours); 200,000 run tokens once asked for 37 GiB.
    at_limit = hand(1, shuffle=" ".join(["2", "cut@2 16"] * 500))
    far_past = hand(2, shuffle=" ".join(["1"] * 200_000))
    path = write(tmp_path, [HEADER, HANDS[0], at_limit, far_past, HANDS[3]])
    assert rejected(path) == {4}
    agree(path)


def test_a_mental_poker_record_with_a_non_card_discard_is_one_failure(tmp_path: Path) -> None:
    source = sample("mental-poker-evening.jsonl.transcripts") / "hand-0001.json"
    document = json.loads(source.read_text())
    document["record"]["discard"][0] = True
    path = tmp_path / source.name
    path.write_text(json.dumps(document))
    outcome = run(["verify", str(path)])
    assert outcome.code == 1 and not broken_rules(outcome)


LINE_KINDS = st.sampled_from(["next", "same", "back", "end", "header", "garbage", "blank"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=st.lists(LINE_KINDS, min_size=1, max_size=14), block=st.integers(1, 8))
def test_blocks_judged_apart_reject_what_the_streaming_reader_rejects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kinds: list[str], block: int
) -> None:
    # The legality pass checks each block's lines alone and the rules across lines afterwards, in line order:
    # for any layout of lines and any block size, it must reject exactly the lines the streaming reader rejects.
    monkeypatch.setattr(legality, "BLOCK_BYTES", 16 * 1200 * block)  # about `block` hand lines a block
    lines, number = [HEADER], 0
    for kind in kinds:
        if kind in ("next", "same", "back"):
            number = max(1, number + {"next": 1, "same": 0, "back": -2}[kind])
            lines.append(hand(min(number, len(HANDS)) - 1, hand=number))
        else:
            lines.append(
                {"end": b'{"type":"end"}', "header": HEADER, "garbage": b'{"type":"hand",', "blank": b""}[kind]
            )
    path = write(tmp_path, lines)
    report = legality.check_legality(path)
    assert {line for line, _ in report.unreadable} | {f[0] for f in report.findings} >= rejected(path)
    assert {line for line, _ in report.unreadable} <= rejected(path)


def test_a_failure_quoting_a_long_value_stays_one_short_line(tmp_path: Path) -> None:
    source = sample("commit-reveal-evening.jsonl.transcripts") / "hand-0002.json"
    document = json.loads(source.read_text())
    document["record"]["dealer"] = "X" * 5000
    path = tmp_path / source.name
    path.write_text(json.dumps(document))
    for argv in (["verify", str(path)], ["verify", "--json", str(path)]):
        outcome = run(argv)
        assert outcome.code == 1 and not broken_rules(outcome), argv


def test_a_float_where_a_transcript_holds_an_integer_is_one_failure(tmp_path: Path) -> None:
    source = sample("commit-reveal-evening.jsonl.transcripts") / "hand-0002.json"
    document = json.loads(source.read_text())
    document["players"][1]["statement"]["hand"] = 20.0
    path = tmp_path / source.name
    path.write_text(json.dumps(document))
    outcome = run(["verify", str(path)])
    assert outcome.code == 1 and not broken_rules(outcome)


def test_half_whists_in_a_records_score_lines_are_no_schema_fault() -> None:
    # Four-player tables write half whists (2.5); only the signed statements must hold whole numbers.
    from fairdeal.protocols.verify import verify_documents

    source = sample("commit-reveal-evening.jsonl.transcripts") / "hand-0002.json"
    document = json.loads(source.read_text())
    scored = [line for line in document["record"]["score"] if line["column"] == "whists"] or document["record"]["score"]
    scored[0]["points"] += 0.5
    checks = {failure.check for failure in verify_documents([("x", document)]).failures}
    assert "transcript schema" not in checks


def test_a_header_naming_a_long_unknown_system_is_one_short_error(tmp_path: Path) -> None:
    header = json.dumps({**json.loads(HEADER), "system": "X" * 5000}).encode()
    path = write(tmp_path, [header, *HANDS[:3]])
    for name, argv in COMMANDS.items():
        outcome = run([*argv, str(path)])
        assert outcome.code in (0, 1, 2) and not broken_rules(outcome), name  # the spec allows other systems
