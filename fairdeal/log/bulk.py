"""A log's hands read in bulk: card lists as card codes and the common shuffle notation as op tables.

The auditor reads a block of lines this way (``audit.block``), and the store (``log.store``) keeps the result
beside each line, so an audit of a store parses nothing. A card list counts as read only in the usual form
(``["7S", ...]`` with the pattern's sizes); a shuffle only when it is runs ``k`` and cuts ``cut d`` with known
depths (``@seat`` actors allowed). Anything else is left to the one-by-one decoders, which also word its errors.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from fairdeal.deal import get_pattern, seats_of_hands
from fairdeal.shuffle.notation import MAX_ACTIONS

NO_OP, RUN, CUT = 0, 1, 2
_OP = np.dtype("<i2")  # one stored op field; depths, run lengths and seats are below 2**15


@dataclass(frozen=True)
class CompiledShuffle:
    """Simple shuffles of a batch as op tables: ``kinds``/``args``/``actors`` of shape ``(hands, steps)``."""

    kinds: np.ndarray
    args: np.ndarray
    actors: np.ndarray

    @property
    def steps(self) -> int:
        return int(self.kinds.shape[1])

    def rows(self, index: np.ndarray) -> CompiledShuffle:
        """The given rows, as long as their longest shuffle (as ``compile_batch`` of their ops makes them)."""
        kinds = self.kinds[index]
        busy = (kinds != NO_OP).any(axis=0)
        steps = int(len(busy) - np.argmax(busy[::-1])) if busy.any() else 0
        return CompiledShuffle(kinds[:, :steps], self.args[index, :steps], self.actors[index, :steps])


@functools.lru_cache(maxsize=4096)
def _token(text: str) -> tuple[int, int, int] | None:
    """One token: ``(RUN, k, actor)``, ``(CUT, 0, actor)`` for a cut's head, ``None`` for anything else."""
    name, at, actor_text = text.partition("@")
    if at and not _is_number(actor_text):
        return None
    actor = int(actor_text) if at else -1
    if _is_number(name):
        return RUN, int(name), actor
    return (CUT, 0, actor) if name == "cut" else None


def _is_number(text: str) -> bool:
    """ASCII digits only, as the notation has them: ``str.isdigit`` also takes '²', which ``int`` refuses."""
    return text.isascii() and text.isdigit()


def compile_simple(text: str, n: int) -> list[tuple[int, int, int]] | None:
    """``[(kind, arg, actor)]`` for a shuffle of runs and cuts with known depths, ``None`` for anything else."""
    tokens = text.split()
    ops: list[tuple[int, int, int]] = []
    i = 0
    while i < len(tokens):
        op = _token(tokens[i])
        if op is None:
            return None
        if op[0] == RUN:
            if not 1 <= op[1] <= n:
                return None
            ops.append(op)
            i += 1
        else:
            depth = tokens[i + 1] if i + 1 < len(tokens) else ""
            if not _is_number(depth) or not 0 < int(depth) < n:
                return None
            ops.append((CUT, int(depth), op[2]))
            i += 2
    return ops if len(ops) <= MAX_ACTIONS else None  # the full parser words the limit


def compile_batch(ops: list[list[tuple[int, int, int]]]) -> CompiledShuffle:
    steps = max((len(o) for o in ops), default=0)
    table = np.zeros((len(ops), steps, 3), dtype=np.int64)
    table[:, :, 2] = -1
    for row, items in enumerate(ops):
        if items:
            table[row, : len(items)] = items
    return CompiledShuffle(table[:, :, 0], table[:, :, 1], table[:, :, 2])


_QUOTE, _OPEN, _BACKSLASH = ord('"'), ord("["), ord("\\")


def _char_table(pairs: dict[str, int]) -> np.ndarray:
    table = np.full(256, -1, dtype=np.int64)
    for char, value in pairs.items():
        table[ord(char)] = value
    return table


_RANK = _char_table({"7": 0, "8": 1, "9": 2, "X": 3, "T": 3, "J": 4, "Q": 5, "K": 6, "A": 7})
_SUIT = _char_table({"S": 0, "C": 1, "D": 2, "H": 3})


def raw_cards(
    raws: list[bytes], expected: np.ndarray, keys: tuple[bytes, ...], n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Card codes of many JSON card lists at once: ``(ok, codes)`` with ``codes`` of shape ``(ok.sum(), n)``.

    ``expected[i]`` is row i's card count per ``[`` in order (outer lists count 0), ``keys`` the object keys the
    row must hold, in order. A row in any other form (another key order, card spelling, shape) is not ``ok`` and
    is left to the one-by-one decoder, which also words its errors.
    """
    rows = len(raws)
    lengths = np.fromiter((len(r) for r in raws), dtype=np.int64, count=rows)
    blob = b"".join(raws)
    fail = (np.zeros(rows, dtype=bool), np.zeros((0, n), dtype=np.int64))
    if not rows or _BACKSLASH in blob:
        return fail
    data = np.frombuffer(blob, dtype=np.uint8)
    ends_of_rows = np.cumsum(lengths)
    quotes = np.flatnonzero(data == _QUOTE)
    if len(quotes) % 2:
        return fail
    start, stop = quotes[0::2] + 1, quotes[1::2]
    row = np.searchsorted(ends_of_rows, start, side="right")
    size = stop - start
    ten = (size == 3) & (data[start] == ord("1")) & (data[np.minimum(start + 1, len(data) - 1)] == ord("0"))
    rank = np.where(ten, 3, np.where(size == 2, _RANK[data[start]], -1))
    suit = _SUIT[data[stop - 1]]
    card = (size == 2) | (size == 3)
    code = np.where((rank >= 0) & (suit >= 0), suit * 8 + rank, -1)
    ok = np.ones(rows, dtype=bool)
    ok &= np.bincount(row[card], minlength=rows) == n
    ok &= np.bincount(row[card & (code < 0)], minlength=rows) == 0
    words = np.flatnonzero(~card)
    ok &= np.bincount(row[words], minlength=rows) == len(keys)
    first_word = np.searchsorted(row[words], np.arange(rows))
    for k, key in enumerate(keys):
        if not len(words):
            return fail
        at = words[np.minimum(first_word + k, len(words) - 1)]
        ok &= (size[at] == len(key)) & (row[at] == np.arange(rows))
        for j, byte in enumerate(key):
            ok &= data[np.minimum(start[at] + j, len(data) - 1)] == byte
    opens = np.flatnonzero(data == _OPEN)
    open_row = np.searchsorted(ends_of_rows, opens, side="right")
    lists = expected.shape[1]
    ok &= np.bincount(open_row, minlength=rows) == lists
    first_open = np.searchsorted(open_row, np.arange(rows))
    which = np.searchsorted(opens, start[card]) - first_open[row[card]] - 1
    inside = (which >= 0) & (which < lists)
    counts = np.bincount(row[card][inside] * lists + which[inside], minlength=rows * lists).reshape(rows, lists)
    ok &= (counts == expected).all(axis=1)
    return ok, code[card][ok[row[card]]].reshape(-1, n)


@functools.lru_cache(maxsize=16)
def deal_lists(pattern_name: str, num_seats: int) -> np.ndarray:
    """Per dealer, the cards in each ``[`` of a deal's JSON as the pattern deals it (outer lists 0): the listed
    hands (a sitting-out seat 0; the dummy or the hand laid aside after the seats), then the talons."""
    pattern = get_pattern(pattern_name)
    slots = num_seats + pattern.seat_lists
    rows = []
    for dealer in range(num_seats):
        listed = [0] * slots
        for seat in seats_of_hands(pattern, dealer, num_seats):
            listed[num_seats if seat is None else seat] = pattern.cards_per_hand
        rows.append([0, *listed, 0, *(pattern.talon_size,) * pattern.talons])
    lists = np.array(rows, dtype=np.int64)
    lists.setflags(write=False)
    return lists


@dataclass(frozen=True)
class ParsedHands:
    """Hands read in bulk, one row each: the deal's and the gathered order's card codes where their JSON is in the
    usual form (``*_ok``; other rows hold -1), and the shuffle's ops where it is runs and cuts (``simple``)."""

    deal_ok: np.ndarray
    deals: np.ndarray
    order_ok: np.ndarray
    orders: np.ndarray
    simple: np.ndarray
    ops: CompiledShuffle

    def take(self, rows: np.ndarray | list[int]) -> ParsedHands:
        index = np.asarray(rows, dtype=np.int64)
        if len(index) == len(self.deal_ok) and np.array_equal(index, np.arange(len(index))):
            return self  # every row, in order (the usual block): the arrays are never written, so no copy
        ops = CompiledShuffle(self.ops.kinds[index], self.ops.args[index], self.ops.actors[index])
        return ParsedHands(
            self.deal_ok[index], self.deals[index], self.order_ok[index], self.orders[index], self.simple[index], ops
        )


def parse_hands(
    deals: list[bytes], orders: list[bytes], shuffles: list[str | None], dealers: np.ndarray, lists: np.ndarray, n: int
) -> ParsedHands:
    """Read many hands' raw JSON deals and orders (empty: absent) and their shuffles (``None``: absent)."""
    rows = len(deals)
    deal_ok, deal_codes = _cards(deals, dealers, lists, (b"hands", b"talons"), n)
    order_ok, order_codes = _cards(orders, np.zeros(rows, np.int64), np.array([[n]]), (), n)
    ops = [compile_simple(text, n) if text is not None else None for text in shuffles]
    simple = np.array([o is not None for o in ops], dtype=bool)
    return ParsedHands(deal_ok, deal_codes, order_ok, order_codes, simple, compile_batch([o or [] for o in ops]))


def _cards(
    raws: list[bytes], rows_of: np.ndarray, lists: np.ndarray, keys: tuple[bytes, ...], n: int
) -> tuple[np.ndarray, np.ndarray]:
    ok = np.zeros(len(raws), dtype=bool)
    codes = np.full((len(raws), n), -1, dtype=np.int64)
    present = np.flatnonzero(
        np.fromiter((len(r) > 0 for r in raws), dtype=bool, count=len(raws)) & (rows_of >= 0) & (rows_of < len(lists))
    )
    if len(present):
        read, fast = raw_cards([raws[k] for k in present], lists[rows_of[present]], keys, n)
        ok[present[read]] = True
        codes[present[read]] = fast
    return ok, codes


def pack_cards(ok: np.ndarray, codes: np.ndarray) -> list[bytes | None]:
    """Per row, its card codes as one byte each (``None`` where not read)."""
    table = codes.astype(np.uint8)
    return [bytes(table[k]) if ok[k] else None for k in range(len(ok))]


def unpack_cards(valid: np.ndarray, offsets: np.ndarray, data: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``pack_cards`` read back from a binary column's validity, offsets and bytes."""
    ok = valid & (np.diff(offsets) == n)
    codes = np.full((len(valid), n), -1, dtype=np.int64)
    codes[ok] = data[offsets[:-1][ok][:, None] + np.arange(n)]
    return ok, codes


def pack_ops(simple: np.ndarray, ops: CompiledShuffle) -> list[bytes | None]:
    """Per row, its ops as little-endian 16-bit (kind, arg, actor) triples (``None`` where not simple)."""
    table = np.stack([ops.kinds, ops.args, ops.actors], axis=2).astype(_OP)
    lengths = (ops.kinds != NO_OP).sum(axis=1)
    return [table[k, : lengths[k]].tobytes() if simple[k] else None for k in range(len(simple))]


def unpack_ops(valid: np.ndarray, offsets: np.ndarray, data: np.ndarray) -> tuple[np.ndarray, CompiledShuffle]:
    """``pack_ops`` read back from a binary column's validity, offsets and bytes."""
    width = 3 * _OP.itemsize
    counts = np.where(valid, np.diff(offsets) // width, 0)
    simple = valid & (np.diff(offsets) % width == 0)
    counts[~simple] = 0
    table = np.zeros((len(valid), int(counts.max(initial=0)), 3), dtype=np.int64)
    table[:, :, 2] = -1
    row = np.repeat(np.arange(len(valid)), counts)
    step = np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts)
    at = (offsets[:-1][row] + step * width)[:, None] + np.arange(width)
    table[row, step] = data[at].view(_OP).reshape(-1, 3) if len(row) else np.zeros((0, 3), np.int64)
    return simple, CompiledShuffle(table[:, :, 0], table[:, :, 1], table[:, :, 2])
