"""The steered-feature tests (``audit.features``), the alpha split across test families, and the deal-derived
tie-breaking draws: exact laws against brute force, mergeable histograms, every registered table, the report."""

from __future__ import annotations

import io
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fairdeal.audit import verdict as verdicts
from fairdeal.audit.benefit.family import upper_tail
from fairdeal.audit.benefit.fold import Lattice
from fairdeal.audit.exact import DealDraws, hand_pvalues, laws_for
from fairdeal.audit.fastpath import layout_for
from fairdeal.audit.features.depth import ACE_MASK, depth_test, depth_tests, fold_depth_aces
from fairdeal.audit.features.depth import total_tails as depth_total_tails
from fairdeal.audit.features.fold import fold_features, target_cards
from fairdeal.audit.features.laws import (
    FEATURES,
    TAIL,
    WIDTH,
    feature_law,
    feature_values,
    longest_suit_pmf,
    tails,
)
from fairdeal.audit.features.tests import SEAT_KINDS, TALON_KINDS, feature_tests, tail_test
from fairdeal.audit.report import templates
from fairdeal.audit.report.narrative import sentence_of_test
from fairdeal.audit.scan import scan_log
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.audit.stats import hypergeometric_null
from fairdeal.audit.summary import BlockContext, Sums
from fairdeal.audit.verdict import ALPHA_SPLIT, FEATURE_FAMILY, OTHER_FAMILY, build_verdict
from fairdeal.cards import DeckKind
from fairdeal.systems import registered

TABLES = sorted({(system.pattern(n).name, n) for system in registered() for n in system.players})


def _verdict(evening: Evening, hands: int, seed: int):
    data = b"".join(fast_evening_lines(np.random.default_rng(seed), evening, hands))
    merged = scan_log(io.BytesIO(data), lambda h: BlockContext(h.pattern_name, len(h.players), False))
    return build_verdict(merged, 0.01)


def _dealt(pattern: str, seats: int, deals: int, seed: int):
    """A table's layout and ``deals`` honest deals by random dealers: ``(layout, rng, dealers, receivers)``."""
    layout = layout_for(pattern, seats)
    rng = np.random.default_rng(seed)
    dealers = rng.integers(0, seats, deals)
    return layout, rng, dealers, _uniform_receivers(rng, layout, dealers)


def _uniform_receivers(rng: np.random.Generator, layout, dealers: np.ndarray) -> np.ndarray:
    deck = layout.pattern.deck.codes()
    recv = np.full((len(dealers), 32), -1, dtype=np.int64)
    for k, d in enumerate(dealers):
        recv[k, rng.permutation(deck)] = layout.template[d]
    return recv


@pytest.mark.parametrize("deck", list(DeckKind))
@pytest.mark.parametrize("k", [1, 2, 3])
def test_feature_laws_match_brute_force_over_every_small_subset(deck, k):
    codes = deck.codes()
    held = np.zeros((0, 32), dtype=bool)
    rows = []
    for subset in combinations(codes, k):
        row = np.zeros(32, dtype=bool)
        row[list(subset)] = True
        rows.append(row)
    held = np.array(rows)
    values = feature_values(held, deck)
    for f in range(len(FEATURES)):
        brute = np.bincount(values[:, f], minlength=WIDTH)[:WIDTH] / len(held)
        assert np.allclose(feature_law(deck, k, f).pmf, brute), FEATURES[f]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_the_longest_suit_law_sums_to_one_and_matches_enumeration(suit_size, suits, data):
    k = data.draw(st.integers(0, suit_size * suits))
    pmf = longest_suit_pmf(suit_size, suits, k)
    assert pmf.sum() == pytest.approx(1.0)
    counts = np.zeros(suit_size + 1)
    cards = [(s, r) for s in range(suits) for r in range(suit_size)]
    for subset in combinations(cards, k):
        lengths = [sum(1 for s, _ in subset if s == suit) for suit in range(suits)]
        counts[max(lengths)] += 1
    assert np.allclose(pmf, counts / counts.sum())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(DeckKind)), st.integers(0, len(FEATURES) - 1), st.data())
def test_each_law_sums_to_one_and_its_tails_are_the_most_extreme_with_chance_at_least_tail(deck, f, data):
    k = data.draw(st.integers(1, deck.size))
    law = feature_law(deck, k, f)
    assert law.pmf.sum() == pytest.approx(1.0) and (law.pmf >= 0).all()
    assert law.p_high >= TAIL - 1e-12 and law.p_low >= TAIL - 1e-12
    assert law.pmf[law.high + 1 :].sum() < TAIL or law.high == WIDTH - 1
    assert law.pmf[: law.low].sum() < TAIL
    assert tails(law.pmf) == (law.high, law.low)


def test_the_tail_count_is_exactly_binomial_and_two_sided():
    law = feature_law(DeckKind.PIQUET32, 10, 0)  # aces in a hand of ten: 3 or more, or none
    counts = np.zeros(WIDTH, dtype=np.int64)
    counts[[0, 1, 2, 3]] = [20, 40, 30, 10]
    test = tail_test(0, 1, 0, counts, law)
    p_high = sps.binom.sf(9, 100, law.p_high)
    p_low = sps.binom.sf(19, 100, law.p_low)
    assert test.pvalue == pytest.approx(min(1.0, 2 * min(p_high, p_low)))
    assert test.direction == ("fed" if p_high <= p_low else "sunk")


def test_honest_tail_tests_keep_their_level():
    """Calibration by simulation: honest counts of 100 deals reject at most at their nominal level."""
    rng = np.random.default_rng(3)
    law = feature_law(DeckKind.PIQUET32, 10, 1)
    values = rng.choice(WIDTH, size=(4000, 100), p=law.pmf)
    p = np.array([tail_test(0, 0, 1, np.bincount(v, minlength=WIDTH), law).pvalue for v in values])
    for level in (0.05, 0.01):
        assert np.mean(p <= level) <= level + 3 * np.sqrt(level / len(p))


@pytest.mark.parametrize(("pattern", "seats"), TABLES, ids=[f"{p}-{n}" for p, n in TABLES])
def test_the_kernels_histograms_are_the_features_by_definition(pattern, seats):
    """Every target of every table at once in C gives the histograms of ``feature_values`` target by target."""
    layout, _, dealers, recv = _dealt(pattern, seats, 200, seats + 7)
    sums = Sums.empty(seats, 4, layout.pattern.deck.size)
    fold_features(sums, recv, dealers, layout)
    expected = np.zeros_like(sums.feature_counts)
    for dealer in range(seats):
        rows = recv[dealers == dealer]
        for target, receiver, _ in target_cards(layout, dealer):
            held = rows >= layout.pattern.hands if receiver < 0 else rows == receiver
            values = np.minimum(feature_values(held, layout.pattern.deck), WIDTH - 1)
            for f in range(len(FEATURES)):
                expected[dealer, target, f] = np.bincount(values[:, f], minlength=WIDTH)
    assert (sums.feature_counts == expected).all()


@pytest.mark.parametrize(("pattern", "seats"), TABLES, ids=[f"{p}-{n}" for p, n in TABLES])
def test_histograms_merge_over_any_split_and_test_every_target_of_every_table(pattern, seats):
    layout, _, dealers, recv = _dealt(pattern, seats, 90, seats)
    whole = Sums.empty(seats, 4, layout.pattern.deck.size)
    parts = [Sums.empty(seats, 4, layout.pattern.deck.size) for _ in range(2)]
    fold_features(whole, recv, dealers, layout)
    fold_features(parts[0], recv[:37], dealers[:37], layout)
    fold_features(parts[1], recv[37:], dealers[37:], layout)
    assert (parts[0].add(parts[1]).feature_counts == whole.feature_counts).all()
    tests = feature_tests(whole, layout)
    expected = sum(2 for d in set(dealers.tolist()) for _ in target_cards(layout, int(d)))
    assert len(tests) == expected
    assert all(0.0 < t.pvalue <= 1.0 for t in tests)
    for d in set(dealers.tolist()):
        assert whole.feature_counts[d, :, 0].sum() == len(target_cards(layout, d)) * np.count_nonzero(dealers == d)


def test_the_alpha_split_is_stated_and_each_family_spends_only_its_share():
    assert dict(ALPHA_SPLIT) == {FEATURE_FAMILY: 0.5, OTHER_FAMILY: 0.5}
    tests = [verdicts.TestResult("s", "t", 0.0, p, 1, "", family=FEATURE_FAMILY) for p in (0.001, 0.2)]
    tests += [verdicts.TestResult("s", "t", 0.0, p, 1, "", family=OTHER_FAMILY) for p in (0.004, 0.5, 0.9)]
    holm = [t.holm for t in verdicts._adjusted(tests)]
    # Holm within each family, divided by its share: 0.001 * 2 / 0.5, 0.004 * 3 / 0.5.
    assert holm[0] == pytest.approx(0.004) and holm[2] == pytest.approx(0.024)
    alone = verdicts._adjusted([verdicts.TestResult("s", "t", 0.0, 0.001, 1, "")])
    assert alone[0].holm == pytest.approx(0.001)  # a family with no test gives its share away


@pytest.mark.parametrize(
    ("cheat", "beneficiary", "direction", "kind"),
    [
        ("aces", "Vera", "fed", "seat-aces-high"),
        ("long-suit", "Vera", "fed", "seat-longest-high"),
        ("junk-talon", "the buyer's talon", "sunk", "talon-low-high"),
    ],
)
def test_a_dealer_steering_a_feature_is_named_with_his_beneficiary(cheat, beneficiary, direction, kind):
    verdict = _verdict(Evening(cheater=1, rate=0.25, cheat=cheat), 300, 7)
    steered = [t for t in verdict.flagged() if t.family == FEATURE_FAMILY]
    assert any(
        t.actor == "Boris" and t.beneficiary == beneficiary and t.direction == direction and t.kind == kind
        for t in steered
    )
    assert verdict.suspects() == ("Boris",)
    for lang in ("en", "ru"):
        text = sentence_of_test(next(t for t in steered if t.kind == kind), len(verdict.tests), lang)
        assert "Boris" in text and str(next(t for t in steered if t.kind == kind).bound) in text


def test_every_feature_kind_has_its_sentence_in_every_language():
    for kind in SEAT_KINDS | TALON_KINDS:
        assert set(templates.TESTS[kind]) == {"en", "ru"}
        for text in templates.TESTS[kind].values():
            assert "{bound}" in text and "{observed}" in text and "{expected}" in text


def test_deal_draws_are_uniform_and_do_not_depend_on_the_block_split():
    rng = np.random.default_rng(5)
    layout = layout_for("russian", 3)
    recv = _uniform_receivers(rng, layout, np.zeros(4000, dtype=np.int64))
    draws = DealDraws(recv)
    first, second = draws.random(len(recv)), draws.random(len(recv))
    assert sps.kstest(first, "uniform").pvalue > 0.001 and abs(np.corrcoef(first, second)[0, 1]) < 0.1
    halves = np.concatenate([DealDraws(recv[:1500]).random(1500), DealDraws(recv[1500:]).random(2500)])
    assert (halves == first).all()
    for name, p in hand_pvalues(recv, layout, laws_for(layout), DealDraws(recv)).items():
        assert sps.kstest(p, "uniform").pvalue > 0.001, name


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.sampled_from([(32, 4), (24, 4), (32, 3)]), st.data())
def test_the_talon_aces_total_law_is_the_convolution_of_its_deals(deals, deck_talon, data):
    """The exact total used for talons of more than two cards: ``upper_tail`` against repeated convolution."""
    size, talon = deck_talon
    pmf = hypergeometric_null(size, 4, talon).pmf
    law = np.array([1.0])
    for _ in range(deals):
        law = np.convolve(law, pmf)
    total = data.draw(st.integers(0, len(law) - 1))
    assert upper_tail([(deals, Lattice(0, pmf))], total) == pytest.approx(law[total:].sum(), rel=1e-9, abs=1e-12)


def _full_tails(pmf, deals):
    """The tails of the whole law of ``deals`` draws by repeated convolution: the reference for ``total_tails``."""
    law = np.array([1.0])
    for _ in range(deals):
        law = np.convolve(law, pmf)
    return np.minimum(np.cumsum(law[::-1])[::-1], 1.0)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 2500), min_size=1, max_size=4), st.sampled_from([(32, 4, 2), (24, 4, 4), (32, 4, 3)]))
def test_shared_trimmed_tails_are_the_whole_laws_tails(deals, shape):
    """One shared run, many deals a convolution, the negligible ends trimmed: every tail the whole law gives, to
    twelve digits and 1e-290."""
    pmf = hypergeometric_null(*shape).pmf
    laws = depth_total_tails(pmf, deals)
    for n in deals:
        full = _full_tails(pmf, n)
        shared = np.array([laws[n].at(s) for s in range(len(full) + 2)])
        # Convolutions of many deals at a time round differently, by a few units in the last place.
        assert np.allclose(shared[: len(full)], full, rtol=1e-12, atol=1e-290)
        assert (shared[len(full) :] == 0).all()
        level = float(full[len(full) // 3]) * (1 + 1e-9)
        assert laws[n].largest_at_most(level) == pytest.approx(full[full <= level].max(), rel=1e-12)


def _brute_depth_pvalue(per_depth, observed, pmf):
    """Twice the smaller of ``P(min_d p_d <= observed min)`` over every depth and over the depths holding the most
    deals, each by enumerating every honest outcome of each deal's talon aces."""
    import itertools

    tails = [_full_tails(pmf, n) for n in per_depth]
    piled = [d for d, n in enumerate(per_depth) if n == max(per_depth)]
    pvalues = []
    for depths in (range(len(per_depth)), piled):
        t = min(tails[d][observed[d]] for d in depths)
        total = 0.0
        for outcome in itertools.product(range(len(pmf)), repeat=sum(per_depth)):
            chance = float(np.prod([pmf[a] for a in outcome]))
            starts = np.cumsum([0, *per_depth])
            smallest = min(tails[d][sum(outcome[starts[d] : starts[d + 1]])] for d in depths)
            total += chance * (smallest <= t * (1 + 1e-9))
        pvalues.append(total)
    return min(1.0, 2 * min(pvalues))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.data())
def test_the_depth_test_has_the_exact_law_of_its_smallest_tails(per_depth, data):
    pmf = hypergeometric_null(32, 4, 2).pmf
    observed = [data.draw(st.integers(0, 2 * n)) for n in per_depth]
    counts = np.zeros((32 + 1, 3), dtype=np.int64)
    for d, (n, aces) in enumerate(zip(per_depth, observed)):
        # Any split of the depth's deals with that total: the test reads only the per-depth totals.
        twos = min(aces // 2, n)
        ones = min(aces - 2 * twos, n - twos)
        counts[4 + d] = [n - twos - ones, ones, twos]
        observed[d] = ones + 2 * twos
    test = depth_test(0, counts, pmf, depth_total_tails(pmf, per_depth))
    assert test is not None and test.deals == sum(per_depth)
    assert test.pvalue == pytest.approx(_brute_depth_pvalue(per_depth, observed, pmf), rel=1e-9, abs=1e-12)


def test_the_depth_holding_most_deals_is_tested_without_the_scans_correction():
    """An accomplice's depth piles up: its tail is taken alone (chosen from the depths, not the aces), doubled."""
    pmf = hypergeometric_null(32, 4, 2).pmf
    counts = np.zeros((33, 3), dtype=np.int64)
    counts[4:29, 0] = 4  # every legal depth four deals without an ace
    counts[11] = [2, 8, 0]  # the accomplice's depth: ten deals, eight aces
    laws = depth_total_tails(pmf, counts.sum(axis=1))
    test = depth_test(0, counts, pmf, laws)
    assert test is not None and (test.depth, test.cut, test.aces) == (11, 10, 8)
    assert test.pvalue == pytest.approx(2 * laws[10].at(8), rel=1e-12)
    scan_only = 1 - np.prod([1 - laws[n].largest_at_most(laws[10].at(8) * (1 + 1e-9)) for n in [4] * 24 + [10]])
    assert test.pvalue < scan_only / 5  # the scan alone pays for the 25 depths


def test_honest_depth_tests_keep_their_level_whatever_the_cutters_habits():
    """Calibration by simulation: a cutter with strong habits (most cuts at a few depths) does not move the test."""
    rng = np.random.default_rng(11)
    pmf = hypergeometric_null(32, 4, 2).pmf
    habit = rng.dirichlet(np.full(25, 0.3))
    p = []
    for _ in range(3000):
        depths = rng.choice(np.arange(4, 29), size=100, p=habit)
        aces = rng.choice(3, size=100, p=pmf)
        counts = np.zeros((33, 3), dtype=np.int64)
        np.add.at(counts, (depths, aces), 1)
        p.append(depth_test(0, counts, pmf, depth_total_tails(pmf, counts.sum(axis=1))).pvalue)
    p = np.array(p)
    for level in (0.05, 0.01):
        assert np.mean(p <= level) <= level + 3 * np.sqrt(level / len(p))
    assert np.mean(p <= 0.05) >= 0.02  # not a test that never rejects: close to its level


@pytest.mark.parametrize(("pattern", "seats"), TABLES, ids=[f"{p}-{n}" for p, n in TABLES])
def test_depth_sums_merge_over_any_split_on_every_table(pattern, seats):
    layout, rng, dealers, recv = _dealt(pattern, seats, 90, seats + 7)
    depths = rng.integers(-1, layout.pattern.deck.size, 90)
    aces = len(laws_for(layout).talon_aces.pmf) - 1
    whole = Sums.empty(seats, aces, layout.pattern.deck.size)
    parts = [Sums.empty(seats, aces, layout.pattern.deck.size) for _ in range(2)]
    fold_depth_aces(whole, recv, dealers, depths, layout)
    fold_depth_aces(parts[0], recv[:41], dealers[:41], depths[:41], layout)
    fold_depth_aces(parts[1], recv[41:], dealers[41:], depths[41:], layout)
    assert (parts[0].add(parts[1]).depth_aces == whole.depth_aces).all()
    assert whole.depth_aces.sum() == np.count_nonzero(depths >= 0)
    talon = recv >= layout.pattern.hands
    aces_held = np.count_nonzero(talon & ACE_MASK[None, : recv.shape[1]], axis=1)
    support = np.arange(whole.depth_aces.shape[2])
    assert whole.depth_aces.sum(axis=(0, 1)) @ support == aces_held[depths >= 0].sum()
    for test in depth_tests(whole, layout, laws_for(layout).talon_aces.pmf):
        assert 0.0 < test.pvalue <= 1.0 and test.cut == np.count_nonzero(
            (dealers == test.dealer) & (depths == test.depth)
        )


def test_a_dealer_stacking_for_his_accomplices_cut_is_named_at_that_depth():
    """The simulated stacker (``stack-10`` in bench_audit_power): an ace to the talon for a cut at depth 11."""
    verdict = _verdict(Evening(cheater=1, rate=0.25, cheat="talon-ace"), 300, 3)
    depth = [t for t in verdict.flagged() if t.kind == "talon-aces-depth"]
    assert [(t.dealer, t.bound) for t in depth] == [("Boris", 11)]
    assert verdict.suspects() == ("Boris",)
    for lang in ("en", "ru"):
        text = sentence_of_test(depth[0], len(verdict.tests), lang)
        assert "Boris" in text and "11" in text
    honest = _verdict(Evening(), 300, 3)
    assert not any(t.holm <= 0.01 for t in honest.tests if t.kind == "talon-aces-depth")


@pytest.mark.parametrize("tell", [False, True])
def test_a_cutter_is_explained_by_a_stacking_dealer_only_with_the_dealers_own_tell(tell):
    """Anna cuts only Boris's deals. Boris flagged for the talon: Anna's chosen depths are explained by him only
    when his own shuffles brought the aces together; otherwise a cutter choosing over honest shuffles is named."""
    data = b"".join(fast_evening_lines(np.random.default_rng(2), Evening(), 90))
    merged = scan_log(io.BytesIO(data), lambda h: BlockContext(h.pattern_name, len(h.players), False))
    flagged = {"holm": 1e-6, "pvalue": 1e-8}
    tests = [
        verdicts.TestResult(
            "dealer Boris", "talon aces, total", 0.0, count=30, null="", dealer="Boris", kind="talon-aces", **flagged
        ),
        verdicts.TestResult(
            "cutter Anna -> the talon",
            verdicts.CUT_TEST + "the talon",
            0.0,
            count=30,
            null="",
            actor="Anna",
            beneficiary="the talon",
            **flagged,
        ),
    ]
    if tell:
        tests.append(
            verdicts.TestResult(
                "dealer Boris",
                "aces brought together (Fisher)",
                0.0,
                count=30,
                null="",
                dealer="Boris",
                kind="aces-together",
                **flagged,
            )
        )
    notes: list[str] = []
    cut = verdicts._cuts_for_a_stacker(tests, 0.01, merged, notes)[1]
    assert cut.explained_by == ("dealer Boris" if tell else None)
    assert bool(notes) == tell and all(n.startswith("cutter Anna:") and "cannot tell" in n for n in notes)
