"""Hostile and unreliable commit-reveal v4 parties, and the tables' fixed keys and seeds, shared by the protocol's
test files."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence

from fairdeal.engine.system import registered
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.parties import Player
from fairdeal.protocols.commit_reveal4.source import STEP_TIMEOUTS, CommitRevealSource4
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.signed import Envelope
from fairdeal.protocols.table import TableSpec

TABLES = [(s.name, n) for s in registered() for n in s.players]
TIME = "2026-12-01T18:00:00Z"


def key(label: str) -> IdentityKey:
    return IdentityKey.from_seed(hashlib.sha256(label.encode()).digest(), label)


def seeds(names: Sequence[str], prefix: str) -> list[Callable[[int, int], bytes]]:
    """Each seat's fixed seed per hand and attempt; ``prefix`` keeps one test file's deals apart from another's."""

    def one(name: str) -> Callable[[int, int], bytes]:
        return lambda hand, attempt: hashlib.sha256(f"{prefix}/{name}/{hand}/{attempt}".encode()).digest()

    return [one(name) for name in names]


def fixed_source(
    spec: TableSpec, tail: bytes, prefix: str, timeouts: Mapping[str, float] | None = STEP_TIMEOUTS
) -> CommitRevealSource4:
    """The table's source with fixed keys (``key``), service tail and seeds (``seeds``): reproducible evenings."""
    names = spec.players
    return CommitRevealSource4(
        spec, key("s"), [key(n) for n in names], tail, seeds(names, prefix), TIME, None, timeouts
    )


class Silent(Player):
    """A player that does not answer one request (a timeout): hand ``hand``, step ``step``, first attempt."""

    def __init__(self, player: Player, hand: int, step: str):
        self.__dict__.update(player.__dict__)
        self._silent = (hand, step)

    def commit(  # type: ignore[override]
        self, hand: int, shown: Sequence[Envelope], deadline: float | None = None
    ) -> Envelope | None:
        return None if self._quiet(hand, m.COMMIT, shown) else super().commit(hand, [], deadline)

    def reveal(  # type: ignore[override]
        self, hand: int, shown: Sequence[Envelope], deadline: float | None = None
    ) -> Envelope | None:
        return None if self._quiet(hand, m.REVEAL, shown) else super().reveal(hand, [], deadline)

    def _quiet(self, hand: int, step: str, shown: Sequence[Envelope]) -> bool:
        self._accept_all(shown, hand)  # it reads what it is sent; it only does not answer
        return self._silent == (hand, step) and not any(e.kind == m.ABORT and e.hand == hand for e in self.chain)


class Grudging(Player):
    """Signs a refusal of every settlement put to it, however sound (a refusal without cause)."""

    REASON = "I do not like it"

    def sign_settlement(self, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        self._accept_all(shown, 0, self.done + 1)
        return self.send(0, m.REFUSAL, {"step": m.SETTLEMENT_SIGN, "check": "settlement", "reason": self.REASON})
