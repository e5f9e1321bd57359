"""The streaming audit of a whole log: findings, calibrated tests, the dealer named, malformed lines survived."""

import io

import numpy as np
import pytest

from fairdeal.audit.evidence import AuditOptions, DealerEvidence, RecentShuffles, audit_hand, hand_evidence
from fairdeal.audit.report import audit_log
from fairdeal.audit.sequential import ace_stacking_test
from fairdeal.audit.simulate import PATTERN, Evening, simulated_records
from fairdeal.cards import from_ascii_list, to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order
from fairdeal.errors import AuditError
from fairdeal.log.records import DealRecord, HandRecord
from fairdeal.log.writer import encode_record
from fairdeal.shuffle.notation import parse_notation

FAST = AuditOptions(draws=49, seed=1)


def log_bytes(records) -> bytes:
    return b"".join(encode_record(r) for r in records)


def evening(cheater, hands, seed) -> list:
    return list(simulated_records(np.random.default_rng(seed), Evening(cheater=cheater), hands))


def test_the_ace_stacker_is_named():
    report = audit_log(io.BytesIO(log_bytes(evening(1, 450, 7))), FAST)
    assert report.hands == 450 and report.malformed_count == 0
    assert report.suspects() == ("Boris",)
    flagged = {t.test for t in report.tests if t.holm <= 0.05}
    assert "talon aces, total (exact)" in flagged and any(t.startswith("cut depth 11") for t in flagged)
    assert [d for d, _ in report.first_alarm] == ["Boris"]
    assert "suspects: Boris" in report.render()


def test_an_honest_evening_names_nobody():
    report = audit_log(io.BytesIO(log_bytes(evening(None, 300, 8))), FAST)
    assert report.suspects() == ()
    assert all(f.kind in ("cancelling-actions", "no-op-shuffle") for _, _, f in report.findings)


def test_a_bottom_deal_is_found_and_malformed_lines_are_survived(tmp_path):
    records = evening(None, 30, 9)
    victim = records[5]
    order = from_ascii_list(victim.order_before)
    after = order[parse_notation(victim.shuffle).permutation(32)]
    bottom = np.concatenate([after[:3], after[-1:], after[3:-1]])
    dealt = deal_order(bottom, PATTERN)
    seats = [to_ascii_list(h) for h in deal_by_seat(dealt, PATTERN, victim.dealer, 3)]
    records[5] = HandRecord(hand=victim.hand, dealer=victim.dealer, order_before=victim.order_before,
                            shuffle=victim.shuffle, deal=DealRecord(hands=seats, talons=[to_ascii_list(dealt.talons[0])]))
    lines = log_bytes(records).splitlines(keepends=True)
    lines.insert(10, b'{"type": "hand", "hand": oops}\n')
    lines.insert(20, b"not json at all\n")
    path = tmp_path / "evening.jsonl"
    path.write_bytes(b"".join(lines))
    report = audit_log(path, FAST)
    assert report.malformed_count == 2 and report.hands == 30
    assert any("line 11" in m for m in report.malformed) and any("line 21" in m for m in report.malformed)
    mismatches = [(hand, dealer, f) for hand, dealer, f in report.findings if f.kind == "deal-mismatch"]
    assert len(mismatches) == 1 and mismatches[0][0] == victim.hand
    assert any("a card from the bottom" in e for e in mismatches[0][2].explanations)
    assert mismatches[0][1] in report.suspects()


def test_dealer_evidence_merges_shard_by_shard():
    records = evening(2, 120, 10)[1:]
    rng = np.random.default_rng(0)
    test = ace_stacking_test(0.25)
    recent = RecentShuffles(50)
    pieces = [hand_evidence(audit_hand(r, PATTERN, 3, rng, FAST, recent), test) for r in records if r.dealer == 2]
    whole = DealerEvidence()
    for piece in pieces:
        whole = whole.merge(piece)
    left, right = DealerEvidence(), DealerEvidence()
    for piece in pieces[:17]:
        left = left.merge(piece)
    for piece in pieces[17:]:
        right = right.merge(piece)
    merged = left.merge(right)
    assert merged.tally.hands == whole.tally.hands == 40
    assert merged.tally.talon_ace_counts == whole.tally.talon_ace_counts
    assert merged.tally.fisher_sum == pytest.approx(whole.tally.fisher_sum)
    assert merged.cusum.end() == pytest.approx(whole.cusum.end()) and merged.cusum.peak() == pytest.approx(whole.cusum.peak())
    assert merged.eprocess.log_evalue == pytest.approx(whole.eprocess.log_evalue)
    assert merged.cuts == whole.cuts


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(AuditError, match="no game log"):
        audit_log(tmp_path / "nowhere.jsonl", FAST)


def test_a_log_without_a_header_cannot_be_audited():
    records = evening(None, 3, 11)[1:]
    with pytest.raises(AuditError, match="header"):
        audit_log(io.BytesIO(log_bytes(records)), FAST)
