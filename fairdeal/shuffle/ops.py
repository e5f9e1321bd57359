"""Physical deck operations as frozen values, each with its permutation (see ``perm`` for the convention).

Position 0 is the top of the deck: the back side, where the cards are numbered from (seed 004). Every op
is defined for a deck of any size ``n``; an op that does not fit ``n`` (a cut as deep as the deck, a riffle
pattern of the wrong length) raises ``ShuffleError`` when its permutation is asked for. An op logged without
its details (``riffle ?``, ``cut ?``, ``overhand ?``) is a fact with no known permutation: ``is_known`` is
False and asking for its permutation raises ``ShuffleError``. The normative definitions, with worked
examples, are in ``protocols/shuffle-notation.md``.
"""

from __future__ import annotations

import abc
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from fairdeal.errors import ShuffleError
from fairdeal.shuffle.perm import (
    apply_permutation,
    check_permutation,
    compose,
    identity,
    inverse,
    riffle_permutation,
)

UNKNOWN = "?"


class ShuffleOp(abc.ABC):
    """Base of the op values: a notation head and arguments, and a permutation for a deck of ``n``."""

    keyword: ClassVar[str]

    @property
    def is_known(self) -> bool:
        return True

    def permutation(self, n: int) -> np.ndarray:
        """The op's permutation of ``n`` positions (read-only; shared between calls)."""
        if not self.is_known:
            raise ShuffleError(f"'{self.notation()}' is not a known permutation: the log does not say how it was done")
        if n < 1:
            raise ShuffleError(f"a deck needs at least one card, got {n}")
        return _cached_permutation(self, n)

    def head(self) -> str:
        """The action's first token (where an actor is attached): the keyword, or the run's count."""
        return self.keyword

    @abc.abstractmethod
    def arguments(self) -> tuple[str, ...]:
        """The tokens after the head, in canonical form."""

    def notation(self) -> str:
        return " ".join((self.head(), *self.arguments()))

    @abc.abstractmethod
    def build(self, n: int) -> np.ndarray:
        """A fresh permutation array for a deck of ``n`` (called once per op and size; see ``permutation``)."""


@functools.lru_cache(maxsize=4096)
def _cached_permutation(op: ShuffleOp, n: int) -> np.ndarray:
    p = op.build(n)
    p.setflags(write=False)
    return p


def _require_positive(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ShuffleError(f"{what} must be a positive integer, got {value!r}")


def _require_packets(packets: tuple[int, ...], what: str) -> None:
    if not isinstance(packets, tuple) or not packets:
        raise ShuffleError(f"{what} needs at least one packet size, got {packets!r}")
    for size in packets:
        _require_positive(size, f"{what} packet size")


def _require_fits(count: int, n: int, what: str) -> None:
    if count > n:
        raise ShuffleError(f"{what} needs {count} cards but the deck has {n}")


def _packet_permutation(packets: tuple[int, ...], n: int) -> np.ndarray:
    """Packets taken off the top one after another, each laid on the previous; the rest of the deck last on top."""
    total = sum(packets)
    starts = np.cumsum((0,) + packets[:-1])
    blocks = [np.arange(total, n)] + [np.arange(s, s + size) for s, size in zip(starts[::-1], packets[::-1])]
    return np.concatenate(blocks).astype(np.intp)


@dataclass(frozen=True)
class Run(ShuffleOp):
    """Seed 004's "2", "4": the top ``count`` cards run singly into the other hand and put back on top (reversed)."""

    count: int
    keyword: ClassVar[str] = "run"

    def __post_init__(self) -> None:
        _require_positive(self.count, "a card-by-card run's card count")

    def head(self) -> str:
        return str(self.count)

    def arguments(self) -> tuple[str, ...]:
        return ()

    def build(self, n: int) -> np.ndarray:
        _require_fits(self.count, n, f"a run of {self.count}")
        p = identity(n)
        p[: self.count] = p[: self.count][::-1]
        return p


@dataclass(frozen=True)
class RunUnder(ShuffleOp):
    """The arrow form ``4↑``: the top ``count`` cards run singly (reversed) and placed under the deck."""

    count: int
    keyword: ClassVar[str] = "run"

    def __post_init__(self) -> None:
        _require_positive(self.count, "a card-by-card run's card count")

    def head(self) -> str:
        return f"{self.count}↑"

    def arguments(self) -> tuple[str, ...]:
        return ()

    def build(self, n: int) -> np.ndarray:
        _require_fits(self.count, n, f"a run of {self.count}")
        return np.concatenate([np.arange(self.count, n), np.arange(self.count)[::-1]]).astype(np.intp)


@dataclass(frozen=True)
class Overhand(ShuffleOp):
    """Overhand shuffle: ``packets`` taken off the top in turn, each laid on the previous; the rest goes on top."""

    packets: tuple[int, ...] | None
    keyword: ClassVar[str] = "overhand"

    def __post_init__(self) -> None:
        if self.packets is not None:
            _require_packets(self.packets, "an overhand shuffle")

    @property
    def is_known(self) -> bool:
        return self.packets is not None

    def arguments(self) -> tuple[str, ...]:
        return (UNKNOWN,) if self.packets is None else (",".join(map(str, self.packets)),)

    def build(self, n: int) -> np.ndarray:
        assert self.packets is not None  # permutation() builds known ops only
        _require_fits(sum(self.packets), n, f"overhand {','.join(map(str, self.packets))}")
        return _packet_permutation(self.packets, n)


@dataclass(frozen=True)
class Strip(ShuffleOp):
    """Strip (running cut) on the table: packets pulled off the top, each put on the previous; the rest on top.

    Its permutation equals the overhand's with the same packets; it stays a separate op because the log
    records what the dealer did.
    """

    packets: tuple[int, ...]
    keyword: ClassVar[str] = "strip"

    def __post_init__(self) -> None:
        _require_packets(self.packets, "a strip")

    def arguments(self) -> tuple[str, ...]:
        return (",".join(map(str, self.packets)),)

    def build(self, n: int) -> np.ndarray:
        _require_fits(sum(self.packets), n, f"strip {','.join(map(str, self.packets))}")
        return _packet_permutation(self.packets, n)


@dataclass(frozen=True)
class Cut(ShuffleOp):
    """Cut: the top ``depth`` cards are lifted and put under the rest (``cut 12``: 1..32 -> 13..32, 1..12)."""

    depth: int | None
    keyword: ClassVar[str] = "cut"

    def __post_init__(self) -> None:
        if self.depth is not None:
            _require_positive(self.depth, "a cut depth")

    @property
    def is_known(self) -> bool:
        return self.depth is not None

    def arguments(self) -> tuple[str, ...]:
        return (UNKNOWN if self.depth is None else str(self.depth),)

    def build(self, n: int) -> np.ndarray:
        assert self.depth is not None  # permutation() builds known ops only
        if self.depth >= n:
            raise ShuffleError(f"cut {self.depth} must leave cards below it; the deck has {n} (depth 1..{n - 1})")
        return np.concatenate([np.arange(self.depth, n), np.arange(self.depth)]).astype(np.intp)


_PATTERN = re.compile(r"[LR]*")


@dataclass(frozen=True)
class Riffle(ShuffleOp):
    """Riffle: the top ``split`` cards (packet L) and the rest (packet R) are interleaved by ``pattern``.

    ``pattern[i]`` names the packet the card at new position ``i`` (from the top) comes from; each packet
    gives its cards in their old top-down order. Both fields None: a riffle whose details were not logged.
    """

    split: int | None
    pattern: str | None
    keyword: ClassVar[str] = "riffle"

    def __post_init__(self) -> None:
        if (self.split is None) != (self.pattern is None):
            raise ShuffleError("a riffle needs both a split and a pattern, or neither (riffle ?)")
        if self.split is None:
            return
        if isinstance(self.split, bool) or not isinstance(self.split, (int, np.integer)) or self.split < 0:
            raise ShuffleError(f"a riffle split must be a non-negative integer, got {self.split!r}")
        if not isinstance(self.pattern, str) or not _PATTERN.fullmatch(self.pattern):
            raise ShuffleError(f"a riffle pattern is a string of L and R, got {self.pattern!r}")
        lefts = self.pattern.count("L")
        if lefts != self.split:
            raise ShuffleError(
                f"riffle {self.split} needs exactly {self.split} L's in its pattern (the top packet), got {lefts}"
            )

    @property
    def is_known(self) -> bool:
        return self.split is not None

    def arguments(self) -> tuple[str, ...]:
        return (UNKNOWN,) if self.split is None or self.pattern is None else (str(self.split), self.pattern)

    def build(self, n: int) -> np.ndarray:
        assert self.split is not None and self.pattern is not None  # permutation() builds known ops only
        if len(self.pattern) != n:
            raise ShuffleError(
                f"riffle pattern has {len(self.pattern)} letters but the deck has {n} cards "
                f"(needs {self.split} L and {n - self.split} R)"
            )
        return riffle_permutation(np.frombuffer(self.pattern.encode(), dtype=np.uint8) == ord("L"))


@dataclass(frozen=True)
class Faro(ShuffleOp):
    """Perfect riffle. ``out``: the top card stays on top; ``in``: the top card goes to second place.

    Even ``n``: halves of ``n/2``, strictly alternating. Odd ``n``: the out-faro's top packet has the extra
    card (L R ... L: top and bottom cards both stay), the in-faro's bottom packet has it (R L ... R: the
    top card goes to second place, the bottom card stays).
    """

    kind: str
    keyword: ClassVar[str] = "faro"

    def __post_init__(self) -> None:
        if self.kind not in ("in", "out"):
            raise ShuffleError(f"a faro is 'in' or 'out', got {self.kind!r}")

    def arguments(self) -> tuple[str, ...]:
        return (self.kind,)

    def build(self, n: int) -> np.ndarray:
        starts_top = self.kind == "out"
        from_top = (np.arange(n) % 2 == 0) == starts_top
        return riffle_permutation(from_top)


@dataclass(frozen=True)
class Pile(ShuffleOp):
    """Pile shuffle: deal one card at a time into ``piles`` piles (card ``j`` to pile ``j mod piles``, landing
    on top of it), then stack pile 1 on pile 2 on ... on pile ``piles``: pile 1 ends on top."""

    piles: int
    keyword: ClassVar[str] = "pile"

    def __post_init__(self) -> None:
        _require_positive(self.piles, "a pile count")

    def arguments(self) -> tuple[str, ...]:
        return (str(self.piles),)

    def build(self, n: int) -> np.ndarray:
        _require_fits(self.piles, n, f"pile {self.piles} (one card per pile at least)")
        return np.concatenate([np.arange(g, n, self.piles)[::-1] for g in range(self.piles)]).astype(np.intp)


@dataclass(frozen=True)
class Perm(ShuffleOp):
    """An explicit rearrangement: ``positions[i]`` (1-based) is the old position of the new ``i+1``-th card."""

    positions: tuple[int, ...]
    keyword: ClassVar[str] = "perm"

    def __post_init__(self) -> None:
        if not isinstance(self.positions, tuple) or not self.positions:
            raise ShuffleError(f"perm needs a list of positions, got {self.positions!r}")
        if sorted(self.positions) != list(range(1, len(self.positions) + 1)):
            raise ShuffleError(f"perm must list each of 1..{len(self.positions)} exactly once")

    @staticmethod
    def of(p: np.ndarray) -> Perm:
        """The op for a 0-based permutation array."""
        return Perm(tuple(int(i) + 1 for i in p))

    def arguments(self) -> tuple[str, ...]:
        return (",".join(map(str, self.positions)),)

    def build(self, n: int) -> np.ndarray:
        if len(self.positions) != n:
            raise ShuffleError(f"perm lists {len(self.positions)} positions but the deck has {n} cards")
        return np.array(self.positions, dtype=np.intp) - 1


def cut_is_legal(depth: int, n: int, min_each_side: int) -> bool:
    """Whether a cut of ``depth`` leaves at least ``min_each_side`` cards on each side (Codex: 4; 19th c.: 6)."""
    return min_each_side <= depth <= n - min_each_side


Actor = int | str | None
ACTOR_NAME = re.compile(r"[^\W\d_][\w\-]*")


@dataclass(frozen=True)
class Action:
    """One logged op and who did it: a seat index, a name token, or None for the dealer."""

    op: ShuffleOp
    actor: Actor = None

    def __post_init__(self) -> None:
        if not isinstance(self.op, ShuffleOp):
            raise ShuffleError(f"an action needs a shuffle op, got {self.op!r}")
        actor = self.actor
        if isinstance(actor, bool) or not (
            actor is None
            or (isinstance(actor, int) and actor >= 0)
            or (isinstance(actor, str) and ACTOR_NAME.fullmatch(actor))
        ):
            raise ShuffleError(f"an actor is a seat index >= 0 or a name starting with a letter, got {actor!r}")

    def notation(self) -> str:
        head = self.op.head() if self.actor is None else f"{self.op.head()}@{self.actor}"
        return " ".join((head, *self.op.arguments()))


@dataclass(frozen=True)
class ShuffleSequence:
    """A logged sequence of actions, applied first to last."""

    actions: tuple[Action, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.actions, tuple) or not all(isinstance(a, Action) for a in self.actions):
            raise ShuffleError("a shuffle sequence is a tuple of Action values")

    @staticmethod
    def of(*ops: ShuffleOp, actor: Actor = None) -> ShuffleSequence:
        return ShuffleSequence(tuple(Action(op, actor) for op in ops))

    def __len__(self) -> int:
        return len(self.actions)

    def __iter__(self) -> Iterator[Action]:
        return iter(self.actions)

    def __str__(self) -> str:
        return self.notation()

    def notation(self) -> str:
        """Canonical notation: the actions' canonical forms separated by single spaces."""
        return " ".join(a.notation() for a in self.actions)

    @property
    def is_known(self) -> bool:
        """True when every action is a known permutation, so the sequence can be replayed."""
        return all(a.op.is_known for a in self.actions)

    def steps(self, n: int) -> list[np.ndarray]:
        """Each action's permutation, in order; names the first action that cannot be replayed."""
        perms = []
        for index, action in enumerate(self.actions, start=1):
            try:
                perms.append(action.op.permutation(n))
            except ShuffleError as exc:
                raise ShuffleError(f"action {index} ({action.notation()}): {exc}") from None
        return perms

    def permutation(self, n: int) -> np.ndarray:
        """The whole sequence as one permutation of ``n`` positions."""
        steps = self.steps(n)
        return compose(*steps) if steps else identity(n)

    def composed(self, n: int) -> Perm:
        return Perm.of(self.permutation(n))

    def inverse(self, n: int) -> Perm:
        """The op that undoes the sequence on a deck of ``n``."""
        return Perm.of(inverse(self.permutation(n)))


Shuffle = ShuffleSequence | Action | ShuffleOp | np.ndarray


def permutation_of(shuffle: Shuffle, n: int) -> np.ndarray:
    """The permutation of ``n`` positions for a sequence, action, op or permutation array."""
    if isinstance(shuffle, ShuffleSequence):
        return shuffle.permutation(n)
    if isinstance(shuffle, Action):
        return shuffle.op.permutation(n)
    if isinstance(shuffle, ShuffleOp):
        return shuffle.permutation(n)
    return check_permutation(shuffle, n)


def apply_order(order: np.ndarray, shuffle: Shuffle) -> np.ndarray:
    """One deck order (1-d, top first) after ``shuffle``."""
    order = np.asarray(order)
    if order.ndim != 1:
        raise ShuffleError(f"apply_order takes one order (1-d); got {order.ndim}-d, use apply_batch")
    return apply_permutation(order, permutation_of(shuffle, len(order)))


def apply_batch(orders: np.ndarray, shuffle: Shuffle) -> np.ndarray:
    """A batch of orders (one per row) after ``shuffle``, in one fancy-indexing step."""
    orders = np.asarray(orders)
    if orders.ndim != 2:
        raise ShuffleError(f"apply_batch takes an (m, n) array of orders; got {orders.ndim}-d")
    return apply_permutation(orders, permutation_of(shuffle, orders.shape[1]))
