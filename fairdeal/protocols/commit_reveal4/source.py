"""``fairdeal-commit-reveal/4`` behind the engine's deal-source port: the service relays, the players check.

The roster is signed by every party before the first message; ``deal`` runs a hand up to the private deal,
``finish`` closes it (reveal, deck, deal and record, countersigned by every player) and returns the hand's
transcript; ``close`` writes the signed settlement, countersigned by every player who answers in time.

A transcript (``protocols/commit-reveal.md``, §10)::

    {"format":"fairdeal-transcript","version":4,"protocol":P4,"roster":<signed roster>,
     "opening":[session-open, session-accept per seat],"hand":k,"messages":[the hand's envelopes]}

and the settlement document is the same with ``"format":"fairdeal-settlement"`` and no ``hand``.
"""

from __future__ import annotations

import datetime
import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from fairdeal.engine.deal_source import DealEvidence, Plays
from fairdeal.engine.match import StopMatch, Unsettled
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.sheet import ScoreLine
from fairdeal.errors import ProtocolError, SignedMessageError
from fairdeal.files import write_file
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.derive import PROTOCOL
from fairdeal.protocols.commit_reveal4.parties import MAX_ATTEMPTS as MAX_ATTEMPTS
from fairdeal.protocols.commit_reveal4.parties import (
    LateAnswer,
    Player,
    Service,
    charged_parties,
    end_charge,
    end_step,
)
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.record_check import end_penalty
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import Envelope
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import seat_deal
from fairdeal.systems import house_rules

FORMAT, SETTLEMENT_FORMAT, VERSION = "fairdeal-transcript", "fairdeal-settlement", 4
SETTLEMENT_FILE = "settlement.json"
# Seconds a seat may take to answer each signed request (``timeouts=``): a commitment or seed not in by then
# aborts the attempt; a record countersignature not in by then ends the evening; a settlement countersignature
# not in by then is left out (the settlement stands on the records every seat countersigned).
STEP_TIMEOUTS = {m.COMMIT: 30.0, m.REVEAL: 30.0, m.RECORD_SIGN: 60.0, m.SETTLEMENT_SIGN: 60.0}
DEFAULT_TIMEOUT = 60.0
GRACE = 0.1  # seconds the relay waits past a deadline for an answer sent just in time


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def table_roster(spec: TableSpec, service: IdentityKey, players: Sequence[IdentityKey], time: str) -> Roster:
    """The roster of ``spec`` signed by the service and every player (each signs with its own key)."""
    header = {"system": spec.system, "convention": house_rules(spec.convention), "pulya": spec.convention.pulya.size}
    seats = [(name, key.public) for name, key in zip(spec.players, players)]
    roster = Roster.create(PROTOCOL, spec.table, spec.session, time, header, service.public, seats)
    for key in [service, *players]:
        roster = roster.signed_by(key)
    return roster


class RefusedHand(ProtocolError):
    """A party refused (or failed) a step; ``document`` is the transcript so far, the refusal in it."""

    def __init__(self, message: str, document: Mapping[str, Any]):
        super().__init__(message)
        self.document = document


class SettlementRefused(RefusedHand, Unsettled):
    """A seat signed a refusal of the settlement put to it: the evening did not settle. ``document`` is the
    settlement document so far, the refusal its last message (filed beside the transcripts as the evidence that
    tells whose fault it was: the publisher's for a founded refusal, the refuser's for one without cause)."""

    def __init__(self, message: str, document: Mapping[str, Any]):
        RefusedHand.__init__(self, message, document)


class EveningEnded(RefusedHand, StopMatch):
    """A party's fault ended the evening in a hand (a countersignature not sent in time, a refusal): the hand is
    void, ``penalty`` charges the party at fault, and the match settles the hands before it (``close``)."""

    def __init__(self, message: str, document: Mapping[str, Any], penalty: tuple[ScoreLine, ...]):
        Exception.__init__(self, message)
        self.document, self.penalty = document, penalty


class CommitRevealSource4:
    """Deals every hand by ``fairdeal-commit-reveal/4`` between a ``Service`` and one ``Player`` per seat."""

    dealing = "commit-reveal"

    def __init__(
        self,
        spec: TableSpec,
        service_key: IdentityKey | None = None,
        player_keys: Sequence[IdentityKey] | None = None,
        tail: bytes | None = None,
        seed_sources: Sequence[Callable[[int, int], bytes]] | None = None,
        time: str | None = None,
        beacon: bytes | None = None,
        timeouts: Mapping[str, float] | None = STEP_TIMEOUTS,
    ):
        self.spec = spec
        self.beacon = beacon
        self.timeouts = timeouts  # None: wait for ever (the parties run in this process)
        self._penalty: list[ScoreLine] = []
        service_key = service_key or IdentityKey.generate("service")
        keys = list(player_keys) if player_keys is not None else [IdentityKey.generate(n) for n in spec.players]
        self.roster = table_roster(spec, service_key, keys, time or now())
        self.service = Service(service_key, self.roster, spec.hands, tail)
        sources = list(seed_sources) if seed_sources is not None else [None] * len(keys)
        self.players = [Player(seat, key, self.roster, sources[seat]) for seat, key in enumerate(keys)]
        self._log: list[Envelope] = []  # every message of the session, as relayed
        self._shown = [0] * len(self.players)  # how much of it each player has been shown
        self.opening = [self._relay(self.service.open_session())]
        for player in self.players:
            self._take(player.accept_session(self._news(player)), 0, m.ACCEPT, self.opening)
        self.transcripts: list[dict[str, Any]] = []
        self._messages: list[Envelope] = []
        self._order: np.ndarray | None = None
        self._dealer = 0
        self._hands = 0
        self.ended: dict[str, Any] | None = None  # the hand an evening's end voided, as far as it went
        self._end: Envelope | None = None
        self.unsigned: list[int] = []  # the seats that sent no settlement countersignature in time
        self._closed: tuple[tuple[Fraction, ...], dict[str, Any]] | None = None  # the amounts and their settlement

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        """The hand's deck order; a player that does not answer a signed request aborts the attempt, is charged
        the convention's ``abort_penalty`` (the hand line's ``penalty``), and the hand is dealt again from fresh
        seeds (at most ``MAX_ATTEMPTS`` times; after the last abort the evening ends, every abort charged)."""
        self._messages, self._dealer, self._penalty = [], dealer, []
        for _ in range(MAX_ATTEMPTS):
            self._messages.append(self._relay(self.service.open_hand(hand, dealer, self.beacon)))
            if self._gather(hand, m.COMMIT) and self._ask_reveals(hand):
                self._order = self.service.deal(hand)
                evidence = self.document(hand)
                return DealEvidence(hand, dealer, self._order.copy(), evidence, "commit-reveal", tuple(self._penalty))
        self._end_evening(hand, f"aborted {MAX_ATTEMPTS} times")

    def _ask_reveals(self, hand: int) -> bool:
        self._messages.append(self._relay(self.service.request_reveals(hand)))
        return self._gather(hand, m.REVEAL)

    def _gather(self, hand: int, kind: str) -> bool:
        """Every seat's answer of ``kind`` in seat order; the first seat that gives none aborts the attempt."""
        for player in self.players:
            ask = player.commit if kind == m.COMMIT else player.reveal
            shown, news = self._shown[player.seat], self._news(player)
            answer = self._timed(kind, ask, hand, news)
            if answer is None:  # no answer within the step's time: what it was shown, it is shown again
                self._shown[player.seat] = shown
                self._messages.append(self._relay(self.service.abort(hand, kind, player.seat)))
                self._penalty += abort_penalty(self.service.convention, player.seat, len(self.players))
                return False
            self._take(answer, hand, kind, self._messages)
        return True

    def finish(self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None) -> dict[str, Any]:
        """Reveal, publish deck, deal and record, and gather every player's countersignature."""
        if self._order is None or not self._messages or self._messages[0].hand != hand:
            raise ProtocolError(f"service: hand {hand} is not the hand in progress")
        num_seats = len(self.spec.players)
        deal = seat_deal(self._order, self.spec.pattern.name, self._dealer, num_seats)
        self._messages.append(self._relay(self.service.close_hand(hand, self._order, deal, record)))
        for player in self.players:
            news = self._news(player)
            answer = self._timed(m.RECORD_SIGN, player.countersign, hand, news)
            if answer is None:
                self._shown[player.seat] = len(self._log)
                self._end_evening(hand, f"{player.party} sent no {m.RECORD_SIGN} in time")
            self._take(answer, hand, m.RECORD_SIGN, self._messages)
        doc = self.document(hand)
        self.transcripts.append(doc)
        self._hands, self._order = hand, None
        return doc

    def signed_settlement(self, amounts: Sequence[Fraction]) -> dict[str, Any]:
        """``close``, for the match that writes the log: the settlement it files beside the transcripts, or
        ``SettlementRefused`` (an ``Unsettled``), after which the log gets no settlement line."""
        return self.close(amounts)

    def close(self, amounts: Sequence[Fraction]) -> dict[str, Any]:
        """The signed settlement of the hands played, countersigned by every player who answers in time; a seat
        that does not is left out (``unsigned``): every amount follows from the records it countersigned. A seat
        that signs a refusal instead stops it: ``SettlementRefused``, with the document and the refusal in it.
        The session closes once: asked again for the same amounts (the match that wrote the log has closed it),
        the same document."""
        if self._closed is not None:
            if self._closed[0] != tuple(amounts):
                raise ProtocolError("service: the session is settled already, with other amounts")
            return self._closed[1]
        messages = [] if self._end is None else [self._end]
        messages.append(self._relay(self.service.settle(self._hands, amounts)))
        charged = [] if self._end is None else self._end.body["charged"]
        self.unsigned = []
        for player in self.players:
            if player.seat in charged:  # the party whose fault ended the evening does not sign its end
                continue
            news = self._news(player)
            answer = self._timed(m.SETTLEMENT_SIGN, player.sign_settlement, news)
            if answer is None:
                self._shown[player.seat] = len(self._log)
                self.unsigned.append(player.seat)
                continue
            self._take(answer, 0, m.SETTLEMENT_SIGN, messages)
        doc = self._base(SETTLEMENT_FORMAT) | {"messages": [e.to_json() for e in messages]}
        self._closed = (tuple(amounts), doc)
        return doc

    def _timed(self, kind: str, ask: Callable[..., Envelope | None], *args: Any) -> Envelope | None:
        """The seat's answer, or ``None`` if it gives none within the step's time. The seat is told the deadline
        and, being honest, gives up once it has passed; the relay waits ``GRACE`` longer, so no answer the seat
        sent in time is lost and none it gave up on arrives."""
        if self.timeouts is None:
            return ask(*args)
        step = self.timeouts.get(kind, DEFAULT_TIMEOUT)
        pool = ThreadPoolExecutor(max_workers=1)  # one per call: a seat still busy must not hold up the next
        try:
            return pool.submit(ask, *args, deadline=time.monotonic() + step).result(timeout=step + GRACE)
        except (FutureTimeout, LateAnswer):
            return None
        finally:
            pool.shutdown(wait=False)

    def document(self, hand: int) -> dict[str, Any]:
        return self._base(FORMAT) | {"hand": hand, "messages": [e.to_json() for e in self._messages]}

    def _base(self, kind: str) -> dict[str, Any]:
        return {
            "format": kind,
            "version": VERSION,
            "protocol": PROTOCOL,
            "roster": self.roster.to_json(),
            "opening": [e.to_json() for e in self.opening],
        }

    def _relay(self, envelope: Envelope) -> Envelope:
        self._log.append(envelope)
        return envelope

    def _news(self, player: Player) -> list[Envelope]:
        """What the relay shows ``player``: every message since it last answered (its own answer included)."""
        news = self._log[self._shown[player.seat] :]
        self._shown[player.seat] = len(self._log) + 1  # the answer it is about to give is its own
        return news

    def _take(self, envelope: Envelope, hand: int, kind: str, messages: list[Envelope]) -> None:
        messages.append(self._relay(envelope))
        try:
            self.service.take(envelope, hand, kind)
        except ProtocolError as exc:
            if hand and messages is self._messages and self.service.last == envelope.digest:
                self._end_evening(hand, str(exc))  # a signed refusal of this chain: the evidence of the end
            if kind == m.SETTLEMENT_SIGN:
                settlement = self._base(SETTLEMENT_FORMAT) | {"messages": [e.to_json() for e in messages]}
                raise SettlementRefused(self._refused_settlement(envelope, exc), settlement) from None
            doc = self._base(FORMAT) | {"hand": hand, "messages": [e.to_json() for e in messages]}
            raise RefusedHand(str(exc), doc) from None

    def _refused_settlement(self, answer: Envelope, exc: ProtocolError) -> str:
        """The line ``fairdeal deal`` stops with: who refused the settlement and why, in the refusal's own words."""
        if answer.kind != m.REFUSAL or isinstance(exc, SignedMessageError):  # not a refusal its sender signed
            return str(exc)
        return f"{self.roster.party(answer.sender)} refused the settlement: {answer.body.get('reason')}"

    def _end_evening(self, hand: int, why: str) -> NoReturn:
        """End the evening in ``hand``: the service signs the end charging the party at fault (every seat its
        aborts name, the seat whose countersignature is missing after its signed hand-close, or the refuser: the
        service's own messages and every answer it took hold), the hand is void and ``close`` settles the hands
        before it."""
        charged = end_charge(self.roster, self._messages, lambda refusal: None)
        self.ended = self.document(hand)
        self._end = self._relay(self.service.end(hand, end_step(self._messages), charged))
        who = charged_parties(self.roster, charged)
        penalty = end_penalty(self.service.convention, len(self.players), charged)
        raise EveningEnded(f"hand {hand}: {why}; the evening ends, {who} charged", self.ended, penalty)

    def write_transcript(self, document: Mapping[str, Any], path: Path) -> str:
        return write_document(document, path)


def write_document(document: Mapping[str, Any], path: Path) -> str:
    """Write the canonical bytes; returns their SHA-256 (the hash the log cites)."""
    data = encode(dict(document))
    write_file(path, data, force=True, durable=False)
    return hashlib.sha256(data).hexdigest()
