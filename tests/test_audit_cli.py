"""`fairdeal audit LOG` end to end: honest and cheating tables, malformed lines, --json, --html, legality
(a cooked score line, a renonce), and unreadable input — always an exit code, never a traceback."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from test_audit_scan import two_player_log

from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.cards import from_ascii_list, suit_of
from fairdeal.cli import cli

JSON_KEYS = {"summary", "suspects", "beneficiaries", "findings", "malformed", "tests", "sequential", "legality"}


def run(*args: str):
    return CliRunner().invoke(cli, ["audit", *args])


def write_evening(path, cheater, hands, seed, extra_lines=()):
    lines = b"".join(fast_evening_lines(np.random.default_rng(seed), Evening(cheater=cheater), hands)).split(b"\n")
    for index, text in extra_lines:
        lines.insert(index, text)
    path.write_bytes(b"\n".join(lines))
    return path


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A pulya played by the engine's bots: every hand has its auction, tricks and score lines."""
    path = tmp_path_factory.mktemp("played") / "pulya.jsonl"
    result = CliRunner().invoke(
        cli, ["play", "--hands", "60", "--seed", "3", "--bots", "random", "--pulya", "60", "--out", str(path)]
    )
    assert result.exit_code == 0, result.output
    return path


def test_an_honest_table_is_clean(tmp_path):
    result = run(str(write_evening(tmp_path / "honest.jsonl", None, 600, 1)), "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "Nothing flagged" in result.output and "Suspicious dealers: none" in result.output


def test_the_cheating_dealer_is_named_with_his_alarm(tmp_path):
    result = run(str(write_evening(tmp_path / "cheat.jsonl", 1, 600, 2)), "--workers", "2")
    assert result.exit_code == 1
    assert "Boris" in result.output and "talon aces, total" in result.output
    document = json.loads(run(str(tmp_path / "cheat.jsonl"), "--json").stdout)
    assert set(document) >= JSON_KEYS
    assert [s["dealer"] for s in document["suspects"]] == ["Boris"]
    boris = next(d for d in document["sequential"]["dealers"] if d["dealer"] == "Boris")
    assert boris["eprocess_alarm_hand"] is not None and document["summary"]["exit_code"] == 1
    assert all(t["null"] for t in document["tests"])


def test_malformed_lines_are_reported_and_the_rest_audited(tmp_path):
    path = write_evening(
        tmp_path / "broken.jsonl",
        None,
        300,
        3,
        [
            (4, b'{"type": "hand", "hand": oops}'),
            (50, b"\xff\xfe garbage"),
            (80, b'{"type":"hand","hand":77,"dealer":0,"deal":{"hands":[["AS"]],"talons":[]}}'),
        ],
    )
    document = json.loads(run(str(path), "--json").stdout)
    assert document["summary"]["hands"] == 300 and document["summary"]["malformed_lines"] == 2
    assert document["malformed"][0].startswith("line 5,") and document["malformed"][1].startswith("line 51,")
    bad = [f for f in document["findings"] if f["kind"] == "bad-deal"]
    assert bad and bad[0]["line"] == 81
    text = run(str(path)).output
    assert "Malformed lines" in text and "line 51" in text


def test_html_report_holds_the_five_plots(tmp_path):
    out = tmp_path / "report.html"
    result = run(str(write_evening(tmp_path / "cheat.jsonl", 2, 450, 4)), "--html", str(out))
    assert result.exit_code == 1
    page = out.read_text()
    assert page.count("data:image/png;base64,") == 5
    plots = ("evidence over time", "talon-ace rate per dealer", "sequential paths", "p-value QQ plot")
    for alt in (*plots, "guessing score per dealer"):
        assert alt in page
    assert "Vera" in page


def test_unreadable_input_exits_2_without_a_traceback(tmp_path):
    missing = run(str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 2 and "no game log" in missing.output
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\x00\x01 not a log\n{\n")
    result = run(str(garbage))
    assert result.exit_code == 2 and "Traceback" not in result.output and "header" in result.output
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert run(str(empty)).exit_code == 2


def test_a_played_pulya_passes_legality_and_the_digital_battery(played):
    document = json.loads(run(str(played), "--json", "--legality").stdout)
    assert document["legality"]["replayed"] == document["summary"]["hands"] > 0
    assert not [f for f in document["findings"] if f["certain"]]
    assert any(t["subject"] == "deal generator" for t in document["tests"])


def test_a_cooked_score_line_is_found(played, tmp_path):
    lines = played.read_text().splitlines()
    hand = json.loads(lines[3])
    hand["score"][0]["points"] += 4
    seat = hand["score"][0]["seat"]
    lines[3] = json.dumps(hand)
    cooked = tmp_path / "cooked.jsonl"
    cooked.write_text("\n".join(lines) + "\n")
    result = run(str(cooked), "--json")
    assert result.exit_code == 1
    found = [f for f in json.loads(result.stdout)["findings"] if f["kind"] == "cooked-score"]
    assert len(found) == 1 and found[0]["hand"] == hand["hand"] and found[0]["line"] == 4
    assert f"seat {seat}" in found[0]["message"]


def renonce(hand: dict) -> tuple[dict, int] | None:
    """Swap a follower's card in one trick with a later card of his, so he fails to follow a suit he holds."""
    tricks = hand.get("tricks", [])
    for t, trick in enumerate(tricks):
        if "talon_card" in trick:
            continue
        led = suit_of(int(from_ascii_list([trick["cards"][0]])[0]))
        for later_index in range(t + 1, len(tricks)):
            later = tricks[later_index]
            if "talon_card" in later or later["lead"] != trick["lead"]:
                continue
            for k in (1, 2):
                now = suit_of(int(from_ascii_list([trick["cards"][k]])[0]))
                then = suit_of(int(from_ascii_list([later["cards"][k]])[0]))
                if now == led and then != led:
                    trick["cards"][k], later["cards"][k] = later["cards"][k], trick["cards"][k]
                    return hand, t + 1
    return None


def test_a_renonce_is_found_naming_the_hand(played, tmp_path):
    lines = played.read_text().splitlines()
    for index in range(1, len(lines)):
        record = json.loads(lines[index])
        if record.get("type") == "hand" and (changed := renonce(record)):
            lines[index] = json.dumps(changed[0])
            break
    else:
        pytest.skip("no trick in this pulya allows the swap")
    broken = tmp_path / "renonce.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    result = run(str(broken), "--json")
    assert result.exit_code == 1
    found = [f for f in json.loads(result.stdout)["findings"] if f["kind"] == "illegal-play"]
    assert found and found[0]["hand"] == record["hand"] and f"trick {changed[1]}" in found[0]["message"]


def test_a_bad_field_the_statistics_skip_is_still_reported(played, tmp_path):
    lines = played.read_text().splitlines()
    hand = json.loads(lines[2])
    hand["score"][0]["column"] = "bribes"
    lines[2] = json.dumps(hand)
    path = tmp_path / "bad-field.jsonl"
    path.write_text("\n".join(lines) + "\n")
    document = json.loads(run(str(path), "--json").stdout)
    assert document["summary"]["malformed_lines"] == 1 and document["malformed"][0].startswith("line 3")
    assert document["summary"]["hands"] == sum(json.loads(line)["type"] == "hand" for line in lines)


def test_another_pattern_is_audited_with_what_applies(tmp_path):
    path = tmp_path / "hussar.jsonl"
    path.write_bytes(two_player_log("hussar", 300, 5))
    result = run(str(path))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Audited 300 hands" in text and "talon-rank test (231 pairs) does not apply" in text
    assert "legality not checked" in text


def test_the_server_seed_window_finds_the_weak_server_and_needs_a_time(tmp_path):
    from fairdeal.log import write_log
    from fairdeal.tricks.power import weak_server_records

    weak = tmp_path / "weak.jsonl"
    write_log(weak, weak_server_records(6, np.random.default_rng(2)))
    assert run(str(weak), "--workers", "1").exit_code == 0
    result = run(str(weak), "--workers", "1", "--server-seed-window", "12")
    assert result.exit_code == 1 and "weak-seed" in result.output and "Deal generator: flagged" in result.output
    lines = weak.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = lines[0].replace(',"started":"2025-11-24T16:00:00+00:00"', "")
    weak.write_text("".join(lines), encoding="utf-8")
    result = run(str(weak), "--workers", "1", "--server-seed-window", "12")
    assert result.exit_code == 2 and "--server-time" in result.output and "Traceback" not in result.output
    assert run(str(weak), "--workers", "1", "--server-seed-window", "12", "--server-time", "1764000000").exit_code == 1


def test_the_tells_can_be_switched_off(tmp_path):
    path = write_evening(tmp_path / "honest.jsonl", None, 30, 4)
    result = run(str(path), "--workers", "1", "--no-tells", "--json")
    assert result.exit_code == 0
    assert any("tells" in note for note in json.loads(result.output)["summary"]["notes"])


def test_a_malformed_line_is_reported_once_and_not_also_judged_as_a_hand():
    sample = Path(__file__).resolve().parent.parent / "samples" / "malformed-lines.jsonl"
    document = json.loads(run(str(sample), "--json").stdout)
    malformed = {int(m.split(",")[0].split(":")[0].removeprefix("line ")) for m in document["malformed"]}
    judged = {f["line"] for f in document["findings"]}
    assert len(malformed) == document["summary"]["malformed_lines"] == 4
    assert not malformed & judged
