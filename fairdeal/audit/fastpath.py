"""The fast reader of the statistical pass: narrow decoding of a block of log lines into arrays of card codes.

Only the fields the statistics need are decoded (msgspec skips the rest at C speed), cards become codes through
one dictionary lookup each, and the common shuffle notation (card-by-card runs ``k`` and cuts ``cut@s d``) is
replayed for a whole block at once by the C kernels (``kernels``). Hand lines keep their card lists undecoded
(``msgspec.Raw``) and ``log.bulk`` reads a whole block of them with numpy; a list in any other form (another
spelling, a wrong shape) is decoded card by card. A line the narrow decoder rejects is decoded again by the full
reader, so its error message is the reader's own; a shuffle in any other notation goes through the full parser one
hand at a time.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import msgspec
import numpy as np

from fairdeal.audit.kernels import apply_ops
from fairdeal.audit.kernels import undone_windows as kernel_windows
from fairdeal.bounded import check
from fairdeal.cards import NUM_CODES, parse_card, to_ascii_list
from fairdeal.deal import DealPattern, get_pattern, seats_of_hands
from fairdeal.errors import FairdealError, LogError
from fairdeal.log.bulk import CUT as CUT  # the op-table vocabulary, re-exported for the auditor's passes
from fairdeal.log.bulk import NO_OP as NO_OP
from fairdeal.log.bulk import RUN as RUN
from fairdeal.log.bulk import CompiledShuffle as CompiledShuffle
from fairdeal.log.bulk import deal_lists
from fairdeal.log.reader import decode_line

CARD_CODE: dict[str, int] = {text: code for code, text in enumerate(to_ascii_list(range(NUM_CODES)))}


class NarrowDeal(msgspec.Struct, gc=False):
    hands: list[list[str]]
    talons: list[list[str]]


class NarrowTable(msgspec.Struct, tag_field="type", tag="table", gc=False):
    players: list[str]
    deal_pattern: str
    dealing: str
    system: str = ""


class NarrowHand(msgspec.Struct, tag_field="type", tag="hand", gc=False):
    hand: int
    dealer: int
    order_before: list[str] | None = None
    shuffle: str | None = None
    deal: NarrowDeal | None = None


class NarrowEnd(msgspec.Struct, tag_field="type", tag="end", gc=False):
    pass


def card_code(text: str) -> int:
    """A card's code, accepting every spelling the log reader accepts; -1 for a string that is no card."""
    code = CARD_CODE.get(text)
    if code is not None:
        return code
    try:
        return parse_card(text).code
    except (FairdealError, TypeError, ValueError):
        return -1


def _full_error(raw: bytes, number: int) -> str:
    try:
        decode_line(raw.rstrip(b"\r\n"), number)
    except LogError as exc:
        return str(exc)
    return f"line {number}: a field the auditor reads has the wrong type"


@dataclass(frozen=True)
class Layout:
    """How a table's seat lists map onto a pattern's hands: one receiver template per dealer."""

    pattern: DealPattern
    num_seats: int
    slot_hand: np.ndarray  # (dealers, slots): hand index of each listed hand (-1: the seat sits out)
    sizes: tuple[tuple[int, ...], ...]  # per dealer, the expected length of each listed hand then each talon
    template: np.ndarray  # (dealers, deck): receiver of each card of the flattened listed deal
    lists: np.ndarray  # (dealers, 2 + slots + talons): cards per '[' of a deal's JSON, outer lists 0

    @property
    def receivers(self) -> int:
        return self.pattern.hands + self.pattern.talons


@functools.lru_cache(maxsize=16)
def layout_for(pattern_name: str, num_seats: int) -> Layout:
    pattern = get_pattern(pattern_name)
    slots = num_seats + pattern.seat_lists  # the dummy or the hand laid aside is listed after the seats
    slot_hand = np.full((num_seats, slots), -1, dtype=np.int64)
    sizes, templates = [], []
    for dealer in range(num_seats):
        for hand, seat in enumerate(seats_of_hands(pattern, dealer, num_seats)):
            slot_hand[dealer, num_seats if seat is None else seat] = hand
        lengths = [pattern.cards_per_hand if h >= 0 else 0 for h in slot_hand[dealer]]
        sizes.append(tuple(lengths) + (pattern.talon_size,) * pattern.talons)
        receivers = [h for h in slot_hand[dealer] if h >= 0 for _ in range(pattern.cards_per_hand)]
        receivers += [pattern.hands + t for t in range(pattern.talons) for _ in range(pattern.talon_size)]
        templates.append(receivers)
    lists = deal_lists(pattern_name, num_seats)
    return Layout(pattern, num_seats, slot_hand, tuple(sizes), np.array(templates, dtype=np.int8), lists)


@functools.lru_cache(maxsize=8)
def _gather_table(n: int) -> np.ndarray:
    """Row ``kind * (n + 1) + arg``: the gather index of that op (no-op, run of ``arg``, cut of ``arg``)."""
    p = np.arange(n)
    table = np.tile(p, (3 * (n + 1), 1))
    for k in range(1, n + 1):
        table[RUN * (n + 1) + k] = np.where(p < k, k - 1 - p, p)
    for d in range(n + 1):
        table[CUT * (n + 1) + d] = (p + d) % n
    table.setflags(write=False)
    return table.astype(np.intp)


def step_index(kinds: np.ndarray, args: np.ndarray, n: int) -> np.ndarray:
    """Per row, the gather index of one step: ``new = old[index]`` (a run reverses the top k, a cut moves d)."""
    returned: np.ndarray = _gather_table(n)[kinds * (n + 1) + np.where(kinds == NO_OP, 0, args)]
    return returned


def apply_compiled(orders: np.ndarray, compiled: CompiledShuffle) -> np.ndarray:
    """The deck orders after each row's shuffle (``orders`` is ``(hands, n)``), in the orders' dtype: each step
    ``new = old[step_index]``, replayed in C (``kernels.apply_ops``)."""
    current = np.asarray(orders)
    return apply_ops(compiled.kinds, compiled.args, current).astype(current.dtype, copy=False)


def step_notation(kind: int, arg: int, actor: int) -> str:
    at = f"@{actor}" if actor >= 0 else ""
    return f"{arg}{at}" if kind == RUN else f"cut{at} {arg}"


def undone_windows(compiled: CompiledShuffle, targets: np.ndarray) -> list[tuple[int, int, int, bool]]:
    """``(row, start, stop, identity)`` for the shortest windows of at least two consecutive steps that restore the
    deck (``identity``) or leave every receiver's cards unchanged; a window containing a reported one is skipped.

    Linear in the number of steps: with ``R_k`` the inverse of the first ``k`` steps' permutation, the steps
    ``start+1..stop`` restore the deck exactly when ``R_start == R_stop``, and leave every receiver's cards
    unchanged exactly when ``targets[R_start] == targets[R_stop]``. So each prefix gets a key, a window is a
    repeat of a key, and for each stop only the latest earlier repeat can be shortest (``kernels.undone_windows``).
    """
    steps = compiled.kinds.shape[1]
    busy = compiled.kinds != NO_OP
    lengths = np.where(busy.any(axis=1), steps - np.argmax(busy[:, ::-1], axis=1), 0) if steps else np.zeros(0, int)
    return kernel_windows(compiled.kinds, compiled.args, lengths, np.asarray(targets, dtype=np.uint8))


class NarrowContract(msgspec.Struct, gc=False):
    declarer: int


class RawHand(msgspec.Struct, tag_field="type", tag="hand", gc=False):
    """A hand line with its card lists left undecoded (``msgspec.Raw``): ``log.bulk`` reads them in bulk."""

    hand: int
    dealer: int
    order_before: msgspec.Raw = msgspec.Raw()
    shuffle: str | msgspec.UnsetType = msgspec.UNSET  # absent is fine, null fails validation as in the log reader
    deal: msgspec.Raw = msgspec.Raw()
    contract: NarrowContract | None = None

    @property
    def declarer(self) -> int:
        """The declarer's seat, -1 for a hand without a contract."""
        return self.contract.declarer if self.contract is not None else -1

    def narrow(self) -> NarrowHand:
        """The same hand with its cards decoded one by one (the slow path; raises ``msgspec`` errors)."""
        order = msgspec.json.decode(self.order_before, type=list[str]) if len(self.order_before) else None
        deal = msgspec.json.decode(self.deal, type=NarrowDeal) if len(self.deal) else None
        return NarrowHand(self.hand, self.dealer, order, self.logged_shuffle, deal)

    @property
    def logged_shuffle(self) -> str | None:
        return self.shuffle if isinstance(self.shuffle, str) else None

    @property
    def has_deal(self) -> bool:
        return len(self.deal) > 0

    @property
    def has_order(self) -> bool:
        return len(self.order_before) > 0


RawRecord = NarrowTable | RawHand | NarrowEnd
# A block's hands to audit: (line number, record).
Hands = list[tuple[int, RawHand]]
_RAW_LINE = msgspec.json.Decoder(RawRecord)
_RAW_BLOCK = msgspec.json.Decoder(list[RawRecord])


def decode_raw_block(lines: list[bytes], first_line: int) -> tuple[list[tuple[int, RawRecord]], list[tuple[int, str]]]:
    """Like ``decode_block`` but hands keep their card lists raw. Line-exact: a line that does not hold exactly one
    record within the input limits (``bounded``) is an error of that line, and no other line moves."""
    numbered = [(first_line + i, raw) for i, raw in enumerate(lines) if raw.strip()]
    if all(check(raw) is None for _, raw in numbered):
        try:
            decoded = _RAW_BLOCK.decode(b"[" + b",".join(raw for _, raw in numbered) + b"]")
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            decoded = []
        # Two records on one line, joined by a comma, decode as two: the count tells.
        if len(decoded) == len(numbered):
            return [(n, rec) for (n, _), rec in zip(numbered, decoded)], []
    records, errors = [], []
    for number, raw in numbered:
        try:
            if check(raw) is not None:
                raise msgspec.DecodeError
            records.append((number, _RAW_LINE.decode(raw)))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            errors.append((number, _full_error(raw, number)))
    return records, errors
