"""The cutter as a suspect: the depth he chose against what every other depth he could have chosen would give.

When the deck just before a cut is known (the gathered order and every logged action before the cut) and the
actions after it are logged, each legal depth gives a deal, and each seat's hand and the talon a value
(``value.depth_values``). A cutter who does not look cuts at a depth uniform over the legal ones, so the rank
of the chosen depth's value among all legal depths is uniform; ties are broken at random, which makes the
per-cut p-value exactly uniform. Its two tails are summed per (cutter, beneficiary) as Fisher statistics, which
merge by addition across blocks, shards and dask tasks (``summary.Sums``); the verdict tests both tails.
A cutter with a habit (always about 11) is not uniform, and a dealer who stacks for that habit would make the rank
test name him; so the same scores are also tested against his own depths permuted among his cuts
(``habit_pvalue``, from additive sums too), and a tail counts only when both tests find it.
A cut whose earlier order is not logged (only the deal and the depth) is counted as one the test could not read.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.actors.value import depth_values
from fairdeal.audit.exact import DealDraws
from fairdeal.audit.fastpath import CUT, NO_OP, CompiledShuffle, apply_compiled
from fairdeal.audit.kernels import rank_counts as kernel_ranks
from fairdeal.audit.kernels import score_sums
from fairdeal.audit.tails import normal_sf
from fairdeal.deal import DealPattern, seats_of_hands
from fairdeal.errors import FairdealError
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Cut
from fairdeal.shuffle.perm import compose, identity

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands, Layout
    from fairdeal.audit.summary import BlockContext, BlockSummary, Sums

MAX_COUNTED = 1 << 12  # whole-number values below this are ranked by histogram
TALON = "the talon"  # the beneficiary after the seats: every talon card of the deal


@dataclass(frozen=True)
class CutCases:
    """Cuts by a named seat whose deck before the cut and actions after it are logged, one row each."""

    rows: np.ndarray  # (cases,) hand row in the block
    pre: np.ndarray  # (cases, n) the deck just before the cut, top first
    after: np.ndarray  # (cases, n) gather index of the logged actions after the cut
    depth: np.ndarray  # (cases,)
    cutter: np.ndarray  # (cases,) seat

    @staticmethod
    def concat(parts: list[CutCases], n: int) -> CutCases:
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return CutCases(empty, np.zeros((0, n), np.int64), np.zeros((0, n), np.int64), empty, empty)
        return CutCases(*(np.concatenate([getattr(p, f) for p in parts]) for f in CutCases.__dataclass_fields__))


def legal_depths(n: int, min_each_side: int) -> np.ndarray:
    """The depths a cut may have: at least ``min_each_side`` cards on each side (Codex, seed 002: 4)."""
    return np.arange(max(1, min_each_side), n - max(1, min_each_side) + 1)


def beneficiaries(pattern: DealPattern, seats: int) -> tuple[np.ndarray, np.ndarray]:
    """Per dealer, a ``(receivers, seats + 1)`` map of the pattern's hands and talons to seats and the talon,
    and which beneficiaries receive cards at all (a seat sitting out does not)."""
    receivers = pattern.hands + pattern.talons
    maps = np.zeros((seats, receivers, seats + 1), dtype=np.float32)
    for dealer in range(seats):
        for hand, seat in enumerate(seats_of_hands(pattern, dealer, seats)):
            if seat is not None:
                maps[dealer, hand, seat] = 1.0
        maps[dealer, pattern.hands :, seats] = 1.0
    active: np.ndarray = maps.sum(axis=1) > 0
    return maps, active


def rank_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(below, ties)`` of every depth along axis 1: how many depths of its cut give less, and how many give
    the same (itself included)."""
    if values.ndim == 3 and values.dtype == np.float32:  # a block's values: counted in C, depth against depth
        return kernel_ranks(values)
    whole = values.size and values.min() >= 0 and values.max() < MAX_COUNTED and (values == np.round(values)).all()
    return _counted_ranks(values) if whole else _sorted_ranks(values)


def _counted_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whole-number values (points): one histogram per cut and beneficiary, and its running total."""
    k = values.shape[1]
    rows = np.moveaxis(values, 1, -1).reshape(-1, k).astype(np.int64)
    top = int(rows.max()) + 1
    keys = rows + (np.arange(len(rows)) * top)[:, None]
    counts = np.bincount(keys.ravel(), minlength=len(rows) * top)
    running = np.concatenate([[0], np.cumsum(counts)])
    below = running[keys] - running[(np.arange(len(rows)) * top)[:, None]]
    ties = counts[keys]
    shape = np.moveaxis(values, 1, -1).shape
    return np.moveaxis(below.reshape(shape), -1, 1), np.moveaxis(ties.reshape(shape), -1, 1)


def _sorted_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Any values: by one sort, as a cut has only a few dozen depths."""
    k = values.shape[1]
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    place = np.broadcast_to(np.arange(k).reshape((1, k) + (1,) * (values.ndim - 2)), values.shape)
    first = np.ones(values.shape, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    last = np.ones(values.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    start = np.maximum.accumulate(np.where(first, place, 0), axis=1)
    stop = np.flip(np.minimum.accumulate(np.flip(np.where(last, place, k - 1), axis=1), axis=1), axis=1)
    below, ties = np.empty_like(start), np.empty_like(start)
    np.put_along_axis(below, order, start, axis=1)
    np.put_along_axis(ties, order, stop - start + 1, axis=1)
    return below, ties


def rank_pvalues(values: np.ndarray, chosen: np.ndarray, uniform: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tie-broken rank p-values of the chosen depth: ``(high, low)``, each exactly uniform under a uniform depth.

    ``values``: ``(cases, depths, beneficiaries)``; ``chosen``: the chosen depth's index per case; ``uniform``:
    ``(cases, beneficiaries)`` uniforms on [0, 1). ``high`` is small when the chosen depth gave much, ``low``
    when it gave little; ``high + low == 1``.
    """
    below, ties = rank_counts(values)
    return _tails(below, ties, chosen, uniform)


def _tails(
    below: np.ndarray, ties: np.ndarray, chosen: np.ndarray, uniform: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    k = below.shape[1]
    rows = np.arange(len(chosen))
    under, same = below[rows, chosen], ties[rows, chosen]
    high = (k - under - same + (1.0 - uniform) * same) / k
    low = np.maximum(1.0 - high, np.finfo(float).tiny)
    return high, low


def tail_scores(below: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """``-log`` of each depth's mid-rank tail p-value among the depths of its cut, high tail then low (a last
    axis of 2): a depth that gives the most scores highest on the first, as Fisher's method weighs it."""
    k = below.shape[1]
    # One flat take, not a two-array fancy index: several times faster on a block's counts.
    returned: np.ndarray = np.take(_score_table(k).reshape(-1, 2), below * (k + 1) + ties, axis=0)
    return returned


@functools.lru_cache(maxsize=8)
def _score_table(k: int) -> np.ndarray:
    """``[below, ties] -> (high, low)`` scores for ``k`` depths (a lookup: the counts take few values)."""
    below, ties = np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="ij")
    high = np.clip(k - below - 0.5 * ties, 0.5, None) / k
    low = np.clip(below + 0.5 * ties, 0.5, None) / k
    table = -np.log(np.stack([high, low], axis=-1))
    table.setflags(write=False)
    return table


def cut_cases(
    hands: Hands,
    orders: np.ndarray,
    simple: np.ndarray,
    compiled: CompiledShuffle | None,
    layout: Layout,
    untested: np.ndarray,
) -> CutCases:
    """Every cut by a named seat the test can read; the others are counted per cutter in ``untested``."""
    n = layout.pattern.deck.size
    parts = []
    if compiled is not None and len(simple):
        parts.append(_simple_cases(simple, compiled, orders, layout.num_seats, untested))
    is_simple = np.zeros(len(hands), dtype=bool)
    is_simple[simple] = True
    for row in np.flatnonzero(~is_simple):
        shuffle = hands[row][1].logged_shuffle
        if shuffle is not None:
            parts += _parsed_cases(int(row), shuffle, orders[row], n, layout.num_seats, untested)
    return CutCases.concat(parts, n)


def _simple_cases(
    simple: np.ndarray, compiled: CompiledShuffle, orders: np.ndarray, seats: int, untested: np.ndarray
) -> CutCases:
    kinds, args, actors = compiled.kinds, compiled.args, compiled.actors
    named = (kinds == CUT) & (actors >= 0) & (actors < seats)
    js, ss = np.nonzero(named)
    known = orders[simple[js], 0] >= 0
    np.add.at(untested, actors[js[~known], ss[~known]], 1)
    js, ss = js[known], ss[known]
    steps = np.arange(kinds.shape[1])[None, :]
    n = orders.shape[1]
    before = CompiledShuffle(np.where(steps < ss[:, None], kinds[js], NO_OP), args[js], actors[js])
    later = CompiledShuffle(np.where(steps > ss[:, None], kinds[js], NO_OP), args[js], actors[js])
    pre = apply_compiled(orders[simple[js]], before)
    after = apply_compiled(np.broadcast_to(np.arange(n), (len(js), n)), later)
    return CutCases(simple[js], pre, after, args[js, ss], actors[js, ss])


def _parsed_cases(
    row: int, shuffle: str, order: np.ndarray, n: int, seats: int, untested: np.ndarray
) -> list[CutCases]:
    """The cuts of one shuffle in the full notation; a shuffle that does not parse is the replay's finding."""
    try:
        actions = parse_notation(shuffle).actions
    except FairdealError:
        return []
    cases = []
    for s, action in enumerate(actions):
        actor = action.actor
        if not isinstance(action.op, Cut) or not isinstance(actor, int) or actor >= seats:
            continue
        try:
            steps = [a.op.permutation(n) for a in actions]
        except FairdealError:
            steps = []
        if order[0] < 0 or action.op.depth is None or len(steps) != len(actions):
            untested[actor] += 1
            continue
        pre = order[compose(*steps[:s])] if s else order
        after = compose(*steps[s + 1 :]) if s + 1 < len(steps) else identity(n)
        cases.append(
            CutCases(
                np.array([row]),
                pre[None, :].astype(np.int64),
                after[None, :].astype(np.int64),
                np.array([action.op.depth]),
                np.array([actor]),
            )
        )
    return cases


def fold_cutter(
    hands: Hands,
    orders: np.ndarray,
    dealers: np.ndarray,
    simple: np.ndarray,
    compiled: CompiledShuffle | None,
    layout: Layout,
    context: BlockContext,
    summary: BlockSummary,
) -> None:
    """Add each readable cut's two rank p-values, and the scores the habit test needs, to its (cutter,
    beneficiary) sums; count the gathered orders (the verdict says the gatherer, whom the log does not name, is
    not tested)."""
    sums = summary.sums
    pattern = layout.pattern
    n = pattern.deck.size
    np.add.at(sums.gathered, dealers[orders[:, 0] >= 0], 1)
    cases = cut_cases(hands, orders, simple, compiled, layout, sums.cutter_untested)
    depths = legal_depths(n, context.min_each_side)
    legal = (cases.depth >= depths[0]) & (cases.depth <= depths[-1])  # an illegal cut is a finding of its own
    if not legal.any():
        return
    own, cutter, index = dealers[cases.rows[legal]], cases.cutter[legal], cases.depth[legal] - depths[0]
    maps, active = beneficiaries(pattern, layout.num_seats)
    raw = depth_values(cases.pre[legal], cases.after[legal], depths, np.asarray(pattern.targets), maps.shape[1])
    values = np.zeros(raw.shape[:2] + (maps.shape[2],), dtype=np.float32)
    for dealer in np.unique(own):
        at = np.flatnonzero(own == dealer)
        for r, b in zip(*np.nonzero(maps[dealer])):
            values[at, :, b] += raw[at, :, r]
    below, ties = rank_counts(values)
    # Tie-breaking draws keyed by each cut's deck, like the deals' own (``exact.DealDraws``): the same however the
    # log is split into blocks or workers, so a log and its store give one verdict at any size.
    draws = DealDraws(cases.pre[legal])
    uniform = np.stack([draws.random(len(own)) for _ in range(maps.shape[2])], axis=1)
    high, low = _tails(below, ties, index, uniform)
    counted = active[own]
    observed, expected = values[np.arange(len(index)), index], values.mean(axis=1)
    cuts = SeatCuts(index, high, low, observed, expected, (below, ties), counted, counted.astype(float))
    for seat in np.unique(cutter):
        _fold_seat(sums, int(seat), np.flatnonzero(cutter == seat), cuts, depths)


@dataclass(frozen=True)
class SeatCuts:
    """A block's readable cuts, one row each, as the cutters' sums read them (each cutter his rows, in place)."""

    index: np.ndarray  # the chosen depth's index among the legal depths
    high: np.ndarray  # (cases, beneficiaries) tie-broken rank p-values
    low: np.ndarray
    observed: np.ndarray  # (cases, beneficiaries) what the chosen depth gave
    expected: np.ndarray  # (cases, beneficiaries) the mean over the legal depths
    ranks: tuple[np.ndarray, np.ndarray]  # (below, ties) of every depth, for the habit test's scores
    counted: np.ndarray  # (cases, beneficiaries) False for a seat dealt nothing
    weight: np.ndarray  # the same as 0.0 and 1.0


def _fold_seat(sums: Sums, seat: int, rows: np.ndarray, cuts: SeatCuts, depths: np.ndarray) -> None:
    """One cutter's cuts of a block (``rows``) into his sums; ``counted`` leaves out the seats that were dealt
    nothing, and the ranks' ``tail_scores`` are what the habit test sums (in C)."""
    counted, weight, index = cuts.counted[rows], cuts.weight[rows], cuts.index[rows]
    sums.cutter_high[seat] += (-2.0 * np.log(cuts.high[rows]) * weight).sum(axis=0)
    sums.cutter_low[seat] += (-2.0 * np.log(cuts.low[rows]) * weight).sum(axis=0)
    sums.cutter_tests[seat] += counted.sum(axis=0)
    sums.cutter_observed[seat] += (cuts.observed[rows] * weight).sum(axis=0)
    sums.cutter_expected[seat] += (cuts.expected[rows] * weight).sum(axis=0)
    for b in range(counted.shape[1]):
        sums.cutter_depths[seat, b, depths] += np.bincount(index[counted[:, b]], minlength=len(depths))
    table = _score_table(len(depths))
    chosen, by_depth, squares = score_sums(*cuts.ranks, cuts.index, cuts.weight, table, rows)
    sums.cutter_chosen[seat] += chosen
    sums.cutter_by_depth[seat][:, :, depths] += by_depth.transpose(1, 2, 0)
    sums.cutter_squares[seat][:, :, depths] += squares.transpose(1, 2, 0)


def habit_pvalue(observed: float, counts: np.ndarray, by_depth: np.ndarray, squares: np.ndarray) -> tuple[float, float]:
    """``(z, upper p)`` of a score total of the chosen depths against the same depths dealt out again among the
    same cuts at random: a cutter who keeps to his own depths without looking at the deck is uniform over these
    permutations, whatever depths he favours, so a dealer who stacks for a habitual depth does not make him look
    like its chooser. From additive sums: ``counts[d]`` cuts at depth ``d``, ``by_depth[d]`` and ``squares[d]``
    the total and the total square of the score depth ``d`` would have had over all the cuts.

    The permutation mean is exact; the variance is Hoeffding's (combinatorial central limit theorem) without its
    correction for cuts whose scores run higher at every depth, which only makes it larger: the test errs
    towards the cutter, and tail scores are ranks, so their level hardly varies from cut to cut.
    """
    total = float(counts.sum())
    if total < 2:
        return 0.0, 1.0
    mean = float(counts @ by_depth) / total
    variance = float(counts @ (squares - by_depth**2 / total)) / (total - 1)
    if variance <= 1e-9 * max(1.0, mean**2):
        return 0.0, 1.0  # every permutation gives the same total: nothing to test
    z = (observed - mean) / np.sqrt(variance)
    return float(z), float(normal_sf(z))


def best_depths(
    pre: np.ndarray,
    dealers: np.ndarray,
    seat: int,
    pattern: DealPattern,
    seats: int,
    min_each_side: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """The legal depth that gives ``seat`` the most (ties at random), for decks ``pre`` about to be cut last:
    what a cutter who reads the bottom cards does, the model the simulations catch."""
    n = pre.shape[1]
    depths = legal_depths(n, min_each_side)
    maps, _ = beneficiaries(pattern, seats)
    raw = depth_values(
        pre, np.broadcast_to(np.arange(n), pre.shape), depths, np.asarray(pattern.targets), maps.shape[1]
    )
    values = np.einsum("ikr,ir->ik", raw, maps[dealers, :, seat])
    best = values == values.max(axis=1, keepdims=True)
    pick = np.argmax(best * rng.random(best.shape), axis=1)
    returned: np.ndarray = depths[pick]
    return returned
