"""The compiled double-dummy solver against an independent search written in tests/solver_reference.py.

Endgames of 4-6 cards (2 and 3 seats, trumps, no trumps, misère, overtaking, raspasy talon cards, any seat to
lead, mid-trick starts) are compared with exhaustive minimax; full 10-card layouts with a pruned search. Set
SOLVER_ENDGAMES=10000 for the full evidence run (the default keeps the suite quick)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solver_reference import legal, make_alphabeta, make_search

from fairdeal.solver.dds import Position, SolverError, declarer_tricks, raspasy_guarantees, solve, solve_batch

ENDGAMES = int(os.environ.get("SOLVER_ENDGAMES", "600"))
PIQUET = np.arange(32)
HUSSAR = np.array([c for c in range(32) if c % 8 >= 2])


def _masks(seats: set[int] | frozenset[int]) -> int:
    return sum(1 << s for s in seats)


def _random_endgame(rng: np.random.Generator):
    seats = 2 if rng.random() < 0.25 else 3
    size = int(rng.choice([4, 5, 6], p=[0.5, 0.4, 0.1]))
    deck = rng.permutation(HUSSAR if seats == 2 else PIQUET)
    hands = [tuple(sorted(int(c) for c in deck[s * size : (s + 1) * size])) for s in range(seats)]
    spare = [int(c) for c in deck[seats * size :]]
    kind = rng.choice(["game", "misere", "raspasy"], p=[0.6, 0.2, 0.2])
    trump = int(rng.integers(4)) if kind == "game" and rng.random() < 0.8 else None
    overtake = kind == "game" and rng.random() < 0.3
    talon: tuple[int, ...] = ()
    owner = False
    if kind == "raspasy" and seats == 3 and rng.random() < 0.6:
        talon = tuple(spare[: int(rng.integers(1, 3))])
        owner = bool(rng.random() < 0.5)
    declarer = int(rng.integers(seats))
    count = frozenset([declarer])
    maximisers = count if kind == "game" else frozenset(range(seats)) - count
    leader = 0 if talon else int(rng.integers(seats))
    table: tuple[int, ...] = ()
    if not talon and rng.random() < 0.3:  # a trick in progress: the first seats have played a legal card
        for k in range(int(rng.integers(1, seats))):
            seat = (leader + k) % seats
            led = table[0] // 8 if table else None
            options = legal(hands[seat], table, led, trump, overtake)
            card = options[int(rng.integers(len(options)))]
            hands[seat] = tuple(c for c in hands[seat] if c != card)
            table += (card,)
    return tuple(hands), leader, table, trump, overtake, talon, owner, count, maximisers


def test_endgames_equal_exhaustive_minimax():
    rng = np.random.default_rng(16)
    for _ in range(ENDGAMES):
        hands, leader, table, trump, overtake, talon, owner, count, maximisers = _random_endgame(rng)
        boundary, inside = make_search(trump, count, maximisers, overtake, talon, owner)
        expected = inside(hands, leader, table, 0) if table else boundary(hands, leader, 0)
        position = Position(hands, leader, table, trump, overtake, talon, owner)
        got = solve(position, _masks(count), _masks(maximisers), values=True)
        assert got.value == expected, (hands, leader, table, trump, overtake, talon, owner, count)
        seat = position.to_play
        best = (max if seat in maximisers else min)(got.card_values.values())
        assert best == expected


FULL_LAYOUTS = [  # (seed, seats, trump, goal): the reference takes seconds on each
    (1, 3, 0, "tricks"),
    (5, 3, 3, "tricks"),
    (3, 2, None, "tricks"),
    (2, 2, 1, "tricks"),
    (4, 2, None, "misere"),
]


@pytest.mark.parametrize("seed,seats,trump,goal", FULL_LAYOUTS)
def test_full_layouts_agree_with_the_reference(seed, seats, trump, goal):
    rng = np.random.default_rng(seed)
    deck = rng.permutation(HUSSAR if seats == 2 else PIQUET)
    hands = tuple(tuple(sorted(int(c) for c in deck[s * 10 : (s + 1) * 10])) for s in range(seats))
    count = frozenset([0])
    maximisers = count if goal == "tricks" else frozenset(range(1, seats))
    expected = make_alphabeta(trump, count, maximisers)(hands, 0)
    assert declarer_tricks(Position(hands, 0, trump=trump), 0, goal).value == expected


def _deal(seed: int, seats: int, size: int) -> tuple[tuple[int, ...], ...]:
    deck = np.random.default_rng(seed).permutation(HUSSAR if seats == 2 else PIQUET)
    return tuple(tuple(sorted(int(c) for c in deck[s * size : (s + 1) * size])) for s in range(seats))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.sampled_from([2, 3]),
    size=st.integers(1, 10),
    trump=st.sampled_from([None, 0, 1, 2, 3]),
    leader=st.integers(0, 2),
    declarer=st.integers(0, 2),
)
def test_zero_sum_the_defence_takes_the_rest(seed, seats, size, trump, leader, declarer):
    """The declarer's optimum and the defence's optimum, each maximising its own count, add up to the tricks."""
    hands = _deal(seed, seats, size)
    leader, declarer = leader % seats, declarer % seats
    position = Position(hands, leader, trump=trump)
    mine = declarer_tricks(position, declarer).value
    others = _masks(set(range(seats)) - {declarer})
    assert mine + solve(position, others, others).value == size


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.integers(1, 10),
    declarer=st.integers(0, 2),
    perm=st.permutations([0, 1, 2, 3]),
)
def test_renaming_suits_changes_nothing(seed, size, declarer, perm):
    hands = _deal(seed, 3, size)
    renamed = tuple(tuple(sorted(perm[c // 8] * 8 + c % 8 for c in h)) for h in hands)
    for goal, trump in (("tricks", 2), ("misere", None)):
        a = declarer_tricks(Position(hands, 1, trump=trump), declarer, goal).value
        b = declarer_tricks(Position(renamed, 1, trump=None if trump is None else perm[trump]), declarer, goal).value
        assert a == b


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 10), leader=st.integers(0, 2))
def test_raspasy_guarantees_cover_every_trick(seed, size, leader):
    """If every seat holds itself to its guarantee at once, all tricks are still taken: the sum is at least the
    number of tricks, and no seat is guaranteed more than it holds."""
    guarantees = raspasy_guarantees(Position(_deal(seed, 3, size), leader))
    assert sum(guarantees) >= size
    assert all(0 <= g <= size for g in guarantees)


def test_batch_equals_single_solves():
    rng = np.random.default_rng(7)
    rows = 100
    hands = np.zeros((rows, 3), dtype=np.uint32)
    layouts = []
    for r in range(rows):
        deal = _deal(int(rng.integers(2**31)), 3, 10)
        layouts.append(deal)
        hands[r] = [sum(1 << c for c in h) for h in deal]
    leaders = rng.integers(0, 3, rows)
    declarers = rng.integers(0, 3, rows)
    misere = rng.random(rows) < 0.3
    trumps = np.where(misere, -1, rng.integers(-1, 4, rows))
    out = solve_batch(hands, leaders, declarers, trumps, misere)
    for r in range(rows):
        trump = None if trumps[r] < 0 else int(trumps[r])
        goal = "misere" if misere[r] else "tricks"
        expected = declarer_tricks(Position(layouts[r], int(leaders[r]), trump=trump), int(declarers[r]), goal)
        assert out[r] == expected.value


@pytest.mark.parametrize(
    "hands,message",
    [
        (((0, 1), (2,), (3, 4)), "equal numbers"),
        (((0, 1), (1, 2), (3, 4)), "two hands"),
        (((0,), (1,), (2,), (3,)), "2 or 3"),
    ],
)
def test_bad_positions_are_one_clear_error(hands, message):
    with pytest.raises(SolverError, match=message):
        solve(Position(hands, 0), 1, 1)


def test_bad_batch_is_one_clear_error():
    with pytest.raises(SolverError, match="row 1"):
        solve_batch(np.array([[1, 2, 4], [1, 1, 4]]), [0, 0], [0, 0], [-1, -1], [False, False])
