"""Imperfect logs are not evidence of cheating: benign explanations first, weighed findings, per-hand e-values,
and one broken hand giving one finding."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import msgspec
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_audit_cli import renonce

from fairdeal.audit.benign import overhand_chance, riffle_chance
from fairdeal.audit.evidence import log_wealth
from fairdeal.audit.replay import replay_deal, undone_actions
from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.simulate import PATTERN, Evening, simulated_records
from fairdeal.audit.targeting import conformal_evalue, stacking_score
from fairdeal.audit.verdict import RULE_FINDINGS
from fairdeal.cards import from_ascii_list, to_ascii_list
from fairdeal.cli import cli
from fairdeal.deal import PATTERNS, deal_by_seat, deal_order
from fairdeal.log.records import DealRecord, HandRecord
from fairdeal.shuffle.models import gsr_riffle
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Action, ShuffleSequence
from fairdeal.shuffle.perm import riffle_permutation


def write(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(msgspec.to_builtins(r)) + "\n" for r in records))
    return path


def _wanted(deck: np.ndarray, order: np.ndarray, after: np.ndarray) -> np.ndarray:
    wanted = np.full(int(deck.max()) + 1, -1)
    wanted[order] = after
    return wanted


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_the_riffle_chance_counts_every_interleaving(n, seed):
    rng = np.random.default_rng(seed)
    deck, after = rng.permutation(n), rng.integers(0, 3, n)
    wanted = _wanted(deck, deck[riffle_permutation(rng.random(n) < 0.5)], after)
    bits = np.array(list(itertools.product([False, True], repeat=n)))
    dealt = np.empty((len(bits), n), dtype=np.int64)
    dealt[np.arange(len(bits))[:, None], deck[riffle_permutation(bits)]] = after[None, :]
    exact = (dealt == wanted[None, :n]).all(axis=1).mean()
    assert riffle_chance(deck, wanted, after) == pytest.approx(exact)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_the_overhand_chance_sums_every_packet_split(n, seed):
    rng = np.random.default_rng(seed)
    deck, after = rng.permutation(n), rng.integers(0, 3, n)

    def laid(gaps: tuple[bool, ...]) -> np.ndarray:
        edges = [0, *[i + 1 for i, g in enumerate(gaps) if g], n]
        return np.concatenate([deck[a:b] for a, b in itertools.pairwise(edges)][::-1])

    target = _wanted(deck, laid(tuple(rng.random(n - 1) < 0.25)), after)
    total = sum(
        0.25 ** sum(gaps) * 0.75 ** (n - 1 - sum(gaps))
        for gaps in itertools.product([False, True], repeat=n - 1)
        if (target[laid(gaps)] == after).all()
    )
    assert overhand_chance(deck, target, after, 4.0) == pytest.approx(total)


def test_the_bets_never_rise_on_honest_factors_and_climb_on_a_large_one():
    assert (log_wealth(np.full(50, 0.7)) <= 0).all()
    path = log_wealth(np.array([1.0, 1.0, 1e6, 1.0]))
    assert path[1] == pytest.approx(0.0) and path[2] > np.log(1e5)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_a_left_out_riffle_is_a_log_error_and_a_bottom_deal_is_not_in_every_pattern(name):
    pattern = PATTERNS[name]
    n = pattern.deck.size
    rng = np.random.default_rng(len(name))
    before = rng.permutation(pattern.deck.codes()).astype(np.uint8)
    riffles = [Action(gsr_riffle(rng, n)) for _ in range(3)]
    done = ShuffleSequence((*riffles, *parse_notation("cut@1 9").actions))
    logged = ShuffleSequence(done.actions[:1] + done.actions[2:])
    result = replay_deal(before, logged, deal_order(before[done.permutation(n)], pattern), pattern)
    assert result.matches or (result.log_error and not result.findings)
    after = before[done.permutation(n)]
    at = n // 2  # mid-deck: a bottom card dealt near the top is also an unlogged cut of one card
    bottom = np.concatenate([after[:at], after[-1:], after[at:-1]])
    stacked = replay_deal(before, done, deal_order(bottom, pattern), pattern)
    if not stacked.matches:  # the bottom card may go where the card it replaces went
        assert stacked.findings[0].kind == "deal-mismatch" and stacked.findings[0].e_value > 1e3


@pytest.mark.parametrize("style", ["runs", "riffle", "overhand", "unknown"])
def test_an_evening_where_two_percent_of_hands_miss_an_action_is_clean(tmp_path, style):
    records = list(simulated_records(np.random.default_rng(7), Evening(style=style, log_misses=0.02), 300))
    verdict = run_audit(write(tmp_path / f"{style}.jsonl", records), RunOptions(seed=7)).verdict
    assert verdict.clean and not verdict.certain() and not verdict.suspects()
    assert not any(f.kind == "deal-mismatch" for *_, f in verdict.findings)
    if style != "unknown":  # an unknown shuffle cannot be replayed, so it cannot mismatch
        assert sum(sum(q.explained.values()) for q in verdict.log_quality) >= 1
        assert all(q.unexplained == 0 for q in verdict.log_quality)


def _hand(number: int, dealer: int, before: np.ndarray, logged: str, dealt_from: np.ndarray) -> HandRecord:
    dealt = deal_order(dealt_from, PATTERN)
    return HandRecord(
        hand=number,
        dealer=dealer,
        order_before=to_ascii_list(before),
        shuffle=logged,
        deal=DealRecord(
            hands=[to_ascii_list(h) for h in deal_by_seat(dealt, PATTERN, dealer, 3)],
            talons=[to_ascii_list(t) for t in dealt.talons],
        ),
    )


def test_a_two_packet_overhand_undone_by_the_neighbours_cut_is_weighed_not_certain(tmp_path):
    # An overhand of two packets (10 then 22 cards) is a cut of 10; the neighbour's honest cut of 22 undoes it.
    found = undone_actions(parse_notation("overhand 10,22 cut@0 22"), PATTERN)
    assert [f.kind for f in found] == ["false-cut"] and found[0].e_value == pytest.approx(25.0)
    records = list(simulated_records(np.random.default_rng(3), Evening(), 120))
    victim = records[10]
    before = np.random.default_rng(1).permutation(PATTERN.deck.codes())
    shuffle = f"overhand 10,22 cut@{(victim.dealer - 1) % 3} 22"
    records[10] = _hand(victim.hand, victim.dealer, before, shuffle, before[parse_notation(shuffle).permutation(32)])
    verdict = run_audit(write(tmp_path / "overhand.jsonl", records), RunOptions(seed=3)).verdict
    assert not verdict.certain() and not verdict.suspects()
    false_cuts = [f for *_, f in verdict.findings if f.kind == "false-cut"]
    assert len(false_cuts) == 1 and false_cuts[0].e_value == pytest.approx(25.0)


def test_a_genuinely_stacked_mismatch_is_a_weighed_finding_that_names_the_dealer(tmp_path):
    records = list(simulated_records(np.random.default_rng(4), Evening(), 150))
    stacked = []
    for k in (10, 40, 70):  # Boris (seat 1) deals hands 2, 5, 8...: a card from the bottom dealt as card 7
        r = records[k + 1] if records[k + 1].dealer == 1 else records[k + 2]
        before = np.array(from_ascii_list(r.order_before), dtype=np.uint8)
        after = before[parse_notation(r.shuffle).permutation(32)]
        bottom = np.concatenate([after[:6], after[-1:], after[6:-1]])
        index = records.index(r)
        records[index] = _hand(r.hand, r.dealer, before, r.shuffle, bottom)
        stacked.append(r.hand)
    verdict = run_audit(write(tmp_path / "stacked.jsonl", records), RunOptions(seed=4)).verdict
    mismatches = [(hand, who, f) for _, hand, who, f in verdict.findings if f.kind == "deal-mismatch"]
    assert sorted(h for h, _, _ in mismatches) == sorted(stacked)
    assert all(who == "Boris" and f.e_value > 1e3 for _, who, f in mismatches)
    assert not verdict.certain() and verdict.suspects() == ("Boris",)
    replay = next(e for e in verdict.evidence if e.dealer == "Boris" and e.source == "replay")
    assert sorted(h.hand for h in replay.hands) == sorted(stacked) and replay.pvalue < 1e-6


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    path = tmp_path_factory.mktemp("played") / "pulya.jsonl"
    result = CliRunner().invoke(
        cli, ["play", "--hands", "40", "--seed", "3", "--bots", "random", "--pulya", "60", "--out", str(path)]
    )
    assert result.exit_code == 0, result.output
    return path


def _rule_findings(path: Path) -> list[dict]:
    result = CliRunner().invoke(cli, ["audit", str(path), "--json"])
    return [f for f in json.loads(result.stdout)["findings"] if f["kind"] in RULE_FINDINGS]


def test_the_played_pulya_has_no_rule_findings(played):
    assert _rule_findings(played) == []


def test_one_corrupted_trick_is_one_finding_and_the_sheet_resynchronises(played, tmp_path):
    lines = played.read_text().splitlines()
    for index in range(1, len(lines) // 2):
        record = json.loads(lines[index])
        if record.get("type") == "hand" and (changed := renonce(record)):
            lines[index] = json.dumps(changed[0])
            break
    else:
        pytest.skip("no trick in this pulya allows the swap")
    broken = tmp_path / "corrupted.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    found = _rule_findings(broken)
    assert [(f["kind"], f["hand"]) for f in found] == [("illegal-play", record["hand"])]


def test_one_cooked_score_line_is_one_finding_without_a_knock_on_settlement(played, tmp_path):
    lines = played.read_text().splitlines()
    for index in range(2, len(lines)):
        hand = json.loads(lines[index])
        if hand.get("type") == "hand" and hand.get("score"):
            hand["score"][0]["points"] += 10
            lines[index] = json.dumps(hand)
            break
    path = tmp_path / "cooked.jsonl"
    path.write_text("\n".join(lines) + "\n")
    found = _rule_findings(path)
    assert [(f["kind"], f["hand"]) for f in found] == [("cooked-score", hand["hand"])]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=2, max_size=40))
def test_the_conformal_e_value_averages_to_one_over_which_deal_was_observed(aces):
    # Exchangeable under honest shuffling: each of the 1 + draws deals is equally likely the observed one.
    score = stacking_score(PATTERN)
    values = np.array(aces)
    mean = np.mean([conformal_evalue(values[i], np.delete(values, i), score) for i in range(len(values))])
    assert mean == pytest.approx(1.0)


def test_the_stacking_dealer_is_named_by_his_hands_e_values(tmp_path):
    records = list(simulated_records(np.random.default_rng(3), Evening(cheater=1, rate=0.25), 300))
    verdict = run_audit(write(tmp_path / "stacker.jsonl", records), RunOptions(seed=3)).verdict
    boris = next(e for e in verdict.evidence if e.dealer == "Boris" and e.source == "targeting")
    assert boris.pvalue < 1e-3 and boris.hands and all(h.e_value > 1 for h in boris.hands)
    talons = {r.hand: r.deal.talons[0] for r in records[1:]}
    assert all(any(card.startswith("A") for card in talons[h.hand]) for h in boris.hands)
    assert "Boris" in verdict.suspects()


def test_a_cooked_settlement_is_still_found_for_the_player_it_cooks(played, tmp_path):
    lines = played.read_text().splitlines()
    end = json.loads(lines[-1])
    assert end["type"] == "end"
    end["settlement"]["Vera"] += 100
    lines[-1] = json.dumps(end)
    path = tmp_path / "settled.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert [(f["kind"], f["who"]) for f in _rule_findings(path)] == [("cooked-settlement", "Vera")]


def test_an_unreadable_hand_line_gives_no_knock_on_rule_findings(played, tmp_path):
    lines = played.read_text().splitlines()
    hands = [i for i, line in enumerate(lines) if json.loads(line).get("type") == "hand"]
    lines[hands[len(hands) // 2]] = '{"type": "hand", "hand": broken'
    path = tmp_path / "unreadable.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["audit", str(path), "--json"])
    document = json.loads(result.stdout)
    assert document["summary"]["malformed_lines"] == 1
    assert [f for f in document["findings"] if f["kind"] in RULE_FINDINGS] == []
    assert any("settlement is not recounted" in note for note in document["summary"]["notes"])
