"""Targeting: the talon and the hands against honest shuffling of the same effort."""

import numpy as np
import pytest
from scipy import stats as sps

from fairdeal.audit.targeting import target_cross_match, target_uniform, target_with_order
from fairdeal.deal import deal_batch, get_pattern
from fairdeal.errors import AuditError
from fairdeal.shuffle.models import sample_honest_batch
from fairdeal.shuffle.notation import parse_notation

RUSSIAN = get_pattern("russian")
ACE = 7


def runs_to_talon(upper: int, lower: int) -> list[int]:
    """Card-by-card runs (seed 004's "2", "4": reverse the top k) carrying the cards at positions ``upper < lower``
    (0-based) to the talon places 6 and 7 (the 7th and 8th cards dealt).

    Reversing the top k brings position k-1 to the top, and reversing the top 8 then puts it at position 7.
    """
    runs = [upper + 1] if upper else []     # the upper card to the top; the lower one stays put
    if lower != 1:
        runs.append(lower)                  # the upper card drops to just above the lower one
    return runs + [lower + 1, 8]            # the lower card on top, the upper second; then both into the talon


def stacked_hand(rng: np.random.Generator):
    while True:
        before = rng.permutation(RUSSIAN.deck.codes())
        upper, lower = np.sort(np.flatnonzero(before % 8 == ACE))[:2]
        if lower >= 12:
            break
    sequence = parse_notation(" ".join(map(str, runs_to_talon(int(upper), int(lower)))))
    after = before[sequence.permutation(32)]
    hands, talons = deal_batch(after[None, :], RUSSIAN)
    return before, sequence, hands, talons


def test_the_runs_put_two_aces_into_the_talon():
    # Seed 004: «в прикуп отправляют седьмую и восьмую карты после начала раздачи».
    for seed in range(20):
        _, _, _, talons = stacked_hand(np.random.default_rng(seed))
        assert (talons % 8 == ACE).all()


def test_exact_null_of_a_two_ace_talon():
    _, _, hands, talons = stacked_hand(np.random.default_rng(0))
    result = target_uniform(hands, talons, RUSSIAN)
    assert result.talon_aces.observed[0, 0] == 2
    assert result.talon_aces.pvalue[0, 0] == pytest.approx(6 / 496)
    assert result.draws == 0 and "exact" in result.null


def test_a_stacked_talon_stands_out_in_a_single_hand():
    rng = np.random.default_rng(4)
    before, sequence, hands, talons = stacked_hand(rng)
    same_effort = target_with_order(before[None], sequence, hands, talons, RUSSIAN, rng, draws=1999)
    assert same_effort.talon_aces.pvalue[0, 0] < 0.05
    # The dealer's other hands: card-by-card runs of his usual lengths, chosen blind to the order.
    blind = [parse_notation(" ".join(map(str, rng.integers(2, 26, size=4)))).permutation(32) for _ in range(299)]
    cross = target_cross_match(before, sequence.permutation(32), np.array(blind), RUSSIAN)
    assert cross.talon_aces.pvalue[0, 0] <= 0.01


def test_a_shuffle_with_no_freedom_explains_everything():
    rng = np.random.default_rng(1)
    before = rng.permutation(RUSSIAN.deck.codes())
    sequence = parse_notation("2 4 cut 12")
    hands, talons = deal_batch(before[sequence.permutation(32)][None], RUSSIAN)
    # The honest model of a logged cut is a random cut, of a run an overhand: the p-values are plain MC ones.
    result = target_with_order(before[None], sequence, hands, talons, RUSSIAN, rng, draws=99)
    scaled = result.talon_aces.pvalue * 100
    assert np.allclose(scaled, np.round(scaled)) and (scaled >= 1).all()
    empty = target_with_order(before[None], parse_notation(""), hands, talons, RUSSIAN, rng, draws=99)
    assert empty.talon_aces.pvalue[0, 0] == 1.0


@pytest.mark.parametrize("seed, notation", [(0, "riffle ? riffle ? cut ?"), (1, "2 4 2 8 cut ?"), (2, "overhand ? 6")])
def test_honest_hands_get_uniform_pvalues(seed, notation):
    rng = np.random.default_rng(seed)
    m = 400
    sequence = parse_notation(notation)
    before = np.array([rng.permutation(RUSSIAN.deck.codes()) for _ in range(m)])
    honest = sample_honest_batch(sequence, rng, 32, m)
    hands, talons = deal_batch(np.take_along_axis(before, honest, axis=1), RUSSIAN)
    result = target_with_order(before, sequence, hands, talons, RUSSIAN, rng, draws=199)
    for test in (result.talon_aces, result.talon_value, result.hand_value):
        p = test.randomized(rng.random(test.observed.shape)).ravel()
        assert sps.kstest(p, "uniform").pvalue > 1e-3


def test_shapes_are_checked():
    with pytest.raises(AuditError, match="pattern russian"):
        target_uniform(np.zeros((1, 3, 9), dtype=int), np.zeros((1, 1, 2), dtype=int), RUSSIAN)
    with pytest.raises(AuditError, match="at least one draw"):
        hands, talons = deal_batch(RUSSIAN.deck.codes()[None], RUSSIAN)
        target_with_order(RUSSIAN.deck.codes()[None], parse_notation("2"), hands, talons, RUSSIAN,
                          np.random.default_rng(0), draws=0)
