"""Commit-reveal dealing behind the engine's deal-source port (``fairdeal/engine/deal_source.py``).

``CommitRevealSource`` runs the commit-reveal protocol between a ``DealerService`` and one ``Player`` object per
seat (each holding its own key and seeds): it gives the deck order for (hand number, dealer) plus the unrevealed
transcript, and after the hand turns the hand's game record into the revealed transcript that proves the deal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fairdeal.engine.deal_source import DealEvidence, Plays
from fairdeal.errors import ProtocolError
from fairdeal.protocols.commit_reveal import DealerService, Player
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import build_transcript, transcript_hash, write_transcript


class CommitRevealSource:
    """Deals every hand by the commit-reveal protocol; ``finish`` reveals and returns the transcript."""

    dealing = "commit-reveal"

    def __init__(self, spec: TableSpec, service: DealerService | None = None, players: Sequence[Player] | None = None):
        self.spec = spec
        self.service = service or DealerService(spec)
        self.players = list(players) if players is not None else [Player(n, s) for s, n in enumerate(spec.players)]
        self.session = self.service.open_session(self.players)
        self._previous: str | None = None
        self.transcripts: list[dict[str, Any]] = []

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        commitment = self.service.begin_hand(hand, dealer)
        commitments = [player.commit(hand, dealer, commitment) for player in self.players]
        for signed in commitments:
            self.service.accept_commitment(signed)
        for player in self.players:
            self.service.accept_seed(player.seat, player.open_seed(hand, commitments))
        order = self.service.deal()
        evidence = build_transcript(self.session, self.service.current_round(), commitment, self._previous)
        return DealEvidence(hand, dealer, order, evidence, dealing="commit-reveal")

    def finish(self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None) -> dict[str, Any]:
        """Reveal the service seed and return the transcript (``plays`` are not needed: the record's replay checks
        the play)."""
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

    def write_transcript(self, document: Mapping[str, Any], path: Path) -> str:
        return write_transcript(document, path)
