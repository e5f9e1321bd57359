"""One block of a log, audited at array speed: its deals read in bulk, its shuffles replayed and measured
(``shuffle_quality``), the cutter's depths (``actors.cutter``), targeting per hand when asked (``targeting``), its
statistics.

``audit_block`` turns decoded lines into a ``summary.BlockSummary``. Deals whose card lists are in the usual form
are read for the whole block at once (``log.bulk``; a store keeps them read); any other deal is decoded card by
card, and a deal that is not one deck in the pattern's shape is a finding, explained by the replay when the order
and shuffle are logged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import numpy as np

from fairdeal.audit.actors.cutter import fold_cutter
from fairdeal.audit.benefit.fold import fold_benefit, last_cuts
from fairdeal.audit.bulk_replay import gathered_orders, replay_block
from fairdeal.audit.candidates import block_candidates
from fairdeal.audit.exact import fold_deals, laws_for
from fairdeal.audit.fastpath import Layout, NarrowHand, NarrowTable, RawHand, card_code
from fairdeal.audit.logged import read_logged
from fairdeal.audit.replay import Finding, received_deal, replay_deal
from fairdeal.audit.shuffle_quality import fold_quality
from fairdeal.audit.summary import BlockContext, BlockSummary, Sums
from fairdeal.audit.targeting import fold_targeting
from fairdeal.audit.tells import fold_tells
from fairdeal.bounded import quote
from fairdeal.cards import NUM_CODES, to_ascii_list
from fairdeal.errors import FairdealError, one_line
from fairdeal.log.bulk import ParsedHands, parse_hands
from fairdeal.shuffle.notation import parse_notation

if TYPE_CHECKING:
    from fairdeal.audit.fastpath import Hands, RawRecord
    from fairdeal.deal import DealPattern


def audit_block(
    records: list[tuple[int, RawRecord]],
    errors: list[tuple[int, str]],
    lines: int,
    layout: Layout,
    context: BlockContext,
    block_index: int,
    parsed: ParsedHands | None = None,
) -> BlockSummary:
    """Audit the decoded records (``RawHand`` for hands) of one block, numbered from 1 within the block;
    ``parsed`` holds their hands read in bulk, one row per ``RawHand`` in order (a store keeps it), else it is
    read here."""
    laws = laws_for(layout)
    pattern = layout.pattern
    seats = layout.num_seats
    summary = BlockSummary(
        lines,
        Sums.empty(seats, len(laws.talon_aces.pmf) - 1, pattern.deck.size),
        np.zeros(0, np.int64),
        np.zeros(0, np.int16),
        np.zeros(0, np.int8),
        np.zeros(0, np.uint64),
        None,
    )
    for line, message in errors:
        summary.problem(line, message, context.keep)
    if parsed is None:
        parsed = _parse([(line, record) for line, record in records if isinstance(record, RawHand)], layout)
    hands, kept = [], []
    position = -1  # the record's row in ``parsed``
    for line, record in records:
        if isinstance(record, RawHand):
            position += 1
            if not 0 <= record.dealer < seats:
                summary.problem(
                    line,
                    f"line {line}: hand {record.hand}: dealer seat {record.dealer} is not at a table of {seats}",
                    context.keep,
                )
            elif not record.has_deal:
                summary.undealt += 1
            else:
                kept.append(position)
                hands.append((line, record))
        elif isinstance(record, NarrowTable):
            summary.headers += 1
            summary.problem(line, f"line {line}: a second table header; the auditor keeps the first", context.keep)
    if not hands:
        return summary
    parsed = parsed.take(kept)
    rows, codes = _deals(hands, parsed, layout, summary, context)
    if not rows:
        return summary
    if len(rows) < len(hands):
        hands = [hands[r] for r in rows]
    parsed = parsed.take(rows)
    dealers = np.array([record.dealer for _, record in hands], dtype=np.int64)
    numbers = np.array([record.hand for _, record in hands], dtype=np.int64)
    recv = np.full((len(hands), NUM_CODES), -1, dtype=np.int8)
    recv[np.arange(len(hands))[:, None], codes] = layout.template[dealers]
    orders = gathered_orders(hands, parsed, layout, summary, context)
    logged_order = np.fromiter((record.has_order for _, record in hands), dtype=bool, count=len(hands))
    valid = (orders[:, 0] >= 0) | ~logged_order
    if not valid.all():
        hands = [h for h, v in zip(hands, valid) if v]
        orders, recv, dealers, numbers = orders[valid], recv[valid], dealers[valid], numbers[valid]
    simple, compiled = replay_block(
        hands, parsed.take(np.flatnonzero(valid)), orders, recv, dealers, layout, context, summary
    )
    fold_cutter(
        hands,
        orders,
        dealers,
        simple,
        compiled,
        layout,
        context,
        summary,
    )
    logged = read_logged(hands, simple, compiled, pattern, context.min_each_side)
    fold_quality(hands, dealers, logged, context, summary)
    if context.targeting:
        fold_targeting(
            hands,
            orders,
            recv,
            dealers,
            logged,
            layout,
            laws,
            context,
            summary,
            np.random.default_rng([context.seed, block_index, 2]),
        )
    if context.tells:
        fold_tells(
            hands, orders, dealers, laws.aces, context, summary, np.random.default_rng([context.seed, block_index, 1])
        )
    fold_deals(summary, recv, dealers, numbers, layout, context)
    cutters, depths = last_cuts(hands, simple, compiled, seats)
    fold_benefit(summary.sums, recv, dealers, cutters, layout, context.system, depths)
    summary.candidates = block_candidates(
        recv,
        dealers,
        numbers,
        np.fromiter((line for line, _ in hands), dtype=np.int64, count=len(hands)),
        depths,
        np.fromiter((record.declarer for _, record in hands), dtype=np.int64, count=len(hands)),
        layout,
    )
    return summary


def _parse(hands: Hands, layout: Layout) -> ParsedHands:
    return parse_hands(
        [bytes(record.deal) for _, record in hands],
        [bytes(record.order_before) for _, record in hands],
        [record.logged_shuffle for _, record in hands],
        np.array([record.dealer for _, record in hands], dtype=np.int64),
        layout.lists,
        layout.pattern.deck.size,
    )


def _deals(
    hands: Hands, parsed: ParsedHands, layout: Layout, summary: BlockSummary, context: BlockContext
) -> tuple[list[int], np.ndarray]:
    """Rows whose deal is one deck in the pattern's shape, and their cards as listed (slot order, then talons)."""
    pattern = layout.pattern
    ok, fast = parsed.deal_ok, parsed.deals[parsed.deal_ok]
    deck = np.sort(pattern.deck.codes())
    one_deck = (np.sort(fast, axis=1) == deck[None, :]).all(axis=1)
    rows = list(np.flatnonzero(ok)[one_deck])
    codes = [fast[one_deck]]
    for k in np.flatnonzero(ok)[~one_deck]:
        line, record = hands[k]
        try:
            narrow = record.narrow()
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            summary.problem(line, f"line {line}: hand {record.hand}: {one_line(str(exc))}", context.keep)
            continue
        _bad_deal(
            line, narrow, layout, summary, context, _deck_problem(fast[np.searchsorted(np.flatnonzero(ok), k)], pattern)
        )
    for k in np.flatnonzero(~ok):
        line, record = hands[k]
        row = _slow_deal(line, record, layout, summary, context)
        if row is not None:
            rows.append(int(k))
            codes.append(row[None, :])
    order = np.argsort(rows, kind="stable")
    return [int(rows[i]) for i in order], np.concatenate(codes)[order]


def _slow_deal(
    line: int, record: RawHand, layout: Layout, summary: BlockSummary, context: BlockContext
) -> np.ndarray | None:
    """One deal in a form the bulk reader leaves aside: decoded card by card, checked, worded."""
    pattern = layout.pattern
    try:
        narrow = record.narrow()
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        summary.problem(line, f"line {line}: hand {record.hand}: {one_line(str(exc))}", context.keep)
        return None
    deal = narrow.deal
    assert deal is not None  # hands without a deal are left out before
    unknown = unknown_card(deal)
    if unknown is not None:
        field, text = unknown
        summary.problem(
            line,
            f"line {line}, field {field}: hand {record.hand}: {quote(text)} is not a card; the line is "
            "left out of the statistics",
            context.keep,
        )
        return None
    sizes = tuple(map(len, deal.hands)) + tuple(map(len, deal.talons))
    if sizes != layout.sizes[record.dealer]:
        _bad_deal(
            line,
            narrow,
            layout,
            summary,
            context,
            f"the deal's hands and talons hold {list(sizes)} cards; pattern {pattern.name} deals "
            f"{list(layout.sizes[record.dealer])}",
        )
        return None
    codes = np.array([card_code(c) for cards in deal.hands + deal.talons for c in cards], dtype=np.int64)
    if not (np.sort(codes) == np.sort(pattern.deck.codes())).all():
        _bad_deal(line, narrow, layout, summary, context, _deck_problem(codes, pattern))
        return None
    return codes


def unknown_card(deal: object) -> tuple[str, str] | None:
    """The first card name in a deal that names no card, as ``(field path, text)``: the line fails validation."""
    for part in ("hands", "talons"):
        for i, cards in enumerate(getattr(deal, part)):
            for j, text in enumerate(cards):
                if card_code(text) < 0:
                    return f"deal.{part}[{i}][{j}]", text
    return None


def _deck_problem(codes: np.ndarray, pattern: DealPattern) -> str:
    counts = np.bincount(codes, minlength=NUM_CODES)
    twice = to_ascii_list(np.flatnonzero(counts > 1))
    missing = to_ascii_list([c for c in pattern.deck.codes() if counts[c] == 0])
    return f"the deal is not one {pattern.deck.value} deck: twice {twice}, missing {missing}"


def _bad_deal(
    line: int, record: NarrowHand, layout: Layout, summary: BlockSummary, context: BlockContext, why: str
) -> None:
    """A deal no honest dealing gives; when the order and shuffle are logged, the replay explains it."""
    explanation: tuple[str, ...] = ()
    codes = [card_code(c) for c in record.order_before] if record.order_before is not None else []
    # Only an order that is one deck can be replayed; any other is reported by the validator's errors.
    if record.shuffle is not None and sorted(codes) == sorted(layout.pattern.deck.codes().tolist()):
        try:
            before = np.array(codes, dtype=np.uint8)
            deal = received_deal(record, layout.pattern, layout.num_seats)
            result = replay_deal(before, parse_notation(record.shuffle), deal, layout.pattern)
            explanation = tuple(e for f in result.findings for e in f.explanations)
        except (FairdealError, ValueError, IndexError):
            explanation = ()
    summary.finding(
        line,
        record.hand,
        record.dealer,
        Finding("bad-deal", f"hand {record.hand}: {why}", (), explanation),
        context.keep,
    )
