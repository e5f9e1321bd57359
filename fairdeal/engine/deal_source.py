"""The port the match loop deals through: where a hand's deck order comes from, behind one interface.

The match asks ``deal(hand, dealer)`` for the deck order (and the evidence known when the cards are dealt), plays
the hand, then hands the game record to ``finish``. It never learns whether the order came from a physical
shuffle, a server RNG, or a dealing protocol (``fairdeal/protocols/``); a source whose ``finish`` returns a
document that proves the deal also files it (``ProvingSource``), and the log cites the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from fairdeal.cards import DeckKind, check_order, to_ascii_list
from fairdeal.engine.sheet import ScoreLine
from fairdeal.errors import MatchError

# Each trick's (seat, card) in the order played: ``Trick.plays`` of the hand's final state.
Plays = Sequence[Sequence[tuple[int, int]]]


@dataclass(frozen=True)
class DealEvidence:
    """A deck order (top first) and the evidence known when the cards are dealt; ``dealing`` names the kind
    for the log header when the evidence itself does not (``evidence["dealing"]``); ``penalty`` is what the
    source charged for aborted attempts (the hand line's ``penalty``)."""

    hand: int
    dealer: int
    order: np.ndarray = field(compare=False)
    evidence: Mapping[str, Any] = field(compare=False)
    dealing: str | None = None
    # Charges for earlier attempts at this hand that a party walked away from, written before the hand is scored.
    penalty: tuple[ScoreLine, ...] = ()

    @property
    def kind(self) -> str:
        """The header's ``dealing``: physical, server-rng, commit-reveal or mental-poker."""
        return self.dealing or str(self.evidence.get("dealing", "server-rng"))


class DealSource(Protocol):
    def deal(self, hand: int, dealer: int) -> DealEvidence:
        """The deck order for ``hand`` (1-based) dealt by seat ``dealer``."""

    def finish(
        self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None
    ) -> Mapping[str, Any]:
        """Close the hand: the evidence document with the game record attached. ``plays`` are the engine's
        seat-tagged cards of each trick, for sources that prove every card played (the record keeps only each
        trick's lead and cards)."""


@runtime_checkable
class ProvingSource(Protocol):
    """A source whose finished documents prove the deal and are filed next to the game log."""

    dealing: str  # the log header's ``dealing``, known before the first hand (a log cut short still says it)

    def write_transcript(self, document: Mapping[str, Any], path: Path) -> str:
        """Write ``document`` to ``path`` as the exact bytes its hash covers; returns that SHA-256 (hex)."""


class ShuffledDeckSource:
    """A deal from a server RNG (numpy ``Generator``) or from recorded physical orders: no proof, only the order."""

    def __init__(
        self,
        deck: DeckKind = DeckKind.PIQUET32,
        rng: np.random.Generator | None = None,
        orders: Sequence[np.ndarray] | None = None,
    ):
        self.deck = deck
        self._rng = rng if rng is not None else np.random.default_rng()
        self._orders = [np.asarray(o, dtype=np.uint8) for o in orders] if orders is not None else None
        for order in self._orders or []:
            check_order(order, deck)
        self._dealt: dict[int, DealEvidence] = {}

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        if self._orders is not None:
            if not 1 <= hand <= len(self._orders):
                raise MatchError(f"no recorded deck order for hand {hand} ({len(self._orders)} recorded)")
            order, kind = self._orders[hand - 1].copy(), "physical"
        else:
            order, kind = self._rng.permutation(self.deck.codes()).astype(np.uint8), "server-rng"
        evidence = {"dealing": kind, "hand": hand, "dealer": dealer, "deck_order": to_ascii_list(order)}
        self._dealt[hand] = DealEvidence(hand, dealer, order, evidence)
        return self._dealt[hand]

    def finish(self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None) -> dict[str, Any]:
        if hand not in self._dealt:
            raise MatchError(f"hand {hand} was never dealt by this source")
        doc = dict(self._dealt.pop(hand).evidence)
        if record is not None:
            doc["record"] = dict(record)
        return doc
