"""Where a hand's deck order comes from, behind one interface, so the match loop need not know.

``CommitRevealSource`` runs the commit-reveal protocol between a ``DealerService`` and one ``Player`` object
per seat (each holding its own key and seeds); ``ShuffledDeckSource`` is a server RNG or a physical deal.
A source gives the deck order for (hand number, dealer) plus its evidence, and after the hand turns the
evidence and the hand's game record into the document that proves the deal (the transcript).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from fairdeal.cards import DeckKind, check_order, to_ascii_list
from fairdeal.errors import ProtocolError
from fairdeal.protocols.commit_reveal import DealerService, Player, TableSpec
from fairdeal.protocols.transcript import build_transcript, transcript_hash


@dataclass(frozen=True)
class DealEvidence:
    """A deck order (top first) and the evidence known when the cards are dealt."""

    hand: int
    dealer: int
    order: np.ndarray = field(compare=False)
    evidence: Mapping[str, Any] = field(compare=False)


class DealSource(Protocol):
    def deal(self, hand: int, dealer: int) -> DealEvidence:
        """The deck order for ``hand`` (1-based) dealt by seat ``dealer``."""

    def finish(self, hand: int, record: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """Close the hand: the evidence document with the game record attached."""


class CommitRevealSource:
    """Deals every hand by the commit-reveal protocol; ``finish`` reveals and returns the transcript."""

    def __init__(self, spec: TableSpec, service: DealerService | None = None, players: Sequence[Player] | None = None):
        self.spec = spec
        self.service = service or DealerService(spec)
        self.players = list(players) if players is not None else [Player(n, s) for s, n in enumerate(spec.players)]
        self.session = self.service.open_session(self.players)
        self._previous: str | None = None
        self.transcripts: list[dict] = []

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        commitment = self.service.begin_hand(hand, dealer)
        commitments = [player.commit(hand, dealer, commitment) for player in self.players]
        for signed in commitments:
            self.service.accept_commitment(signed)
        for player in self.players:
            self.service.accept_seed(player.seat, player.open_seed(hand, commitments))
        order = self.service.deal()
        evidence = build_transcript(self.session, self.service.current_round(), commitment, self._previous)
        return DealEvidence(hand, dealer, order, evidence)

    def finish(self, hand: int, record: Mapping[str, Any] | None = None) -> dict:
        round_ = self.service.current_round()
        if round_.hand != hand:
            raise ProtocolError(f"service: hand {hand} is not the hand in progress ({round_.hand})")
        commitment = self.service.commitment(hand)
        link = self.service.reveal()
        for player in self.players:
            player.accept_reveal(hand, link)
        doc = build_transcript(self.session, round_, commitment, self._previous, link, record)
        self._previous = transcript_hash(doc)
        self.transcripts.append(doc)
        return doc


class ShuffledDeckSource:
    """A deal from a server RNG (numpy ``Generator``) or from recorded physical orders: no proof, only the order."""

    def __init__(self, deck: DeckKind = DeckKind.PIQUET32, rng: np.random.Generator | None = None,
                 orders: Sequence[np.ndarray] | None = None):
        self.deck = deck
        self._rng = rng if rng is not None else np.random.default_rng()
        self._orders = [np.asarray(o, dtype=np.uint8) for o in orders] if orders is not None else None
        for order in self._orders or []:
            check_order(order, deck)
        self._dealt: dict[int, DealEvidence] = {}

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        if self._orders is not None:
            if not 1 <= hand <= len(self._orders):
                raise ProtocolError(f"no recorded deck order for hand {hand} ({len(self._orders)} recorded)")
            order, kind = self._orders[hand - 1].copy(), "physical"
        else:
            order, kind = self._rng.permutation(self.deck.codes()).astype(np.uint8), "server-rng"
        evidence = {"dealing": kind, "hand": hand, "dealer": dealer, "deck_order": to_ascii_list(order)}
        self._dealt[hand] = DealEvidence(hand, dealer, order, evidence)
        return self._dealt[hand]

    def finish(self, hand: int, record: Mapping[str, Any] | None = None) -> dict:
        if hand not in self._dealt:
            raise ProtocolError(f"hand {hand} was never dealt by this source")
        doc = dict(self._dealt.pop(hand).evidence)
        if record is not None:
            doc["record"] = dict(record)
        return doc
