"""CLI: `fairdeal play` (bots and a person at the terminal) and `fairdeal sheet LOG` through click's CliRunner."""

from __future__ import annotations

import json

from click.testing import CliRunner

from fairdeal.cards import parse_card
from fairdeal.cli import cli
from fairdeal.cli.human import action_label, choose
from fairdeal.engine.actions import Bid, Discard, Play
from fairdeal.log import read_log


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def error_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("Error:")]


def test_play_an_evening_with_bots_and_write_the_log(tmp_path):
    log = tmp_path / "evening.jsonl"
    result = run("play", "--system", "rostov", "--seed", "4", "--hands", "5", "--out", str(log))
    assert result.exit_code == 0, result.output
    assert "not finished (stopped at the cap of 5 hands, 5 hands); it is settled as it stands" in result.output
    assert "пуля" in result.output and "гора" in result.output and "Settlement" in result.output
    assert all(item.ok for item in read_log(log))
    again = run("sheet", str(log))
    assert again.exit_code == 0, again.output
    assert again.output.rstrip().endswith("every logged score line matches")


def test_the_19th_century_game_of_two_end_to_end(tmp_path):
    """003, rules 5, 6: «могут играть двое»; «на третью руку они кладутся отдельно и не вскрываются»: played,
    logged with the pattern of two, validated, recounted and audited."""
    log = tmp_path / "two.jsonl"
    result = run("play", "--system", "preferans-1800s", "--players", "2", "--seed", "3", "--out", str(log))
    assert result.exit_code == 0, result.output
    assert "2 players" in result.output and "Anna" in result.output and "Vera" not in result.output
    header, *hands = [json.loads(line) for line in log.read_text().splitlines()]
    assert header["deal_pattern"] == "russian-two" and header["players"] == ["Anna", "Boris"]
    assert all(len(h["deal"]["hands"]) == 3 and len(h["deal"]["hands"][2]) == 10 for h in hands if "deal" in h)
    assert all(item.ok for item in read_log(log))
    for command in (("log", "validate", str(log)), ("sheet", str(log)), ("audit", str(log))):
        again = run(*command)
        assert again.exit_code == 0, (command, again.output)
    default = json.loads(run("play", "--system", "preferans-1800s", "--seed", "1", "--hands", "1", "--json").output)
    assert len(default["settlement"]) == 3  # «Настоящая же игра в преферанс — втроём»


def test_play_json_holds_the_sheet_and_a_settlement_summing_to_zero():
    result = run("play", "--system", "leningrad", "--players", "4", "--seed", "2", "--pulya", "5", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["finished"] is True and data["stopped"] is None and data["pulya"] == 5
    assert set(data["settlement"]) == {"Anna", "Boris", "Vera", "Gleb"}
    assert abs(sum(data["settlement"].values())) < 1e-9
    assert sum(data["settlement_rounded"].values()) == 0
    assert set(data["sheet"]["Anna"]) == {"pulya", "gora", "whists"}


def test_the_same_seed_plays_the_same_evening(tmp_path):
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for log in logs:
        assert run("play", "--seed", "9", "--hands", "4", "--bots", "random", "--out", str(log)).exit_code == 0
    assert logs[0].read_bytes() == logs[1].read_bytes()


def test_sheet_json_reports_a_cooked_score_line_and_fails(tmp_path):
    log = tmp_path / "evening.jsonl"
    assert run("play", "--seed", "6", "--hands", "8", "--out", str(log)).exit_code == 0
    records = [json.loads(line) for line in log.read_text().splitlines()]
    hand = next(r for r in records if r["type"] == "hand" and r["score"])
    hand["score"][0]["points"] += 1
    cooked = tmp_path / "cooked.jsonl"
    cooked.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = run("sheet", str(cooked), "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert set(data["settlement"]) == {"Anna", "Boris", "Vera"}
    assert len(data["mismatches"]) == 1
    line = records.index(hand) + 1
    assert data["mismatches"][0].startswith(f"line {line}, hand {hand['hand']}, seat {hand['score'][0]['seat']} (")
    text = run("sheet", str(cooked))
    assert text.exit_code == 1 and "mismatch: line " in text.output and "1 mismatches" in text.output


def test_bad_options_give_one_clear_error_line(tmp_path):
    cases = [
        (("play", "--system", "mailru", "--players", "4"), "mailru is played by 3 players, not 4"),
        (("play", "--system", "vint"), "'vint' is not one of"),
        (("play", "--human", "3"), "seat 3 is not at a table of 3"),
        (("play", "--names", "Anna,Anna,Vera"), "give 3 distinct non-empty names"),
        (("play", "--hands", "0"), "--hands"),
    ]
    for args, message in cases:
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        errors = error_lines(result)
        assert len(errors) == 1 and message in errors[0], (args, result.output)
    missing = run("sheet", str(tmp_path / "missing.jsonl"))
    assert missing.exit_code == 2
    assert error_lines(missing) == [
        f"Error: {tmp_path / 'missing.jsonl'}: cannot read the log (No such file or directory)"
    ]
    assert "Traceback" not in missing.output


# ---- a person at the terminal -------------------------------------------------------------------------------


def test_a_person_plays_a_hand_by_menu_numbers(tmp_path):
    log = tmp_path / "human.jsonl"
    result = run("play", "--human", "0", "--seed", "3", "--hands", "1", "--out", str(log), input="1\n" * 200)
    assert result.exit_code == 0, result.output
    assert "— Anna (seat 0), dealer Anna" in result.output
    assert "your cards:" in result.output and "  1. " in result.output
    assert "hand 1 (dealer Anna):" in result.output
    assert "stopped at the cap of 1 hands" in result.output
    assert all(item.ok for item in read_log(log))


def test_bad_input_is_answered_with_the_reason_and_asked_again():
    # Boris (seat 1) is first hand when Anna deals hand 1: his first move is a bid; "pass" is always legal.
    result = run("play", "--human", "1", "--seed", "3", "--hands", "1", input="zzz\n99\n\npass\n")
    assert result.exit_code == 0, result.output
    assert "not accepted: 'zzz' is not a legal move now; legal: pass" in result.output
    assert "not accepted: there is no move 99" in result.output
    assert "not accepted: type a move number or its name" in result.output
    assert "auction: Boris pass" in result.output


def test_end_of_input_ends_the_evening_cleanly(tmp_path):
    log = tmp_path / "human.jsonl"
    result = run("play", "--human", "1", "--seed", "3", "--out", str(log), input="")
    assert result.exit_code == 0, result.output
    assert "the input ended (Boris left the table), 0 hands); it is settled as it stands" in result.output
    types = [item.record.__class__.__name__ for item in read_log(log)]
    assert types == ["TableRecord", "EndRecord"]


def test_cards_and_discards_are_chosen_by_name():
    ace, seven = parse_card("AS").code, parse_card("7H").code
    plays = [Play(0, ace), Play(0, seven)]
    assert choose("a♠", plays) == (plays[0], "")
    assert choose("7h", plays) == (plays[1], "")
    none, reason = choose("KD", plays)
    assert none is None and "KD cannot be played now" in reason and "AS, 7H" in reason
    assert "cannot read card" in choose("ZZ", plays)[1]
    discards = [Discard(0, (ace, seven)), Discard(0, (ace, parse_card("KD").code))]
    assert choose("7H AS", discards) == (discards[0], "")
    assert choose("7h, a♠", discards) == (discards[0], "")
    assert "two different cards" in choose("AS QC", discards)[1]
    bids = [Bid(0, "pass"), Bid(0, "6S"), Bid(0, "misere")]
    assert choose("MISERE", bids) == (bids[2], "")
    assert [action_label(b) for b in bids] == ["pass", "6S", "misere"]
