"""The auditor's model of benefit: hand values against the solver, exact mergeable sums, two-sided tests naming
the actor, the beneficiary and the direction, for every registered system and table size."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit.benefit.family import TALON, benefit_tests, upper_tail
from fairdeal.audit.benefit.fold import Lattice, fold_benefit, honest_null, random_receivers, seated_hands
from fairdeal.audit.benefit.model import GEOMETRIES, Scoring, holdings_of, predict_tricks, shipped_tables, value_model
from fairdeal.audit.fastpath import layout_for
from fairdeal.audit.scan import scan_log
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.audit.summary import BlockContext, Sums
from fairdeal.audit.verdict import FEATURE_FAMILY, Verdict, build_verdict
from fairdeal.cards import NUM_CODES, from_ascii_list
from fairdeal.deal import get_pattern
from fairdeal.engine.system import registered
from fairdeal.errors import AuditError
from fairdeal.solver.dds import solve_batch

SOCHI = Scoring.of_system("sochi")


def _masks(cards: np.ndarray) -> np.ndarray:
    return (np.uint32(1) << cards.astype(np.uint32)).sum(axis=-1, dtype=np.uint32)


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: g.name)
def test_the_tables_predict_the_solver_on_fresh_deals(geometry):
    """Deals the fit never saw (another seed): the best contract's tricks correlate and are unbiased (on 1,000
    held-out deals the fitting script measures r = 0.90 for the piquet deck, 0.81 for the Hussar deck)."""
    rng = np.random.default_rng(99)
    deals, hands = 40, geometry.hands
    deck = np.array(geometry.deck_codes)
    cards = np.stack([rng.permutation(deck)[: hands * 10].reshape(hands, 10) for _ in range(deals)])
    masks = _masks(cards)
    best = np.zeros((deals, hands))
    for h in range(hands):
        for trump in (-1, 0, 1, 2, 3):
            got = solve_batch(masks, np.zeros(deals), np.full(deals, h), np.full(deals, trump), np.zeros(deals, bool))
            best[:, h] = np.maximum(best[:, h], got)
    held = np.zeros((deals * hands, NUM_CODES), dtype=bool)
    np.put_along_axis(held, cards.reshape(deals * hands, 10).astype(np.int64), True, axis=1)
    predicted, _ = predict_tricks(shipped_tables(geometry.name), holdings_of(held), np.tile(np.arange(hands), deals))
    assert np.corrcoef(predicted, best.reshape(-1))[0, 1] > 0.7
    assert abs(np.mean(predicted - best.reshape(-1))) < 0.4


def test_aces_and_a_long_suit_raise_a_hand_and_misere_wants_low_cards():
    model = value_model("piquet3", SOCHI)

    def value(*names: str) -> float:
        held = np.zeros((1, NUM_CODES), dtype=bool)
        held[0, from_ascii_list(names)] = True
        return float(model.value(held, np.zeros(1, dtype=np.int64))[0])

    junk = ("7S", "8S", "9S", "7C", "8C", "10C", "7D", "9D", "8H", "JH")
    aces = ("AS", "AC", "AD", "7C", "8C", "10C", "7D", "9D", "8H", "JH")
    long_suit = ("AS", "KS", "QS", "JS", "10S", "9S", "7D", "9D", "8H", "JH")
    assert value(*long_suit) > value(*aces) > value(*junk)
    clean = np.zeros((1, NUM_CODES), dtype=bool)
    clean[0, from_ascii_list(("7S", "8S", "7C", "8C", "7D", "8D", "9D", "7H", "8H", "9H"))] = True
    aces_held = np.zeros((1, NUM_CODES), dtype=bool)
    aces_held[0, from_ascii_list(aces)] = True
    first = np.zeros(1, dtype=np.int64)
    assert model.misere_chance(clean, first)[0] > 0.4 > 0.05 > model.misere_chance(aces_held, first)[0]
    assert value_model("piquet3", Scoring.of_system("hussar")).misere is None


def test_honest_normal_scores_are_centred_and_standard():
    """On fresh uniform deals the sum of a target's normal scores stays within its honest law."""
    pattern = get_pattern("russian")
    layout = layout_for("russian", 3)
    sums = Sums.empty(3, 2, 32)
    recv = random_receivers(pattern, 6000, np.random.default_rng(5))
    fold_benefit(sums, recv, np.zeros(len(recv), dtype=np.int64), np.full(len(recv), 2), layout, "sochi")
    tests = benefit_tests(sums, layout, ("A", "B", "C"), "sochi")
    assert len(tests) == 4  # three seats and the talon
    assert all(abs(t.z) < 4 for t in tests), [(t.beneficiary, t.z) for t in tests]
    assert all(abs(t.observed - t.expected) < 0.3 for t in tests)


def _systems_and_sizes() -> list[tuple[str, int]]:
    return [(s.name, n) for s in registered() for n in s.convention.players]


@pytest.mark.parametrize(("system", "seats"), _systems_and_sizes())
def test_every_system_and_table_size_gets_its_benefit_tests(system, seats):
    convention = next(s.convention for s in registered() if s.name == system)
    pattern = get_pattern(convention.table.pattern_name(seats))
    layout = layout_for(pattern.name, seats)
    rng = np.random.default_rng(seats)
    deals = 60 * seats
    dealers = np.arange(deals) % seats
    recv = np.full((deals, NUM_CODES), -1, dtype=np.int64)
    recv[:] = random_receivers(pattern, deals, rng)
    sums = Sums.empty(seats, 4, pattern.deck.size)
    fold_benefit(sums, recv, dealers, (dealers - 1) % seats, layout, system)
    players = tuple(f"P{k}" for k in range(seats))
    tests = benefit_tests(sums, layout, players, system)
    seated = sum(len(seated_hands(layout, d)) for d in range(seats))
    assert len(tests) == seated + seats  # each dealer's seated hands and his talon; the cutter is his neighbour
    assert all(0 < t.pvalue <= 1 and t.deals == 60 for t in tests)
    assert {t.actor for t in tests} == set(players)


def _verdict(evening: Evening, seed: int, hands: int = 300) -> Verdict:
    data = b"".join(fast_evening_lines(np.random.default_rng(seed), evening, hands))
    merged = scan_log(io.BytesIO(data), lambda h: BlockContext(h.pattern_name, len(h.players), False, system=h.system))
    return build_verdict(merged, 0.01)


def test_an_honest_evening_has_no_finding():
    verdict = _verdict(Evening(), 1)
    assert verdict.clean
    # per dealer: three seats, the talon, its value; and the steered features (two per seat, two of the talon)
    benefit = [t for t in verdict.tests if t.direction is not None and t.family != FEATURE_FAMILY]
    steered = [t for t in verdict.tests if t.family == FEATURE_FAMILY and t.kind.startswith(("seat-", "talon-"))]
    steered = [t for t in steered if t.kind not in ("talon-aces", "talon-aces-depth")]
    assert len(benefit) == 15 and all(t.direction in ("fed", "sunk") for t in benefit + steered)
    assert len(steered) == 24
    # and per dealer the talon's aces by cut depth (sparse stacking), one-sided: no direction
    depth = [t for t in verdict.tests if t.kind == "talon-aces-depth"]
    assert len(depth) == 3 and all(t.family == FEATURE_FAMILY and t.direction is None for t in depth)


@pytest.mark.parametrize(
    ("cheat", "beneficiary", "direction"),
    [("aces", "Vera", "fed"), ("long-suit", "Vera", "fed"), ("junk-talon", TALON, "sunk")],
)
def test_a_cheating_dealer_is_named_with_his_beneficiary_and_direction(cheat, beneficiary, direction):
    verdict = _verdict(Evening(cheater=1, rate=0.4, cheat=cheat), 3)
    assert verdict.suspects() == ("Boris",)
    # The benefit tests name the dealer; the cut test may also name the cutter whose depth delivered the arranged
    # deal (the simulated cheat knows the cut in advance, as only an accomplice's cut allows).
    named = [t for t in verdict.flagged() if t.direction is not None]
    assert named and all(t.actor == "Boris" for t in named)
    top = min(named, key=lambda t: t.holm)
    assert (top.beneficiary, top.direction) == (beneficiary, direction)
    # A value test's mean moves with the direction; a steered feature's count is of deals in its extreme tail.
    value = min((t for t in named if t.family != FEATURE_FAMILY), key=lambda t: t.holm)
    assert (value.observed > value.expected) == (value.direction == "fed")


def test_an_unknown_cheat_is_refused():
    with pytest.raises(AuditError, match="unknown cheat"):
        next(fast_evening_lines(np.random.default_rng(0), Evening(cheat="marked-cards"), 3))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 89), max_size=6), st.integers(0, 2**32 - 1))
def test_block_sums_merge_exactly_in_any_split(cuts, seed):
    """Folding the deals in any split into blocks and adding the blocks gives exactly the one-block sums."""
    pattern = get_pattern("russian")
    layout = layout_for("russian", 3)
    rng = np.random.default_rng(seed)
    recv = random_receivers(pattern, 90, rng)
    dealers = rng.integers(0, 3, 90)
    cutters = rng.integers(0, 4, 90)
    whole = Sums.empty(3, 2, 32)
    fold_benefit(whole, recv, dealers, cutters, layout, "sochi")
    bounds = [0, *sorted(set(cuts)), 90]
    parts = []
    for a, b in itertools.pairwise(bounds):
        part = Sums.empty(3, 2, 32)
        if b > a:
            fold_benefit(part, recv[a:b], dealers[a:b], cutters[a:b], layout, "sochi")
        parts.append(part)
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.add(part)
    for name in ("benefit_count", "benefit_up", "benefit_down", "benefit_points"):
        assert np.array_equal(getattr(merged, name), getattr(whole, name))


def test_the_null_is_the_same_in_every_process():
    """The honest law is drawn with a fixed seed: computed again it is identical."""
    first = honest_null("russian", (0, 1, 2), SOCHI)
    honest_null.cache_clear()
    again = honest_null("russian", (0, 1, 2), SOCHI)
    assert np.array_equal(first.talon_gains, again.talon_gains)
    assert all(np.array_equal(a.pmf, b.pmf) and a.offset == b.offset for a, b in zip(first.up, again.up))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 9), min_size=1, max_size=5),
    st.integers(-3, 3),
    st.lists(st.integers(1, 9), min_size=1, max_size=4),
    st.integers(0, 6),
    st.integers(0, 5),
    st.integers(-20, 40),
)
def test_the_exact_tail_is_the_tail_of_the_convolution(w1, o1, w2, n1, n2, observed):
    """``upper_tail`` (FFT powers) against the sum's law built by repeated convolution."""
    first = Lattice(o1, np.array(w1, float) / sum(w1))
    second = Lattice(0, np.array(w2, float) / sum(w2))
    pmf, offset = np.ones(1), 0
    for n, law in ((n1, first), (n2, second)):
        for _ in range(n):
            pmf, offset = np.convolve(pmf, law.pmf), offset + law.offset
    expected = pmf[max(0, observed - offset) :].sum() if observed - offset < len(pmf) else 0.0
    got = upper_tail([(n, law) for n, law in ((n1, first), (n2, second)) if n], observed)
    assert got == pytest.approx(max(expected, np.finfo(float).tiny), abs=1e-9)
