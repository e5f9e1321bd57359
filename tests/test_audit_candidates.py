"""The evidence candidates the statistical pass keeps: equal to their definition for every deal pattern and table
size, and the same however the hands are split into blocks and the blocks merged."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.audit.candidates import KEEP, block_candidates, join_candidates
from fairdeal.audit.fastpath import layout_for
from fairdeal.cards import NUM_CODES, Rank, parse_card, to_ascii_list
from fairdeal.deal import PATTERNS

TABLES = [(name, size) for name, pattern in sorted(PATTERNS.items()) for size in pattern.table_sizes]


def random_hands(rng, layout, n):
    """``n`` dealt hands as the block pass holds them: receivers, dealers, numbers (with repeats), lines, the
    last cut's depth (-1: none) and the declarer (-1: none)."""
    seats, deck = layout.num_seats, layout.pattern.deck.codes()
    dealers = rng.integers(0, seats, n)
    recv = np.full((n, NUM_CODES), -1, dtype=np.int8)
    for i, dealer in enumerate(dealers):
        recv[i, rng.permutation(deck)] = layout.template[dealer]
    numbers = rng.integers(1, max(2, n // 2), n)
    depths = np.where(rng.random(n) < 0.2, -1, rng.integers(1, 4, n))  # few depths: groups overflow KEEP
    declarers = rng.integers(-1, seats, n)
    return recv, dealers, numbers, np.arange(1, n + 1), depths, declarers


def weight(codes):
    ranks = [int(parse_card(text).rank) for text in to_ascii_list(codes)]
    return sum(100 * (r == Rank.ACE) + r for r in ranks), sum(r == Rank.ACE for r in ranks)


def reference(layout, recv, dealers, numbers, lines, depths, declarers):
    """The tables computed hand by hand from their definition."""
    seats, pattern = layout.num_seats, layout.pattern
    top, cuts = {}, {}
    counts = np.zeros((seats, pattern.deck.size + 1), np.int64)
    received = np.zeros((seats, seats, 2), np.int64)
    takers = np.zeros((seats, seats, 2), np.int64)
    for i, dealer in enumerate(dealers):
        held = {r: [c for c in range(NUM_CODES) if recv[i, c] == r] for r in range(layout.receivers)}
        row = []
        for seat in range(seats):
            hand = layout.slot_hand[dealer, seat]
            w, aces = weight(held[hand]) if hand >= 0 else (0, 0)
            row.append(w)
            if hand >= 0:
                received[dealer, seat] += (1, aces)
        talon = [c for r in range(pattern.hands, layout.receivers) for c in held[r]]
        w, talon_aces = weight(talon)
        row.append(w)
        if 0 <= declarers[i] < seats:
            takers[dealer, declarers[i]] += (1, talon_aces)
        for k, w in enumerate(row):
            if w > 0:
                item = (dealer, k, numbers[i], lines[i], *row)
                top.setdefault((dealer, k), []).append((-w, numbers[i], lines[i], item))
        if depths[i] >= 0:
            counts[dealer, depths[i]] += 1
            cuts.setdefault((dealer, depths[i]), []).append((dealer, depths[i], numbers[i], lines[i]))
    best = [r[-1] for key in sorted(top) for r in sorted(top[key])[:KEEP]]
    first = [r for key in sorted(cuts) for r in sorted(cuts[key], key=lambda r: r[3])[:KEEP]]
    return best, first, counts, received, takers


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t[0]}-{t[1]}p")
def test_the_candidates_are_their_definition_for_every_pattern_and_table_size(table):
    layout = layout_for(*table)
    hands = random_hands(np.random.default_rng(table[1]), layout, 120)
    found = block_candidates(*hands, layout)
    best, first, counts, received, takers = reference(layout, *hands)
    assert [tuple(r) for r in found.top.tolist()] == best
    assert [tuple(r) for r in found.cuts.tolist()] == first
    assert (found.depth_counts == counts).all()
    assert (found.received == received).all() and (found.takers == takers).all()


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(TABLES),
    st.integers(0, 2**32 - 1),
    st.lists(st.integers(0, 90), max_size=6),
    st.randoms(use_true_random=False),
)
def test_blocks_merged_in_any_tree_give_the_candidates_of_the_whole(table, seed, cuts, chance):
    layout = layout_for(*table)
    hands = random_hands(np.random.default_rng(seed), layout, 90)
    whole = block_candidates(*hands, layout)
    bounds = [0, *sorted(set(cuts)), 90]
    parts = []
    for start, stop in itertools.pairwise(bounds):
        recv, dealers, numbers, lines, depths, declarers = (a[start:stop] for a in hands)
        local = block_candidates(recv, dealers, numbers, lines - start, depths, declarers, layout)
        parts.append(local.shifted(start))  # a block numbers its lines from its own start, the merge shifts them
    while len(parts) > 1:  # neighbours joined in a random order: any tree
        k = chance.randrange(len(parts) - 1)
        parts[k : k + 2] = [join_candidates(parts[k], parts[k + 1])]
    merged = parts[0]
    assert (merged.top == whole.top).all() and (merged.cuts == whole.cuts).all()
    for name in ("depth_counts", "received", "takers"):
        assert (getattr(merged, name) == getattr(whole, name)).all()
