"""Moving chosen cards to chosen places with card-by-card runs (seed 004's "2", "4" and the arrows "2↑ 4↑").

A run ``k`` reverses the top ``k`` cards, so it brings position ``k`` (1-based) to the top and the top to
position ``k``: two runs carry any card of the top part anywhere in it. ``k↑`` reverses the top ``k`` and puts
them under the rest, which also turns the deck like a cut. Two tools:

* ``shortest_runs``: breadth-first search over the positions of one or two cards (at most 32·31 states), from
  any choice of the pool's cards to any of several target position sets — the fewest actions.
* ``place_by_runs``: a pancake-style placement of any number of cards at any positions with plain runs, fixing
  positions from the deepest up (two runs at most per position; each run touches only what is still unfixed).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterable, Sequence
from itertools import combinations

import numpy as np

from fairdeal.errors import TrickError
from fairdeal.shuffle.ops import Run, RunUnder, ShuffleOp

MOVE_SETS = ("runs", "arrows", "both")


@functools.lru_cache(maxsize=16)
def moves(n: int, kind: str, max_run: int) -> tuple[tuple[ShuffleOp, ...], np.ndarray]:
    """The allowed run ops and, per op, where each old position goes (``where[op, old] = new``)."""
    if kind not in MOVE_SETS:
        raise TrickError(f"run moves are one of {', '.join(MOVE_SETS)}, got {kind!r}")
    top = min(max_run, n)
    ops: list[ShuffleOp] = []
    if kind in ("runs", "both"):
        ops += [Run(k) for k in range(2, top + 1)]
    if kind in ("arrows", "both"):
        ops += [RunUnder(k) for k in range(1, min(top, n - 1) + 1)]
    where = np.array([np.argsort(op.permutation(n)) for op in ops], dtype=np.int16)
    return tuple(ops), where


def shortest_runs(
    start: Sequence[int],
    count: int,
    targets: Iterable[Iterable[int]],
    n: int,
    kind: str = "runs",
    max_run: int = 32,
    max_depth: int = 10,
) -> tuple[list[ShuffleOp], tuple[int, ...], tuple[int, ...]]:
    """Fewest runs taking ``count`` of the cards now at positions ``start`` onto one of the ``targets`` sets.

    Returns the ops, the starting positions of the cards used (in the order matched to the target), and the
    target positions they reach, card by card. ``count`` is 1 or 2 (the talon).
    """
    if count not in (1, 2) or count > len(start):
        raise TrickError(f"the run search places one or two cards, got {count} from {len(start)}")
    ops, where = moves(n, kind, max_run)
    goal_sets = {tuple(sorted(t)) for t in targets}
    if not goal_sets or any(len(t) != count for t in goal_sets):
        raise TrickError(f"every target set must hold {count} position(s)")
    begin = [tuple(sorted(c)) for c in combinations(sorted(set(start)), count)]
    parent: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None] = dict.fromkeys(begin)
    queue = deque((s, 0) for s in begin)
    while queue:
        state, depth = queue.popleft()
        if state in goal_sets:
            return _path(state, parent, ops, where)
        if depth == max_depth:
            continue
        for index in range(len(ops)):
            nxt = tuple(sorted(int(where[index, p]) for p in state))
            if nxt not in parent:
                parent[nxt] = (state, index)
                queue.append((nxt, depth + 1))
    raise TrickError(f"no sequence of at most {max_depth} {kind} reaches the targets")


def _path(
    state: tuple[int, ...],
    parent: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None],
    ops: Sequence[ShuffleOp],
    where: np.ndarray,
) -> tuple[list[ShuffleOp], tuple[int, ...], tuple[int, ...]]:
    indices: list[int] = []
    end = state
    while (step := parent[state]) is not None:
        state, index = step
        indices.append(index)
    indices.reverse()
    # Follow each starting card along the path so the caller knows which card lands where.
    origin = state
    final: list[int] = []
    for p in origin:
        for index in indices:
            p = int(where[index, p])
        final.append(p)
    if tuple(sorted(final)) != end:
        raise TrickError("internal: the run path does not reach its end state")
    return [ops[i] for i in indices], tuple(origin), tuple(final)


def place_by_runs(deck: np.ndarray, pool: Iterable[int], targets: Iterable[int]) -> list[Run]:
    """Plain runs after which every position in ``targets`` holds a card of ``pool`` (needs ``|pool| >= |targets|``).

    Positions are fixed from the bottom up. A target position without a pool card gets one from above it (run
    it to the top, then run it down); a non-target position keeps its pool card only while enough pool cards
    remain above it for the targets still to fill — otherwise a plain card from above is swapped in.
    """
    cards = {int(c) for c in pool}
    marked = [int(c) in cards for c in np.asarray(deck).tolist()]  # pool card or not, top first
    wanted = {int(t) for t in targets}
    if len(cards) < len(wanted) or not all(0 <= t < len(marked) for t in wanted):
        raise TrickError(f"cannot fill {len(wanted)} places from {len(cards)} cards in a {len(marked)}-card deck")
    runs: list[Run] = []
    for j in range(len(marked) - 1, -1, -1):
        if j in wanted:
            if marked[j]:
                continue
            look_for = True
        else:
            still_needed = sum(1 for t in wanted if t < j)
            if not marked[j] or sum(marked[:j]) >= still_needed:
                continue
            look_for = False
        candidates = [x for x in range(j) if marked[x] == look_for]
        x = 0 if candidates[0] == 0 else candidates[-1]
        for k in (x + 1, j + 1):
            if k > 1:
                runs.append(Run(k))
                marked[:k] = marked[:k][::-1]
    return runs
