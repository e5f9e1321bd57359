"""The cutter as a suspect: his depth against what it gave, and who may cut (issue 17, item 2)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import permutations
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

from fairdeal.audit.actors.cuts import UNATTRIBUTED, WRONG, cutter_findings
from fairdeal.audit.actors.cutter import (
    TALON,
    beneficiaries,
    best_depths,
    habit_pvalue,
    legal_depths,
    rank_counts,
    rank_pvalues,
)
from fairdeal.audit.actors.value import decks_by_depth, depth_values, receiver_values
from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.simulate import Evening, fast_evening_lines, stacking_shuffle
from fairdeal.audit.simulate import header as simulate_header
from fairdeal.audit.verdict import TestResult
from fairdeal.cards import to_ascii_list
from fairdeal.deal import DealPattern, deal_by_seat, deal_order, get_pattern
from fairdeal.engine.system import System
from fairdeal.shuffle.notation import parse_notation
from fairdeal.systems import registered

OPTIONS = RunOptions(legality=False, tells=False, targeting=False)
TABLES = [(system, players) for system in registered() for players in system.players]


def is_cut_test(t: TestResult) -> bool:
    """The cutter's chosen-depth tests (the benefit tests name actors too)."""
    return t.test.startswith("cut depth chosen")


def _evening(tmp_path: Path, evening: Evening, seed: int, hands: int = 300) -> Path:
    path = tmp_path / f"evening-{seed}.jsonl"
    path.write_bytes(b"".join(fast_evening_lines(np.random.default_rng(seed), evening, hands)))
    return path


def _rewrite(path: Path, change: Callable[[dict[str, Any]], object]) -> Path:
    """The log with ``change(record)`` applied to every hand line."""
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        if record.get("type") == "hand":
            change(record)
        lines.append(json.dumps(record, ensure_ascii=False))
    out = path.with_name("changed-" + path.name)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


# --- the per-cut p-value --------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=25))
def test_rank_pvalue_is_exactly_uniform_under_a_uniform_depth(values: list[int]) -> None:
    """Whatever the values (ties included), a uniform depth and a uniform tie-break give P(p <= t) = t."""
    v = np.array(values, dtype=float)
    k = len(v)
    above = (v[None, :] > v[:, None]).sum(axis=1)
    ties = (v[None, :] == v[:, None]).sum(axis=1)
    for t in np.linspace(0, 1, 41):
        cdf = np.clip((t * k - above) / ties, 0, 1).mean()
        assert cdf == pytest.approx(t, abs=1e-12)
    # and the code computes the interval each depth's p-value is uniform on
    for u in (0.0, 0.5, 0.999):
        high, low = rank_pvalues(np.broadcast_to(v[None, :, None], (k, k, 1)), np.arange(k), np.full((k, 1), u))
        assert np.allclose(high[:, 0], (above + (1 - u) * ties) / k)
        assert np.allclose(high + low, 1.0)


def test_decks_by_depth_are_the_logged_cut_then_the_actions_after_it() -> None:
    rng = np.random.default_rng(3)
    n = 32
    pre = rng.permutation(n)
    later = parse_notation("4 riffle 16 " + "".join(rng.permutation(list("L" * 16 + "R" * 16))))
    after = later.permutation(n)
    depths = legal_depths(n, 4)
    decks = decks_by_depth(pre[None, :], after[None, :], depths)[0]
    for k, d in enumerate(depths):
        want = pre[parse_notation(f"cut {d}").permutation(n)][after]
        assert (decks[k] == want).all()


def test_the_value_is_high_card_points_by_receiver() -> None:
    pattern = get_pattern("russian")
    deck = pattern.deck.codes()
    values = receiver_values(deck[None, :], np.asarray(pattern.targets), pattern.hands + pattern.talons)[0]
    assert values.sum() == 4 * (4 + 3 + 2 + 1)


@pytest.mark.parametrize(("system", "players"), TABLES, ids=[f"{s.name}-{p}" for s, p in TABLES])
def test_a_cutter_reading_the_deck_is_seen_at_every_table(system: System, players: int) -> None:
    """Every system and table size: the best depth for the cutter ranks first for him, the map seats him."""
    pattern = get_pattern(system.convention.table.pattern_name(players))
    rng = np.random.default_rng(players)
    n = pattern.deck.size
    maps, active = beneficiaries(pattern, players)
    for dealer in range(players):
        cutter = (dealer - system.convention.table.cutter) % players
        pre = np.array([rng.permutation(pattern.deck.codes()) for _ in range(20)])
        dealers = np.full(20, dealer)
        depth = best_depths(pre, dealers, cutter, pattern, players, 4, rng)
        depths = legal_depths(n, 4)
        decks = decks_by_depth(pre, np.broadcast_to(np.arange(n), pre.shape), depths)
        values = np.einsum(
            "ikr,irb->ikb", receiver_values(decks, np.asarray(pattern.targets), maps.shape[1]), maps[dealers]
        )
        high, _ = rank_pvalues(values, depth - depths[0], rng.random((20, players + 1)))
        assert active[dealer, players]  # the talon always receives
        assert (maps[dealer].sum(axis=1) == 1).all() or pattern.seat_lists  # each hand has one beneficiary
        if active[dealer, cutter]:
            # nothing ranks above the best depth: its p-value is only its share of ties
            assert high[:, cutter].mean() < 0.3


# --- who cut --------------------------------------------------------------------------------------------------


def test_who_may_cut_in_one_shuffle() -> None:
    dealer, cutter = 0, 2
    assert cutter_findings(parse_notation("4 2 cut@2 12"), dealer, cutter) == ()
    assert cutter_findings(parse_notation("cut@0 9 riffle ? cut@2 12"), dealer, cutter) == ()  # his own shuffle
    assert cutter_findings(parse_notation("cut 9 4 cut@2 12"), dealer, cutter) == ()
    (own,) = cutter_findings(parse_notation("riffle ? cut@0 12"), dealer, cutter)
    assert own.kind == WRONG and "the dealer himself" in own.message and "seat 2" in own.message
    (other,) = cutter_findings(parse_notation("cut@1 5 cut@2 12"), dealer, cutter)
    assert other.kind == WRONG and "seat 1 cut" in other.message
    (bare,) = cutter_findings(parse_notation("overhand 5,5 cut 12"), dealer, cutter)
    assert bare.kind == UNATTRIBUTED


def test_the_registry_names_the_cutter_for_every_system() -> None:
    for system in registered():
        assert system.convention.table.cutter == 1  # 000: «Снимать колоду должен сосед с правой стороны»


# --- whole evenings -------------------------------------------------------------------------------------------


def test_honest_evening_is_clean_and_the_cutters_are_tested(tmp_path: Path) -> None:
    verdict = run_audit(_evening(tmp_path, Evening(), 11), OPTIONS).verdict
    assert verdict.clean, list(verdict.flagged())
    cutter_tests = [t for t in verdict.tests if is_cut_test(t)]
    assert {t.actor for t in cutter_tests} == {"Anna", "Boris", "Vera"}
    assert {t.beneficiary for t in cutter_tests} == {"Anna", "Boris", "Vera", TALON}
    assert all(t.count == 100 for t in cutter_tests)  # each cuts a third of 300 hands
    assert any("who gathered the cards" in note for note in verdict.notes)


def test_cheating_cutter_is_named_as_cutter_not_as_a_lucky_player(tmp_path: Path) -> None:
    verdict = run_audit(_evening(tmp_path, Evening(cheating_cutter=1), 12), OPTIONS).verdict
    assert verdict.cutters() == ("Boris",)
    assert verdict.suspects() == ()
    top = min((t for t in verdict.flagged() if is_cut_test(t)), key=lambda t: t.pvalue)
    assert top.subject == "cutter Boris -> player Boris" and top.beneficiary == "Boris"
    assert top.observed > top.expected
    assert not verdict.certain()


def test_cutter_too_generous_to_another_seat_is_two_sided(tmp_path: Path) -> None:
    """The cutter helps himself, so the others' hands (and the two-sided test on them) run low."""
    verdict = run_audit(_evening(tmp_path, Evening(cheating_cutter=2, cutter_rate=0.6), 13), OPTIONS).verdict
    low = [
        t
        for t in verdict.tests
        if is_cut_test(t) and t.actor == "Vera" and t.beneficiary != "Vera" and t.observed < t.expected
    ]
    assert low and min(t.pvalue for t in low) < 0.01


def test_dealer_cutting_himself_is_a_rule_finding_in_any_notation(tmp_path: Path) -> None:
    log = _evening(tmp_path, Evening(), 14, hands=30)

    def own_cut(record: dict[str, Any]) -> None:
        if record["hand"] == 5:
            record["shuffle"] = re.sub(r"cut@\d+", f"cut@{record['dealer']}", record["shuffle"])
        if record["hand"] == 7:  # the full notation: an overhand before the cut
            record["shuffle"] = f"overhand ? cut@{record['dealer']} 9"

    verdict = run_audit(_rewrite(log, own_cut), OPTIONS).verdict
    wrong = [(hand, who, f) for _, hand, who, f in verdict.certain() if f.kind == WRONG]
    assert [hand for hand, _, _ in wrong] == [5, 7]
    assert all("the dealer himself" in f.message for _, _, f in wrong)
    assert set(verdict.suspects()) == {who for _, who, _ in wrong}
    assert not verdict.clean


def test_a_cut_by_the_third_player_is_a_rule_finding(tmp_path: Path) -> None:
    log = _evening(tmp_path, Evening(), 15, hands=12)

    def third(record: dict[str, Any]) -> None:
        if record["hand"] == 4:
            record["shuffle"] = re.sub(r"cut@\d+", f"cut@{(record['dealer'] + 1) % 3}", record["shuffle"])

    (finding,) = [f for _, hand, _, f in run_audit(_rewrite(log, third), OPTIONS).verdict.certain()]
    assert finding.kind == WRONG and f"seat {(4 - 1 + 1) % 3} cut" in finding.message


def test_a_log_without_actors_has_no_cutter_finding(tmp_path: Path) -> None:
    log = _rewrite(
        _evening(tmp_path, Evening(), 16, hands=30), lambda r: r.update(shuffle=re.sub("@\\d+", "", r["shuffle"]))
    )
    text = log.read_text(encoding="utf-8")
    assert "@" not in text
    verdict = run_audit(log, OPTIONS).verdict
    assert verdict.clean and UNATTRIBUTED not in verdict.finding_counts
    assert not [t for t in verdict.tests if is_cut_test(t)]
    assert any("names its actor" in note for note in verdict.notes)


def test_a_bare_cut_where_the_log_names_cutters_is_a_rule_finding(tmp_path: Path) -> None:
    log = _evening(tmp_path, Evening(), 17, hands=20)

    def bare(record: dict[str, Any]) -> None:
        if record["hand"] == 6:
            record["shuffle"] = re.sub(r"cut@\d+", "cut", record["shuffle"])

    (finding,) = [f for _, hand, _, f in run_audit(_rewrite(log, bare), OPTIONS).verdict.certain()]
    assert finding.kind == UNATTRIBUTED and "names no actor" in finding.message


def test_without_the_order_before_the_cut_the_test_says_it_could_not_run(tmp_path: Path) -> None:
    log = _rewrite(_evening(tmp_path, Evening(), 18, hands=30), lambda r: r.pop("order_before"))
    verdict = run_audit(log, OPTIONS).verdict
    assert not [t for t in verdict.tests if is_cut_test(t)]
    assert any("cuts not tested" in n or "cut(s) not tested" in n for n in verdict.notes)


def test_the_cutter_sums_merge_across_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small blocks and one block give the same cutter statistics (the sums are additive)."""
    import fairdeal.audit.scan as scan

    log = _evening(tmp_path, Evening(cheating_cutter=0), 19, hands=200)
    whole = run_audit(log, OPTIONS).verdict
    monkeypatch.setattr(scan, "BLOCK_BYTES", 20_000)
    split = run_audit(log, OPTIONS).verdict
    mine = {t.subject: (t.count, t.observed, t.expected) for t in whole.tests if is_cut_test(t)}
    assert mine == {t.subject: (t.count, t.observed, t.expected) for t in split.tests if is_cut_test(t)}


def _hand_line(
    pattern: DealPattern,
    dealer: int,
    players: int,
    shuffle: str,
    rng: np.random.Generator,
    number: int,
    before: np.ndarray | None = None,
) -> dict[str, Any]:
    before = rng.permutation(pattern.deck.codes()) if before is None else before
    after = before[parse_notation(shuffle).permutation(pattern.deck.size)]
    dealt = deal_order(after, pattern)
    hands = [to_ascii_list(h) for h in deal_by_seat(dealt, pattern, dealer, players)]
    return {
        "type": "hand",
        "hand": number,
        "dealer": dealer,
        "order_before": to_ascii_list(before),
        "shuffle": shuffle,
        "deal": {"hands": hands, "talons": [to_ascii_list(t) for t in dealt.talons]},
    }


@pytest.mark.parametrize(("system", "players"), TABLES, ids=[f"{s.name}-{p}" for s, p in TABLES])
def test_every_table_audits_its_cutter(tmp_path: Path, system: System, players: int) -> None:
    """Every registered system and table size: the right cutter is clean and tested; the dealer's own cut is not."""
    pattern = get_pattern(system.convention.table.pattern_name(players))
    names = [f"P{i}" for i in range(players)]
    header = {
        "type": "table",
        "format": "fairdeal-log",
        "version": 1,
        "system": system.name,
        "players": names,
        "deck": pattern.deck.value,
        "deal_pattern": pattern.name,
        "dealing": "physical",
        "pulya": 20,
    }
    rng = np.random.default_rng(players)
    lines = [header]
    for number in range(1, 25):
        dealer = (number - 1) % players
        cutter = (dealer - system.convention.table.cutter) % players
        who = dealer if number == 24 else cutter
        depth = int(rng.integers(4, pattern.deck.size - 3))
        lines.append(_hand_line(pattern, dealer, players, f"4 2 cut@{who} {depth}", rng, number))
    log = tmp_path / "table.jsonl"
    log.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    verdict = run_audit(log, OPTIONS).verdict
    assert [(hand, f.kind) for _, hand, _, f in verdict.certain()] == [(24, WRONG)]
    assert {t.actor for t in verdict.tests if is_cut_test(t)} == set(names)
    assert not [t for t in verdict.flagged() if is_cut_test(t)]


def test_a_house_rule_moves_the_cutter(tmp_path: Path) -> None:
    """``table.cutter`` in the header's convention (a house rule) is who may cut; the right neighbour then may not."""
    log = _evening(tmp_path, Evening(), 20, hands=9)
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0]) | {"convention": {"table.cutter": 2}}
    moved = tmp_path / "moved.jsonl"
    moved.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    wrong = [f for _, _, _, f in run_audit(moved, OPTIONS).verdict.certain() if f.kind == WRONG]
    assert len(wrong) == 9 and all("dealer's cutter" in f.message for f in wrong)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6))
def test_the_habit_law_bounds_the_permutation_law(seed: int, cuts: int) -> None:
    """Against the enumerated permutations of the depths among the cuts: the mean is exact, and the variance
    exceeds the exact one by just the spread of the cuts' own mean scores (so z is never larger)."""
    rng = np.random.default_rng(seed)
    n = 6
    scores = rng.integers(0, 4, size=(cuts, n)).astype(float)
    chosen = rng.integers(0, n, size=cuts)
    counts = np.bincount(chosen, minlength=n)
    totals = np.array([scores[np.arange(cuts), chosen[list(p)]].sum() for p in permutations(range(cuts))])
    observed = float(scores[np.arange(cuts), chosen].sum())
    z, _ = habit_pvalue(observed, counts, scores.sum(axis=0), (scores**2).sum(axis=0))
    levels = scores @ (counts / cuts)  # each cut's mean score over the depths chosen
    extra = cuts * ((levels - levels.mean()) ** 2).sum() / (cuts - 1)
    if totals.var() + extra < 1e-9:
        assert z == 0.0
        return
    assert observed - totals.mean() == pytest.approx(z * np.sqrt(totals.var() + extra), abs=1e-9)


def test_a_dealer_stacking_for_a_habitual_cut_does_not_frame_the_cutter(tmp_path: Path) -> None:
    """Hostile dealer: his right neighbour always cuts 11, and he stacks an ace for that cut in every deal. The
    rank test alone would name the cutter (the talon's value at depth 11 tops the others); the cutter's own
    depths permuted among his cuts show that his depth never follows the deck, so only the dealer is named."""
    pattern = get_pattern("russian")
    rng = np.random.default_rng(21)
    header = msgspec.to_builtins(simulate_header(Evening()))
    lines: list[dict[str, Any]] = [header]
    for number in range(1, 301):
        dealer = (number - 1) % 3
        cutter = (dealer - 1) % 3
        before = rng.permutation(pattern.deck.codes())
        if dealer == 1:
            shuffle = stacking_shuffle(before, rng, cutter, 11)
        else:
            shuffle = f"4 2 cut@{cutter} {int(rng.integers(4, 29))}"
        lines.append(_hand_line(pattern, dealer, 3, shuffle, rng, number, before))
    log = tmp_path / "habit.jsonl"
    log.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    verdict = run_audit(log, OPTIONS).verdict
    assert "Boris" in verdict.suspects()
    assert verdict.cutters() == ()
    (talon,) = [t for t in verdict.tests if t.subject == "cutter Anna -> the talon"]
    assert talon.count == 100 and talon.statistic > chi2_upper(0.001, 200) and talon.pvalue > 0.99


def chi2_upper(p: float, dof: int) -> float:
    return float(chi2.isf(p, dof))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=3, max_size=3), min_size=2, max_size=12), st.booleans())
def test_rank_counts_by_histogram_and_by_sort_agree(rows: list[list[int]], fractional: bool) -> None:
    values = np.array(rows, dtype=np.float32)[None, :, :] + (np.float32(0.25) if fractional else 0)
    below, ties = rank_counts(values)
    assert (below == (values[:, None, :, :] < values[:, :, None, :]).sum(axis=2)).all()
    assert (ties == (values[:, None, :, :] == values[:, :, None, :]).sum(axis=2)).all()


def test_depth_values_are_the_values_of_the_decks() -> None:
    """The additive shortcut equals valuing every deck, with and without actions after the cut."""
    pattern = get_pattern("russian")
    rng = np.random.default_rng(4)
    n = pattern.deck.size
    pre = np.array([rng.permutation(pattern.deck.codes()) for _ in range(6)]).astype(np.int64)
    after = np.array([np.arange(n)] * 3 + [rng.permutation(n) for _ in range(3)])
    depths = legal_depths(n, 4)
    targets = np.asarray(pattern.targets)
    want = receiver_values(decks_by_depth(pre, after, depths), targets, 4)
    assert (depth_values(pre, after, depths, targets, 4) == want).all()
