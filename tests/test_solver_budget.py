"""The node budget: a position's node count never varies, a node limit cuts the search off there, and a bot's
decision never searches past its budget."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, to_move
from fairdeal.engine.view import view_for
from fairdeal.solver import _dds, dds  # type: ignore[attr-defined]
from fairdeal.solver.bots import BUDGETS, SamplingBot
from fairdeal.solver.budget import Budget
from fairdeal.solver.dds import Position, solve
from fairdeal.systems import get_convention


def _layout(seed: int, cards: int) -> Position:
    deck = np.random.default_rng(seed).permutation(32)
    hands = tuple(tuple(sorted(int(c) for c in deck[k * cards : (k + 1) * cards])) for k in range(3))
    return Position(hands, seed % 3, (), None if seed % 5 == 4 else seed % 4)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(3, 8), st.booleans())
def test_node_counts_depend_on_the_position_alone(seed: int, cards: int, misere: bool) -> None:
    position = _layout(seed, cards)
    maximisers = 6 if misere else 1
    first = solve(position, 1, maximisers, values=True)
    solve(_layout(seed + 1, cards), 1, maximisers)  # another search in between leaves no trace
    again = solve(position, 1, maximisers, values=True)
    assert (first.value, first.card_values, first.nodes) == (again.value, again.card_values, again.nodes)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(4, 8))
def test_a_node_limit_cuts_the_search_off_or_changes_nothing(seed: int, cards: int) -> None:
    position = _layout(seed, cards)
    full = solve(position, 1, 1)
    limit = max(1, full.nodes // 2)
    cut = solve(position, 1, 1, node_limit=limit)
    assert not cut.complete and cut.value == -1 and cut.nodes <= limit
    enough = solve(position, 1, 1, node_limit=full.nodes)
    assert enough.complete and enough.value == full.value


def test_a_budget_spends_what_the_solves_visit_and_then_refuses() -> None:
    position = _layout(7, 8)
    nodes = solve(position, 1, 1).nodes
    budget = Budget(nodes + nodes // 2)
    assert budget.solve(position, 1, 1) is not None
    assert budget.left == nodes // 2
    assert budget.solve(position, 1, 1) is None and budget.left == 0
    assert budget.solve(position, 1, 1) is None


@pytest.mark.parametrize("name,seats", [("sochi", 3), ("croatian", 3), ("hussar", 2)])
def test_no_decision_searches_past_its_budget(name: str, seats: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """All the solver work of each decision of a medium bot (every call of the C search counted) stays within
    its decision's budget."""
    spent: list[int] = []

    class Counting:
        solve_batch = staticmethod(_dds.solve_batch)

        @staticmethod
        def solve(*args: object) -> tuple[int, object, int]:
            value, values, nodes = _dds.solve(*args)
            spent.append(int(nodes))
            return int(value), values, int(nodes)

    monkeypatch.setattr(dds, "_dds", Counting)
    conv = get_convention(name)
    for seed in range(2):
        bots = [SamplingBot("medium", seed=s) for s in range(seats)]
        state = new_hand(conv, seats, seed % seats, random_deal(np.random.default_rng(seed), conv, seats))
        while not is_over(state):
            seat = to_move(state)
            assert seat is not None
            spent.clear()
            state = apply(state, bots[seat].act(view_for(state, seat)))
            assert sum(spent) <= BUDGETS["medium"]
