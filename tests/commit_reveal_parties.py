"""Hostile and unreliable commit-reveal v4 parties shared by the protocol's test files."""

from __future__ import annotations

from collections.abc import Sequence

from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.parties import Player
from fairdeal.protocols.signed import Envelope


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
