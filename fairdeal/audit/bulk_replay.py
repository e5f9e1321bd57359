"""The logged shuffles of a block replayed at array speed, and the shuffle's own tells.

Runs and cuts (the common notation) are replayed for all hands at once from the gathered order and compared with
the deal as received; a difference is explained one hand at a time by ``replay.replay_deal``. Cuts that leave
too few cards on a side, cuts by anyone but the cutter (``actors.cuts``), windows of actions that undo each
other (a false cut) or change nobody's cards are findings; cut depths are tallied per dealer. A shuffle in any
other notation goes through the full parser, one hand.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import msgspec
import numpy as np

from fairdeal.audit.actors.cuts import (
    UNATTRIBUTED,
    cutter_findings,
    cutter_seat,
    named_actions,
    unattributed_cut,
    wrong_cut,
)
from fairdeal.audit.benign import LOG_ERROR_NAMES, Weighed
from fairdeal.audit.fastpath import (
    CUT,
    NO_OP,
    CompiledShuffle,
    Layout,
    apply_compiled,
    card_code,
    step_notation,
    undone_windows,
)
from fairdeal.audit.replay import (
    CutDepthTally,
    Finding,
    cut_legality,
    false_cut,
    received_deal,
    replay_deal,
    undone_actions,
)
from fairdeal.audit.summary import BlockContext, BlockSummary, HandTable
from fairdeal.cards import NUM_CODES
from fairdeal.errors import FairdealError
from fairdeal.log.bulk import ParsedHands
from fairdeal.shuffle.notation import parse_notation

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands, RawHand

EVIDENCE_TABLE = "replay_evidence"  # the per-hand table of weighed replay evidence (``Weights``)
DEAL_SOURCE, FALSE_CUT_SOURCE = 0, 1


def gathered_orders(
    hands: Hands, parsed: ParsedHands, layout: Layout, summary: BlockSummary, context: BlockContext
) -> np.ndarray:
    """The logged order before shuffling per row, ``-1`` rows where it is absent or not one deck (a malformed line,
    reported here)."""
    pattern = layout.pattern
    orders = np.where(parsed.order_ok[:, None], parsed.orders, -1)
    present = np.array([record.has_order for _, record in hands], dtype=bool)
    for k in np.flatnonzero(present & ~parsed.order_ok):
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError, ValueError):
            orders[k] = [card_code(c) for c in hands[k][1].narrow().order_before or ()]
    deck = np.sort(pattern.deck.codes())
    broken = present & ~(np.sort(orders, axis=1) == deck[None, :]).all(axis=1)
    for k in np.flatnonzero(broken):
        line, record = hands[k]
        summary.problem(
            line,
            f"line {line}, field order_before: hand {record.hand}: not one {pattern.deck.value} "
            "deck; the line is left out of the statistics",
            context.keep,
        )
    orders[broken] = -1
    return orders


def replay_block(
    hands: Hands,
    parsed: ParsedHands,
    orders: np.ndarray,
    recv: np.ndarray,
    dealers: np.ndarray,
    layout: Layout,
    context: BlockContext,
    summary: BlockSummary,
) -> tuple[np.ndarray, CompiledShuffle | None]:
    """Replay every logged shuffle from the gathered order (``gathered_orders``) and read its replay tells.

    Returns the rows of runs and cuts with depths and their op tables, for the per-hand passes."""
    simple = np.flatnonzero(parsed.simple)
    logged = np.array([record.logged_shuffle is not None for _, record in hands], dtype=bool)
    other = np.flatnonzero(logged & ~parsed.simple)
    compiled = parsed.ops.rows(simple) if len(simple) else None
    weights = Weights()
    if compiled is not None:
        _replay_simple(hands, recv, dealers, orders, simple, compiled, layout, context, summary, weights)
    for k in other:
        _replay_one(hands[k], orders[k], int(dealers[k]), layout, context, summary, weights)
    if weights.rows:
        summary.tables[EVIDENCE_TABLE] = weights.table()
    return simple, compiled


class Weights:
    """The block's weighed replay evidence, one row per hand that carries some: a mismatching deal (a benign
    log error or a weighed finding) or a false cut, with its likelihood ratio."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, int, int, float, int, int]] = []

    def deal(self, line: int, hand: int, dealer: int, weighed: Weighed) -> None:
        model = LOG_ERROR_NAMES.index(weighed.explanation) if weighed.benign else -1
        self.rows.append((line, hand, dealer, weighed.e_value, model, DEAL_SOURCE))

    def finding(self, line: int, hand: int, dealer: int, finding: Finding) -> None:
        if finding.kind == "false-cut" and finding.e_value is not None:
            self.rows.append((line, hand, dealer, finding.e_value, -1, FALSE_CUT_SOURCE))

    def table(self) -> HandTable:
        columns = list(zip(*self.rows))
        return HandTable(
            {
                "line": np.array(columns[0], dtype=np.int64),
                "hand": np.array(columns[1], dtype=np.int64),
                "dealer": np.array(columns[2], dtype=np.int64),
                "e": np.array(columns[3], dtype=float),
                "log_error": np.array(columns[4], dtype=np.int64),
                "source": np.array(columns[5], dtype=np.int64),
            }
        )


def _replay_simple(
    hands: Hands,
    recv: np.ndarray,
    dealers: np.ndarray,
    orders: np.ndarray,
    idx: np.ndarray,
    compiled: CompiledShuffle,
    layout: Layout,
    context: BlockContext,
    summary: BlockSummary,
    weights: Weights,
) -> None:
    pattern = layout.pattern
    n = pattern.deck.size
    kinds, args, actors = compiled.kinds, compiled.args, compiled.actors
    cut = kinds == CUT
    np.add.at(summary.sums.cut_depths, (np.broadcast_to(dealers[idx][:, None], cut.shape)[cut], args[cut]), 1)
    short = cut & (np.minimum(args, n - args) < context.min_each_side)
    for j, s in zip(*np.nonzero(short)):
        line, record = hands[idx[j]]
        summary.finding(
            line,
            record.hand,
            record.dealer,
            Finding(
                "illegal-cut",
                f"action {s + 1} ({step_notation(kinds[j, s], args[j, s], actors[j, s])}) leaves "
                f"{min(args[j, s], n - args[j, s])} card(s) on one side; the convention asks at least "
                f"{context.min_each_side}",
            ),
            context.keep,
        )
    _cutters(hands, dealers[idx], idx, compiled, layout, context, summary)
    for j, start, stop, identity in undone_windows(compiled, np.asarray(pattern.targets)):
        line, record = hands[idx[j]]
        window = kinds[j, start:stop]
        kind = ("false-cut" if (window == CUT).any() else "cancelling-actions") if identity else "no-op-shuffle"
        worded = summary.finding_counts.get(kind, 0) < context.keep  # the report keeps only the first ones
        if not worded and kind != "false-cut":
            summary.finding_counts[kind] = summary.finding_counts.get(kind, 0) + 1
            continue
        text = " ".join(step_notation(kinds[j, s], args[j, s], actors[j, s]) for s in range(start, stop))
        where = f"actions {start + 1}-{stop} ({text})"
        if kind == "false-cut":
            # Weighed, whether worded or only counted: its likelihood ratio enters the dealer's evidence.
            finding = false_cut(parse_notation(record.shuffle), start, stop, where, n, context.min_each_side)
            weights.finding(line, record.hand, record.dealer, finding)
        if not worded:
            summary.finding_counts[kind] = summary.finding_counts.get(kind, 0) + 1
            continue
        if kind != "false-cut":
            message = (
                f"{where} undo each other: the deck is as before them"
                if identity
                else f"{where} change no receiver's cards: every hand and talon as before them"
            )
            finding = Finding(kind, message)
        summary.finding(line, record.hand, record.dealer, finding, context.keep)
    known = np.flatnonzero(orders[idx, 0] >= 0)
    if not len(known):
        return
    after = apply_compiled(orders[idx[known]], CompiledShuffle(kinds[known], args[known], actors[known]))
    expected = np.full((len(known), NUM_CODES), -1, dtype=np.int8)
    expected[np.arange(len(known))[:, None], after] = np.asarray(pattern.targets, dtype=np.int8)[None, :]
    for m in np.flatnonzero((expected != recv[idx[known]]).any(axis=1)):
        k = idx[known[m]]
        line, record = hands[k]
        narrow = record.narrow()
        try:
            deal = received_deal(narrow, pattern, layout.num_seats)
            result = replay_deal(
                orders[k].astype(np.uint8), parse_notation(record.shuffle), deal, pattern, context.min_each_side
            )
            findings = result.findings
            if result.weighed is not None:
                weights.deal(line, record.hand, record.dealer, result.weighed)
        except FairdealError as exc:
            findings = (Finding("bad-deal", f"the deal differs from the replay and cannot be explained: {exc}"),)
        for finding in findings:
            summary.finding(line, record.hand, record.dealer, finding, context.keep)


def _cutters(
    hands: Hands,
    dealers: np.ndarray,
    idx: np.ndarray,
    compiled: CompiledShuffle,
    layout: Layout,
    context: BlockContext,
    summary: BlockSummary,
) -> None:
    """``cuts.cutter_findings`` for op tables: the last cut is the cutter's, earlier ones the dealer's or his."""
    kinds, args, actors = compiled.kinds, compiled.args, compiled.actors
    cut = kinds == CUT
    np.add.at(summary.sums.actor_actions, dealers, ((kinds != NO_OP) & (actors >= 0)).sum(axis=1))
    cutter = ((dealers - context.cutter_offset) % layout.num_seats)[:, None]
    steps = np.arange(kinds.shape[1])[None, :]
    # initial=-1: a block whose hands log no action at all has no column to take the maximum of.
    last = cut & (steps == np.where(cut, steps, -1).max(axis=1, keepdims=True, initial=-1))
    wrong = cut & (actors >= 0) & (actors != cutter) & (last | (actors != dealers[:, None]))
    bare = last & (actors < 0)
    for j, s in zip(*np.nonzero(wrong | bare)):
        line, record = hands[idx[j]]
        if bare[j, s] and summary.finding_counts.get(UNATTRIBUTED, 0) >= context.keep:
            # Counted, not worded: a log without actors has one a hand.
            summary.finding_counts[UNATTRIBUTED] = summary.finding_counts.get(UNATTRIBUTED, 0) + 1
            continue
        action = f"action {s + 1} ({step_notation(kinds[j, s], args[j, s], actors[j, s])})"
        finding = (
            unattributed_cut(action, int(cutter[j, 0]))
            if bare[j, s]
            else wrong_cut(action, int(actors[j, s]), int(dealers[j]), int(cutter[j, 0]))
        )
        summary.finding(line, record.hand, record.dealer, finding, context.keep)


def _replay_one(
    item: tuple[int, RawHand],
    order: np.ndarray,
    dealer: int,
    layout: Layout,
    context: BlockContext,
    summary: BlockSummary,
    weights: Weights,
) -> None:
    """A shuffle in the full notation (overhand, riffle, unknown cuts...): the full parser, one hand."""
    line, record = item
    pattern = layout.pattern
    n = pattern.deck.size
    shuffle = record.logged_shuffle
    assert shuffle is not None  # only hands with a logged shuffle are replayed
    try:
        sequence = parse_notation(shuffle)
    except FairdealError as exc:
        summary.problem(line, f"line {line}: hand {record.hand}: the shuffle cannot be read: {exc}", context.keep)
        return
    depths = CutDepthTally.of(sequence, n)
    summary.sums.cut_depths[dealer] += np.array(depths.counts)
    try:
        if order[0] >= 0 and sequence.is_known:
            deal = received_deal(record.narrow(), pattern, layout.num_seats)
            result = replay_deal(order.astype(np.uint8), sequence, deal, pattern, context.min_each_side)
            if result.weighed is not None:
                weights.deal(line, record.hand, record.dealer, result.weighed)
            findings = (
                result.findings
                + cut_legality(sequence, n, context.min_each_side)
                + undone_actions(sequence, pattern, context.min_each_side)
            )
        else:
            findings = cut_legality(sequence, n, context.min_each_side)
    except FairdealError as exc:
        summary.problem(line, f"line {line}: hand {record.hand}: the shuffle cannot be replayed: {exc}", context.keep)
        return
    summary.sums.actor_actions[dealer] += named_actions(sequence)
    cutter = cutter_seat(dealer, layout.num_seats, context.cutter_offset)
    for finding in findings + cutter_findings(sequence, dealer, cutter):
        weights.finding(line, record.hand, record.dealer, finding)
        summary.finding(line, record.hand, record.dealer, finding, context.keep)
