"""One online table: the commit-reveal session and the engine's hands, rebuilt from the table's stored messages.

The table is event-sourced. Its roster is the ``seats`` rows and its history the ``messages`` rows; everything
else — the dealer service's chain, the countersigned session, the hand in progress, the sheet — is recomputed by
feeding the stored messages, in order, through the same ``submit`` that accepted them live. So a restarted server
resumes every table exactly where it stood, and nothing lives only in memory.

Protocol order (``protocols/commit-reveal.md``): when the last chair is taken the service signs the session
opening; every seat countersigns it; then for each hand the service commits (the chain's link), every seat
commits to a fresh seed, then every seat opens its seed, the deck is derived and dealt, the hand is played
through the engine, and the service reveals its link, which closes the hand's transcript.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np
from nacl.signing import SigningKey

from fairdeal.deal import deal_order, get_pattern
from fairdeal.engine.actions import Action
from fairdeal.engine.bots import Bot
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.match import dealer_of
from fairdeal.engine.match_log import end_record, hand_fields, sheet_extras, table_record
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import Sheet, is_finished, new_sheet
from fairdeal.engine.sheet_view import sheet_json
from fairdeal.engine.state import HandState
from fairdeal.engine.system import System, get_system
from fairdeal.engine.view import view_for
from fairdeal.errors import FairdealError, ProtocolError
from fairdeal.log.records import TranscriptRecord
from fairdeal.protocols.commit_reveal import (
    DealerService,
    SeedCommitment,
    SignedSession,
    seed_statement,
    session_statement,
    sign,
    signature_holds,
)
from fairdeal.protocols.derive import seed_commitment
from fairdeal.protocols.encoding import frame, from_hex, u64
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import build_transcript, transcript_hash
from fairdeal.rules.convention import Convention

SESSION = "pulya"
BOT_SEED_DOMAIN = "fairdeal-serve/bot-seed"


class Refused(FairdealError):
    """A client message the table does not accept; the text is sent back as one line, nothing is stored."""


class Stage(Enum):
    SEATING = "seating"  # chairs still empty
    COUNTERSIGN = "countersign"  # the session opening awaits every seat's countersignature
    COMMIT = "commit"  # seed commitments for the hand
    SEED = "seed"  # seed openings for the hand
    PLAY = "play"  # the engine's hand
    FINISHED = "finished"  # the pulya closed (or reached the table's hand cap)
    ABORTED = "aborted"


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    key: str  # ed25519 public key, hex
    bot_secret: str | None = None  # a server-side bot's signing-key seed; None for a person

    @property
    def is_bot(self) -> bool:
        return self.bot_secret is not None


@dataclass(frozen=True)
class Message:
    """An accepted (or proposed) client message: the envelope less the table, which the caller checked."""

    seat: int
    seq: int
    type: str
    body: dict[str, Any]
    signature: str | None = None


@dataclass(frozen=True)
class Derived:
    """Rows a message produced besides itself (a closed hand); stored in the same transaction as the message."""

    hand: int
    transcript: dict[str, Any]
    sha256: str
    line: dict[str, Any]
    sheet: dict[str, Any]


@dataclass
class _Countersigned:
    """Stands for a remote seat in ``DealerService.open_session``: returns the signature the seat already sent."""

    name: str
    seat: int
    public_key: str
    signature: str

    def countersign(self, statement: dict[str, Any], service_signature: str) -> str:
        return self.signature


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


def encode_action(action: Action) -> dict[str, Any]:
    """An engine action as a JSON object: its kind and fields (enums by value, card tuples as lists)."""
    out: dict[str, Any] = {"kind": type(action).__name__.lower()}
    for name, value in vars(action).items():
        out[name] = value.value if isinstance(value, Enum) else list(value) if isinstance(value, tuple) else value
    return out


@dataclass
class Table:
    """A table's live state; build it with ``Table.load`` from its rows, then feed it messages with ``submit``."""

    id: str
    system: System
    num_seats: int
    max_hands: int
    service_secret: str
    chain_tail: str
    seats: dict[int, Seat] = field(default_factory=dict)
    stage: Stage = Stage.SEATING
    reason: str | None = None
    last_seq: dict[int, int] = field(default_factory=dict)
    statement: dict[str, Any] | None = None
    service_signature: str | None = None
    countersigned: dict[int, str] = field(default_factory=dict)
    service: DealerService | None = None
    session: SignedSession | None = None
    hand: int = 0
    dealer: int = 0
    service_commitment: str | None = None
    commitments: dict[int, SeedCommitment] = field(default_factory=dict)
    opened: set[int] = field(default_factory=set)
    state: HandState | None = None
    sheet: Sheet | None = None
    previous: str | None = None
    history: list[HandRecord] = field(default_factory=list)
    reveals: dict[int, str] = field(default_factory=dict)
    _opening: int = 0
    _bots: dict[int, Bot] = field(default_factory=dict)

    # ---- building --------------------------------------------------------------------------------------------

    @classmethod
    def new(
        cls, table_id: str, system: str, num_seats: int, max_hands: int, service_secret: str, chain_tail: str
    ) -> Table:
        sys_ = get_system(system)
        sys_.convention.check_players(num_seats)
        table = cls(table_id, sys_, num_seats, max_hands, service_secret, chain_tail)
        table.sheet = new_sheet(sys_.convention, num_seats)
        return table

    @classmethod
    def load(cls, row: dict[str, Any], seat_rows: list[dict[str, Any]], messages: list[Message]) -> Table:
        """Rebuild a table from its rows: the roster, then every stored message replayed in order."""
        table = cls.new(row["id"], row["system"], row["seats"], row["max_hands"], row["service_key"], row["chain_tail"])
        for seat in seat_rows:
            table.seats[seat["seat"]] = Seat(seat["seat"], seat["name"], seat["key"], seat["bot_secret"])
        table._maybe_open()
        for message in messages:
            table.submit(message)
        if row["status"] == Stage.ABORTED.value:
            table.stage, table.reason = Stage.ABORTED, row["reason"]
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
    def _live_service(self) -> DealerService:
        assert self.service is not None  # set when the roster is full (``_maybe_open``)
        return self.service

    @property
    def _live_session(self) -> SignedSession:
        assert self.session is not None  # set when every seat has countersigned
        return self.session

    @property
    def _live_statement(self) -> dict[str, Any]:
        assert self.statement is not None  # set when the roster is full (``_maybe_open``)
        return self.statement

    @property
    def _live_commitment(self) -> str:
        assert self.service_commitment is not None  # set when a hand begins
        return self.service_commitment

    @property
    def convention(self) -> Convention:
        return self.system.convention

    @property
    def spec(self) -> TableSpec:
        return TableSpec(
            self.id, SESSION, self.max_hands, tuple(self.seats[s].name for s in range(self.num_seats)), self.convention
        )

    # ---- seating ---------------------------------------------------------------------------------------------

    def check_seat(self, seat: int, name: str, key: str) -> None:
        """Refuse a chair that is taken, a name or key already at the table, or a table that has begun."""
        if self.stage is not Stage.SEATING:
            raise Refused(f"table {self.id} has no empty chair")
        if not 0 <= seat < self.num_seats:
            raise Refused(f"seat {seat} is outside 0..{self.num_seats - 1}")
        if seat in self.seats:
            raise Refused(f"seat {seat} is taken by {self.seats[seat].name}")
        if any(s.name == name for s in self.seats.values()):
            raise Refused(f"the name {name!r} is already at table {self.id}")
        if any(s.key == key for s in self.seats.values()):
            raise Refused(f"this key already holds a seat at table {self.id}")

    def take_seat(self, seat: Seat) -> None:
        self.check_seat(seat.seat, seat.name, seat.key)
        self.seats[seat.seat] = seat
        self._maybe_open()

    def seat_of_key(self, key: str) -> int | None:
        return next((s.seat for s in self.seats.values() if s.key == key), None)

    def _maybe_open(self) -> None:
        """Once every chair is taken: the service signs the session opening, and every seat must countersign."""
        if self.stage is not Stage.SEATING or len(self.seats) < self.num_seats:
            return
        key = SigningKey(bytes.fromhex(self.service_secret))
        self.service = DealerService(self.spec, key=key, tail=bytes.fromhex(self.chain_tail))
        keys = [self.seats[s].key for s in range(self.num_seats)]
        self.statement = session_statement(
            self.spec, bytes.fromhex(self._live_service.commitment(1)), self._live_service.public_key, keys
        )
        self.service_signature = sign(key, self.statement)
        self.stage = Stage.COUNTERSIGN

    # ---- messages --------------------------------------------------------------------------------------------

    def submit(self, message: Message) -> list[Derived]:
        """Accept ``message`` or raise ``Refused`` leaving the table unchanged; returns the rows it produced."""
        if message.seat not in self.seats:
            raise Refused(f"seat {message.seat} is empty at table {self.id}")
        if message.seq <= self.last_seq.get(message.seat, 0):
            raise Refused(
                f"seat {message.seat}: message {message.seq} is a replay "
                f"(the last accepted was {self.last_seq[message.seat]})"
            )
        handler = _HANDLERS.get(message.type)
        if handler is None:
            raise Refused(f"unknown message type {message.type!r}")
        if self.stage in (Stage.FINISHED, Stage.ABORTED):
            raise Refused(f"table {self.id} is {self.stage.value}")
        handler(self, message.seat, message.body)
        self.last_seq[message.seat] = message.seq
        return self._advance()

    def _countersign(self, seat: int, body: dict[str, Any]) -> None:
        self._expect(Stage.COUNTERSIGN, "countersign")
        if seat in self.countersigned:
            raise Refused(f"seat {seat} has already countersigned the session")
        signature = _hex(body, "signature", 64)
        if not signature_holds(self.seats[seat].key, self._live_statement, signature):
            raise Refused(f"seat {seat}: the countersignature does not verify under the seat's key")
        self.countersigned[seat] = signature

    def _commit(self, seat: int, body: dict[str, Any]) -> None:
        self._expect(Stage.COMMIT, "commit")
        if seat in self.commitments:
            raise Refused(f"seat {seat} has already committed to a seed for hand {self.hand}")
        statement, signature = body.get("statement"), _hex(body, "signature", 64)
        if not isinstance(statement, dict) or statement.get("seat") != seat:
            raise Refused(f"seat {seat}: body.statement must be this seat's seed-commitment statement")
        commitment = SeedCommitment(seat, statement, signature)
        try:
            self._live_service.accept_commitment(commitment)
        except ProtocolError as exc:
            raise Refused(str(exc)) from None
        self.commitments[seat] = commitment

    def _seed(self, seat: int, body: dict[str, Any]) -> None:
        self._expect(Stage.SEED, "open a seed")
        if seat in self.opened:
            raise Refused(f"seat {seat} has already opened its seed for hand {self.hand}")
        try:
            self._live_service.accept_seed(seat, from_hex(body.get("seed"), 32, "body.seed"))
        except ProtocolError as exc:
            raise Refused(str(exc)) from None
        self.opened.add(seat)

    def _act(self, seat: int, body: dict[str, Any]) -> None:
        self._expect(Stage.PLAY, "play")
        if to_move(self._live_state) != seat:
            raise Refused(f"seat {seat}: it is not your turn (seat {to_move(self._live_state)} is to act)")
        wanted = body.get("action")
        action = next((a for a in legal_actions(self._live_state) if encode_action(a) == wanted), None)
        if action is None:
            raise Refused(f"seat {seat}: {_short(wanted)} is not a legal action now")
        self.state = apply(self._live_state, action)

    def _expect(self, stage: Stage, what: str) -> None:
        if self.stage is not stage:
            raise Refused(f"cannot {what} now: the table is at the {self.stage.value} stage")

    # ---- the service's own steps -----------------------------------------------------------------------------

    def _advance(self) -> list[Derived]:
        """Take every step that needs no client: open the session, begin, deal and close hands."""
        derived: list[Derived] = []
        while True:
            if self.stage is Stage.COUNTERSIGN and len(self.countersigned) == self.num_seats:
                self._open_session()
            elif self.stage is Stage.COMMIT and len(self.commitments) == self.num_seats:
                self.stage = Stage.SEED
            elif self.stage is Stage.SEED and len(self.opened) == self.num_seats:
                self._deal()
            elif self.stage is Stage.PLAY and is_over(self._live_state):
                derived.append(self._close_hand())
                self._next_hand()
            else:
                return derived

    def _open_session(self) -> None:
        proxies = [
            _Countersigned(self.seats[s].name, s, self.seats[s].key, self.countersigned[s])
            for s in range(self.num_seats)
        ]
        self.session = self._live_service.open_session(proxies)
        self._next_hand()

    def _next_hand(self) -> None:
        if self.hand >= self.max_hands or is_finished(self._live_sheet, self.convention):
            self.stage = Stage.FINISHED
            return
        self.hand += 1
        self.dealer, self._opening = dealer_of(self.convention, self.hand - 1, 0, self.num_seats)
        self.service_commitment = self._live_service.begin_hand(self.hand, self.dealer)
        self.commitments, self.opened, self.state = {}, set(), None
        self.stage = Stage.COMMIT

    def _deal(self) -> None:
        deal = deal_order(self._live_service.deal(), get_pattern(self.convention.table.pattern_name(self.num_seats)))
        self.state = new_hand(
            self.convention,
            self.num_seats,
            self.dealer,
            deal,
            self._live_sheet.raspasy_streak,
            self._opening,
            self._live_sheet.refe_seats(),
        )
        self.stage = Stage.PLAY

    def _close_hand(self) -> Derived:
        outcome = result(self._live_state)
        before = self._live_sheet
        self.sheet, lines = self.system.score_hand(before, outcome)
        round_ = self._live_service.current_round()
        fields = hand_fields(
            self.hand, self._live_state, {}, lines, sheet_extras(before, self.sheet, outcome, self.convention)
        )
        record = {k: v for k, v in fields.items() if k != "type"}
        link = self._live_service.reveal()
        doc = build_transcript(self._live_session, round_, self._live_commitment, self.previous, link, record)
        digest = transcript_hash(doc)
        self.previous = digest
        self.reveals[self.hand] = link.hex()
        reference = TranscriptRecord(file=f"{self.id}.transcripts/hand-{self.hand:04d}.json", sha256=digest)
        line = dict(fields, transcript={"file": reference.file, "sha256": reference.sha256})
        contract = self._live_state.contract.token if self._live_state.contract else None
        self.history.append(
            HandRecord(
                self.hand,
                self.dealer,
                contract,
                self._live_state.declarer,
                outcome.kind.value,
                tuple(line.to_record() for line in lines),
                link.hex(),
            )
        )
        return Derived(self.hand, doc, digest, line, self.sheet_json())

    # ---- server-side bots ------------------------------------------------------------------------------------

    def bot_message(self) -> Message | None:
        """The next message a server-side bot must send now, or ``None`` when no bot is due."""
        for seat in sorted(self.seats):
            info = self.seats[seat]
            if not info.is_bot:
                continue
            body = self._bot_body(info)
            if body is not None:
                kind, payload = body
                return Message(seat, self.last_seq.get(seat, 0) + 1, kind, payload)
        return None

    def waiting_for(self) -> list[int]:
        """The people (not bots) the table is waiting for now."""
        if self.stage is Stage.PLAY:
            turn = to_move(self._live_state)
            due = [] if turn is None else [turn]
        elif self.stage in (Stage.COUNTERSIGN, Stage.COMMIT, Stage.SEED):
            stages: dict[Stage, Container[int]] = {
                Stage.COUNTERSIGN: self.countersigned,
                Stage.COMMIT: self.commitments,
                Stage.SEED: self.opened,
            }
            done = stages[self.stage]
            due = [s for s in range(self.num_seats) if s not in done]
        else:
            due = []
        return [s for s in due if not self.seats[s].is_bot]

    def timeout_message(self, seat: int) -> Message | None:
        """A late player's move in play is made for it by the system's bot; a protocol step cannot be (the seed
        is the player's own), so then there is none and the table is aborted."""
        if self.stage is not Stage.PLAY or to_move(self._live_state) != seat:
            return None
        action = self._bot(seat).act(view_for(self._live_state, seat))
        return Message(seat, self.last_seq.get(seat, 0) + 1, "act", {"action": encode_action(action), "timeout": True})

    def _bot_body(self, info: Seat) -> tuple[str, dict[str, Any]] | None:
        assert info.bot_secret is not None  # asked of bot seats only
        key = SigningKey(bytes.fromhex(info.bot_secret))
        if self.stage is Stage.COUNTERSIGN and info.seat not in self.countersigned:
            return "countersign", {"signature": sign(key, self._live_statement)}
        if self.stage is Stage.COMMIT and info.seat not in self.commitments:
            seed = self._bot_seed(info)
            digest = seed_commitment(self.id, SESSION, self.hand, info.name, seed).hex()
            statement = seed_statement(
                self._live_session.statement, self.hand, self.dealer, info.seat, self._live_commitment, digest
            )
            return "commit", {"statement": statement, "signature": sign(key, statement)}
        if self.stage is Stage.SEED and info.seat not in self.opened:
            return "seed", {"seed": self._bot_seed(info).hex()}
        if self.stage is Stage.PLAY and to_move(self._live_state) == info.seat:
            return "act", {"action": encode_action(self._bot(info.seat).act(view_for(self._live_state, info.seat)))}
        return None

    def _bot_seed(self, info: Seat) -> bytes:
        # Derived, not stored: the bot can open after a restart what it committed before it.
        assert info.bot_secret is not None  # asked of bot seats only
        return hashlib.sha256(frame(BOT_SEED_DOMAIN, bytes.fromhex(info.bot_secret), self.id, u64(self.hand))).digest()

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
        return {
            "table": self.id,
            "system": self.convention.name,
            "title": self.convention.title,
            "seats": self.num_seats,
            "max_hands": self.max_hands,
            "stage": self.stage.value,
            "reason": self.reason,
            "hand": self.hand,
            "dealer": self.dealer,
            "roster": [
                {"seat": s.seat, "name": s.name, "key": s.key, "bot": s.is_bot}
                for s in sorted(self.seats.values(), key=lambda s: s.seat)
            ],
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
        out: dict[str, Any] = {"stage": self.stage.value, "reveals": self.reveals, "anchor": None}
        if self.statement is not None:
            out.update(
                statement=self.statement,
                service_signature=self.service_signature,
                countersigned=sorted(self.countersigned),
                anchor=self.statement["anchor"],
            )
        if self.stage in (Stage.COMMIT, Stage.SEED, Stage.PLAY):
            out.update(
                hand=self.hand,
                dealer=self.dealer,
                service_commitment=self.service_commitment,
                committed=sorted(self.commitments),
                opened=sorted(self.opened),
            )
        if self.stage is Stage.SEED:
            out["commitments"] = [
                {"seat": c.seat, "statement": c.statement, "signature": c.signature} for c in self.commitments.values()
            ]
        need = None
        if seat is not None:
            need = {
                Stage.COUNTERSIGN: "countersign" if seat not in self.countersigned else None,
                Stage.COMMIT: "commit" if seat not in self.commitments else None,
                Stage.SEED: "seed" if seat not in self.opened else None,
            }.get(self.stage)
        out["need"] = need
        return out

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

    def log_header(self) -> dict[str, Any]:
        import msgspec

        names = [self.seats[s].name for s in range(self.num_seats)]
        header: dict[str, Any] = msgspec.to_builtins(table_record(self.convention, names, "commit-reveal"))
        return header

    def log_trailer(self) -> dict[str, Any] | None:
        if self.stage is not Stage.FINISHED:
            return None
        import msgspec

        names = [self.seats[s].name for s in range(self.num_seats)]
        trailer: dict[str, Any] = msgspec.to_builtins(
            end_record(names, settle(self._live_sheet, self.convention).amounts)
        )
        return trailer


def _hex(body: dict[str, Any], name: str, length: int) -> str:
    try:
        return from_hex(body.get(name), length, f"body.{name}").hex()
    except ProtocolError as exc:
        raise Refused(str(exc)) from None


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


_HANDLERS: dict[str, Callable[[Table, int, dict[str, Any]], None]] = {
    "countersign": Table._countersign,
    "commit": Table._commit,
    "seed": Table._seed,
    "act": Table._act,
}
