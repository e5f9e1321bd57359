"""Verification of ``fairdeal-commit-reveal/4`` documents: the roster, every signed message and its chain link,
the protocol's order, the commitments and their openings, the deck and deal, the countersigned records, the
settlement, and the session's hands chained without a gap (``protocols/commit-reveal.md``, §10).

Blame follows signatures: a message that does not verify, sits out of place or breaks the chain was put there by
the publisher (``service``); a fault in what a party validly signed (a seed that does not open its commitment, a
countersignature of another record) is that party's; a message missing after a valid signed request is the
absent party's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any

from fairdeal.cards import NUM_CODES, DeckKind, to_ascii_list
from fairdeal.collector import without_collector
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.sheet import Sheet, new_sheet
from fairdeal.errors import CanonicalError, FairdealError, ProtocolError, SignedMessageError
from fairdeal.protocols.canonical import encode, encode_decoded
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.derive import MAX_SESSION_HANDS, PROTOCOL, Session
from fairdeal.protocols.commit_reveal4.parties import (
    deck_input_of,
    end_charge,
    end_problem,
    end_step,
    expected_penalty,
    record_hash,
    roster_convention,
)
from fairdeal.protocols.commit_reveal4.source import FORMAT, SETTLEMENT_FORMAT, VERSION
from fairdeal.protocols.deck import derive_orders
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.pins import Pins as Pins  # shared by both protocols; still importable from here
from fairdeal.protocols.record_check import (
    RecordProblem,
    check_hand_record,
    replay_session,
    settlement_due,
)
from fairdeal.protocols.record_form import played_record
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import SERVICE, Context, Envelope, Sender, open_checked, parse
from fairdeal.protocols.transcript import seat_deal
from fairdeal.protocols.workers import in_chunks
from fairdeal.rules.convention import Convention

TOP_FIELDS = frozenset({"format", "version", "protocol", "roster", "opening", "hand", "messages"})
RECORD = "record"


@dataclass
class Checked:
    """One v4 document, checked as far as it could be."""

    source: str
    doc: Mapping[str, Any]
    hand: int | None = None
    decoded: bool = False  # ``doc`` is what ``canonical.decode`` returned: its parts re-encode as they stand
    roster: Roster | None = None
    convention: Convention | None = None
    failures: list[tuple[str, str, str]] = field(default_factory=list)
    first_prev: str | None = None
    opening_last: str | None = None
    last: str | None = None
    anchor: str | None = None
    hands: int | None = None
    dealer: int | None = None
    record: Mapping[str, Any] | None = None
    deal: Mapping[str, Any] | None = None
    close: Envelope | None = None
    deck_input: bytes | None = None
    settlement: Envelope | None = None
    messages: list[Envelope] = field(default_factory=list)
    aborts: list[str] = field(default_factory=list)
    absent: list[int] = field(default_factory=list)  # the seats the valid aborts prove absent
    # Where the hand stopped short (a missing countersignature, a refusal): its messages so far and the finding
    # an evening's end may settle (the settlement's signed ``end`` citing the last of them).
    partial: list[Envelope] = field(default_factory=list)
    stop: tuple[str, str, str] | None = None
    end: Envelope | None = None
    notes: list[str] = field(default_factory=list)

    def fail(self, party: str, check: str, detail: str) -> None:
        self.failures.append((party, check, detail))

    @property
    def session_key(self) -> str:
        return self.roster.hash if self.roster is not None else ""


def is_v4(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("protocol") == PROTOCOL


Chains = dict[tuple[str, str], dict[int, str]]  # (roster, anchor) -> index -> link proven in this run


@dataclass
class Openings:
    """The roster and opening last checked without a fault: every transcript of a session repeats them, so an
    identical copy takes the checked result instead of being checked again. Identical means the same canonical
    bytes: Python's ``==`` holds ``true`` equal to ``1``, which a signed roster does not."""

    roster: bytes | None = None
    opening: bytes | None = None
    checked: Checked | None = None

    def take(self, c: Checked) -> bool:
        done = self.checked
        if done is None or _bytes_of(c.doc["roster"], c.decoded) != self.roster:
            return False
        if _bytes_of(c.doc["opening"], c.decoded) != self.opening:
            return False
        c.roster, c.convention, c.anchor, c.hands, c.opening_last = (
            done.roster,
            done.convention,
            done.anchor,
            done.hands,
            done.opening_last,
        )
        return True

    def keep(self, c: Checked) -> None:
        self.roster, self.opening = _bytes_of(c.doc["roster"], c.decoded), _bytes_of(c.doc["opening"], c.decoded)
        self.checked = c


def _bytes_of(value: Any, decoded: bool) -> bytes | None:
    try:
        return encode_decoded(value) if decoded else encode(value)
    except CanonicalError:
        return None


def hand_of(doc: Mapping[str, Any]) -> int:
    hand = doc.get("hand")
    return hand if isinstance(hand, int) else 0


def check_document(
    source: str,
    doc: Mapping[str, Any],
    pins: Pins,
    chains: Chains | None = None,
    openings: Openings | None = None,
    decoded: bool = False,
) -> Checked:
    """One document on its own; ``decoded``: ``doc`` is what ``canonical.decode`` returned from its file."""
    c = Checked(source, doc, decoded=decoded)
    settlement = doc.get("format") == SETTLEMENT_FORMAT
    expected = TOP_FIELDS - {"hand"} if settlement else TOP_FIELDS
    if set(doc) != expected or doc.get("format") not in (FORMAT, SETTLEMENT_FORMAT) or doc.get("version") != VERSION:
        odd = ", ".join(sorted(set(doc) ^ expected)) or "format/version"
        c.fail(SERVICE, "transcript form", f"a version {VERSION} document has exactly {sorted(expected)}: {odd}")
        return c
    hand = 0 if settlement else doc["hand"]
    if not isinstance(hand, int) or isinstance(hand, bool) or hand < (0 if settlement else 1):
        c.fail(SERVICE, "transcript form", "$.hand: a hand number is expected")
        return c
    c.hand = None if settlement else hand
    if openings is None or not openings.take(c):
        if not _check_roster(c, pins) or not _check_opening(c):
            return c
        if openings is not None:
            openings.keep(c)
    if settlement:
        _check_settlement_messages(c)
    else:
        _check_hand_messages(c, hand, {} if chains is None else chains)
        _check_beacon(c, pins.beacon)
    return c


def _check_roster(c: Checked, pins: Pins) -> bool:
    try:
        roster = Roster.from_json(c.doc["roster"], "$.roster")
    except FairdealError as exc:
        c.fail(SERVICE, "roster", str(exc))
        return False
    try:
        roster.check()
    except ProtocolError as exc:
        c.fail(SERVICE, "roster signature", f"{exc} (the publisher's roster is not what that party signed)")
        return False
    c.roster = roster
    try:
        c.convention = roster_convention(roster)
        c.convention.check_players(len(roster.seats))
    except FairdealError as exc:
        c.fail(SERVICE, "table statement", str(exc))
        return False
    if pins.roster is not None and pins.roster.hash != roster.hash:
        c.fail(
            SERVICE,
            "roster pin",
            "the transcript's roster is not the pinned roster: " + _roster_difference(pins.roster, roster),
        )
    for who, key in pins.keys:
        seat = _pinned_party(roster, who)
        if seat is None:
            c.fail(SERVICE, "identity pin", f"{who!r} is not a seat, a name or 'service' of this roster")
        elif roster.key_of(seat) != key:
            c.fail(
                SERVICE,
                "identity pin",
                f"{roster.party(seat)} holds key {roster.key_of(seat).hex[:16]}…, pinned {key.hex[:16]}…",
            )
    if pins.me is not None and pins.me.public not in [s.key for s in roster.seats]:
        c.fail(SERVICE, "my seat", "my identity key is not on this roster: the session was not played with me")
    return not c.failures


def _roster_difference(pinned: Roster, roster: Roster) -> str:
    if pinned.service != roster.service:
        return "the service's key differs"
    for index, (a, b) in enumerate(zip(pinned.seats, roster.seats)):
        if a != b:
            return f"seat {index} is {b.name} with key {b.key.hex[:16]}…, pinned {a.name} with {a.key.hex[:16]}…"
    return "the table, session, time, convention or number of seats differs"


def _pinned_party(roster: Roster, who: str) -> Sender | None:
    if who == SERVICE:
        return SERVICE
    for index, seat in enumerate(roster.seats):
        if who in (str(index), seat.name):
            return index
    return None


def _keys(roster: Roster) -> dict[Sender, PublicKey]:
    keys: dict[Sender, PublicKey] = {SERVICE: roster.service}
    keys.update({seat: s.key for seat, s in enumerate(roster.seats)})
    return keys


def _names(roster: Roster) -> dict[Sender, str]:
    return {seat: s.name for seat, s in enumerate(roster.seats)}


def _walk(
    c: Checked, items: Any, where: str, hand: int, grammar: Sequence[tuple[Sender, str]], prev: str | None
) -> list[Envelope] | None:
    """Open each message in turn against the grammar and the chain; ``None`` once one fails."""
    roster = c.roster
    assert roster is not None
    if not isinstance(items, list):
        c.fail(SERVICE, "transcript form", f"{where}: a list of messages is expected")
        return None
    ctx = Context(roster.table, roster.session, hand, roster.hash)
    keys, names = _keys(roster), _names(roster)
    opened: list[Envelope] = []
    for index, item in enumerate(items):
        try:
            message = parse(item, f"{where}[{index}]", c.decoded)
            envelope = open_checked(message, ctx, keys, prev, presenter=SERVICE, names=names)
            m.checked_body(envelope, names)
        except SignedMessageError as exc:
            party = exc.party if exc.party != "relay" else SERVICE
            c.fail(party, exc.check, f"{where}[{index}]: {exc}")
            return None
        if envelope.kind == m.REFUSAL:
            c.partial = [*opened, envelope]
            c.stop = (
                _refusal_party(c, opened, envelope),
                "refusal",
                f"{roster.party(envelope.sender)} refused at {envelope.body['step']}: {envelope.body['reason']}",
            )
            c.failures.append(c.stop)
            return None
        if index >= len(grammar) or (envelope.sender, envelope.kind) != grammar[index]:
            # Signed by the seat whose answer belongs here and chained to what it answers: its own wrong answer.
            if index < len(grammar) and envelope.sender == grammar[index][0] != SERVICE:
                party = roster.party(envelope.sender)
                detail = f"{party} answered with {envelope.kind} where its {grammar[index][1]} belongs"
                c.fail(party, "message order", f"{where}[{index}]: {detail}")
                return None
            c.fail(
                SERVICE,
                "message order",
                f"{where}[{index}]: {envelope.kind} from {roster.party(envelope.sender)} "
                "is not the protocol's next message",
            )
            return None
        opened.append(envelope)
        prev = envelope.digest
    c.messages = opened
    if len(opened) < len(grammar):
        sender, kind = grammar[len(opened)]
        c.partial = opened
        c.stop = (
            roster.party(sender),
            f"missing {kind}",
            (
                "the transcript ends where this party's message belongs, "
                "after the signed message asking for it (absent, or dropped by the relay: its own signed copy, "
                "chained to that request, would show which)"
            ),
        )
        c.failures.append(c.stop)
        return None
    return opened


def _attested(
    roster: Roster, items: Any, hand: int, grammar: Sequence[tuple[Sender, str]], decoded: bool
) -> list[Envelope] | None:
    """A whole hand's messages, opened with only each party's last signature checked: the service's hand-close
    and every seat's countersignature. A signature covers the message's ``prev``, the digest of the message before
    it with its signature, and so, link by link, every message before it: each party has signed the chain up to
    its last message, and every other message of the hand lies before one of them. None when the hand is not
    whole (a refusal, a missing message) or anything fails, for ``_walk`` to check every signature in order and
    name the first fault."""
    if not isinstance(items, list) or len(items) != len(grammar):
        return None
    ctx = Context(roster.table, roster.session, hand, roster.hash)
    keys = _keys(roster)
    opened: list[Envelope] = []
    prev: str | None = None
    try:
        for item, expected in zip(items, grammar):
            envelope = open_checked(parse(item, decoded=decoded), ctx, keys, prev, signature=False)
            if (envelope.sender, envelope.kind) != expected:
                return None
            m.checked_body(envelope)
            opened.append(envelope)
            prev = envelope.digest
    except SignedMessageError:
        return None
    last = {envelope.sender: envelope for envelope in opened}
    if all(keys[sender].verify(e.signed_bytes(ctx), e.signature) for sender, e in last.items()):
        return opened
    return None


def _refusal_party(c: Checked, opened: Sequence[Envelope], refusal: Envelope) -> str:
    """A refusal is a claim: if what came before it holds, the refusing player broke off without cause."""
    return c.roster.party(refusal.sender) if not c.failures else SERVICE  # type: ignore[union-attr]


def _check_opening(c: Checked) -> bool:
    roster = c.roster
    assert roster is not None
    seats = range(len(roster.seats))
    grammar = [(SERVICE, m.OPEN)] + [(seat, m.ACCEPT) for seat in seats]
    opened = _walk(c, c.doc["opening"], "$.opening", 0, grammar, roster.hash)
    if opened is None:
        return False
    for envelope in opened[1:]:
        if envelope.body["roster"] != roster.hash:
            c.fail(roster.party(envelope.sender), "session acceptance", "accepts another roster")
    c.anchor, c.hands = opened[0].body["anchor"], opened[0].body["hands"]
    if not 1 <= c.hands <= MAX_SESSION_HANDS:
        c.fail(SERVICE, "session open", f"a session holds 1..{MAX_SESSION_HANDS:,} hands, not {c.hands}")
    c.opening_last = opened[-1].digest
    return not c.failures


def hand_grammar(num_seats: int) -> list[tuple[Sender, str]]:
    seats: list[Sender] = list(range(num_seats))
    return (
        [(SERVICE, m.HAND_OPEN)]
        + [(s, m.COMMIT) for s in seats]
        + [(SERVICE, m.REVEAL_REQUEST)]
        + [(s, m.REVEAL) for s in seats]
        + [(SERVICE, m.CLOSE)]
        + [(s, m.RECORD_SIGN) for s in seats]
    )


def _attempts_grammar(items: Any, n: int) -> list[tuple[Sender, str]]:
    """The grammar the messages must follow: each attempt the full sequence, an aborted one cut where its abort
    stands (the positions are read from the unverified kinds; every message is then checked against them)."""
    full = hand_grammar(n)
    if not isinstance(items, list):
        return full
    grammar: list[tuple[Sender, str]] = []
    start = 0
    for index, item in enumerate(items):
        if isinstance(item, dict) and item.get("kind") == m.ABORT:
            grammar += full[: index - start] + [(SERVICE, m.ABORT)]
            start = index + 1
    return grammar + full


def _check_aborts(c: Checked, opened: Sequence[Envelope], n: int) -> list[Envelope]:
    """Each aborted attempt: its abort names the first seat that did not answer the signed request, which it
    cites; returns the last attempt's messages."""
    roster = c.roster
    assert roster is not None
    attempt, start = 0, 0
    for index, envelope in enumerate(opened):
        if envelope.body.get("attempt", attempt) != attempt:
            c.fail(SERVICE, "attempt", f"message {index} belongs to attempt {attempt}")
        if envelope.kind != m.ABORT:
            continue
        segment = opened[start:index]
        revealing = len(segment) > 1 + n  # the grammar put the reveal request at 1 + n
        step, missing = (m.REVEAL, len(segment) - 2 - n) if revealing else (m.COMMIT, len(segment) - 1)
        request = segment[1 + n] if revealing else segment[0]
        body = envelope.body
        if missing >= n:
            c.fail(
                SERVICE,
                "abort",
                f"attempt {attempt}: every seat answered the signed {request.kind}: "
                "the service aborted a deal it could see",
            )
        elif (body["step"], body["missing"], body["request"]) != (step, [missing], request.digest):
            c.fail(
                SERVICE,
                "abort",
                f"attempt {attempt}: the abort does not name seat {missing}, the first seat "
                f"without an answer to the signed {request.kind}",
            )
        else:
            c.absent.append(missing)
            c.aborts.append(
                f"hand {envelope.hand}: attempt {attempt} aborted: {roster.party(missing)} did not "
                f"answer the service's signed {request.kind}; dealt again from fresh seeds, "
                f"{roster.party(missing)} charged {_charge(c, missing)}"
            )
        attempt, start = attempt + 1, index + 1
    return list(opened[start:])


def _charge(c: Checked, seat: int) -> str:
    assert c.convention is not None and c.roster is not None
    lines = abort_penalty(c.convention, seat, len(c.roster.seats))
    return ", ".join(f"{line.points} {line.column}" for line in lines) or "nothing (the convention charges none)"


def _check_penalty(c: Checked, record: Mapping[str, Any] | None) -> None:
    """The hand line charges exactly the seats the valid aborts prove absent, each the convention's penalty."""
    assert c.convention is not None and c.roster is not None
    if record is None:
        return
    expected = expected_penalty(c.convention, len(c.roster.seats), c.absent)
    charged = record.get("penalty", [])
    if charged != expected:
        proved = ", ".join(c.roster.party(s) for s in c.absent) or "no one"
        c.fail(RECORD, "abort penalty", f"the record charges {charged}; the aborts prove {proved} absent: {expected}")


def _void_after_bad_abort(c: Checked, n: int) -> None:
    """A transcript cut short after an abort the service had no cause for: what is missing after it is not the
    absent-looking player's fault."""
    before = len(c.failures)
    _check_aborts(c, c.messages, n)
    if len(c.failures) > before:
        c.failures = [f for f in c.failures if f[0] == SERVICE or not f[1].startswith("missing ")]


def _check_hand_messages(c: Checked, hand: int, chains: Chains) -> None:
    roster = c.roster
    assert roster is not None and c.convention is not None and c.hands is not None
    if hand > c.hands:
        c.fail(SERVICE, "hand number", f"hand {hand} is beyond the session's {c.hands} hands")
        return
    items = c.doc["messages"]
    if isinstance(items, list) and items and isinstance(items[0], dict):
        c.first_prev = items[0].get("prev")
    n = len(roster.seats)
    grammar = _attempts_grammar(items, n)
    every = _attested(roster, items, hand, grammar, c.decoded) or _walk(c, items, "$.messages", hand, grammar, None)
    if every is None:
        _void_after_bad_abort(c, n)
        if c.stop is not None and c.partial:
            c.last = c.partial[-1].digest
        if c.stop is not None and c.stop in c.failures and any(e.kind == m.CLOSE for e in c.partial):
            _judge_stopped_close(c, hand, chains, n)
        return
    c.messages, c.last = every, every[-1].digest
    _check_attempt(c, hand, chains, every, n)


def _judge_stopped_close(c: Checked, hand: int, chains: Chains, n: int) -> None:
    """A hand stopped after its hand-close (a countersignature missing, or refused): what the close states is
    checked as in a whole hand, so an evening's end can tell a founded refusal from one without cause."""
    assert c.stop is not None
    c.failures.remove(c.stop)
    stopped = [e for e in c.partial if e.kind != m.REFUSAL]
    c.messages, c.last = stopped, c.partial[-1].digest
    _check_attempt(c, hand, chains, stopped, n)
    c.failures.append(c.stop)


def _check_attempt(c: Checked, hand: int, chains: Chains, every: list[Envelope], n: int) -> None:
    roster = c.roster
    assert roster is not None and c.convention is not None
    opened = _check_aborts(c, every, n)
    attempt = opened[0].body["attempt"]
    session = Session(roster.table, roster.session, roster.hash)
    head, commits, reveals = opened[0], opened[1 : 1 + n], opened[2 + n : 2 + 2 * n]
    close, signs = opened[2 + 2 * n], opened[3 + 2 * n :]
    c.dealer = head.body["dealer"]
    if c.dealer >= n or any(e.body["dealer"] != c.dealer for e in every if e.kind == m.HAND_OPEN):
        c.fail(SERVICE, "dealer", f"dealer seat {c.dealer} is not at the table, or changed between attempts")
    if any(e.body["commitment"] != head.body["commitment"] for e in every if e.kind == m.HAND_OPEN):
        c.fail(SERVICE, "commitment in chain", "the service commitment changed between attempts")
    if not _in_chain(session, c.anchor or "", hand, head.body["commitment"], chains):
        c.fail(SERVICE, "commitment in chain", f"the hand's commitment is not link {hand - 1} of the anchored chain")
    seeds = []
    for commit, reveal in zip(commits, reveals):
        seed = bytes.fromhex(reveal.body["seed"])
        if session.seed_commitment(hand, attempt, int(reveal.sender), seed) != commit.body["commitment"]:
            c.fail(roster.party(reveal.sender), "seed opening", "the seed does not open the player's commitment")
        seeds.append(seed)
    if session.chain_step(hand, bytes.fromhex(close.body["seed"])).hex() != head.body["commitment"]:
        c.fail(SERVICE, "reveal", "the revealed seed does not open the service's commitment")
    # A record with no "/" in the signed bytes holds no rational text to convert (most hands have no half whist).
    record = close.body["record"]
    c.record = played_record(record) if b"/" in close.content_bytes else record
    c.deal, c.close = close.body["deal"], close
    _check_penalty(c, c.record)
    signed_record = record_hash(close.body["record"])
    for sign in signs:
        if sign.body["record"] != signed_record:
            c.fail(roster.party(sign.sender), "record countersignature", "countersigns another record")
    if not [f for f in c.failures if f != c.stop]:
        c.deck_input = deck_input_of(session, c.convention, hand, head, close.body["seed"], seeds)


def _check_beacon(c: Checked, beacon: bytes | None) -> None:
    """With a pinned beacon (the public randomness the table agreed on), every attempt must mix in exactly it."""
    if beacon is None:
        return
    stated = {e.body["beacon"] for e in c.messages if e.kind == m.HAND_OPEN}
    if stated and stated != {beacon.hex()}:
        shown = ", ".join(sorted(str(b) for b in stated))
        c.fail(SERVICE, "beacon pin", f"the hand mixes in beacon {shown}, not the pinned {beacon.hex()}")


def _in_chain(session: Session, anchor: str, hand: int, commitment: str, chains: Chains) -> bool:
    """Is ``commitment`` link ``hand-1`` of the chain anchored at ``anchor``? Hashes down to the anchor or to a
    link already proven in this run (transcripts come in hand order, so each hand costs one step)."""
    known = chains.setdefault((session.roster, anchor), {0: anchor})
    link, index, path = commitment, hand - 1, list[tuple[int, str]]()
    while known.get(index) != link:
        if index == 0 or len(path) > MAX_SESSION_HANDS:
            return False
        path.append((index, link))
        link = session.chain_step(index, bytes.fromhex(link)).hex()
        index -= 1
    known.update(path)
    return True


def _check_settlement_messages(c: Checked) -> None:
    roster = c.roster
    assert roster is not None
    items = c.doc["messages"]
    if isinstance(items, list) and items and isinstance(items[0], dict):
        c.first_prev = items[0].get("prev")
    charged = _stated_charge(items)
    grammar: list[tuple[Sender, str]] = [(SERVICE, m.END)] if charged is not None else []
    grammar += [(SERVICE, m.SETTLEMENT)]
    expected = [s for s in range(len(roster.seats)) if s not in (charged or [])]
    grammar += [
        (s, m.SETTLEMENT_SIGN) for s in _signers(items[len(grammar) :] if isinstance(items, list) else [], expected)
    ]
    opened = _walk(c, items, "$.messages", 0, grammar, None)
    if opened is None and c.stop is not None and c.stop[1] == "refusal":
        opened = _refused_settlement(c)
    if opened is None:
        return
    if charged is not None:
        c.end, opened = opened[0], opened[1:]
    c.settlement, c.last = opened[0], opened[-1].digest
    for sign in opened[1:]:
        if sign.body["settlement"] != opened[0].digest:
            c.fail(roster.party(sign.sender), "settlement countersignature", "countersigns another settlement")
    if c.stop is not None:
        return  # refused: the evening did not settle, and nobody after the refuser was asked
    signed = {sign.sender for sign in opened[1:]}
    c.notes += [
        f"{roster.party(seat)} did not countersign the settlement (absent, or dropped by the relay: its own signed "
        "copy, chained to the service's signed settlement, would show which); the settlement stands: its amounts "
        "are the replayed sheet of the records every seat countersigned"
        for seat in expected
        if seat not in signed
    ]


def _refused_settlement(c: Checked) -> list[Envelope] | None:
    """A settlement a seat refused: the messages before the refusal, checked as those of a settlement, so that the
    session's checks can tell a founded refusal (the settlement, its end or its place is wrong: the publisher's
    fault) from one without cause (``settlement refusal``, the refuser's)."""
    assert c.stop is not None and c.roster is not None
    opened = c.partial[:-1]
    if not opened or (opened[0].kind == m.END and len(opened) < 2):
        return None  # a refusal before the settlement was put: the walk's finding stands
    refusal = c.partial[-1]
    c.failures.remove(c.stop)
    reason = f"{c.roster.party(refusal.sender)} refused the settlement: {refusal.body['reason']}"
    c.stop = (c.stop[0], "settlement refusal", reason)
    c.failures.append(c.stop)
    return opened


def _signers(items: Sequence[Any], expected: Sequence[int]) -> list[int]:
    """The seats whose countersignatures the settlement's grammar expects, read from the unverified senders: the
    seats that sign, in seat order, each once, a seat left out where it sent none (every message is checked
    after); a sender out of that order is expected as the next seat, so the walk names it."""
    seats: list[int] = []
    for item in items:
        sender = item.get("sender") if isinstance(item, dict) else None
        later = [s for s in expected if not seats or s > seats[-1]]
        if sender in later:
            seats.append(sender)
        elif later:
            seats.append(later[0])
    return seats


def _stated_charge(items: Any) -> list[int] | None:
    """The seats an evening's end (the settlement document's first message) says it charges, read unverified to
    shape the grammar: the charged party does not countersign its own end; every message is checked after."""
    if not isinstance(items, list) or not items or not isinstance(items[0], dict) or items[0].get("kind") != m.END:
        return None
    body = items[0].get("body")
    charged = body.get("charged") if isinstance(body, dict) else None
    return [s for s in charged if isinstance(s, int)] if isinstance(charged, list) else []


_ASCII = to_ascii_list(range(NUM_CODES))  # each card code's file form, looked up for the 32 cards of every deck


def check_decks(checks: Iterable[Checked]) -> None:
    """Derive every revealed deck in one batch per deck kind; compare the published order and deal."""
    by_deck: dict[str, list[Checked]] = {}
    for c in checks:
        if c.deck_input is not None and c.convention is not None:
            by_deck.setdefault(c.convention.table.deck, []).append(c)
    for deck, group in by_deck.items():
        orders = derive_orders([c.deck_input for c in group if c.deck_input is not None], DeckKind.parse(deck))
        for c, order in zip(group, orders):
            assert c.close is not None and c.roster is not None and c.convention is not None
            n = len(c.roster.seats)
            if c.close.body["deck_order"] != [_ASCII[code] for code in order.tolist()]:
                c.fail(SERVICE, "deck derivation", "the published deck order is not the one the seeds derive")
                c.deck_input = None
                continue
            pattern = c.convention.table.pattern_name(n)
            if c.close.body["deal"] != seat_deal(order, pattern, c.dealer or 0, n):
                c.fail(SERVICE, "deal pattern", f"the published deal does not follow pattern {pattern}")
                c.deck_input = None


def check_session(group: Sequence[Checked], replay: bool) -> tuple[list[tuple[Checked, str, str, str]], list[str]]:
    """One session's documents (same roster): hands 1.. each once, chained message to message without a gap,
    the settlement after the last hand, the records replayed and scored in order."""
    failures: list[tuple[Checked, str, str, str]] = []
    notes: list[str] = []
    hands = sorted((c for c in group if c.hand is not None), key=lambda c: c.hand or 0)
    settlements = [c for c in group if c.hand is None]
    previous: Checked | None = None
    for c in hands:
        if previous is not None and previous.hand == c.hand:
            failures.append((c, SERVICE, "hand sequence", f"hand {c.hand} appears twice ({previous.source})"))
            continue
        expected_hand = 1 if previous is None else (previous.hand or 0) + 1
        if c.hand != expected_hand:
            failures.append((c, SERVICE, "hand sequence", f"hand {expected_hand} is missing before hand {c.hand}"))
        else:
            link = c.opening_last if previous is None else previous.last
            if link is not None and c.first_prev != link:
                failures.append((c, SERVICE, "chain link", "the hand does not follow the message chain before it"))
        previous = c
    for s in settlements:
        _check_settlement_place(s, hands, failures)
    if not settlements:
        notes.append(f"{group[0].source}: no signed settlement given: the session may go on after its last hand here")
    refused = [s for s in settlements if s.stop is not None and s.stop in s.failures]
    if replay or refused:  # a refused settlement is judged against the replayed sheet, even when not asked to
        _check_records(hands, settlements, failures, notes)
    else:
        _check_ends_unreplayed(hands, settlements, failures, notes)
    for s in refused:
        _judge_settlement_refusal(s, failures, notes)
    return failures, notes


def _judge_settlement_refusal(s: Checked, failures: Sequence[tuple[Checked, str, str, str]], notes: list[str]) -> None:
    """A refused settlement did not settle the evening. The refusal was founded if what it refused is wrong —
    the settlement, its end or its place in the chain, or the records it settles (the publisher's fault, named
    by those checks; the refusal is then a note) — and otherwise stays the refuser's ``settlement refusal``."""
    assert s.stop is not None
    faults = [f for f in s.failures if f != s.stop]
    faults += [(party, check, detail) for c, party, check, detail in failures if c is s or party == RECORD]
    if faults:
        s.failures.remove(s.stop)
        notes.append(f"{s.source}: a founded refusal ({s.stop[2]})")


def _check_settlement_place(
    s: Checked, hands: Sequence[Checked], failures: list[tuple[Checked, str, str, str]]
) -> None:
    if s.settlement is None:
        return
    stated = s.settlement.body["hands"]
    numbers = [c.hand for c in hands]
    if numbers != list(range(1, stated + 1 + (s.end is not None))):  # an end cites the hand it voids
        failures.append(
            (
                s,
                SERVICE,
                "session length",
                f"the settlement closes {stated} hands; hands given: {_ranges(numbers)} (spliced or truncated)",
            )
        )
    elif s.end is not None and (s.end.body["hand"], s.end.body["evidence"]) != (hands[-1].hand, hands[-1].last):
        failures.append((s, SERVICE, "end", "the end does not cite the last message of the last hand given"))
    elif hands and hands[-1].last is not None and s.first_prev != hands[-1].last:
        failures.append((s, SERVICE, "chain link", "the settlement does not follow the last hand's messages"))
    elif not hands and s.first_prev != s.opening_last:
        failures.append((s, SERVICE, "chain link", "the settlement does not follow the session opening"))


def _ranges(numbers: Sequence[int | None]) -> str:
    return ", ".join(str(n) for n in numbers[:12]) + (" …" if len(numbers) > 12 else "") or "none"


def _check_records(
    hands: Sequence[Checked],
    settlements: Sequence[Checked],
    failures: list[tuple[Checked, str, str, str]],
    notes: list[str],
) -> None:
    if not hands or hands[0].convention is None or hands[0].roster is None:
        return
    convention, roster = hands[0].convention, hands[0].roster
    ending = next((s for s in settlements if s.end is not None), None)
    ended = hands[-1] if hands[-1].stop is not None and hands[-1].partial else None
    played = list(hands[:-1]) if ended is not None else list(hands)
    problems: list[RecordProblem] = []
    sheet: Sheet | None = new_sheet(convention, len(roster.seats))
    if played:
        docs = [_record_doc(c) for c in played]
        trusted = [c.deck_input is not None and not c.failures for c in played]
        problems, record_notes, sheet = replay_session(docs, trusted, convention, len(roster.seats))
        for problem in problems:
            failures.append((played[problem.index], RECORD, problem.check, problem.detail))
        notes += [f"{played[i].source}: hand {played[i].hand}: {text}" for i, text in record_notes]
    charged: list[int] = []
    faults = [] if ended is None else _judge_refusal(ended, sheet, failures, notes)
    if ending is not None:
        charged = _check_end(ending, ended, faults, failures, notes)
    for s in settlements:
        if s.settlement is None or sheet is None or problems:
            continue
        expected = settlement_due(sheet, convention, [seat.name for seat in roster.seats], charged)
        if s.settlement.body["amounts"] != expected:
            failures.append((s, SERVICE, "settlement", f"the replayed sheet settles to {expected}"))
        elif sum(Fraction(text) for text in expected.values()) != 0:
            failures.append((s, SERVICE, "settlement", "the settlement does not sum to zero"))


def _check_ends_unreplayed(
    hands: Sequence[Checked],
    settlements: Sequence[Checked],
    failures: list[tuple[Checked, str, str, str]],
    notes: list[str],
) -> None:
    """Without the records replayed, an end is judged on the deal and messages alone."""
    ended = hands[-1] if hands and hands[-1].stop is not None and hands[-1].partial else None
    for s in settlements:
        if s.end is not None:
            faults = [] if ended is None else [f for f in ended.failures if f != ended.stop]
            _check_end(s, ended, faults, failures, notes)


def _record_doc(c: Checked) -> dict[str, Any]:
    return {"hand": c.hand, "dealer": c.dealer, "deal": c.deal} | ({} if c.record is None else {"record": c.record})


def _judge_refusal(
    ended: Checked, sheet: Sheet | None, failures: list[tuple[Checked, str, str, str]], notes: list[str]
) -> list[tuple[str, str, str]]:
    """The faults in what a hand that stopped short had published (its deal, and for a refused record, that record
    replayed on the sheet before it). A refusal with such a fault was founded: it is a note, not the refuser's."""
    faults = [f for f in ended.failures if f != ended.stop]
    refused = ended.partial[-1].kind == m.REFUSAL
    if refused and not faults and ended.record is not None and sheet is not None and ended.convention is not None:
        found, _ = check_hand_record(
            _record_doc(ended), ended.convention, len(ended.roster.seats) if ended.roster else 0, sheet
        )
        faults = [(RECORD, check, detail) for check, detail in found]
        failures += [(ended, *f) for f in faults]
    if refused and faults and ended.stop in ended.failures:
        assert ended.stop is not None
        ended.failures.remove(ended.stop)
        notes.append(f"{ended.source}: hand {ended.hand}: a founded refusal ({ended.stop[2]})")
    return faults


def _check_end(
    s: Checked,
    ended: Checked | None,
    faults: Sequence[tuple[str, str, str]],
    failures: list[tuple[Checked, str, str, str]],
    notes: list[str],
) -> list[int]:
    """An evening's end: it must cite the hand that stopped short and charge exactly the party verify proves at
    fault (the first seat without a countersignature after the signed hand-close; for a refusal, the party at fault
    in what it refused, or the refuser when all of it holds). The hand is then void and its stop a note."""
    assert s.end is not None and s.roster is not None and s.convention is not None
    roster, body = s.roster, s.end.body
    if ended is None or ended.stop is None or not ended.partial:
        failures.append((s, SERVICE, "end", f"hand {body['hand']} did not stop short: nothing ends the evening"))
        return []
    messages, last = ended.partial, ended.partial[-1].kind
    if last not in (m.REFUSAL, m.ABORT) and ended.stop[1] != f"missing {m.RECORD_SIGN}":
        failures.append((s, SERVICE, "end", f"a hand stopped at {ended.stop[1]} is aborted and dealt again, not ended"))
        return []
    if (problem := end_problem(messages)) is not None:
        failures.append((s, SERVICE, "end", problem))
        return []
    charged = end_charge(roster, messages, lambda refusal: faults[0][0] if faults else None)
    expected = {"hand": ended.hand, "step": end_step(messages), "charged": charged, "evidence": ended.last}
    if dict(body) != expected:
        who = ", ".join(roster.party(seat) for seat in charged) or "no one on the sheet"
        failures.append((s, SERVICE, "end", f"the evidence proves {who} at fault; the end states {dict(body)}"))
        return charged
    if ended.stop in ended.failures:
        ended.failures.remove(ended.stop)
    who = ", ".join(f"{roster.party(seat)} charged {_charge(s, seat)}" for seat in charged) or "no one charged"
    why = f"{ended.stop[0]}: {ended.stop[1]}"
    if last == m.REFUSAL:
        why = ended.stop[2]
    elif last == m.ABORT:
        why = f"aborted {sum(1 for e in messages if e.kind == m.ABORT)} times"
    notes.append(f"{ended.source}: hand {ended.hand}: the evening ends here ({why}); the hand is void; {who}")
    return charged


def settlement_amounts(s: Checked) -> dict[str, Fraction] | None:
    if s.settlement is None:
        return None
    return {name: Fraction(text) for name, text in s.settlement.body["amounts"].items()}


def me_notes(group: Sequence[Checked], me: IdentityKey) -> list[str]:
    roster = group[0].roster
    if roster is None:
        return []
    seats = [i for i, s in enumerate(roster.seats) if s.key == me.public]
    if not seats:
        return []
    seat = seats[0]
    hands = [
        c.hand for c in group if c.hand is not None and any(e.sender == seat and e.kind == m.REVEAL for e in c.messages)
    ]
    text = f"me: {roster.party(seat)} at seat {seat}: my signed commitment, seed and countersignature are in hands "
    return [text + _ranges(sorted(hands))]


Finding = tuple[str, int | None, str, str, str]  # source, hand, party, check, detail


def check_documents(docs: Sequence[tuple[str, Mapping[str, Any]]], pins: Pins, decoded: bool = False) -> list[Checked]:
    """Each document on its own (in hand order, so each chain link costs one step) and the decks in one batch;
    ``decoded``: every document is what ``canonical.decode`` returned."""
    chains: Chains = {}
    openings = Openings()  # the same pins for every document, so a checked opening holds for its copies
    checks = [check_document(source, doc, pins, chains, openings, decoded) for source, doc in docs]
    check_decks(checks)
    return checks


def _portable(checks: list[Checked]) -> list[Checked]:
    """A worker's results, small to pickle: without what the parent has already (the document, and in it the
    record and deal) or rebuilds (roster, convention), and of the messages only the seeds' senders (``--me``)."""
    for c in checks:
        c.doc = {"roster": c.roster is not None, "record": c.close is not None}
        c.roster = c.convention = c.record = c.deal = c.close = None
        c.messages = [Envelope(e.sender, e.kind, e.hand, {}, e.prev, b"") for e in c.messages if e.kind == m.REVEAL]
    return checks


def _restored(checks: list[Checked], docs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Checked]:
    """The parent's side of ``_portable``: the roster and convention rebuilt once per session, the record and
    deal taken from the document's hand-close (the worker checked that very message)."""
    last: tuple[Any, Roster, Convention] | None = None
    for c, (_, doc) in zip(checks, docs):
        had_roster, had_close = c.doc["roster"], c.doc["record"]
        c.doc = doc
        if had_close:
            body = next(e["body"] for e in reversed(doc["messages"]) if e["kind"] == m.CLOSE)
            c.record, c.deal = played_record(body["record"]), body["deal"]
        if not had_roster:
            continue
        if last is None or last[0] != doc["roster"]:
            roster = Roster.from_json(doc["roster"], "$.roster")
            last = (doc["roster"], roster, roster_convention(roster))
        c.roster, c.convention = last[1], last[2]
    return checks


def portable_checks(docs: Sequence[tuple[str, Mapping[str, Any]]], pins: Pins) -> list[Checked]:
    """``check_documents`` in a worker that read (``read_document``: strictly decoded) the documents itself: each
    result keeps what the session checks
    need (the record and deal, and the roster as its JSON, for ``restored_checks``), not the document."""
    checks = check_documents(docs, pins, decoded=True)
    # A document whose roster was checked already holds that very ``Roster`` (``Openings``: the same bytes): one
    # JSON object per roster, which the pickle back to the parent then carries once.
    rosters: dict[int, Any] = {}
    kept = [
        (c.record, c.deal, None if c.roster is None else rosters.setdefault(id(c.roster), doc["roster"]))
        for c, (_, doc) in zip(checks, docs)
    ]
    for c, (record, deal, roster) in zip(_portable(checks), kept):
        c.record, c.deal, c.doc = record, deal, {"roster": roster}
    return checks


def restored_checks(checks: list[Checked]) -> list[Checked]:
    """The parent's side of ``portable_checks``: the roster and convention rebuilt once per session."""
    last: tuple[Any, Roster, Convention] | None = None
    for c in checks:
        roster_json = c.doc["roster"]
        if roster_json is None:
            continue
        if last is None or (last[0] is not roster_json and last[0] != roster_json):
            roster = Roster.from_json(roster_json, "$.roster")
            last = (roster_json, roster, roster_convention(roster))
        c.roster, c.convention = last[1], last[2]
    return checks


def verify_v4(
    docs: Sequence[tuple[str, Mapping[str, Any]]],
    pins: Pins,
    replay: bool,
    workers: int = 1,
    checked: Sequence[Checked] = (),
) -> tuple[list[Finding], list[str], list[Checked]]:
    """Check v4 documents, grouped into sessions by roster; findings, notes and the checked documents. With
    ``workers`` > 1 a long run of documents is checked on that many processes (the session checks after them
    stay in this one). ``checked``: documents checked already where they were read (``portable_checks``,
    restored), in hand order; they come first."""
    ordered = sorted(docs, key=lambda item: hand_of(item[1]))
    if workers > 1:
        chunk = partial(without_collector, lambda part: _portable(check_documents(part, pins)))
        checks = _restored(in_chunks(chunk, ordered, workers), ordered)
    else:
        checks = check_documents(ordered, pins)
    checks = [*checked, *checks]
    sessions: dict[str, list[Checked]] = {}
    for c in checks:
        if c.roster is not None:
            sessions.setdefault(c.session_key, []).append(c)
    late: list[tuple[Checked, str, str, str]] = []
    notes: list[str] = []
    for group in sessions.values():
        found, group_notes = check_session(group, replay)
        late += found
        notes += group_notes
        if pins.me is not None:
            notes += me_notes(group, pins.me)
    if checks and not pins.pinned:
        notes.append(
            "identities are unpinned: the keys checked are the ones the documents state; pin them with "
            "--roster FILE or --key SEAT=PUBKEY to know who took part"
        )
    notes += [f"{c.source}: {text}" for c in checks for text in [*c.aborts, *c.notes]]
    findings = [(c.source, c.hand, *f) for c in checks for f in c.failures]
    findings += [(c.source, c.hand, party, check, detail) for c, party, check, detail in late]
    return findings, notes, checks
