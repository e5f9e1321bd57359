"""One online table: a ``fairdeal-commit-reveal/4`` session and the engine's hands, rebuilt from its stored rows.

The table is event-sourced. Its chairs are the ``seats`` rows and its history the ``messages`` rows: every signed
envelope a seat sent, every roster signature, every game action, and the service's own events (the roster's time,
a timeout). Everything else — the v4 ``Service`` with its chain, the bots' ``Player``s, the hand in progress, the
sheet — is recomputed by feeding the stored rows, in order, through the same ``submit`` that accepted them live.
The service's own envelopes are deterministic (Ed25519 signatures are), so they come out the same on every replay;
they are stored too, as the evidence a relay keeps.

Protocol order (``protocols/commit-reveal.md``, v4): when the last chair is taken the service fixes the roster's
time and signs it; every seat signs the roster; the service opens the session and every seat, in seat order,
accepts it. Each hand: the service's hand-open, every seat's seed commitment (in seat order), the service's
reveal request, every seat's seed (in seat order); the deck is derived and the hand is played through the engine;
the service's hand-close (its seed, the deck, the deal and the record) is countersigned by every seat. The
session ends with the service's settlement, countersigned by every seat (one not sent in time is left out). A
record countersignature not sent in time, a signed refusal of a hand or its third aborted attempt ends the evening
instead (v4's end policy): the hand is void, the seat at fault is charged the convention's abort penalty, the
service signs an ``end`` and a settlement, and every other seat countersigns it. Each message must be the one the
protocol expects next — from the seat whose turn it is, of the kind due, following the last message of the chain,
signed for this table, session, hand and roster — or it is refused and nothing changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from fairdeal.deal import deal_order, get_pattern
from fairdeal.engine.actions import encode_action
from fairdeal.engine.bots import Bot
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.match_log import end_record, hand_fields, sheet_extras
from fairdeal.engine.rotation import dealer_of
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import ScoreLine, Sheet, is_finished, new_sheet
from fairdeal.engine.sheet_view import sheet_json
from fairdeal.engine.state import HandState
from fairdeal.engine.system import get_system
from fairdeal.engine.view import view_for
from fairdeal.errors import ProtocolError, SignedMessageError
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.derive import PROTOCOL
from fairdeal.protocols.commit_reveal4.parties import (
    Player,
    Service,
    charged_parties,
    end_charge,
    end_step,
    record_hash,
)
from fairdeal.protocols.commit_reveal4.source import FORMAT, MAX_ATTEMPTS, SETTLEMENT_FORMAT, VERSION
from fairdeal.protocols.encoding import frame, u64
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.record_check import end_penalty
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import SERVICE, Envelope, open_checked, parse
from fairdeal.protocols.transcript import seat_deal
from fairdeal.service.roster_flow import Refused, fixed_roster, signed_by_seat, unsigned_seats
from fairdeal.service.rows import (
    ACT,
    RELAY_SEAT,
    RELAYED,
    ROSTER_SIGN,
    ROSTER_TIME,
    SERVICE_SEAT,
    SESSION,
    SIGNED,
    TIMEOUT,
    Derived,
    Message,
    Seat,
    Stage,
    now,
)
from fairdeal.service.served import ServedTable

BOT_SEED_DOMAIN = "fairdeal-serve/bot-seed/4"


# What each protocol stage asks of the seats, in seat order.
DUE_KIND = {
    Stage.ACCEPT: m.ACCEPT,
    Stage.COMMIT: m.COMMIT,
    Stage.SEED: m.REVEAL,
    Stage.RECORD: m.RECORD_SIGN,
    Stage.SETTLE: m.SETTLEMENT_SIGN,
}


@dataclass(frozen=True)
class HandRecord:
    """A finished hand as the table's history shows it."""

    hand: int
    dealer: int
    contract: str | None
    declarer: int | None
    kind: str
    score: tuple[dict[str, Any], ...]
    reveal: str


def document_hash(doc: dict[str, Any]) -> str:
    return hashlib.sha256(encode(doc)).hexdigest()


@dataclass
class Table(ServedTable):
    """A table's live state; build it with ``Table.load`` from its rows, then feed it messages with ``submit``."""

    protocol: ClassVar[str] = PROTOCOL
    dealing: ClassVar[str] = "commit-reveal"
    chain_tail: str = ""  # the secret tail of the service's seed chain
    service: Service | None = None
    chain: list[Envelope] = field(default_factory=list)  # every envelope of the session, in order
    opening: list[Envelope] = field(default_factory=list)
    hand_messages: list[Envelope] = field(default_factory=list)
    dealer: int = 0
    answered: int = 0  # seats (in order) that answered the current step
    order: np.ndarray | None = None
    state: HandState | None = None
    sheet: Sheet | None = None
    history: list[HandRecord] = field(default_factory=list)
    reveals: dict[int, str] = field(default_factory=dict)
    previous: str | None = None  # the last closed hand's transcript hash
    settlement: dict[str, Any] | None = None
    ended: dict[str, Any] | None = None  # the signed end's body, when a seat's fault ended the evening
    charge: tuple[ScoreLine, ...] = ()  # what the end charged (on the sheet already)
    unsigned: list[int] = field(default_factory=list)  # seats that sent no settlement countersignature in time
    _opening_round: int = 0
    _relayed: int = 0  # the service's envelopes so far
    _fields: dict[str, Any] = field(default_factory=dict)  # the closed hand's log line, less its transcript
    _penalty: list[ScoreLine] = field(default_factory=list)  # this hand's charges for its aborted attempts
    _sheet_before: Sheet | None = None  # the sheet before the hand in progress (an end voids that hand)
    _derived: list[Derived] = field(default_factory=list)  # rows a handler produced, handed out by ``_advance``
    _players: dict[int, Player] = field(default_factory=dict)  # the bots' v4 parties
    _shown: dict[int, int] = field(default_factory=dict)  # how much of the chain each bot has been shown
    _bots: dict[int, Bot] = field(default_factory=dict)

    # ---- building --------------------------------------------------------------------------------------------

    @classmethod
    def new(
        cls, table_id: str, system: str, num_seats: int, max_hands: int, service_key: IdentityKey, chain_tail: str
    ) -> Table:
        sys_ = get_system(system)
        sys_.convention.check_players(num_seats)
        table = cls(table_id, sys_, num_seats, max_hands, service_key, chain_tail=chain_tail)
        table.sheet = new_sheet(sys_.convention, num_seats)
        return table

    @classmethod
    def load(
        cls, row: dict[str, Any], seat_rows: list[dict[str, Any]], messages: list[Message], service_key: IdentityKey
    ) -> Table:
        """Rebuild a table from its rows: the chairs, then every stored row replayed in order."""
        table = cls.new(row["id"], row["system"], row["seats"], row["max_hands"], service_key, row["chain_tail"])
        for seat in seat_rows:
            table.seats[seat["seat"]] = Seat(seat["seat"], seat["name"], seat["key"], seat["bot_secret"])
        for message in messages:
            if message.seat == RELAY_SEAT:  # recomputed by the replay itself
                continue
            table.submit(message)
        return table

    @property
    def _live_state(self) -> HandState:
        assert self.state is not None  # set from the deal to the end of the hand (the PLAY stage)
        return self.state

    @property
    def _live_sheet(self) -> Sheet:
        assert self.sheet is not None  # set by ``Table.new``
        return self.sheet

    @property
    def _live_service(self) -> Service:
        assert self.service is not None  # set when every seat has signed the roster
        return self.service

    @property
    def _live_roster(self) -> Roster:
        assert self.roster is not None  # set when the chairs are full
        return self.roster

    # ---- rows ------------------------------------------------------------------------------------------------

    def submit(self, message: Message) -> list[Derived]:
        """Accept ``message`` or raise ``Refused`` leaving the table unchanged; returns the rows it produced.
        The service's envelopes of the step are left in ``outbox`` for the caller to store."""
        self.outbox = []
        if message.seat != SERVICE_SEAT and message.seat not in self.seats:
            raise Refused(f"seat {message.seat} is empty at table {self.id}")
        last = self.last_seq.get(message.seat, 0)
        if message.seq <= last:
            raise Refused(f"seat {message.seat}: message {message.seq} is a replay (the last accepted was {last})")
        handler = _HANDLERS.get(message.type)
        if handler is None:
            raise Refused(f"unknown message type {message.type!r}")
        if self.stage.over:
            raise Refused(f"table {self.id} is {self.stage.value}")
        handler(self, message.seat, message.body)
        self.last_seq[message.seat] = message.seq
        return self._advance()

    def service_event(self) -> Message | None:
        """The service's own row due now: the roster's time once the chairs are full."""
        if self.stage is Stage.SEATING and len(self.seats) == self.num_seats:
            return Message(SERVICE_SEAT, self.next_seq(SERVICE_SEAT), ROSTER_TIME, {"time": now()})
        return None

    def _roster_time(self, seat: int, body: dict[str, Any]) -> None:
        if seat != SERVICE_SEAT:
            raise Refused(f"seat {seat}: only the service fixes the roster")
        if self.stage is not Stage.SEATING or len(self.seats) < self.num_seats:
            raise Refused("the roster is fixed once, when every chair is taken")
        names = [(self.seats[s].name, self.seats[s].key) for s in range(self.num_seats)]
        self.roster = fixed_roster(PROTOCOL, self.id, SESSION, self.convention, names, self.service_key, body)
        self.stage = Stage.ROSTER

    def _roster_sign(self, seat: int, body: dict[str, Any]) -> None:
        if self.stage is not Stage.ROSTER:
            raise Refused(f"cannot sign the roster now: the table is at the {self.stage.value} stage")
        if seat == SERVICE_SEAT:
            raise Refused("the service has signed the roster already")
        self.roster = signed_by_seat(self._live_roster, seat, body)

    def _signed(self, seat: int, body: dict[str, Any]) -> None:
        """A seat's signed envelope: the one the protocol expects next, or refused naming the check."""
        if seat == SERVICE_SEAT:
            raise Refused("the service's envelopes are made by the table, not submitted")
        kind = DUE_KIND.get(self.stage)
        if kind is None or self.service is None:
            raise Refused(f"no signed message is due now: the table is at the {self.stage.value} stage")
        try:
            envelope = parse(body, "envelope")
        except SignedMessageError as exc:
            raise Refused(str(exc)) from None
        if envelope.sender != seat:
            raise Refused(f"sender: this seat is {seat}; it cannot send a message signed as sender {envelope.sender}")
        due = self._answering()[self.answered]
        if seat != due:
            raise Refused(f"turn: seat {due} answers the {self.stage.value} step now, not seat {seat}")
        hand = 0 if kind in (m.ACCEPT, m.SETTLEMENT_SIGN) else self.hand
        if self.seats[seat].is_bot:
            self._replayed_bot(seat, envelope)
        if envelope.kind == m.REFUSAL:
            self._refusal(seat, envelope, hand)
            return
        self._check_answer(seat, envelope, hand, kind)
        self._live_service.take(envelope, hand, kind)
        self._relay(envelope)
        self.answered += 1

    def _check_answer(self, seat: int, envelope: Envelope, hand: int, kind: str) -> None:
        """Everything ``Service.take`` would find wrong, found before anything changes."""
        service = self._live_service
        party = self._live_roster.party(seat)
        try:
            open_checked(
                envelope, service.ctx(hand), service.keys, prev=service.last, presenter=party, names=service.names
            )
            body = m.checked_body(envelope, service.names)
        except SignedMessageError as exc:
            raise Refused(str(exc)) from None
        if envelope.kind != kind:
            raise Refused(f"kind: {party}: {kind} is due now, not {envelope.kind}")
        expected = self._expected_body(kind)
        for name, value in expected.items():
            if body[name] != value:
                raise Refused(f"{kind}: body.{name}: {party}: expected {value!r}")
        if kind == m.REVEAL:
            seed = bytes.fromhex(body["seed"])
            if service.session.seed_commitment(hand, service.attempt, seat, seed) != self._commitment_of(seat):
                raise Refused(f"seed opening: {party}: the seed does not open the seat's commitment")

    def _expected_body(self, kind: str) -> dict[str, Any]:
        service = self._live_service
        if kind == m.ACCEPT:
            return {"roster": self._live_roster.hash}
        if kind in (m.COMMIT, m.REVEAL):
            return {"attempt": service.attempt}
        if kind == m.RECORD_SIGN:
            close = next(e for e in reversed(self.hand_messages) if e.kind == m.CLOSE)
            return {"record": record_hash(close.body["record"])}
        settlement = next(e for e in reversed(self.chain) if e.kind == m.SETTLEMENT)
        return {"settlement": settlement.digest}

    def _commitment_of(self, seat: int) -> str | None:
        opened = max(i for i, e in enumerate(self.hand_messages) if e.kind == m.HAND_OPEN)
        return next(
            (e.body["commitment"] for e in self.hand_messages[opened:] if e.kind == m.COMMIT and e.sender == seat),
            None,
        )

    def _refusal(self, seat: int, envelope: Envelope, hand: int) -> None:
        """A validly signed refusal is the player's statement: it goes on the record. A refusal of a hand that
        follows the chain ends the evening (the refuser charged: every answer the table took was checked, and its
        own messages hold); any other stops the table."""
        service = self._live_service
        party = self._live_roster.party(seat)
        try:
            opened = open_checked(envelope, service.ctx(hand), service.keys, presenter=party, names=service.names)
            body = m.checked_body(opened, service.names)
        except SignedMessageError as exc:
            raise Refused(str(exc)) from None
        chained = opened.prev == service.last
        if chained:
            with contextlib.suppress(ProtocolError):  # the service takes a refusal into its chain, then stops
                service.take(opened, hand, m.REFUSAL)
        self._relay(opened)
        why = f"{party} refused at {body['step']} ({body['check']}): {body['reason']}"
        if chained and self.stage in (Stage.COMMIT, Stage.SEED, Stage.RECORD):
            self._end_evening(why)
            return
        self.stage, self.reason = Stage.ABORTED, why

    def _act(self, seat: int, body: dict[str, Any]) -> None:
        if self.stage is not Stage.PLAY:
            raise Refused(f"cannot play now: the table is at the {self.stage.value} stage")
        if to_move(self._live_state) != seat:
            raise Refused(f"seat {seat}: it is not your turn (seat {to_move(self._live_state)} is to act)")
        wanted = body.get("action")
        action = next((a for a in legal_actions(self._live_state) if encode_action(a) == wanted), None)
        if action is None:
            raise Refused(f"seat {seat}: {_short(wanted)} is not a legal action now")
        self.state = apply(self._live_state, action)

    def _timeout(self, seat: int, body: dict[str, Any]) -> None:
        """The service's record that ``body.seat`` did not answer a signed request in time: in the seed steps the
        attempt is aborted (signed, naming the absent seat) and the hand dealt again from fresh seeds, at most
        ``MAX_ATTEMPTS`` times, the last abort ending the evening; a missing countersignature of a hand's record
        ends the evening; one of the settlement is left out; anywhere else the table stops."""
        if seat != SERVICE_SEAT:
            raise Refused(f"seat {seat}: only the service records a timeout")
        late = body.get("seat")
        if late not in self.waiting_for(people_only=False):
            raise Refused(f"timeout: seat {late!r} is not awaited")
        assert isinstance(late, int)  # it is one of the awaited seats
        kind = DUE_KIND.get(self.stage)
        if kind == m.RECORD_SIGN:
            self._end_evening(f"seat {late} sent no {kind} for hand {self.hand} in time")
            return
        if kind == m.SETTLEMENT_SIGN:
            # Left out: every amount follows from the records the seat countersigned, and the next seat's
            # countersignature chains to the last one taken.
            self.unsigned.append(late)
            self.answered += 1
            return
        if kind in (m.COMMIT, m.REVEAL):
            self._relay(self._live_service.abort(self.hand, kind, late))
            # The v4 abort policy: the absent seat pays the convention's charge, written with the hand's record.
            self._penalty += abort_penalty(self.convention, late, self.num_seats)
            if self._live_service.attempt < MAX_ATTEMPTS:
                self._open_hand()
            else:
                self._end_evening(f"aborted {MAX_ATTEMPTS} times")
            return
        self.stage = Stage.ABORTED
        self.reason = f"seat {late} did not answer at the {kind or 'play'} step of hand {self.hand}"

    # ---- the service's own steps -----------------------------------------------------------------------------

    def _advance(self) -> list[Derived]:
        """Take every step that needs no seat: open the session, open, deal and close hands, settle."""
        derived, self._derived = self._derived, []
        while True:
            if self.stage is Stage.ROSTER and all(self._live_roster.seat_signatures or [b""]):
                self._open_session()
            elif self.stage in DUE_KIND and self.answered == len(self._answering()):
                derived += self._step_done()
            elif self.stage is Stage.PLAY and is_over(self._live_state):
                self._close_hand()
            else:
                return derived

    def _step_done(self) -> list[Derived]:
        self.answered = 0
        if self.stage is Stage.ACCEPT:
            self._next_hand()
        elif self.stage is Stage.COMMIT:
            self._relay(self._live_service.request_reveals(self.hand))
            self.stage = Stage.SEED
        elif self.stage is Stage.SEED:
            self._deal()
        elif self.stage is Stage.RECORD:
            return [self._hand_document(), *self._next_hand()]
        else:
            return [self._settlement_document()]
        return []

    def _relay(self, envelope: Envelope) -> None:
        self.chain.append(envelope)
        if self.stage is Stage.ROSTER or self.stage is Stage.ACCEPT:
            self.opening.append(envelope)
        elif self.stage is not Stage.SETTLE:
            self.hand_messages.append(envelope)
        if envelope.sender == SERVICE:
            self._relayed += 1
            self.outbox.append(Message(RELAY_SEAT, self._relayed, RELAYED, envelope.to_json()))

    def _open_session(self) -> None:
        roster = self._live_roster
        roster.check()
        self.service = Service(self.service_key, roster, self.max_hands, bytes.fromhex(self.chain_tail))
        self._relay(self.service.open_session())
        self.stage = Stage.ACCEPT
        for seat, info in self.seats.items():
            if info.is_bot:
                self._players[seat] = Player(seat, _bot_key(info), roster, self._bot_seeds(info))
                self._shown[seat] = 0

    def _next_hand(self) -> list[Derived]:
        if self.hand >= self.max_hands or is_finished(self._live_sheet, self.convention):
            amounts = settle(self._live_sheet, self.convention).amounts
            self.stage = Stage.SETTLE
            self._relay(self._live_service.settle(self.hand, amounts))
            return []
        self.hand += 1
        self.dealer, self._opening_round = dealer_of(self.convention, self.hand - 1, 0, self.num_seats)
        self.hand_messages, self._penalty, self._sheet_before = [], [], self.sheet
        self._open_hand()
        return []

    def _open_hand(self) -> None:
        self.answered, self.state, self.order = 0, None, None
        self.stage = Stage.COMMIT
        self._relay(self._live_service.open_hand(self.hand, self.dealer))

    def _deal(self) -> None:
        self.order = self._live_service.deal(self.hand)
        deal = deal_order(self.order, get_pattern(self.convention.table.pattern_name(self.num_seats)))
        self.state = new_hand(
            self.convention,
            self.num_seats,
            self.dealer,
            deal,
            self._live_sheet.raspasy_streak,
            self._opening_round,
            self._live_sheet.refe_seats(),
        )
        self.stage = Stage.PLAY

    def _close_hand(self) -> None:
        assert self.order is not None  # dealt in ``_deal``
        outcome = result(self._live_state)
        before = self._live_sheet.apply(tuple(self._penalty))
        self.sheet, lines = self.system.score_hand(before, outcome)
        fields = hand_fields(
            self.hand, self._live_state, {}, lines, sheet_extras(before, self.sheet, outcome, self.convention)
        )
        if self._penalty:
            fields["penalty"] = [line.to_record() for line in self._penalty]
        self._fields = fields
        record = {k: v for k, v in fields.items() if k != "type"}
        deal = seat_deal(self.order, self.convention.table.pattern_name(self.num_seats), self.dealer, self.num_seats)
        close = self._live_service.close_hand(self.hand, self.order, deal, record)
        self.stage = Stage.RECORD
        self._relay(close)
        contract = self._live_state.contract.token if self._live_state.contract else None
        self.reveals[self.hand] = close.body["seed"]
        self.history.append(
            HandRecord(
                self.hand,
                self.dealer,
                contract,
                self._live_state.declarer,
                outcome.kind.value,
                tuple(line.to_record() for line in lines),
                close.body["seed"],
            )
        )

    def document_base(self, kind: str) -> dict[str, Any]:
        return {
            "format": kind,
            "version": VERSION,
            "protocol": PROTOCOL,
            "roster": self._live_roster.to_json(),
            "opening": [e.to_json() for e in self.opening],
        }

    def _hand_document(self) -> Derived:
        doc = self.document_base(FORMAT) | {"hand": self.hand, "messages": [e.to_json() for e in self.hand_messages]}
        digest = document_hash(doc)
        self.previous = digest
        line = dict(
            self._fields, transcript={"file": f"{self.id}.transcripts/hand-{self.hand:04d}.json", "sha256": digest}
        )
        return Derived(self.hand, doc, digest, line, self.sheet_json())

    def _settlement_document(self) -> Derived:
        first = m.END if self.ended is not None else m.SETTLEMENT
        start = max(i for i, e in enumerate(self.chain) if e.kind == first)
        doc = self.document_base(SETTLEMENT_FORMAT) | {"messages": [e.to_json() for e in self.chain[start:]]}
        self.settlement = doc
        self.stage = Stage.FINISHED if self.ended is None else Stage.ENDED
        return Derived(0, doc, document_hash(doc), None, self.sheet_json())

    def _end_evening(self, why: str) -> None:
        """v4's end policy: the hand in progress is void (its transcript filed as the evidence), the seat at fault
        (the first without a countersignature after the signed hand-close, the refuser, or after the last aborted
        attempt every seat the aborts name, once per abort) is charged the convention's abort penalty on the sheet
        before the hand, the service signs the end and the settlement, and every other seat countersigns it."""
        hand = self.hand
        charged = end_charge(self._live_roster, self.hand_messages, lambda refusal: None)
        doc = self.document_base(FORMAT) | {"hand": hand, "messages": [e.to_json() for e in self.hand_messages]}
        self._derived.append(Derived(hand, doc, document_hash(doc), None, self.sheet_json()))
        if self.history and self.history[-1].hand == hand:  # closed, but never countersigned by all: void
            self.history.pop()
            self.reveals.pop(hand, None)
        self.charge = end_penalty(self.convention, self.num_seats, charged)
        assert self._sheet_before is not None  # set when the hand opened
        self.sheet = self._sheet_before.apply(self.charge)
        self.state, self.order, self.answered = None, None, 0
        self.stage = Stage.SETTLE
        end = self._live_service.end(hand, end_step(self.hand_messages), charged)
        self._relay(end)
        self.ended = dict(end.body)
        who = charged_parties(self._live_roster, charged)
        self.reason = f"hand {hand}: {why}; the evening ends, {who} charged"
        self._relay(self._live_service.settle(hand - 1, settle(self._live_sheet, self.convention).amounts))

    def _answering(self) -> list[int]:
        """The seats that answer the step, in order: every seat, but the one an end charges for its settlement."""
        charged = self.ended["charged"] if self.ended is not None and self.stage is Stage.SETTLE else []
        return [seat for seat in range(self.num_seats) if seat not in charged]

    # ---- server-side bots ------------------------------------------------------------------------------------

    def bot_message(self) -> Message | None:
        """The next row the service or a server-side bot must add now, or ``None`` when none is due."""
        event = self.service_event()
        if event is not None:
            return event
        for seat in self._bot_seats_due():
            info = self.seats[seat]
            if self.stage is Stage.ROSTER:
                signature = _bot_key(info).sign(self._live_roster.message()).hex()
                return Message(seat, self.next_seq(seat), ROSTER_SIGN, {"signature": signature})
            if self.stage in DUE_KIND:
                return Message(seat, self.next_seq(seat), SIGNED, self._bot_answer(seat).to_json())
            action = self._bot(seat).act(view_for(self._live_state, seat))
            return Message(seat, self.next_seq(seat), ACT, {"action": encode_action(action)})
        return None

    def bot_due(self) -> str | None:
        """The type of row ``bot_message`` would add now, without making it (a bot's answer changes its party)."""
        if self.service_event() is not None:
            return ROSTER_TIME
        if not self._bot_seats_due():
            return None
        return ROSTER_SIGN if self.stage is Stage.ROSTER else SIGNED if self.stage in DUE_KIND else ACT

    def _bot_seats_due(self) -> list[int]:
        return [s for s in self.waiting_for(people_only=False) if self.seats[s].is_bot]

    def _bot_answer(self, seat: int) -> Envelope:
        """What the bot's own v4 ``Player`` answers, shown every message of the chain since it last answered."""
        player = self._players[seat]
        news = self.chain[self._shown[seat] :]
        kind = DUE_KIND[self.stage]
        if kind == m.ACCEPT:
            answer = player.accept_session(news)
        elif kind == m.COMMIT:
            answer = player.commit(self.hand, news)
        elif kind == m.REVEAL:
            answer = player.reveal(self.hand, news)
        elif kind == m.RECORD_SIGN:
            answer = player.countersign(self.hand, news)
        else:
            answer = player.sign_settlement(news)
        self._shown[seat] = len(self.chain)
        return answer

    def _replayed_bot(self, seat: int, envelope: Envelope) -> None:
        """A stored bot answer replayed: the bot's ``Player`` must answer the same again (and so keep its state)."""
        if player_answered(self._players[seat], envelope):  # made live by ``bot_message`` just now
            return
        again = self._bot_answer(seat)
        if again.digest != envelope.digest:
            raise Refused(f"seat {seat}: the stored bot message is not what the bot answers")

    def waiting_for(self, people_only: bool = True) -> list[int]:
        """The seats the table is waiting for now (people only, unless asked)."""
        if self.stage is Stage.PLAY:
            turn = to_move(self._live_state)
            due = [] if turn is None else [turn]
        elif self.stage is Stage.ROSTER:
            due = unsigned_seats(self._live_roster)
        elif self.stage in DUE_KIND:
            answering = self._answering()
            due = [answering[self.answered]] if self.answered < len(answering) else []
        else:
            due = []
        return [s for s in due if not (people_only and self.seats[s].is_bot)]

    def timeout_message(self, seat: int) -> Message | None:
        """A late player's move in play is made for it by the system's bot; a late protocol answer is recorded
        as a timeout, which the v4 abort policy answers (``_timeout``)."""
        if self.stage is Stage.PLAY:
            if to_move(self._live_state) != seat:
                return None
            action = self._bot(seat).act(view_for(self._live_state, seat))
            body = {"action": encode_action(action), "timeout": True}
            return Message(seat, self.next_seq(seat), ACT, body)
        return Message(SERVICE_SEAT, self.next_seq(SERVICE_SEAT), TIMEOUT, {"seat": seat})

    def _bot_seeds(self, info: Seat) -> Callable[[int, int], bytes]:
        # Derived, not stored: the bot can open after a restart what it committed before it.
        assert info.bot_secret is not None  # asked of bot seats only
        secret = bytes.fromhex(info.bot_secret)

        def seed(hand: int, attempt: int) -> bytes:
            return hashlib.sha256(frame(BOT_SEED_DOMAIN, secret, self.id, u64(hand), u64(attempt))).digest()

        return seed

    def _bot(self, seat: int) -> Bot:
        if seat not in self._bots:
            secret = self.seats[seat].bot_secret or self.seats[seat].key
            entropy = int.from_bytes(hashlib.sha256(bytes.fromhex(secret)).digest()[:8], "big")
            self._bots[seat] = self.system.make_bot("heuristic", np.random.SeedSequence(entropy))
        return self._bots[seat]

    # ---- what each seat may see ------------------------------------------------------------------------------

    def sheet_json(self) -> dict[str, Any]:
        names = (
            [self.seats[s].name for s in range(self.num_seats)]
            if len(self.seats) == self.num_seats
            else [f"seat {s}" for s in range(self.num_seats)]
        )
        return sheet_json(self._live_sheet, settle(self._live_sheet, self.convention), names, self.convention)

    def summary(self) -> dict[str, Any]:
        """What anyone may know of the table: no card, no seed."""
        return super().summary() | {"ended": self._end_view(), "dealer": self.dealer}

    def _end_view(self) -> dict[str, Any] | None:
        """The signed end as the tables show it: the voided hand, the step, the seats charged and the charge."""
        if self.ended is None:
            return None
        charged = self.ended["charged"]
        return {
            "hand": self.ended["hand"],
            "step": self.ended["step"],
            "charged": charged,
            "names": [self.seats[seat].name for seat in charged],
            "penalty": [line.to_record() for line in self.charge],
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see now (``None``: a spectator); the engine's ``view_for`` decides every card."""
        out = self.summary()
        out["you"] = seat
        out["last_seq"] = self.last_seq.get(seat, 0) if seat is not None else 0
        out["protocol"] = self._protocol_view(seat)
        out["sheet"] = self.sheet_json()
        out["history"] = [vars(h) | {"score": list(h.score)} for h in self.history]
        out["game"] = self._game_view(seat) if self.state is not None and seat is not None else None
        if self.stage is Stage.PLAY and self.state is not None:
            out["to_move"] = to_move(self._live_state)
        return out

    def _protocol_view(self, seat: int | None) -> dict[str, Any]:
        """The step and who answers it; the signed messages themselves go to each seat as ``chain`` frames."""
        due = self.waiting_for(people_only=False)
        need = None
        if seat is not None and seat in due:
            need = "roster-sign" if self.stage is Stage.ROSTER else DUE_KIND.get(self.stage)
        return {
            "stage": self.stage.value,
            "hand": self.hand,
            "due": due if self.stage is not Stage.PLAY else [],
            "need": need,
            "chain": len(self.chain),
            "roster": self.roster.to_json() if self.roster is not None else None,
        }

    def _game_view(self, seat: int) -> dict[str, Any]:
        v = view_for(self._live_state, seat)
        return {
            "phase": v.phase.value,
            "step": self._live_state.steps,
            "to_move": v.to_move,
            "hand": list(v.hand),
            "active": list(v.active),
            "dealer": v.dealer,
            "open_hands": {str(s): list(c) for s, c in v.open_hands},
            "auction": [[s, t] for s, t in v.auction],
            "declarer": v.declarer,
            "contract": v.contract.token if v.contract else None,
            "kind": v.kind.value if v.kind else None,
            "talon_seen": list(v.talon_seen),
            "discard": list(v.discard),
            "defence": [[s, c.value] for s, c in v.defence],
            "defence_open": v.defence_open,
            "tricks": [{"plays": [list(p) for p in t.plays], "winner": t.winner} for t in v.tricks],
            "current": [list(p) for p in v.current],
            "won": list(v.won),
            "trump": v.trump,
            "legal": [encode_action(a) for a in v.legal],
            "hidden": {str(s): len(self._live_state.hands[s]) for s in range(self.num_seats) if s != seat},
        }

    # ---- the game log ----------------------------------------------------------------------------------------

    def relayed_since(self, start: int) -> list[dict[str, Any]]:
        """The session's signed envelopes from the ``start``-th: what a socket has not been sent yet."""
        return [e.to_json() for e in self.chain[start:]]

    def log_trailer(self) -> dict[str, Any] | None:
        if self.stage not in (Stage.FINISHED, Stage.ENDED):
            return None
        import msgspec

        names = [self.seats[s].name for s in range(self.num_seats)]
        trailer: dict[str, Any] = msgspec.to_builtins(
            end_record(names, settle(self._live_sheet, self.convention).amounts, self.charge)
        )
        return trailer


def player_answered(player: Player, envelope: Envelope) -> bool:
    """Whether the bot's ``Player`` made ``envelope`` itself (live: its answer is at the end of its chain)."""
    return bool(player.chain) and player.chain[-1].digest == envelope.digest


def _bot_key(info: Seat) -> IdentityKey:
    assert info.bot_secret is not None  # asked of bot seats only
    return IdentityKey.from_seed(bytes.fromhex(info.bot_secret), info.name)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


_HANDLERS: dict[str, Callable[[Table, int, dict[str, Any]], None]] = {
    ROSTER_TIME: Table._roster_time,
    ROSTER_SIGN: Table._roster_sign,
    SIGNED: Table._signed,
    ACT: Table._act,
    TIMEOUT: Table._timeout,
}
