"""Honest shuffle models: each draws what its documentation says, checked exactly where possible, else by chi-square."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fairdeal.errors import ShuffleError
from fairdeal.shuffle import (
    Cut,
    Faro,
    GSRRiffleModel,
    Overhand,
    OverhandModel,
    Perm,
    Pile,
    PileGatherModel,
    RandomCutModel,
    Riffle,
    Run,
    RunUnder,
    Strip,
    UniformModel,
    cut_is_legal,
    gsr_riffle,
    gsr_riffle_batch,
    model_for,
    overhand_batch,
    parse_notation,
    pemantle_overhand,
    pile_gather_batch,
    random_cut,
    random_cut_batch,
    rising_sequence_distribution,
    rising_sequences,
    sample_honest_batch,
)

P_VALUE_FLOOR = 1e-4  # fixed seeds: a correct sampler passes deterministically; a wrong one fails by miles


def _chi_square_p(observed: np.ndarray, expected_probabilities: list[float]) -> float:
    expected = np.array(expected_probabilities, dtype=float) * observed.sum()
    return float(stats.chisquare(observed, expected).pvalue)


def test_gsr_batch_rising_sequences_match_the_exact_distribution_after_two_riffles():
    rng = np.random.default_rng(20240601)
    n, m = 7, 20000
    perms = np.take_along_axis(gsr_riffle_batch(rng, n, m), gsr_riffle_batch(rng, n, m), axis=1)
    observed = np.bincount(rising_sequences(perms), minlength=n + 1)[1:]
    exact = [float(p) for p in rising_sequence_distribution(n, 2)]
    support = [i for i, p in enumerate(exact) if p > 0]
    assert observed[[i for i in range(n) if i not in support]].sum() == 0
    assert _chi_square_p(observed[support], [exact[i] for i in support]) > P_VALUE_FLOOR


def test_gsr_drop_rule_makes_every_pattern_equally_likely():
    rng = np.random.default_rng(7)
    n, m = 4, 4000
    patterns = Counter(gsr_riffle(rng, n).pattern for _ in range(m))
    observed = np.array([patterns["".join(bits)] for bits in itertools.product("LR", repeat=n)])
    assert _chi_square_p(observed, [1 / 2**n] * 2**n) > P_VALUE_FLOOR


def test_gsr_drop_rule_rising_sequences_match_the_exact_distribution():
    rng = np.random.default_rng(11)
    n, m = 6, 3000
    counts = Counter(rising_sequences(gsr_riffle(rng, n).permutation(n)) for _ in range(m))
    observed = np.array([counts[1], counts[2]])
    exact = rising_sequence_distribution(n, 1)
    assert _chi_square_p(observed, [float(exact[0]), float(exact[1])]) > P_VALUE_FLOOR


def test_random_cut_is_uniform_over_legal_depths():
    rng = np.random.default_rng(3)
    depths = [random_cut(rng, 32, 4).depth for _ in range(5000)]
    assert set(depths) == set(range(4, 29))
    observed = np.bincount(depths, minlength=29)[4:]
    assert _chi_square_p(observed, [1 / 25] * 25) > P_VALUE_FLOOR
    batch = random_cut_batch(rng, 32, 500, 6)
    assert all(cut_is_legal(int(row[-1]) + 1, 32, 6) for row in batch)
    assert all((row == Cut(int(row[-1]) + 1).permutation(32)).all() for row in batch)


def test_no_legal_cut_is_an_error():
    with pytest.raises(ShuffleError, match="no legal cut"):
        random_cut(np.random.default_rng(0), 7, 4)


def _packets_of_overhand(p: np.ndarray) -> tuple[int, ...]:
    """Read an overhand permutation back into packet sizes (top packet first); fail if it is not one."""
    breaks = np.flatnonzero(np.diff(p) != 1) + 1
    blocks = np.split(p, breaks)
    assert blocks[-1][0] == 0 and all(a[0] > b[0] for a, b in itertools.pairwise(blocks))
    return tuple(len(b) for b in reversed(blocks))


def test_overhand_batch_rows_are_overhands_with_geometric_packets():
    rng = np.random.default_rng(5)
    batch = overhand_batch(rng, 60, 2000, mean_packet=4.0)
    boundaries = 0
    for row in batch:
        packets = _packets_of_overhand(row)
        assert (Overhand(packets).permutation(60) == row).all()
        boundaries += len(packets) - 1
    # Each of the 59 gaps is a packet boundary with probability 1/mean: geometric packets of mean 4.
    assert abs(boundaries / (2000 * 59) - 1 / 4.0) < 0.01


def test_scalar_overhand_cuts_each_gap_with_probability_one_over_the_mean():
    rng = np.random.default_rng(6)
    boundaries = sum(len(pemantle_overhand(rng, 100, 5.0).packets) - 1 for _ in range(500))
    assert abs(boundaries / (500 * 99) - 1 / 5.0) < 0.01


def test_partial_overhand_leaves_the_rest_in_place_or_on_top():
    rng = np.random.default_rng(8)
    on_top = overhand_batch(rng, 32, 200, 2.0, cards=6, back_on_top=True)
    assert (on_top[:, 6:] == np.arange(6, 32)).all()
    assert (np.sort(on_top[:, :6], axis=1) == np.arange(6)).all()
    under = overhand_batch(rng, 32, 200, 2.0, cards=6)
    assert (under[:, :26] == np.arange(6, 32)).all()
    sample = OverhandModel(2.0, 6, back_on_top=True).sample(rng, 32)
    assert (sample.permutation(32)[6:] == np.arange(6, 32)).all()


def test_pile_gather_visits_every_pickup_order():
    rng = np.random.default_rng(9)
    n, piles = 10, 3
    blocks = np.split(Pile(piles).permutation(n), [4, 7])
    orders = itertools.permutations(range(piles))
    possible = {tuple(np.concatenate([blocks[g] for g in order]).tolist()) for order in orders}
    seen = {tuple(row.tolist()) for row in pile_gather_batch(rng, n, 600, piles)}
    assert seen == possible


@settings(max_examples=40, deadline=None)
@given(st.integers(8, 40), st.integers(0, 2**32 - 1))
def test_every_model_draws_permutations(n, seed):
    rng = np.random.default_rng(seed)
    models = [
        GSRRiffleModel(),
        RandomCutModel(4),
        OverhandModel(3.0),
        OverhandModel(2.0, 5, True),
        OverhandModel(2.0, 5),
        PileGatherModel(4),
        UniformModel(),
    ]
    for model in models:
        assert sorted(model.sample(rng, n).permutation(n).tolist()) == list(range(n))
        batch = model.sample_batch(rng, n, 5)
        assert batch.shape == (5, n)
        assert (np.sort(batch, axis=1) == np.arange(n)).all()


@pytest.mark.parametrize(
    "op, model",
    [
        (Riffle(2, "LRLR"), GSRRiffleModel()),
        (Riffle(None, None), GSRRiffleModel()),
        (Faro("out"), GSRRiffleModel()),
        (Cut(12), RandomCutModel(4)),
        (Cut(None), RandomCutModel(4)),
        (Run(4), OverhandModel(4.0, 4, back_on_top=True)),
        (RunUnder(4), OverhandModel(4.0, 4)),
        (Overhand((3, 5, 2)), OverhandModel(4.0, 10)),
        (Overhand(None), OverhandModel(4.0, None)),
        (Strip((5, 7)), OverhandModel(4.0, 12)),
        (Pile(3), PileGatherModel(3)),
        (Perm((2, 1)), UniformModel()),
    ],
)
def test_model_for_gives_the_honest_model_of_the_same_effort(op, model):
    assert model_for(op) == model


def test_model_for_passes_the_convention_minimum():
    assert model_for(Cut(2), min_each_side=6) == RandomCutModel(6)


def test_honest_batch_replaces_every_logged_action_by_a_draw():
    rng = np.random.default_rng(10)
    batch = sample_honest_batch(parse_notation("cut@1 2"), rng, 32, 300)
    depths = {int(row[-1]) + 1 for row in batch}
    assert depths <= set(range(4, 29)) and len(depths) > 15
    full = sample_honest_batch(parse_notation("2 4 overhand ? riffle ? cut ?"), rng, 32, 50)
    assert (np.sort(full, axis=1) == np.arange(32)).all()
