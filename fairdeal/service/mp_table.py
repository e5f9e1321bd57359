"""One online table dealt by mental poker (``fairdeal-mental-poker/4``): the service relays and checks every
message and holds no card.

Like the commit-reveal ``Table`` it is event-sourced: its chairs are the ``seats`` rows and its history the
``messages`` rows — the roster's time and signatures, every seat's signed protocol message (a game decision is one,
a ``decide`` in the hand's chain), every signed statement on a record or the settlement — and everything else is
recomputed by feeding those rows, in order, through ``submit``. Each hand is a ``LiveHand``: it says what it waits
for (a seat's protocol step, game decision or word on the no-aces announcement), takes it only when it is due and
checks, and follows the game on a deal imputed from what the messages opened. When every share and discard is out,
the host replays the hand on the opened deal: that record, with the sheet's lines, is put to every seat, and each
signs it (or signs a refusal). After the last hand the service proposes the settlement and every seat signs it. A
server-side bot is a ``LiveSeat`` with its own secrets, shown only what the host relays.

A bot's secrets (its key share, shuffle, proofs, discard nonce) are drawn from a stream derived from its own secret,
the table, the hand, its attempt and the answer's number (``group.drawn_from``), so a restarted service rebuilds
it by letting it make its stored rows again — the same bytes, or the table refuses to load them.

A seat that stops answering in a hand — at a step the protocol fixes (the opening, a round, a discard's opening)
or one the game calls for (a decision, a card, a discard) — meets v4's abort policy: the service records the
timeout and the next player of the hand signs the abandon. In the opening the attempt is void and the hand dealt
again with fresh keys and shuffles, the absent seat charged the convention's abort penalty with the hand's record
(``MAX_ATTEMPTS`` deals in all); after the deal, or after the last attempt, the evening ends: the hand is void (its
transcript the evidence, with the ``start`` its game is followed from when only the game said whose step was due),
the absent seat is charged on the sheet before it, and every other seat signs the settlement with that ``end``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from fairdeal.engine.actions import Discard, Play, encode_action
from fairdeal.engine.bots import Bot
from fairdeal.engine.hand import legal_actions, to_move
from fairdeal.engine.match_log import end_record
from fairdeal.engine.play import led_suit, trick_winner, trump_of
from fairdeal.engine.rotation import dealer_of
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import ScoreLine, Sheet, is_finished, new_sheet
from fairdeal.engine.sheet_view import sheet_json
from fairdeal.engine.state import HandState
from fairdeal.engine.system import get_system
from fairdeal.errors import FairdealError, MentalPokerError
from fairdeal.protocols import signed
from fairdeal.protocols.encoding import frame, u64
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.following import ACT, Due
from fairdeal.protocols.mental_poker.live import LiveHand
from fairdeal.protocols.mental_poker.seat import LiveSeat
from fairdeal.protocols.mental_poker.signing import PROTOCOL_V4, Seating
from fairdeal.protocols.mental_poker.source import COMPLETE, MAX_ATTEMPTS, hand_setup, transcript_document
from fairdeal.protocols.mental_poker.statements import (
    RECORD,
    SETTLEMENT,
    record_digest,
    settlement_document,
    settlement_proposal,
    sign_record,
    sign_settlement,
)
from fairdeal.protocols.record_check import end_penalty
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import transcript_hash
from fairdeal.service.roster_flow import Refused, fixed_roster, signed_by_seat, unsigned_seats
from fairdeal.service.rows import (
    ROSTER_SIGN,
    ROSTER_TIME,
    SERVICE_SEAT,
    SESSION,
    TIMEOUT,
    Derived,
    Message,
    Seat,
    Stage,
    now,
)
from fairdeal.service.served import ServedTable

MP_SIGNED, STATEMENT = "mp-signed", "statement"  # a seat's signed protocol message; its signed record/settlement
BOT_DRAWS = "fairdeal-serve/mp-bot-draws/4"


@dataclass
class MpTable(ServedTable):
    """A mental-poker table's live state; ``MpTable.load`` rebuilds it from its rows, ``submit`` feeds it one."""

    protocol: ClassVar[str] = PROTOCOL_V4
    dealing: ClassVar[str] = "mental-poker"

    live: LiveHand | None = None
    sheet: Sheet | None = None
    record: dict[str, Any] | None = None  # the hand's record put to the seats (the RECORD stage)
    statements: list[dict[str, Any]] = field(default_factory=list)  # signed statements on the record or settlement
    transcripts: list[dict[str, Any]] = field(default_factory=list)  # every closed hand's transcript
    proposal: dict[str, Any] | None = None  # the settlement put to the seats (the SETTLE stage)
    settlement: dict[str, Any] | None = None
    relayed: list[dict[str, Any]] = field(default_factory=list)  # every seat's message and decision, for sockets
    attempt: int = 1  # the deal of this hand: one more after each opening a seat walked away from
    aborts: list[dict[str, Any]] = field(default_factory=list)  # this hand's abandoned openings: their messages
    penalty: list[ScoreLine] = field(default_factory=list)  # what those openings charged, written with the record
    ended: dict[str, Any] | None = None  # the end a stopped hand proves: {hand, charged (names), step}
    charge: tuple[ScoreLine, ...] = ()  # what the end charged (on the sheet already)
    _order: np.ndarray | None = None
    _sheet_after: Sheet | None = None
    _bots: dict[int, LiveSeat] = field(default_factory=dict)  # this hand's server-side seats
    _derived: list[Derived] = field(default_factory=list)

    @classmethod
    def new(cls, table_id: str, system: str, num_seats: int, max_hands: int, service_key: IdentityKey) -> MpTable:
        sys_ = get_system(system)
        sys_.convention.check_players(num_seats)
        return cls(table_id, sys_, num_seats, max_hands, service_key, sheet=new_sheet(sys_.convention, num_seats))

    @classmethod
    def load(
        cls, row: Mapping[str, Any], seat_rows: list[Mapping[str, Any]], messages: list[Message], key: IdentityKey
    ) -> MpTable:
        """Rebuild a table from its rows: the chairs, then every stored row replayed in order; each bot makes its
        own rows again from its derived secrets (and must make the very rows stored), so a hand in progress goes
        on."""
        table = cls.new(row["id"], row["system"], row["seats"], row["max_hands"], key)
        for seat in seat_rows:
            table.seats[seat["seat"]] = Seat(seat["seat"], seat["name"], seat["key"], seat["bot_secret"])
        for message in messages:
            table.submit(message, replay=True)
        return table

    # ---- the parts every stage reads ---------------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.seats[s].name for s in range(self.num_seats))

    @property
    def spec(self) -> TableSpec:
        return TableSpec(self.id, SESSION, self.max_hands, self.names, self.convention)

    @property
    def seating(self) -> Seating:
        if self.roster is None:
            raise Refused("the roster is not fixed yet")
        return Seating(self.roster)

    @property
    def _sheet(self) -> Sheet:
        assert self.sheet is not None  # set by ``new``
        return self.sheet

    # ---- rows ----------------------------------------------------------------------------------------------------

    def submit(self, message: Message, replay: bool = False) -> list[Derived]:
        """Accept ``message`` or raise ``Refused`` leaving the table unchanged; returns the documents it closed."""
        if message.seat != SERVICE_SEAT and message.seat not in self.seats:
            raise Refused(f"seat {message.seat} is empty at table {self.id}")
        if message.seq <= self.last_seq.get(message.seat, 0):
            raise Refused(f"seat {message.seat}: message {message.seq} is a replay")
        if self.stage.over:
            raise Refused(f"table {self.id} is {self.stage.value}")
        handler = _HANDLERS.get(message.type)
        if handler is None:
            raise Refused(f"unknown message type {message.type!r}")
        try:
            if replay:
                self._bot_made(message)
            handler(self, message.seat, message.body)
        except Refused:
            raise
        except FairdealError as exc:
            raise Refused(str(exc)) from None
        self.last_seq[message.seat] = message.seq
        if message.type == MP_SIGNED:
            row = {"hand": self.hand, "attempt": self.attempt, "seat": message.seat, "type": message.type}
            self.relayed.append(row | {"body": message.body})
        self._advance()
        derived, self._derived = self._derived, []
        return derived

    def _bot_made(self, message: Message) -> None:
        """A stored row of a bot's in play, read back: the bot makes it again, and it must be the same."""
        if self.stage is not Stage.PLAY or message.seat not in self._bots or message.type != MP_SIGNED:
            return
        again = self._bot_step(message.seat)
        if again is None or again.body != message.body:
            raise Refused(f"seat {message.seat}: the stored bot message is not what the bot makes again")

    def _roster_time(self, seat: int, body: dict[str, Any]) -> None:
        if seat != SERVICE_SEAT or self.stage is not Stage.SEATING or len(self.seats) < self.num_seats:
            raise Refused("the service fixes the roster once, when every chair is taken")
        names = [(self.seats[s].name, self.seats[s].key) for s in range(self.num_seats)]
        self.roster = fixed_roster(PROTOCOL_V4, self.id, SESSION, self.convention, names, self.service_key, body)
        self.stage = Stage.ROSTER

    def _roster_sign(self, seat: int, body: dict[str, Any]) -> None:
        if self.stage is not Stage.ROSTER or self.roster is None:
            raise Refused(f"cannot sign the roster now: the table is at the {self.stage.value} stage")
        self.roster = signed_by_seat(self.roster, seat, body)

    def _signed(self, seat: int, body: dict[str, Any]) -> None:
        """A seat's signed protocol message: the hand's host takes it only when due and sound."""
        live = self._live()
        if body.get("sender") != seat:
            raise Refused(f"sender: this is seat {seat}; it cannot send a message signed as {body.get('sender')!r}")
        live.message(body)
        for bot_seat, bot in self._bots.items():
            if bot_seat != seat and bot.player is not None:
                bot.receive(body)
            if bot.broken is not None:  # a bot that sees no deal fits stops the hand for the reveal
                live.stop(f"{bot.name}: {bot.broken}")

    def _statement(self, seat: int, body: dict[str, Any]) -> None:
        """A seat's signed statement on the hand's record (the RECORD stage) or the settlement (SETTLE)."""
        due = self.waiting_for(people_only=False)
        if seat not in due or self.stage not in (Stage.RECORD, Stage.SETTLE):
            raise Refused(f"seat {seat}: no statement of yours is due (the table is at the {self.stage.value} stage)")
        seating = self.seating
        if self.stage is Stage.RECORD:
            assert self.live is not None and self.record is not None  # the RECORD stage follows a closed hand
            hand, kind, prev = self.hand, RECORD, self.live.protocol.head
            expected = {"record": record_digest(self.record), "agrees": True}
        else:
            assert self.proposal is not None  # the SETTLE stage has its proposal
            hand, kind, prev, expected = 0, SETTLEMENT, self.proposal["last"], dict(self.proposal)
        envelope = signed.open_checked(
            signed.parse(body, "statement"),
            seating.context(hand),
            seating.keys,
            prev=prev,
            kind=kind,
            presenter=f"seat {seat}",
            names=seating.names,
        )
        if envelope.sender != seat:
            raise Refused(f"statement: signed by seat {envelope.sender}, sent by seat {seat}")
        if envelope.body.get("agrees") is False:
            self.statements.append(dict(body))
            self.stage, self.reason = Stage.ABORTED, f"seat {seat} refused the {kind}: {envelope.body.get('reason')}"
            return
        if dict(envelope.body) != expected:
            raise Refused(f"statement: seat {seat}'s {kind} is not the one put to the table")
        self.statements.append(dict(body))

    def _timeout(self, seat: int, body: dict[str, Any]) -> None:
        """The service's record that ``body.seat`` did not answer in time: in a hand (at a step the protocol fixes,
        or a decision, card, discard or round the game calls for) the next player of the hand is asked to witness
        it (v4's abandon); anywhere else — a witness silent too, a statement not signed — the table stops."""
        late = body.get("seat")
        if seat != SERVICE_SEAT or late not in self.waiting_for(people_only=False):
            raise Refused(f"timeout: seat {late!r} is not awaited")
        if self.stage is Stage.PLAY and self.live is not None and self.live.can_abandon():
            self.live.ask_witness()
            return
        due = self.live.due() if self.stage is Stage.PLAY and self.live is not None else None
        self.reason = f"seat {late} did not answer at hand {self.hand} ({_say(due) if due else self.stage.value})"
        self.stage = Stage.ABORTED

    # ---- the service's own steps ---------------------------------------------------------------------------------

    def _advance(self) -> None:
        """Take every step that needs no seat: open the first hand, close a hand, put its record, settle."""
        if self.stage is Stage.ROSTER and self.roster is not None and not unsigned_seats(self.roster):
            self.roster.check()
            self._next_hand()
        if self.stage is Stage.PLAY and self.live is not None and self.live.abandoned is not None:
            self._abandoned()
        elif self.stage is Stage.PLAY and self.live is not None and self.live.due() is None:
            self._close_hand()
        if self.stage is Stage.RECORD and len(self.statements) == self.num_seats:
            self._file_hand()
        if self.stage is Stage.SETTLE and len(self.statements) == len(self._settling()):
            self.settlement = settlement_document(self.statements, self.seating)
            self._derived.append(Derived(0, self.settlement, transcript_hash(self.settlement), None, self.sheet_json()))
            self.stage = Stage.FINISHED if self.ended is None else Stage.ENDED

    def _next_hand(self) -> None:
        if self.hand >= self.max_hands or is_finished(self._sheet, self.convention):
            self._settle()
            return
        self.hand, self.attempt, self.aborts, self.penalty = self.hand + 1, 1, [], []
        self._deal()

    def _deal(self) -> None:
        """Open the hand's attempt: a fresh setup bound to it, the host's hand and every bot's party."""
        dealer, opening_round = dealer_of(self.convention, self.hand - 1, 0, self.num_seats)
        setup = hand_setup(self.spec, self.hand, dealer, self.seating, self.attempt)
        self.live = LiveHand(self.spec, setup, self.seating, dealer, self._sheet, opening_round, self.penalty)
        self._bots = {
            seat: LiveSeat(
                self.spec,
                setup,
                self.seating,
                _bot_key(info),
                self._bot_policy(seat),
                self.live.start,
                self._seeds(seat),
            )
            for seat, info in self.seats.items()
            if info.is_bot
        }
        self.stage, self.record, self.statements = Stage.PLAY, None, []

    def _abandoned(self) -> None:
        """A witnessed abandon: an opening is dealt again (the absent seat charged with the hand's record), until
        the last attempt; after the deal, or then, the evening ends."""
        assert self.live is not None and self.live.abandoned is not None  # called on a witnessed abandon
        absent, step = self.live.abandoned
        if self.live.protocol.dealt or self.attempt == MAX_ATTEMPTS:
            self._end_evening(absent, step)
            return
        self.aborts.append({"attempt": self.attempt, "messages": list(self.live.messages)})
        self.penalty += abort_penalty(self.convention, self.names.index(absent), self.num_seats)
        self.attempt += 1
        self._deal()

    def _end_evening(self, absent: str, step: str) -> None:
        """v4's end: the hand is void, its transcript filed as the evidence; the absent seat is charged the abort
        penalty on the sheet before it; every other seat is asked to sign the settlement with that end."""
        live = self.live
        assert live is not None  # the PLAY stage has its hand
        doc = self._transcript(live, None, None)
        self.charge = end_penalty(self.convention, self.num_seats, [self.names.index(absent)])
        self.sheet = self._sheet.apply(self.charge)
        self._derived.append(Derived(self.hand, doc, transcript_hash(doc), None, self.sheet_json()))
        self.ended = {"hand": self.hand, "charged": [absent], "step": step}
        self.reason = f"hand {self.hand}: {absent} stopped answering at the {step} step; the evening ends"
        self._settle()

    def _close_hand(self) -> None:
        assert self.live is not None  # the PLAY stage has its hand
        try:
            self.record, self._order, self._sheet_after = self.live.record()
        except MentalPokerError as exc:
            self.stage, self.reason = Stage.ABORTED, f"hand {self.hand}: {exc}"
            return
        self.stage = Stage.RECORD

    def _file_hand(self) -> None:
        live = self.live
        assert live is not None and self.record is not None  # the RECORD stage follows a closed hand
        doc = self._transcript(live, self.record, self._order)
        self.sheet = self._sheet_after
        line = {"type": "hand", **self.record}
        self._derived.append(Derived(self.hand, doc, transcript_hash(doc), line, self.sheet_json()))
        self._next_hand()

    def _transcript(self, live: LiveHand, record: dict[str, Any] | None, order: np.ndarray | None) -> dict[str, Any]:
        """The hand's transcript (a void one without ``record`` and ``order``), chained to the one before."""
        previous = transcript_hash(self.transcripts[-1]) if self.transcripts else None
        statements = self.statements if record is not None else None
        v4 = {"attempt": self.attempt, "aborts": self.aborts, "statements": statements}
        if record is None and live.protocol.awaited_by_game:  # abandoned where only the game says whose step
            v4["start"] = live.start_facts()
        hand, dealer, messages = self.hand, live.dealer, live.messages
        doc = transcript_document(self.spec, self.seating, hand, dealer, messages, record, order, previous, v4)
        self.transcripts.append(doc)
        return doc

    def _settle(self) -> None:
        last = transcript_hash(self.transcripts[-1]) if self.transcripts else ""
        amounts = settle(self._sheet, self.convention).amounts
        complete = sum(1 for doc in self.transcripts if doc["state"] == COMPLETE)
        end = None if self.ended is None else {"hand": self.ended["hand"], "charged": self.ended["charged"]}
        self.proposal = settlement_proposal(self.seating, complete, last, amounts, end)
        self.stage, self.statements, self.live, self._bots = Stage.SETTLE, [], None, {}

    def _settling(self) -> list[int]:
        """The seats that sign the settlement, in order: every seat but the one an end charges."""
        charged = self.ended["charged"] if self.ended is not None else []
        return [seat for seat in range(self.num_seats) if self.names[seat] not in charged]

    def _live(self) -> LiveHand:
        if self.stage is not Stage.PLAY or self.live is None:
            raise Refused(f"no hand is being played: the table is at the {self.stage.value} stage")
        return self.live

    # ---- who is awaited, and the server-side bots ----------------------------------------------------------------

    def waiting_for(self, people_only: bool = True) -> list[int]:
        """The seats the table waits for now (people only, unless asked)."""
        due: list[int] = []
        if self.stage is Stage.ROSTER and self.roster is not None:
            due = unsigned_seats(self.roster)
        elif self.stage is Stage.PLAY and self.live is not None:
            step = self.live.due()
            due = [] if step is None else [self.names.index(step.player)]
        elif self.stage is Stage.RECORD:
            due = [len(self.statements)] if len(self.statements) < self.num_seats else []
        elif self.stage is Stage.SETTLE:
            signing = self._settling()
            due = signing[len(self.statements) : len(self.statements) + 1]
        return [s for s in due if not (people_only and self.seats[s].is_bot)]

    def service_event(self) -> Message | None:
        if self.stage is Stage.SEATING and len(self.seats) == self.num_seats:
            return Message(SERVICE_SEAT, self.next_seq(SERVICE_SEAT), ROSTER_TIME, {"time": now()})
        return None

    def bot_message(self) -> Message | None:
        """The next row the service or a server-side bot must add now, or ``None``."""
        event = self.service_event()
        if event is not None:
            return event
        for seat in self._bot_seats():
            if seat not in self.waiting_for(people_only=False):
                continue
            info = self.seats[seat]
            if self.stage is Stage.ROSTER:
                assert self.roster is not None  # the ROSTER stage has its roster
                body = {"signature": _bot_key(info).sign(self.roster.message()).hex()}
                return Message(seat, self.next_seq(seat), ROSTER_SIGN, body)
            if self.stage in (Stage.RECORD, Stage.SETTLE):
                return Message(seat, self.next_seq(seat), STATEMENT, self._bot_statement(seat))
            return self._bot_step(seat)
        return None

    def bot_due(self) -> str | None:
        """The type of row ``bot_message`` would add now, without making it (a bot's answer moves its party)."""
        if self.service_event() is not None:
            return ROSTER_TIME
        bots = [s for s in self.waiting_for(people_only=False) if self.seats[s].is_bot]
        if not bots:
            return None
        if self.stage is Stage.ROSTER:
            return ROSTER_SIGN
        if self.stage is not Stage.PLAY:
            return STATEMENT
        return MP_SIGNED

    def timeout_message(self, seat: int) -> Message | None:
        """A late seat is recorded as such: nobody else holds its key share or knows its cards, so nobody can
        answer for it."""
        return Message(SERVICE_SEAT, self.next_seq(SERVICE_SEAT), TIMEOUT, {"seat": seat})

    def _bot_step(self, seat: int) -> Message | None:
        live = self.live
        bot = self._bots.get(seat)
        if live is None or bot is None:
            return None
        due = live.due()
        assert due is not None  # the bot is awaited
        return Message(seat, self.next_seq(seat), MP_SIGNED, dict(bot.answer(due)))

    def _bot_statement(self, seat: int) -> dict[str, Any]:
        key = _bot_key(self.seats[seat])
        if self.stage is Stage.RECORD:
            assert self.live is not None and self.record is not None
            bot = self._bots.get(seat)
            if bot is not None:
                return bot.sign(self.record, self.live.protocol.head)
            return sign_record(key, self.seating, self.hand, self.record, self.live.protocol.head)
        assert self.proposal is not None
        return sign_settlement(key, self.seating, self.proposal)

    def _bot_seats(self) -> list[int]:
        return [s for s, info in sorted(self.seats.items()) if info.is_bot]

    def _seeds(self, seat: int) -> Callable[[int], bytes]:
        """The secret of a bot's k-th answer in this attempt of the hand: derived, not stored, so that after a
        restart the bot makes again exactly the messages it had sent, and goes on from there."""
        secret, hand, attempt = bytes.fromhex(self.seats[seat].bot_secret or ""), self.hand, self.attempt

        def seed(k: int) -> bytes:
            return hashlib.sha256(frame(BOT_DRAWS, secret, self.id, u64(hand), u64(attempt), u64(k))).digest()

        return seed

    def _bot_policy(self, seat: int) -> Bot:
        secret = self.seats[seat].bot_secret or ""
        entropy = int.from_bytes(bytes.fromhex(secret)[:8] or b"\0", "big")
        return self.system.make_bot("heuristic", np.random.SeedSequence(entropy))

    # ---- what each seat may see ----------------------------------------------------------------------------------

    def sheet_json(self) -> dict[str, Any]:
        names = list(self.names) if len(self.seats) == self.num_seats else [f"seat {s}" for s in range(self.num_seats)]
        return sheet_json(self._sheet, settle(self._sheet, self.convention), names, self.convention)

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see now: the public game as the host follows it — never a card the rules have not
        opened (the seat's own cards are its client's to open) — what the hand waits for, and what a seat's client
        needs to answer it: the signed roster, the hand's setup, the record or settlement put to the seats."""
        out = self.summary()
        out |= {"you": seat, "last_seq": self.last_seq.get(seat, 0) if seat is not None else 0}
        out["sheet"] = self.sheet_json()
        out["waiting_for"] = self.waiting_for(people_only=False)
        out["signed_roster"] = self.roster.to_json() if self.roster is not None else None
        out["history"] = [_history_row(doc) for doc in self.transcripts]
        out["relayed"] = len(self.relayed)
        out |= {"due": None, "game": None, "setup": None, "record": None, "head": None, "proposal": None}
        if self.live is not None and self.stage in (Stage.PLAY, Stage.RECORD):
            setup = self.live.setup
            out["setup"] = {
                "hand": self.hand,
                "attempt": self.attempt,
                "pattern": setup.pattern.name,
                "players": list(setup.players),
                "dealer": self.live.dealer,
            }
        if self.stage is Stage.PLAY and self.live is not None:
            due = self.live.due()
            out["due"] = None if due is None else dataclasses.asdict(due)
            out["game"] = self._public_game(seat, due)
        if self.stage is Stage.RECORD and self.live is not None:
            out["record"], out["head"] = self.record, self.live.protocol.head
        if self.stage is Stage.SETTLE:
            out["proposal"] = self.proposal
        return out

    def _public_game(self, seat: int | None, due: Due | None) -> dict[str, Any]:
        assert self.live is not None
        public = self.live.game.public
        state = public.state
        shown = {str(s): list(state.hands[s]) for s in sorted(public.laid_open)}
        mine = seat is not None and due is not None and due.player == self.names[seat]
        actor = to_move(state)
        # The host's game holds imputed cards in every hidden hand: it can list a seat's choices only where they
        # need no hidden card — a decision, or a card from a hand open to all (the dummy it plays for the table);
        # a card from the seat's own hand is its client's to choose, by the ``own`` rule.
        elsewhere = due is not None and due.step == "play" and state.turn != seat
        decide = mine and due is not None and (due.step == ACT or elsewhere)
        return {
            "phase": state.phase.value,
            "to_move": actor,
            "auction": [[s, t] for s, t in state.auction],
            "declarer": state.declarer,
            "contract": state.contract.token if state.contract else None,
            "defence": [[s, c.value] for s, c in state.defence],
            "open_hands": shown,
            "talons_shown": {str(t): list(cards) for t, cards in public.talons_shown.items()},
            "tricks": [{"plays": [list(p) for p in t.plays], "winner": t.winner} for t in state.tricks],
            "current": [list(p) for p in state.current],
            "won": list(state.won),
            "cards_held": [len(h) for h in state.hands[: self.num_seats]],
            "dealer": self.live.dealer,
            "legal": [encode_action(a) for a in legal_actions(state)] if decide else [],
            "own": _own_card_rule(state) if mine and actor == seat and not elsewhere else None,
        }

    def relayed_since(self, start: int) -> list[dict[str, Any]]:
        """The seats' messages and decisions from the ``start``-th: what a socket has not been sent yet."""
        return self.relayed[start:]

    def summary(self) -> dict[str, Any]:
        """What anyone may know of the table: no card, no secret."""
        return super().summary() | {"ended": self._end_view()}

    def _end_view(self) -> dict[str, Any] | None:
        """The end as the tables show it (the commit-reveal table's shape): the voided hand, the step, the seats
        charged and the charge."""
        if self.ended is None:
            return None
        names = list(self.ended["charged"])
        return {
            "hand": self.ended["hand"],
            "step": self.ended["step"],
            "charged": [self.names.index(name) for name in names],
            "names": names,
            "penalty": [line.to_record() for line in self.charge],
        }

    def log_trailer(self) -> dict[str, Any] | None:
        if self.stage not in (Stage.FINISHED, Stage.ENDED):
            return None
        import msgspec

        trailer: dict[str, Any] = msgspec.to_builtins(
            end_record(self.names, settle(self._sheet, self.convention).amounts, self.charge)
        )
        return trailer


def _own_card_rule(state: HandState) -> dict[str, Any]:
    """What a seat's client needs to choose from its own hidden cards, which only it knows: how many it discards
    (the host's hand holds imputed cards, so the count is all it can say), and which cards the trick admits — the
    suit led, the trump, and the card to beat when the rules make a seat head the trick (``legal_cards``'s rule)."""
    legal = legal_actions(state)
    discards = [a for a in legal if isinstance(a, Discard)]
    current = state.current
    overtake = bool(current) and state.convention.play.must_overtake
    trump = trump_of(state)
    best = None
    if overtake:
        winner = trick_winner(current, None, trump)
        best = next(card for s, card in current if s == winner)
    plays = not discards and any(isinstance(a, Play) for a in legal)
    return {
        "discard": len(discards[0].cards) if discards else 0,
        "play": plays,
        "led": led_suit(state),
        "trump": trump,
        "beat": best,
    }


def _history_row(doc: dict[str, Any]) -> dict[str, Any]:
    """A closed hand as the table's history shows it (the commit-reveal table's row: the contract's token)."""
    record = doc.get("record", {})
    contract = record.get("contract") or {}
    return {
        "hand": doc["hand"],
        "dealer": record.get("dealer"),
        "kind": record.get("kind"),
        "contract": contract.get("bid"),
        "declarer": contract.get("declarer"),
    }


def _bot_key(info: Seat) -> IdentityKey:
    assert info.bot_secret is not None  # asked of bot seats only
    return IdentityKey.from_seed(bytes.fromhex(info.bot_secret), info.name)


def _say(due: Due | None) -> str:
    return "nothing" if due is None else f"{due.player}'s {due.step}"


_HANDLERS = {
    ROSTER_TIME: MpTable._roster_time,
    ROSTER_SIGN: MpTable._roster_sign,
    MP_SIGNED: MpTable._signed,
    STATEMENT: MpTable._statement,
    TIMEOUT: MpTable._timeout,
}
