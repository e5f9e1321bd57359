"""Deck operations as permutations: seed 004's examples, the documented semantics, and the algebra."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_shuffle_strategies import deck_sizes, ops_for, sequences_for

from fairdeal.cards import DeckKind
from fairdeal.errors import ShuffleError
from fairdeal.shuffle import (
    Action,
    Cut,
    Faro,
    Overhand,
    Perm,
    Pile,
    Riffle,
    Run,
    RunUnder,
    ShuffleSequence,
    Strip,
    apply_batch,
    apply_order,
    compose,
    cut_is_legal,
    identity,
    inverse,
    parse_notation,
)

PIQUET = DeckKind.PIQUET32.codes()


def positions_after(notation: str, n: int) -> list[int]:
    """1-based old positions, top first, after applying ``notation`` to a deck of ``n``."""
    return (parse_notation(notation).permutation(n) + 1).tolist()


# Seed 004 (Преферанс против шулера): «‘‘2’’ – тасовка по одной карте двух карт на одном месте, то есть с верха
# колоды по одной карте надо стасовать в левую руку две карты, затем положить их на прежнее место, на верх колоды,
# в этом случае порядок следования тасованных карт меняется на обратный.» Top = the back side, numbered from the top.
def test_seed004_run_of_two_swaps_the_top_two_cards():
    after = apply_order(PIQUET, parse_notation("2"))
    assert after[:2].tolist() == [PIQUET[1], PIQUET[0]]
    assert (after[2:] == PIQUET[2:]).all()


# Seed 004: «‘‘4’’ – тасовка по одной карте четырёх карт на одном месте на верху колоды».
def test_seed004_run_of_four_reverses_the_top_four_cards():
    assert positions_after("4", 32) == [4, 3, 2, 1, *range(5, 33)]


def test_cut_12_moves_the_top_twelve_under_the_rest():
    assert positions_after("cut 12", 32) == [*range(13, 33), *range(1, 13)]


def test_run_under_reverses_the_top_cards_and_puts_them_at_the_bottom():
    assert positions_after("3↑", 8) == [4, 5, 6, 7, 8, 3, 2, 1]


def test_run_under_is_an_overhand_of_single_cards():
    for k in range(1, 9):
        assert (RunUnder(k).permutation(9) == Overhand((1,) * k).permutation(9)).all()


def test_overhand_lays_each_packet_on_the_previous_and_the_rest_on_top():
    assert positions_after("overhand 3,2", 8) == [6, 7, 8, 4, 5, 1, 2, 3]
    assert positions_after("overhand 3,2,3", 8) == [6, 7, 8, 4, 5, 1, 2, 3]
    assert positions_after("overhand 1,1,1,1", 4) == [4, 3, 2, 1]


def test_strip_has_the_overhand_permutation():
    assert (Strip((5, 7, 6)).permutation(32) == Overhand((5, 7, 6)).permutation(32)).all()


def test_riffle_pattern_reads_from_the_top_of_the_new_deck():
    # top packet L = cards 1..3, bottom packet R = cards 4..8, each dealt in its own order
    assert positions_after("riffle 3 LRRLRLRR", 8) == [1, 4, 5, 2, 6, 3, 7, 8]


def test_faro_out_keeps_the_top_card_and_faro_in_moves_it_second():
    assert positions_after("faro out", 8) == [1, 5, 2, 6, 3, 7, 4, 8]
    assert positions_after("faro in", 8) == [5, 1, 6, 2, 7, 3, 8, 4]


def test_faro_on_an_odd_deck():
    assert positions_after("faro out", 7) == [1, 5, 2, 6, 3, 7, 4]
    assert positions_after("faro in", 7) == [4, 1, 5, 2, 6, 3, 7]


def test_eight_out_faros_restore_52_cards_and_five_restore_32():
    for n, times in ((52, 8), (32, 5)):
        p = ShuffleSequence.of(*[Faro("out")] * times).permutation(n)
        assert (p == identity(n)).all()
        assert not (ShuffleSequence.of(*[Faro("out")] * (times - 1)).permutation(n) == identity(n)).all()


def test_pile_deals_round_robin_and_stacks_pile_one_on_top():
    # piles: {1,4,7} -> 7 4 1, {2,5} -> 5 2, {3,6} -> 6 3; pile 1 on pile 2 on pile 3
    assert positions_after("pile 3", 7) == [7, 4, 1, 5, 2, 6, 3]
    assert positions_after("pile 1", 4) == [4, 3, 2, 1]


def test_perm_lists_old_positions_of_the_new_cards():
    assert positions_after("perm 3,1,2,4", 4) == [3, 1, 2, 4]


def test_cut_legality_follows_the_minimum_each_side():
    assert [d for d in range(1, 32) if cut_is_legal(d, 32, 4)] == list(range(4, 29))
    assert [d for d in range(1, 32) if cut_is_legal(d, 32, 6)] == list(range(6, 27))


def test_illegal_cut_depths_parse_and_apply():
    for depth in (1, 2, 30, 31):
        assert parse_notation(f"cut {depth}") == ShuffleSequence.of(Cut(depth))
        assert not cut_is_legal(depth, 32, 4)
        assert sorted(Cut(depth).permutation(32)) == list(range(32))


@pytest.mark.parametrize(
    "op, n, fragment",
    [
        (Run(5), 4, "needs 5 cards"),
        (Cut(32), 32, "depth 1..31"),
        (Riffle(2, "LLR"), 4, "3 letters"),
        (Overhand((10, 30)), 32, "needs 40 cards"),
        (Pile(5), 4, "needs 5 cards"),
        (Perm((2, 1)), 3, "2 positions"),
    ],
)
def test_ops_that_do_not_fit_the_deck_raise_shuffle_error(op, n, fragment):
    with pytest.raises(ShuffleError, match=fragment):
        op.permutation(n)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Run(0),
        lambda: Cut(0),
        lambda: Overhand(()),
        lambda: Strip((3, 0)),
        lambda: Riffle(2, "LRR"),
        lambda: Riffle(2, "LXL"),
        lambda: Riffle(2, None),
        lambda: Faro("sideways"),
        lambda: Pile(0),
        lambda: Perm((1, 1)),
        lambda: Action(Run(2), -1),
        lambda: Action(Run(2), "has space"),
    ],
)
def test_invalid_ops_are_rejected_when_built(make):
    with pytest.raises(ShuffleError):
        make()


def test_unknown_riffle_is_a_fact_without_a_permutation():
    sequence = parse_notation("2 riffle ? cut 12")
    assert not sequence.is_known
    assert parse_notation("2 cut 12").is_known
    with pytest.raises(ShuffleError, match=r"action 2 .*not a known permutation"):
        apply_order(PIQUET, sequence)
    for text in ("cut ?", "overhand ?"):
        assert not parse_notation(text).is_known


def test_apply_rejects_wrong_shapes():
    with pytest.raises(ShuffleError):
        apply_order(np.stack([PIQUET, PIQUET]), Run(2))
    with pytest.raises(ShuffleError):
        apply_batch(PIQUET, Run(2))
    with pytest.raises(ShuffleError):
        apply_order(PIQUET, np.array([0, 0, 1]))


@settings(max_examples=200, deadline=None)
@given(st.data(), deck_sizes)
def test_every_op_is_a_permutation_of_the_deck(data, n):
    op = data.draw(ops_for(n))
    p = op.permutation(n)
    assert sorted(p.tolist()) == list(range(n))
    deck = np.arange(n, dtype=np.uint8) * 3
    assert sorted(apply_order(deck, op).tolist()) == sorted(deck.tolist())


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(2, 32))
def test_inverse_undoes_a_sequence(data, n):
    sequence = data.draw(sequences_for(n))
    order = PIQUET[:n]
    shuffled = apply_order(order, sequence)
    assert (apply_order(shuffled, sequence.inverse(n)) == order).all()
    p = sequence.permutation(n)
    assert (compose(p, inverse(p)) == identity(n)).all()
    assert (compose(inverse(p), p) == identity(n)).all()


@settings(max_examples=100, deadline=None)
@given(st.data(), deck_sizes)
def test_composition_is_associative_and_equals_sequential_application(data, n):
    a, b, c = (data.draw(ops_for(n)).permutation(n) for _ in range(3))
    assert (compose(compose(a, b), c) == compose(a, compose(b, c))).all()
    sequence = data.draw(sequences_for(n))
    order = np.arange(n, dtype=np.uint8)
    step_by_step = order
    for action in sequence:
        step_by_step = apply_order(step_by_step, action)
    assert (apply_order(order, sequence) == step_by_step).all()
    assert (apply_order(order, sequence.composed(n)) == step_by_step).all()


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(2, 32), st.integers(1, 20), st.integers(0, 2**32 - 1))
def test_batch_application_equals_per_row_application(data, n, m, seed):
    sequence = data.draw(sequences_for(n))
    orders = np.argsort(np.random.default_rng(seed).random((m, n)), axis=1).astype(np.uint8)
    batch = apply_batch(orders, sequence)
    assert batch.dtype == np.uint8
    for row, result in zip(orders, batch):
        assert (apply_order(row, sequence) == result).all()
