"""The parties of ``fairdeal-commit-reveal/4``: the dealer service and the seated players.

Every message is an envelope (``fairdeal/protocols/signed.py``) signed by its sender's identity key and chained to
the message before it; the service relays, so every party sees one chain. An honest player checks each message it
is shown (signature under the roster key, hand, chain link, body) and, before giving anything away, that the
protocol so far is complete: before revealing its seed, a signed commitment from every seat and the service's
signed request; before countersigning a hand, that the service's seed opens its commitment, the deck and deal
follow from the seeds and the record replays to its score lines on the player's own sheet. Anything else gets a
signed refusal instead of the answer.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from fairdeal.cards import DeckKind, to_ascii_list
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import Sheet, new_sheet
from fairdeal.errors import ProtocolError, SignedMessageError
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.derive import MAX_SESSION_HANDS, SEED_BYTES, Session
from fairdeal.protocols.deck import derive_order
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.record_check import check_hand_record, end_penalty, fraction_text
from fairdeal.protocols.record_form import played_record, signed_record
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import SERVICE, Context, Envelope, Sender, open_checked, seal
from fairdeal.protocols.transcript import seat_deal
from fairdeal.rules.convention import Convention
from fairdeal.systems import rebuild_convention


def record_hash(record: Mapping[str, Any] | None) -> str:
    """What a countersignature names: the SHA-256 of the record's canonical bytes (of ``null`` when dealt only)."""
    return hashlib.sha256(encode(None if record is None else dict(record))).hexdigest()


def expected_penalty(convention: Convention, num_seats: int, absent: Sequence[int]) -> list[dict[str, Any]]:
    """The hand line's ``penalty``: the convention's charge for each seat proved absent, in the aborts' order."""
    return [line.to_record() for seat in absent for line in abort_penalty(convention, seat, num_seats)]


MAX_ATTEMPTS = 3  # deals of one hand: after the third abort the evening ends


def proven_absent(messages: Sequence[Envelope], num_seats: int) -> list[int]:
    """The seats the hand's valid aborts prove absent, one per abort in order: an abort is valid when it names the
    first seat without an answer to the signed request it cites (the hand-open, or the reveal-request once sent)."""
    absent: list[int] = []
    start = 0
    for index, envelope in enumerate(messages):
        if envelope.kind != m.ABORT:
            continue
        attempt = messages[start:index]
        start = index + 1
        asked = [e for e in attempt if e.kind == m.REVEAL_REQUEST]
        step, answer, request = (m.REVEAL, m.REVEAL, asked[0]) if asked else (m.COMMIT, m.COMMIT, attempt[0])
        answered = sum(1 for e in attempt if e.kind == answer)
        cited = (envelope.body["step"], envelope.body["missing"], envelope.body["request"])
        if answered < num_seats and cited == (step, [answered], request.digest):
            absent.append(answered)
    return absent


def end_charge(roster: Roster, messages: Sequence[Envelope], judge: Callable[[Envelope], str | None]) -> list[int]:
    """Whom an evening's end over a hand's ``messages`` (every attempt) charges: after its last abort (the
    ``MAX_ATTEMPTS``-th), every seat the valid aborts prove absent, once per abort; after a signed hand-close, the
    first seat without a countersignature; for a refusal, the party ``judge`` finds at fault in what the refuser
    was shown (``None``: nothing, so the refuser broke off without cause), a seat only (the service is not on the
    sheet)."""
    last = messages[-1]
    if last.kind == m.ABORT:
        return proven_absent(messages, len(roster.seats))
    if last.kind == m.REFUSAL:
        party = judge(last)
        if party is None:
            return [int(last.sender)]
        seats = [seat for seat in range(len(roster.seats)) if roster.party(seat) == party]
        return seats[:1]
    closes = [i for i, e in enumerate(messages) if e.kind == m.CLOSE]
    if not closes:
        return []
    return [len(messages) - 1 - closes[-1]]


def end_step(messages: Sequence[Envelope]) -> str:
    kind = messages[-1].kind
    return kind if kind in (m.REFUSAL, m.ABORT) else m.RECORD_SIGN


def charged_parties(roster: Roster, charged: Sequence[int]) -> str:
    """The charged parties in words, each once, with how often (an abort is charged once per attempt)."""
    counts = Counter(charged)
    named = [roster.party(seat) + (f" ({n} times)" if n > 1 else "") for seat, n in counts.items()]
    return ", ".join(named) or "no one"


def end_problem(messages: Sequence[Envelope]) -> str | None:
    """Why a hand's ``messages`` cannot end the evening (``None``: they can): an aborted hand is dealt again until
    its ``MAX_ATTEMPTS``-th abort."""
    aborts = sum(1 for e in messages if e.kind == m.ABORT)
    if messages and messages[-1].kind == m.ABORT and aborts < MAX_ATTEMPTS:
        return f"a hand aborted {aborts} time(s) is dealt again (up to {MAX_ATTEMPTS} attempts), not ended"
    return None


def roster_convention(roster: Roster) -> Convention:
    header = roster.header()
    try:
        return _convention(header["system"], roster.convention, header["pulya"])
    except TypeError:  # a house rule whose value cannot be hashed: rebuilt every time
        return rebuild_convention(header["system"], header["convention"], header["pulya"])


@lru_cache(maxsize=64)  # every transcript of a session states the same convention; a Convention is a frozen value
def _convention(system: str, rules: tuple[tuple[str, Any], ...], pulya: int) -> Convention:
    return rebuild_convention(system, dict(rules), pulya)


class LateAnswer(ProtocolError):
    """Asked after the step's deadline: an honest player sends nothing then (the table has moved on)."""


def _on_time(deadline: float | None) -> None:
    """The player's own clock (``time.monotonic``) against the step's deadline, checked before it reads or
    changes anything, so an answer it gives up on leaves no trace in its state."""
    if deadline is not None and time.monotonic() > deadline:
        raise LateAnswer("the step's time has passed; no answer")


class Party:
    """What every party keeps: its key, the roster, and the chain of messages it has accepted."""

    def __init__(self, sender: Sender, key: IdentityKey, roster: Roster):
        self.sender, self.key, self.roster = sender, key, roster
        self.session = Session(roster.table, roster.session, roster.hash)
        self.keys: dict[Sender, PublicKey] = {SERVICE: roster.service}
        self.keys.update({seat: s.key for seat, s in enumerate(roster.seats)})
        self.names: dict[Sender, str] = {seat: s.name for seat, s in enumerate(roster.seats)}
        self.chain: list[Envelope] = []
        self.last = roster.hash
        self._known: set[str] = set()

    @property
    def party(self) -> str:
        return self.roster.party(self.sender)

    def ctx(self, hand: int) -> Context:
        return Context(self.roster.table, self.roster.session, hand, self.roster.hash)

    def send(self, hand: int, kind: str, body: Mapping[str, Any]) -> Envelope:
        envelope = seal(self.key, self.ctx(hand), self.sender, kind, body, self.last)
        self._append(envelope)
        return envelope

    def accept(self, envelope: Envelope, hand: int, presenter: str = SERVICE) -> Envelope:
        """Check a message shown by the relay against the chain so far, and take it into the chain."""
        opened = open_checked(
            envelope, self.ctx(hand), self.keys, prev=self.last, presenter=presenter, names=self.names
        )
        m.checked_body(opened, self.names)
        self._append(opened)
        return opened

    def _append(self, envelope: Envelope) -> None:
        self.chain.append(envelope)
        self.last = envelope.digest
        self._known.add(self.last)


class Player(Party):
    """A seated player with its identity key; seeds are fresh OS randomness unless ``seed_source`` is given
    (reproducible runs and test vectors only)."""

    def __init__(
        self, seat: int, key: IdentityKey, roster: Roster, seed_source: Callable[[int, int], bytes] | None = None
    ):
        if roster.seats[seat].key != key.public:
            raise ProtocolError(f"player at seat {seat}: the roster does not give this seat my identity key")
        super().__init__(seat, key, roster)
        self.seat = seat
        self._seed_source = seed_source or (lambda hand, attempt: secrets.token_bytes(SEED_BYTES))
        self.convention = roster_convention(roster)
        self.sheet: Sheet = new_sheet(self.convention, len(roster.seats))
        self.expected_commitment: str | None = None  # the service's next chain link
        self.done = 0  # hands countersigned
        # The sheet, hand count and next service link before my last countersignature (an end may void that hand).
        self._before: tuple[Sheet, int, str | None] = (self.sheet, 0, None)
        self._seed = b""
        self._pending_record: str | None = None

    def sign_roster(self) -> Roster:
        return self.roster.signed_by(self.key)

    def accept_session(self, shown: Sequence[Envelope]) -> Envelope:
        """Check the service's signed opening (and the roster) before anything else; answer with an acceptance."""
        if (again := self._again(0, m.ACCEPT, shown)) is not None:
            return again
        try:
            self.roster.check()
            opening = self._accept_all(shown, 0)
            if not opening or opening[0].kind != m.OPEN or len(self.chain) != self.seat + 1:
                raise SignedMessageError("the session opening is not what the chain holds", SERVICE, "session open")
        except (SignedMessageError, ProtocolError) as error:
            return self._refuse(0, m.ACCEPT, error)
        self.expected_commitment = opening[0].body["anchor"]
        return self.send(0, m.ACCEPT, {"roster": self.roster.hash})

    def commit(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        """A commitment to a fresh seed, once the service's signed hand-open names the chain's next link."""
        _on_time(deadline)
        if (again := self._again(hand, m.COMMIT, shown)) is not None:
            return again
        try:
            self._accept_all(shown, hand)
            opened, commits = self._attempt(hand)
            if commits != self.seat:
                raise SignedMessageError("the seats before mine have not all committed", SERVICE, "commitment order")
            self._seed = self._seed_source(hand, opened.body["attempt"])
            if len(self._seed) != SEED_BYTES:
                raise ProtocolError(f"a seed is {SEED_BYTES} bytes")
        except (SignedMessageError, ProtocolError) as error:
            return self._refuse(hand, m.COMMIT, error)
        attempt = opened.body["attempt"]
        commitment = self.session.seed_commitment(hand, attempt, self.seat, self._seed)
        return self.send(hand, m.COMMIT, {"attempt": attempt, "commitment": commitment})

    def reveal(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        """The seed, only after a signed commitment from every seat, in order, and the service's signed request."""
        _on_time(deadline)
        if (again := self._again(hand, m.REVEAL, shown)) is not None:
            return again
        try:
            self._accept_all(shown, hand)
            opened, commits = self._attempt(hand)
            if commits != len(self.roster.seats):
                raise SignedMessageError("not every seat has a signed commitment yet", SERVICE, "commitments")
            if not any(e.kind == m.REVEAL_REQUEST for e in self.chain[self.chain.index(opened) :]):
                raise SignedMessageError("the service has not asked for the seeds", SERVICE, "reveal request")
        except (SignedMessageError, ProtocolError) as error:
            return self._refuse(hand, m.REVEAL, error)
        return self.send(hand, m.REVEAL, {"attempt": opened.body["attempt"], "seed": self._seed.hex()})

    def countersign(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        """Countersign the hand's record once the service's reveal, the deck, the deal and the record all hold."""
        _on_time(deadline)
        if (again := self._again(hand, m.RECORD_SIGN, shown)) is not None:
            return again
        try:
            self._accept_all(shown, hand)
            close = self.chain[-1 - self._countersigned_since_close()]
            if close.kind != m.CLOSE:
                raise SignedMessageError("no hand-close to countersign", SERVICE, "hand close")
            sheet = self._judge_close(hand, close)
        except (SignedMessageError, ProtocolError) as error:
            return self._refuse(hand, m.RECORD_SIGN, error)
        self._before = (self.sheet, self.done, self.expected_commitment)
        self.sheet, self.done, self.expected_commitment = sheet, hand, close.body["seed"]
        return self.send(hand, m.RECORD_SIGN, {"record": record_hash(close.body["record"])})

    def sign_settlement(self, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        """Countersign the settlement if it is what my own sheet settles to, after the hands I countersigned."""
        _on_time(deadline)
        if (again := self._again(0, m.SETTLEMENT_SIGN, shown)) is not None:
            return again
        try:
            accepted = self._accept_all(shown, 0, self.done + 1)
            settlement = next(e for e in reversed(accepted) if e.kind == m.SETTLEMENT)
            sheet, done = self._ended() if any(e.kind == m.END for e in accepted) else (self.sheet, self.done)
            amounts = settle(sheet, self.convention).amounts
            expected = {s.name: fraction_text(a) for s, a in zip(self.roster.seats, amounts)}
            if settlement.body != {"hands": done, "amounts": expected}:
                raise SignedMessageError(f"the settlement is not my sheet's {expected}", SERVICE, "settlement")
        except StopIteration:
            return self._refuse(0, m.SETTLEMENT_SIGN, SignedMessageError("no settlement", SERVICE, "settlement"))
        except (SignedMessageError, ProtocolError) as error:
            return self._refuse(0, m.SETTLEMENT_SIGN, error)
        return self.send(0, m.SETTLEMENT_SIGN, {"settlement": settlement.digest})

    def _again(self, hand: int, kind: str, shown: Sequence[Envelope]) -> Envelope | None:
        """The answer I gave already, when the service asks again and shows nothing new (it lost mine, say in a
        restart): the same envelope once more, so one request never gets two different signed answers."""
        last = self.chain[-1] if self.chain else None
        if last is None or (last.sender, last.kind, last.hand) != (self.sender, kind, hand):
            return None
        return last if all(e.digest in self._known for e in shown) else None

    def _ended(self) -> tuple[Sheet, int]:
        """The sheet and hand count an evening's end leaves, checked against my own chain: the end follows the last
        message of the hand it ends and charges the party that chain proves at fault, and that hand is void."""
        index = max(i for i, e in enumerate(self.chain) if e.kind == m.END)
        end = self.chain[index]
        messages = self._hand_messages(index)
        hand = messages[0].hand if messages else 0
        now = (self.sheet, self.done, self.expected_commitment)
        sheet, done, link = self._before if hand == self.done else now
        if not messages or hand != done + 1 or messages[-1].digest != end.body["evidence"]:
            raise SignedMessageError("the end does not follow the hand in progress", SERVICE, "end")
        if (problem := end_problem(messages)) is not None:
            raise SignedMessageError(problem, SERVICE, "end")
        self.sheet, self.done, self.expected_commitment = sheet, done, link
        try:
            self._check_aborts(hand, index)
            charged = end_charge(self.roster, messages, lambda refusal: self._fault_before(hand, messages))
        finally:
            self.sheet, self.done, self.expected_commitment = now
        expected = {"hand": hand, "step": end_step(messages), "charged": charged, "evidence": messages[-1].digest}
        if end.body != expected:
            raise SignedMessageError(f"the end should be {expected}", SERVICE, "end")
        return sheet.apply(end_penalty(self.convention, len(self.roster.seats), charged)), done

    def _hand_messages(self, index: int) -> list[Envelope]:
        """The messages of the last hand begun before ``index`` in my chain, every attempt from its first
        hand-open."""
        opens = [i for i, e in enumerate(self.chain[:index]) if e.kind == m.HAND_OPEN]
        if not opens:
            return []
        hand = self.chain[opens[-1]].hand
        first = min(i for i in opens if self.chain[i].hand == hand)
        return self.chain[first:index]

    def _fault_before(self, hand: int, messages: Sequence[Envelope]) -> str | None:
        """The party at fault in what a refusal answered, by my own checks (``None``: everything holds)."""
        try:
            self._attempt(hand)
            closes = [e for e in messages if e.kind == m.CLOSE]
            if closes:
                self._judge_close(hand, closes[-1])
        except SignedMessageError as error:
            return error.party
        return None

    def _accept_all(self, shown: Sequence[Envelope], hand: int, ending: int | None = None) -> list[Envelope]:
        accepted = []
        for envelope in shown:
            if envelope.digest in self._known:
                continue
            # Others' answers to the step before may still arrive (of the last hand, or of the opening); an
            # evening's end shows the rest of the hand it ends.
            steps = (self.done, hand, ending)
            opens_ended = envelope.kind == m.HAND_OPEN and envelope.hand == ending  # an end after aborted openings
            at = envelope.hand if envelope.hand in steps and (envelope.kind != m.HAND_OPEN or opens_ended) else hand
            accepted.append(self.accept(envelope, at))
        return accepted

    def _countersigned_since_close(self) -> int:
        count = 0
        for envelope in reversed(self.chain):
            if envelope.kind != m.RECORD_SIGN:
                return count
            count += 1
        return count

    def _attempt(self, hand: int) -> tuple[Envelope, int]:
        """The current attempt's hand-open and how many seats (in order) have committed since; checks the open."""
        index = max((i for i, e in enumerate(self.chain) if e.kind == m.HAND_OPEN), default=-1)
        if index < 0 or self.chain[index].hand != hand:
            raise SignedMessageError(f"no signed hand-open for hand {hand}", SERVICE, "hand open")
        opened = self.chain[index]
        self._check_aborts(hand, index)
        if hand != self.done + 1:
            raise SignedMessageError(f"hand {hand} is not the next hand ({self.done + 1})", SERVICE, "hand sequence")
        if opened.body["commitment"] != self.expected_commitment:
            raise SignedMessageError("the service commitment is not its chain's next link", SERVICE, "commitment")
        if opened.body["dealer"] >= len(self.roster.seats):
            raise SignedMessageError("the dealer is not a seat", SERVICE, "hand open")
        commits = 0
        for envelope in self.chain[index + 1 :]:
            if envelope.kind == m.COMMIT:
                if envelope.sender != commits or envelope.body["attempt"] != opened.body["attempt"]:
                    raise SignedMessageError("a commitment out of seat order", SERVICE, "commitment order")
                commits += 1
        return opened, commits

    def _check_aborts(self, hand: int, index: int) -> None:
        """An abort that names me although I answered its request means the relay dropped my answer."""
        mine = {(e.kind, e.body.get("attempt")) for e in self.chain if e.sender == self.seat and e.hand == hand}
        for envelope in self.chain[:index]:
            body = envelope.body
            named = envelope.kind == m.ABORT and envelope.hand == hand and self.seat in body["missing"]
            if named and (body["step"], body["attempt"]) in mine:
                raise SignedMessageError("an abort names me absent, but I answered its request", SERVICE, "abort")

    def _judge_close(self, hand: int, close: Envelope) -> Sheet:
        opened, _ = self._attempt(hand)
        body = close.body
        if self.session.chain_step(hand, bytes.fromhex(body["seed"])).hex() != opened.body["commitment"]:
            raise SignedMessageError("the service's seed does not open its commitment", SERVICE, "reveal")
        seeds = self._revealed(hand, opened)
        order = derive_order(deck_input_of(self.session, self.convention, hand, opened, body["seed"], seeds), self.deck)
        if body["deck_order"] != to_ascii_list(order):
            raise SignedMessageError("the deck order is not the one the seeds derive", SERVICE, "deck derivation")
        num_seats = len(self.roster.seats)
        dealer = opened.body["dealer"]
        deal = seat_deal(order, self.convention.table.pattern_name(num_seats), dealer, num_seats)
        if body["deal"] != deal:
            raise SignedMessageError("the deal does not follow the deal pattern", SERVICE, "deal pattern")
        record = None if body["record"] is None else played_record(body["record"])
        if record is None:  # dealt only: nothing played to judge
            return self.sheet
        charged = record.get("penalty", [])
        expected = expected_penalty(self.convention, num_seats, self._absent(hand))
        if charged != expected:
            raise SignedMessageError(f"the record charges {charged}, the aborts {expected}", SERVICE, "abort penalty")
        doc = {"hand": hand, "dealer": dealer, "deal": deal, "record": record}
        problems, sheet = check_hand_record(doc, self.convention, num_seats, self.sheet)
        if problems or sheet is None:
            detail = "; ".join(f"{check}: {text}" for check, text in problems) or "the score is not checkable"
            raise SignedMessageError(detail, SERVICE, "record")
        return sheet

    def _absent(self, hand: int) -> list[int]:
        return [e.body["missing"][0] for e in self.chain if e.kind == m.ABORT and e.hand == hand and e.body["missing"]]

    @property
    def deck(self) -> DeckKind:
        return DeckKind.parse(self.convention.table.deck)

    def _revealed(self, hand: int, opened: Envelope) -> list[bytes]:
        start = self.chain.index(opened)
        commits = {e.sender: e.body["commitment"] for e in self.chain[start:] if e.kind == m.COMMIT}
        seeds: dict[Sender, bytes] = {}
        for envelope in self.chain[start:]:
            if envelope.kind == m.REVEAL:
                seed = bytes.fromhex(envelope.body["seed"])
                made = self.session.seed_commitment(hand, opened.body["attempt"], int(envelope.sender), seed)
                if made != commits.get(envelope.sender):
                    party = self.roster.party(envelope.sender)
                    raise SignedMessageError("the seed does not open the commitment", party, "seed opening")
                seeds[envelope.sender] = seed
        if sorted(seeds, key=int) != list(range(len(self.roster.seats))):
            raise SignedMessageError("not every seat's seed is revealed", SERVICE, "seed opening")
        return [seeds[seat] for seat in range(len(self.roster.seats))]

    def _refuse(self, hand: int, step: str, error: SignedMessageError | ProtocolError) -> Envelope:
        check = error.check if isinstance(error, SignedMessageError) else "protocol"
        return self.send(hand, m.REFUSAL, {"step": step, "check": check, "reason": str(error)})


def deck_input_of(
    session: Session, convention: Convention, hand: int, opened: Envelope, service_seed: str, seeds: Sequence[bytes]
) -> bytes:
    beacon = opened.body["beacon"]
    return session.deck_input(
        hand,
        opened.body["attempt"],
        convention.table.deck,
        bytes.fromhex(service_seed),
        b"" if beacon is None else bytes.fromhex(beacon),
        seeds,
    )


class Service(Party):
    """The dealer service: owns the secret seed chain, relays every message, deals privately."""

    def __init__(self, key: IdentityKey, roster: Roster, hands: int, tail: bytes | None = None):
        if roster.service != key.public:
            raise ProtocolError("service: the roster does not name my identity key")
        if not 1 <= hands <= MAX_SESSION_HANDS:
            raise ProtocolError(f"service: a v4 session holds 1..{MAX_SESSION_HANDS:,} hands, not {hands}")
        super().__init__(SERVICE, key, roster)
        self.hands = hands
        self.convention = roster_convention(roster)
        self._links = self.session.build_chain(tail or secrets.token_bytes(SEED_BYTES), hands)
        self.attempt = 0
        self._seeds: dict[int, bytes] = {}
        self._commits: dict[int, str] = {}
        self._open: Envelope | None = None
        self._request: Envelope | None = None

    def open_session(self) -> Envelope:
        self.roster.check()
        return self.send(0, m.OPEN, {"hands": self.hands, "anchor": self._links[0].hex()})

    def open_hand(self, hand: int, dealer: int, beacon: bytes | None = None) -> Envelope:
        if not 1 <= hand <= self.hands:
            raise ProtocolError(f"service: hand {hand} is beyond the session's {self.hands} hands")
        self._seeds, self._commits, self._request = {}, {}, None
        self._open = self.send(
            hand,
            m.HAND_OPEN,
            {
                "attempt": self.attempt,
                "dealer": dealer,
                "commitment": self._links[hand - 1].hex(),
                "beacon": None if beacon is None else beacon.hex(),
            },
        )
        return self._open

    def take(self, envelope: Envelope, hand: int, kind: str) -> Envelope:
        """Accept a player's message; a refusal (or anything but ``kind``) stops the hand, with the evidence."""
        party = self.roster.party(envelope.sender)
        if envelope.kind == m.REFUSAL:  # it answers what the player was shown, which may not be this chain
            refusal = open_checked(envelope, self.ctx(hand), self.keys, presenter=party, names=self.names)
            if refusal.prev == self.last:  # a refusal of this chain: the evidence the evening's end cites
                self._append(refusal)
            raise ProtocolError(f"{party} refused at {refusal.body['step']}: {refusal.body['reason']}")
        accepted = self.accept(envelope, hand, presenter=party)
        if accepted.kind != kind:
            raise ProtocolError(f"{party}: expected {kind}, got {accepted.kind}")
        if kind == m.SETTLEMENT_SIGN:
            settlement = next(e for e in reversed(self.chain) if e.kind == m.SETTLEMENT)
            if accepted.body["settlement"] != settlement.digest:
                raise ProtocolError(f"{party}: the countersignature is of another settlement")
        if kind == m.COMMIT:
            self._commits[int(accepted.sender)] = accepted.body["commitment"]
        if kind == m.REVEAL:
            seed = bytes.fromhex(accepted.body["seed"])
            seat = int(accepted.sender)
            if self.session.seed_commitment(hand, self.attempt, seat, seed) != self._commits.get(seat):
                raise ProtocolError(f"{party}: the seed does not open the commitment")
            self._seeds[seat] = seed
        return accepted

    def request_reveals(self, hand: int) -> Envelope:
        self._request = self.send(hand, m.REVEAL_REQUEST, {"attempt": self.attempt})
        return self._request

    def abort(self, hand: int, step: str, missing: int) -> Envelope:
        """Give up the attempt: seat ``missing`` did not answer the signed request in time. The hand is dealt
        again from fresh seeds as the next attempt."""
        request = self._request if step == m.REVEAL else self._open
        if request is None:
            raise ProtocolError(f"service: hand {hand}: nothing was asked that could go unanswered")
        body = {"attempt": self.attempt, "step": step, "missing": [missing], "request": request.digest}
        envelope = self.send(hand, m.ABORT, body)
        self.attempt += 1
        return envelope

    def deal(self, hand: int) -> np.ndarray:
        if self._open is None or len(self._seeds) != len(self.roster.seats):
            raise ProtocolError(f"service: hand {hand}: cannot deal before every seed is revealed")
        seeds = [self._seeds[s] for s in range(len(self.roster.seats))]
        data = deck_input_of(self.session, self.convention, hand, self._open, self._links[hand].hex(), seeds)
        return derive_order(data, DeckKind.parse(self.convention.table.deck))

    def close_hand(
        self, hand: int, order: np.ndarray, deal: Mapping[str, Any], record: Mapping[str, Any] | None
    ) -> Envelope:
        body = {
            "attempt": self.attempt,
            "seed": self._links[hand].hex(),
            "deck_order": to_ascii_list(order),
            "deal": dict(deal),
            "record": None if record is None else signed_record(dict(record)),
        }
        self.attempt = 0
        return self.send(hand, m.CLOSE, body)

    def end(self, hand: int, step: str, charged: Sequence[int]) -> Envelope:
        """End the evening in ``hand``: the party at fault (``charged``) left a signed request unanswered or refused
        without cause; the hand is void, the charge goes on the sheet and the settlement follows."""
        body = {"hand": hand, "step": step, "charged": list(charged), "evidence": self.last}
        return self.send(0, m.END, body)

    def settle(self, hands: int, amounts: Sequence[Fraction]) -> Envelope:
        body = {"hands": hands, "amounts": {s.name: fraction_text(a) for s, a in zip(self.roster.seats, amounts)}}
        return self.send(0, m.SETTLEMENT, body)
