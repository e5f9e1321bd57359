"""The cutter as a suspect: the depth he chose against what every other depth he could have chosen would give.

When the deck just before a cut is known (the gathered order and every logged action before the cut) and the
actions after it are logged, each legal depth gives a deal, and each seat's hand and the talon a value
(``value.receiver_values``). A cutter who does not look cuts at a depth uniform over the legal ones, so the rank
of the chosen depth's value among all legal depths is uniform; ties are broken at random, which makes the
per-cut p-value exactly uniform. Its two tails are summed per (cutter, beneficiary) as Fisher statistics, which
merge by addition across blocks, shards and dask tasks (``summary.Sums``); the verdict tests both tails.
A cutter with a habit (always about 11) is not uniform, and a dealer who stacks for that habit would make the rank
test name him; so the same scores are also tested against his own depths permuted among his cuts
(``habit_pvalue``, from additive sums too), and a tail counts only when both tests find it.
A cut whose earlier order is not logged (only the deal and the depth) is counted as one the test could not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats as sps

from fairdeal.audit.actors.value import receiver_values
from fairdeal.audit.fastpath import CUT, NO_OP, CompiledShuffle, apply_compiled
from fairdeal.deal import DealPattern, seats_of_hands
from fairdeal.errors import FairdealError
from fairdeal.shuffle.notation import parse_notation
from fairdeal.shuffle.ops import Cut
from fairdeal.shuffle.perm import compose, identity

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands, Layout
    from fairdeal.audit.summary import BlockContext, BlockSummary, Sums

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


def decks_by_depth(pre: np.ndarray, after: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """``(cases, depths, n)``: the deck dealt from had the cut been each depth (``cut d`` puts position ``p + d``
    at ``p``; the actions after it then gather by ``after``)."""
    n = pre.shape[1]
    index = (after[:, None, :] + depths[None, :, None]) % n
    returned: np.ndarray = np.take_along_axis(pre[:, None, :], index, axis=2)
    return returned


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


def rank_pvalues(values: np.ndarray, chosen: np.ndarray, uniform: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tie-broken rank p-values of the chosen depth: ``(high, low)``, each exactly uniform under a uniform depth.

    ``values``: ``(cases, depths, beneficiaries)``; ``chosen``: the chosen depth's index per case; ``uniform``:
    ``(cases, beneficiaries)`` uniforms on [0, 1). ``high`` is small when the chosen depth gave much, ``low``
    when it gave little; ``high + low == 1``.
    """
    k = values.shape[1]
    mine = np.take_along_axis(values, chosen[:, None, None], axis=1)
    above = (values > mine).sum(axis=1)
    ties = (values == mine).sum(axis=1)
    high = (above + (1.0 - uniform) * ties) / k
    low = np.maximum(1.0 - high, np.finfo(float).tiny)
    return high, low


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
    for row, (_, record) in enumerate(hands):
        shuffle = record.logged_shuffle
        if shuffle is not None and not is_simple[row]:
            parts += _parsed_cases(row, shuffle, orders[row], n, layout.num_seats, untested)
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
    rng: np.random.Generator,
) -> None:
    """Add each readable cut's two rank p-values to its (cutter, beneficiary) sums; count the gathered orders
    (the verdict says the gatherer, whom the log does not name, is not tested)."""
    sums = summary.sums
    pattern = layout.pattern
    n = pattern.deck.size
    np.add.at(sums.gathered, dealers[orders[:, 0] >= 0], 1)
    cases = cut_cases(hands, orders, simple, compiled, layout, sums.cutter_untested)
    depths = legal_depths(n, context.min_each_side)
    legal = (cases.depth >= depths[0]) & (cases.depth <= depths[-1])  # an illegal cut is a finding of its own
    if not legal.any():
        return
    rows, cutter = cases.rows[legal], cases.cutter[legal]
    decks = decks_by_depth(cases.pre[legal], cases.after[legal], depths)
    maps, active = beneficiaries(pattern, layout.num_seats)
    own = dealers[rows]
    values = np.einsum("ikr,irb->ikb", receiver_values(decks, np.asarray(pattern.targets), maps.shape[1]), maps[own])
    high, low = rank_pvalues(values, cases.depth[legal] - depths[0], rng.random((len(rows), maps.shape[2])))
    counted = active[own]
    mine = np.take_along_axis(values, (cases.depth[legal] - depths[0])[:, None, None], axis=1)[:, 0, :]
    for total, part in (
        (sums.cutter_high, -2.0 * np.log(high)),
        (sums.cutter_low, -2.0 * np.log(low)),
        (sums.cutter_tests, np.ones_like(high, dtype=np.int64)),
        (sums.cutter_observed, mine),
        (sums.cutter_expected, values.mean(axis=1)),
    ):
        np.add.at(total, cutter, np.where(counted, part, 0).astype(total.dtype))
    _fold_habit(sums, values, cases.depth[legal], depths, cutter, counted, n)


def _fold_habit(
    sums: Sums,
    values: np.ndarray,
    chosen: np.ndarray,
    depths: np.ndarray,
    cutter: np.ndarray,
    counted: np.ndarray,
    n: int,
) -> None:
    """The sums ``habit_pvalue`` needs: each depth's tail scores (``tail_scores``) in each cut, the chosen
    depths' scores, and the products of two depths' scores."""
    m, b = len(values), values.shape[2]
    index = chosen - depths[0]
    full = np.zeros((m, b, 2, n))
    full[:, :, :, depths] = tail_scores(values).transpose(0, 2, 3, 1)
    full *= counted[:, :, None, None]
    picked = np.zeros((m, n), dtype=np.int64)
    picked[np.arange(m), chosen] = 1
    np.add.at(sums.cutter_depths, cutter, picked[:, None, :] * counted[:, :, None])
    np.add.at(sums.cutter_chosen, cutter, full[np.arange(m), :, :, depths[index]])
    np.add.at(sums.cutter_by_depth, cutter, full)
    for seat in np.unique(cutter):
        mine = full[cutter == seat]
        sums.cutter_cross[seat] += np.einsum("ibtk,ibtl->btkl", mine, mine)


def tail_scores(values: np.ndarray) -> np.ndarray:
    """``(cases, depths, beneficiaries, 2)``: ``-log`` of each depth's mid-rank tail p-value among the depths of its
    cut, high tail then low: a depth that gives the most scores highest on the first, as Fisher's method weighs it."""
    above = (values[:, None, :, :] > values[:, :, None, :]).sum(axis=2)
    ties = (values[:, None, :, :] == values[:, :, None, :]).sum(axis=2)
    k = values.shape[1]
    high = (above + 0.5 * ties) / k
    low = (k - above - ties + 0.5 * ties) / k
    returned: np.ndarray = -np.log(np.stack([high, low], axis=-1))
    return returned


def habit_pvalue(observed: float, counts: np.ndarray, by_depth: np.ndarray, cross: np.ndarray) -> tuple[float, float]:
    """``(z, upper p)`` of a score total of the chosen depths against the same depths dealt out again among the
    same cuts at random: a cutter who keeps to his own depths without looking at the deck is uniform over these
    permutations, whatever depths he favours, so a dealer who stacks for a habitual depth does not make him look
    like its chooser. Mean and variance of the permutation law are Hoeffding's (combinatorial central limit
    theorem), from additive sums: ``counts[d]`` cuts at depth ``d``, ``by_depth[d]`` the total score depth ``d``
    would have had over all cuts, ``cross[d, e]`` the total of products of the scores of ``d`` and ``e``."""
    total = float(counts.sum())
    if total < 2:
        return 0.0, 1.0
    share = counts / total
    mean = float(share @ by_depth)
    spread = (
        float(counts @ np.diag(cross))
        - total * float(share @ cross @ share)
        - float(counts @ (by_depth / total) ** 2) * total
        + mean**2
    )
    variance = spread / (total - 1)
    if variance <= 1e-9 * max(1.0, mean**2):
        return 0.0, 1.0  # every permutation gives the same total: nothing to test
    z = (observed - mean) / np.sqrt(variance)
    return float(z), float(sps.norm.sf(z))


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
    decks = decks_by_depth(pre, np.broadcast_to(np.arange(n), pre.shape), depths)
    maps, _ = beneficiaries(pattern, seats)
    values = np.einsum(
        "ikr,ir->ik", receiver_values(decks, np.asarray(pattern.targets), maps.shape[1]), maps[dealers, :, seat]
    )
    best = values == values.max(axis=1, keepdims=True)
    pick = np.argmax(best * rng.random(best.shape), axis=1)
    returned: np.ndarray = depths[pick]
    return returned
