"""Targeting per hand (``audit.targeting``) and shuffle quality per hand (``audit.shuffle_quality``) in the one
pipeline: a hand whose card-by-card runs carry two aces into the talon stands out on its own, honest hands'
p-values are uniform, the per-dealer Fisher tests join the Holm family, and the quality measures reach the
report per hand and per dealer."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import fairdeal.audit.run as run_module
from fairdeal.audit.exact import laws_for
from fairdeal.audit.fastpath import layout_for
from fairdeal.audit.quality import MEASURES, deal_bits, permutation_quality
from fairdeal.audit.run import RunOptions, estimated_hands, run_audit
from fairdeal.audit.simulate import PATTERN, Evening, simulated_records
from fairdeal.audit.targeting import Statistics, bonferroni, cross_match, same_effort
from fairdeal.cards import Rank, rank_of, to_ascii_list
from fairdeal.cli import cli
from fairdeal.deal import deal_by_seat, deal_order
from fairdeal.log.records import DealRecord, HandRecord
from fairdeal.log.writer import encode_record
from fairdeal.shuffle.models import gsr_riffle, random_cut
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Action, ShuffleSequence
from fairdeal.shuffle.theory import total_variation

LAYOUT = layout_for("russian", 3)
LAWS = laws_for(LAYOUT)
STATS = Statistics.of(LAYOUT, LAWS)
STACKING_RUNS = "2 4 3 11 7"  # carries the cards gathered at positions 1 and 10 to 6 and 7: the talon
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "sochi-4p-talon-stacker.jsonl"


def stacked_order(rng: np.random.Generator) -> np.ndarray:
    """A gathered order with two aces at positions 1 and 10 and the other two far apart below (17 and 27)."""
    deck = PATTERN.deck.codes()
    aces = [c for c in deck if rank_of(c) == int(Rank.ACE)]
    order = list(rng.permutation([c for c in deck if c not in aces]))
    for place, ace in sorted(zip((1, 10, 17, 27), aces)):
        order.insert(place, ace)
    return np.array(order)


def hand_record(number: int, dealer: int, before: np.ndarray, shuffle: str) -> HandRecord:
    after = before[parse_notation(shuffle).permutation(32)]
    dealt = deal_order(after, PATTERN)
    hands = [to_ascii_list(h) for h in deal_by_seat(dealt, PATTERN, dealer, 3)]
    return HandRecord(
        hand=number,
        dealer=dealer,
        order_before=to_ascii_list(before),
        shuffle=shuffle,
        deal=DealRecord(hands=hands, talons=[to_ascii_list(t) for t in dealt.talons]),
    )


def write(path: Path, records) -> Path:
    path.write_bytes(b"".join(encode_record(r) for r in records))
    return path


def test_the_stacking_runs_put_both_aces_in_the_talon():
    # Seed 004: «"2", "4" – тасовка по одной карте двух, четырёх карт»: a run reverses the top cards.
    before = stacked_order(np.random.default_rng(0))
    after = before[parse_notation(STACKING_RUNS).permutation(32)]
    assert LAWS.aces[after[PATTERN.talon_positions[0]]].all()


def test_a_hand_whose_runs_carry_two_aces_into_the_talon_stands_out_on_its_own(tmp_path):
    records = list(simulated_records(np.random.default_rng(21), Evening(), 3000))
    victim = records[1501]  # hand 1501, dealt by Anna (seat 0)
    records[1501] = hand_record(victim.hand, victim.dealer, stacked_order(np.random.default_rng(1)), STACKING_RUNS)
    path = write(tmp_path / "one-stacked-hand.jsonl", records)
    report = run_audit(path, RunOptions(legality=False, tells=False, targeting=True)).to_json()
    hands = report["targeting"]["hands"]
    assert len(hands) == 3000
    row = next(h for h in hands if h["hand"] == 1501)
    assert row["line"] == 1502 and row["talon_aces"] == 2 and row["dealer"] == "Anna"
    # It stands out against the dealer's other shuffles applied to its gathered order (the cross-match null):
    # hardly any of his ~1000 honest runs-and-cut shuffles puts both aces into the talon.
    assert row["p_cross_talon"] < 0.01 and row["p"] < 0.01
    assert row["p_cross_talon"] <= np.quantile([h["p_cross_talon"] for h in hands], 0.01)
    # The same-effort null (each run replaced by an overhand of as many cards, which keeps packets of cards
    # together) reaches the talon from the top cards more often: it is the cross-match that names this hand.
    assert row["p_talon"] > row["p_cross_talon"]


def test_honest_same_effort_pvalues_are_uniform_when_the_logged_actions_follow_their_models():
    rng = np.random.default_rng(5)
    randomized, valid = [], []
    for _ in range(400):
        before = rng.permutation(PATTERN.deck.codes())
        sequence = ShuffleSequence(
            (Action(gsr_riffle(rng, 32)), Action(gsr_riffle(rng, 32)), Action(random_cut(rng, 32)))
        )
        observed = STATS(before[sequence.permutation(32)][None, :], LAWS)[0]
        p, u, _ = same_effort(observed, before, sequence, STATS, LAWS, rng, 4)
        randomized.append(u)
        valid.append(p)
    randomized, valid = np.array(randomized), np.array(valid)
    for column in range(randomized.shape[1]):  # the talon, then each player hand
        assert sps.kstest(randomized[:, column], "uniform").pvalue > 0.001
    for level in (0.05, 0.2, 0.5):
        assert np.mean(valid <= level) <= level + 3 * math.sqrt(level / valid.size)


def test_honest_cross_match_pvalues_are_valid_and_an_honest_evening_stays_clean(tmp_path):
    path = write(tmp_path / "honest.jsonl", simulated_records(np.random.default_rng(8), Evening(), 900))
    result = run_audit(path, RunOptions(legality=False, tells=False, targeting=True))
    assert result.verdict.clean
    hands = result.to_json()["targeting"]["hands"]
    for key in ("p_cross_talon", "p_cross", "p"):  # discrete, so conservative: P(p <= u) <= u
        values = np.array([h[key] for h in hands])
        for level in (0.02, 0.1, 0.5):
            assert np.mean(values <= level) <= level + 3 * math.sqrt(level / values.size)
    assert "targeted-hand" not in result.verdict.finding_counts
    names = {(t.subject, t.test) for t in result.verdict.tests}
    for dealer in ("Anna", "Boris", "Vera"):
        assert (f"dealer {dealer}", "talon vs honest shuffles of the same effort (Fisher)") in names
        assert (
            f"dealer {dealer} -> player {dealer}",
            "hand value vs honest shuffles of the same effort (Fisher)",
        ) in names


@settings(max_examples=40, deadline=None)
@given(st.permutations(list(range(32))))
def test_the_statistics_of_a_deal_as_received_are_those_of_the_dealt_order(order):
    order = PATTERN.deck.codes()[np.array(order)]
    recv = np.full((1, 32), -1, dtype=np.int8)
    recv[0, order] = np.asarray(PATTERN.targets)
    stats = STATS(order[None, :], LAWS)[0]
    assert (STATS.of_deals(recv, LAWS, PATTERN)[0] == stats).all()
    talon = order[PATTERN.talon_positions[0]]
    assert stats[0] == LAWS.aces[talon].sum() * STATS.scale + LAWS.values[talon].sum()


def test_cross_match_min_p_is_calibrated_on_its_pool():
    rng = np.random.default_rng(3)
    before = rng.permutation(PATTERN.deck.codes())
    others = np.array([rng.permutation(32) for _ in range(199)])
    observed = STATS(before[others[:1]], LAWS)[0]
    p = cross_match(observed, before, others[1:], STATS, LAWS)
    assert p.shape == (5,) and np.all((p > 0) & (p <= 1))
    assert bonferroni(np.array([[0.01, np.nan, 0.5]])).tolist() == [0.02]
    assert np.isnan(bonferroni(np.array([[np.nan, np.nan]])))[0]


def test_the_sample_stacker_is_named_by_the_same_effort_talon_test_too():
    verdict = run_audit(SAMPLE, RunOptions(legality=False)).verdict
    assert verdict.suspects() == ("Vera",)
    assert ("dealer Vera", "talon vs honest shuffles of the same effort (Fisher)") in {
        (t.subject, t.test) for t in verdict.flagged()
    }


def test_shuffle_quality_reaches_the_report_per_hand_and_per_dealer(tmp_path):
    records = list(simulated_records(np.random.default_rng(4), Evening(), 60))
    for k in range(3, 61, 3):  # Vera's deals: two riffles logged without their pattern
        r = records[k]
        records[k] = HandRecord(
            hand=r.hand, dealer=r.dealer, order_before=r.order_before, shuffle="riffle ? riffle ? cut@1 10", deal=r.deal
        )
    report = run_audit(write(tmp_path / "mixed.jsonl", records), RunOptions(legality=False)).to_json()
    quality = report["quality"]
    by_hand = {h["hand"]: h for h in quality["hands"]}
    assert len(by_hand) == 60
    first = records[1]
    perm = parse_notation(first.shuffle).permutation(32)
    expected = permutation_quality(perm)
    row = by_hand[1]
    assert row["bits"] == 0 and row["unrecorded_riffles"] == 0 and not row["can_randomise_deal"]
    assert [row[m] for m in MEASURES] == expected.measures[0].tolist()
    assert row["cyclic_guessing_p"] == pytest.approx(float(expected.cyclic_guessing_pvalue[0]), abs=1e-6)
    riffled = by_hand[3]
    assert riffled["unrecorded_riffles"] == 2 and "preserved" not in riffled
    assert riffled["bits"] == pytest.approx(2 * math.log2(2**32 - 32))
    assert riffled["riffle_tv"] == pytest.approx(float(total_variation(32, 2)), abs=1e-6)
    assert riffled["can_randomise_deal"] == (riffled["bits"] >= deal_bits(PATTERN))
    dealers = {d["dealer"]: d for d in quality["dealers"]}
    assert dealers["Anna"]["zero_bit_share"] == 1.0 and dealers["Vera"]["zero_bit_share"] == 0.0
    assert dealers["Vera"]["hands_measured"] == 0 and dealers["Anna"]["hands_measured"] == 20
    assert sum(dealers["Anna"]["cyclic_guessing_counts"]) == 20


def test_the_size_rule_and_the_switch(tmp_path, monkeypatch):
    path = write(tmp_path / "evening.jsonl", simulated_records(np.random.default_rng(9), Evening(), 300))
    assert abs(estimated_hands(path) - 301) < 30
    monkeypatch.setattr(run_module, "TARGETING_AUTO_HANDS", 100)
    result = run_audit(path, RunOptions(legality=False, tells=False))
    assert result.verdict.targeting is None and result.verdict.quality is None
    assert any("targeting" in n and "exceed 100" in n for n in result.verdict.notes)
    assert result.verdict.quality_dealers  # the per-dealer summary does not depend on the size
    assert run_audit(path, RunOptions(legality=False, tells=False, targeting=True)).verdict.targeting is not None


def test_fairdeal_audit_prints_the_targeted_hands_and_the_quality_table(tmp_path):
    path = write(tmp_path / "evening.jsonl", simulated_records(np.random.default_rng(10), Evening(), 120))
    runner = CliRunner()
    shown = runner.invoke(cli, ["audit", str(path), "--no-legality", "--workers", "1"])
    assert "Hands least likely from their gathered order" in shown.output
    assert "Shuffle quality per dealer" in shown.output
    off = runner.invoke(cli, ["audit", str(path), "--no-legality", "--no-targeting", "--json", "--workers", "1"])
    report = json.loads(off.output)
    assert report["targeting"] is None and len(report["quality"]["hands"]) == 120  # a small log keeps them
    assert any("targeting" in n and "not asked for" in n for n in report["summary"]["notes"])
    html_path = tmp_path / "report.html"
    runner.invoke(cli, ["audit", str(path), "--no-legality", "--html", str(html_path), "--workers", "1"])
    text = html_path.read_text(encoding="utf-8")
    assert "guessing score per dealer" in text and "Hands least likely" in text


def test_per_hand_rows_merge_block_by_block_with_their_file_lines(monkeypatch):
    import io

    import fairdeal.audit.scan as scan
    from fairdeal.audit.summary import BlockContext

    data = b"".join(encode_record(r) for r in simulated_records(np.random.default_rng(12), Evening(), 240))
    monkeypatch.setattr(scan, "BLOCK_BYTES", 30_000)  # about 60 hands a block
    merged = scan.scan_log(
        io.BytesIO(data), lambda h: BlockContext(h.pattern_name, len(h.players), False, targeting=True, per_hand=True)
    )
    assert len(merged.tables["targeting"]) > 3
    for name in ("targeting", "quality"):
        table = merged.table(name)
        assert len(table) == 240
        assert (table.columns["line"] == table.columns["hand"] + 1).all()  # the header is line 1
    assert merged.sums.targeting_talon_tests.sum() == 240 and merged.sums.quality_hands.sum() == 240
