"""`run_audit`, the one audit pipeline (what `fairdeal audit LOG` runs): the ace stacker named, an honest evening
clean, a bottom deal explained, malformed lines reported with line and field and left out, clear errors."""

import numpy as np
import pytest

from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.simulate import PATTERN, Evening, simulated_records
from fairdeal.cards import from_ascii_list, to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order
from fairdeal.errors import AuditError
from fairdeal.log.records import DealRecord, HandRecord
from fairdeal.log.writer import encode_record
from fairdeal.shuffle.notation import parse_notation

FAST = RunOptions(legality=False, seed=1)


def evening(cheater, hands, seed) -> list:
    return list(simulated_records(np.random.default_rng(seed), Evening(cheater=cheater), hands))


def write(path, records, extra_lines=()):
    lines = [encode_record(r) for r in records]
    for index, text in extra_lines:
        lines.insert(index, text)
    path.write_bytes(b"".join(lines))
    return path


def test_the_ace_stacker_is_named(tmp_path):
    verdict = run_audit(write(tmp_path / "stacker.jsonl", evening(1, 450, 7)), FAST).verdict
    assert verdict.hands == 450 and verdict.malformed_count == 0
    assert verdict.suspects() == ("Boris",)
    flagged = {t.test for t in verdict.flagged()}
    assert "talon aces, total" in flagged and any(t.startswith("cut depth 11") for t in flagged)
    assert [p.dealer for p in verdict.paths if p.cusum_alarm is not None] == ["Boris"]


def test_an_honest_evening_names_nobody_and_its_shuffles_are_judged_by_their_tells(tmp_path):
    verdict = run_audit(write(tmp_path / "honest.jsonl", evening(None, 300, 8)), FAST).verdict
    assert verdict.clean and verdict.suspects() == ()
    assert sum(t.test == "aces brought together (Fisher)" for t in verdict.tests) == 3
    assert all(f.kind in ("cancelling-actions", "no-op-shuffle") for _, _, _, f in verdict.findings)


def test_keeping_no_findings_still_counts_every_one(tmp_path):
    """``keep=0`` words no finding and counts the same ones as the default (a kind first met past the quota)."""
    log = write(tmp_path / "honest.jsonl", evening(None, 300, 8))
    full = run_audit(log, FAST).verdict
    bare = run_audit(log, RunOptions(legality=False, seed=1, keep=0)).verdict
    assert not bare.findings
    assert bare.finding_counts == full.finding_counts and sum(full.finding_counts.values()) > 0


def test_a_bottom_deal_is_found_and_malformed_lines_are_survived(tmp_path):
    records = evening(None, 30, 9)
    victim = records[5]
    order = from_ascii_list(victim.order_before)
    after = order[parse_notation(victim.shuffle).permutation(32)]
    bottom = np.concatenate([after[:3], after[-1:], after[3:-1]])
    dealt = deal_order(bottom, PATTERN)
    seats = [to_ascii_list(h) for h in deal_by_seat(dealt, PATTERN, victim.dealer, 3)]
    records[5] = HandRecord(
        hand=victim.hand,
        dealer=victim.dealer,
        order_before=victim.order_before,
        shuffle=victim.shuffle,
        deal=DealRecord(hands=seats, talons=[to_ascii_list(dealt.talons[0])]),
    )
    path = write(
        tmp_path / "evening.jsonl", records, [(10, b'{"type": "hand", "hand": oops}\n'), (20, b"not json at all\n")]
    )
    verdict = run_audit(path, FAST).verdict
    assert verdict.malformed_count == 2 and verdict.hands == 30
    assert any(m.startswith("line 11") for m in verdict.malformed) and any(
        m.startswith("line 21") for m in verdict.malformed
    )
    mismatches = [(hand, who, f) for _, hand, who, f in verdict.findings if f.kind == "deal-mismatch"]
    assert len(mismatches) == 1 and mismatches[0][0] == victim.hand
    assert any("a card from the bottom" in e for e in mismatches[0][2].explanations)
    assert mismatches[0][1] in verdict.suspects()


@pytest.mark.parametrize(
    "field, broken, where",
    [
        ("deal", lambda r: r.deal.talons[0].__setitem__(1, "1X"), "field deal.talons[0][1]"),
        ("order", lambda r: r.order_before.__setitem__(4, "ZZ"), "field order_before"),
    ],
)
def test_a_line_that_fails_validation_is_malformed_with_its_field_and_left_out(tmp_path, field, broken, where):
    records = evening(None, 24, 10)
    broken(records[7])
    verdict = run_audit(write(tmp_path / f"{field}.jsonl", records), RunOptions(seed=1)).verdict
    assert verdict.hands == 23 and verdict.malformed_count == 1
    assert verdict.malformed[0].startswith(f"line 8, {where}")
    assert not any(hand == records[7].hand for _, hand, _, _ in verdict.findings)
    assert sum(p.deals for p in verdict.paths) == 23


def test_a_null_shuffle_fails_validation_like_the_log_reader_says(tmp_path):
    records = evening(None, 12, 11)
    lines = [encode_record(r) for r in records]
    lines[4] = lines[4].replace(f'"shuffle":"{records[4].shuffle}"'.encode(), b'"shuffle":null')
    path = tmp_path / "null.jsonl"
    path.write_bytes(b"".join(lines))
    verdict = run_audit(path, FAST).verdict
    assert verdict.hands == 11 and verdict.malformed_count == 1 and "line 5, field shuffle" in verdict.malformed[0]


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(AuditError, match="no game log"):
        run_audit(tmp_path / "nowhere.jsonl", FAST)


def test_a_log_without_a_header_cannot_be_audited(tmp_path):
    with pytest.raises(AuditError, match="header"):
        run_audit(write(tmp_path / "headless.jsonl", evening(None, 3, 11)[1:]), FAST)
