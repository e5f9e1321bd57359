"""Re-check mental-poker transcripts: every message in order (proofs, turns, hash links), then the game record
against what the messages prove (talon opened only where the rules say, discard, every card played from its
owner's holdings, raspasy talon cards), then the record through the engine, and the chain between hands.

Findings are ``(party, check, detail)``: ``player NAME`` for a message that fails (the step is the check),
``record`` for a game record the messages contradict, ``transcript`` for a malformed or mis-chained document.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fairdeal.engine.scoring import abort_penalty
from fairdeal.errors import CanonicalError, FairdealError, MentalPokerError, ProtocolError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import decode
from fairdeal.protocols.mental_poker.events import (
    abandoned_play_findings,
    decision_findings,
    live_abandon_findings,
    penalty_findings,
    record_findings,
)
from fairdeal.protocols.mental_poker.following import Fact
from fairdeal.protocols.mental_poker.messages import read_decision
from fairdeal.protocols.mental_poker.protocol import HandState, TableSetup, VerifiedHand, verify_hand
from fairdeal.protocols.mental_poker.signing import PROTOCOL_V4, Seating, open_message
from fairdeal.protocols.mental_poker.source import (
    ABANDONED,
    COMPLETE,
    PROTOCOL,
    PROTOCOL_V3,
    REFUSED,
    hand_setup,
)
from fairdeal.protocols.mental_poker.statements import SETTLEMENT_FILE, check_record_statements, check_settlement
from fairdeal.protocols.mental_poker.steps import ABANDON, DECIDE, ROUNDS
from fairdeal.protocols.pins import Pins
from fairdeal.protocols.record_check import check_session_records
from fairdeal.protocols.record_form import played_record
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.table import TableSpec, stated_convention
from fairdeal.protocols.transcript import FORMAT, VERSION, seat_deal, transcript_hash

TRANSCRIPT, RECORD = "transcript", "record"
_FIELDS = {
    "table": str,
    "session": str,
    "system": str,
    "deck": str,
    "deal_pattern": str,
    "players": list,
    "hand": int,
    "dealer": int,
    "messages": list,
    "state": str,
}
_V4_FIELDS = {"roster": dict, "attempt": int, "aborts": list}
UNPINNED = (
    "identities are unpinned: the keys come from the transcripts themselves, so this proves only that some holders "
    "of those keys played (one program could have played every seat); pin them with --roster, --key or --me"
)
V3_NOTE = (
    "protocol fairdeal-mental-poker/3 (read for migration) has v3's weaker guarantees: its messages are unsigned, "
    "so blame rests on what the file says; identities are not bound; the record is nobody's signed statement"
)


def is_mental_poker(doc: Any) -> bool:
    """Any version of the mental-poker protocol: a version this verifier does not read is reported as such."""
    protocol = doc.get("protocol") if isinstance(doc, Mapping) else None
    return isinstance(protocol, str) and protocol.split("/")[0] == PROTOCOL.split("/")[0]


@dataclass
class MpCheck:
    """The findings for one transcript, and what it proved."""

    source: str
    doc: Mapping[str, Any]
    findings: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verified: VerifiedHand | None = None
    spec: TableSpec | None = None  # the table, with the convention the document states
    seating: Seating | None = None  # v4: the roster the document states, once its signatures hold
    absent: list[str] = field(default_factory=list)  # v4: who each abandoned earlier attempt proves absent

    @property
    def hand(self) -> int | None:
        hand = self.doc.get("hand") if isinstance(self.doc, Mapping) else None
        return hand if isinstance(hand, int) and not isinstance(hand, bool) else None

    def fail(self, party: str, check: str, detail: str) -> None:
        self.findings.append((party, check, detail))


def check_document(source: str, doc: Mapping[str, Any], pins: Pins | None = None) -> MpCheck:
    """Messages first (stopping at the first failure), then the record against them; v4 first checks the roster
    (against the ``pins``), every message's signature and link, and the signed statements of the record."""
    c = MpCheck(source, doc)
    if not _check_shape(c):
        return c
    v4 = doc["protocol"] == PROTOCOL_V4
    if v4 and not _check_roster(c, pins or Pins()):
        return c
    if not v4:
        c.notes.append(V3_NOTE)
    try:
        spec = TableSpec(
            doc["table"], doc["session"], max(doc["hand"], 1), tuple(doc["players"]), stated_convention(doc)
        )
        setup = hand_setup(spec, doc["hand"], doc["dealer"], c.seating, doc["attempt"] if v4 else 1)
        c.spec = spec
    except (FairdealError, IndexError, TypeError, ValueError) as exc:
        c.fail(TRANSCRIPT, "table", f"cannot set the hand up: {exc}")
        return c
    if v4 and not _check_aborts(c, spec):
        return c
    refused = v4 and doc["state"] == REFUSED
    verified = _verify_messages(c, setup, doc["messages"], "messages", partial=refused)
    if verified is None:
        return c
    c.verified = verified
    if refused:
        _check_refusal(c, setup)
    else:
        _check_outcome(c)
    return c


def _check_refusal(c: MpCheck, setup: TableSetup) -> None:
    """A hand an honest seat stopped: the filed message it refused must fail as the seat said (and its signer is
    named), else the refusal was without cause and the refuser is named."""
    filed, seating, verified = c.doc.get("refusal"), c.seating, c.verified
    assert seating is not None and verified is not None  # a refused hand is v4, its messages verified
    if not isinstance(filed, Mapping) or set(filed) != {"shown", "statement"}:
        c.fail(TRANSCRIPT, "refusal", "a refused hand files {shown, statement}: the refused message and the refusal")
        return
    hand = c.doc["hand"]
    try:
        refusal = signed.open_checked(
            signed.parse(filed["statement"], "refusal.statement"),
            seating.context(hand),
            seating.keys,
            prev=verified.state.head,
            kind="refuse",
            presenter=TRANSCRIPT,
            names=seating.names,
        )
    except SignedMessageError as error:
        c.fail(TRANSCRIPT if error.party == "relay" else error.party, "refusal", _bare_signed(error))
        return
    refuser, reason = seating.names[refusal.sender], refusal.body.get("reason")
    if refusal.body.get("refused") != _digest(filed["shown"]):
        c.fail(TRANSCRIPT, "refusal", f"the filed message is not the one player {refuser} refused")
        return
    before = len(c.findings)
    _verify_messages(c, setup, [*c.doc["messages"], filed["shown"]], "messages", partial=True)
    if len(c.findings) == before:
        c.fail(f"player {refuser}", "refusal", f"refused a message that verifies ({reason})")
    else:
        c.notes.append(f"player {refuser} refused the faulty message and signed why: {reason}")


def _digest(envelope: Any) -> str:
    try:
        return signed.parse(envelope, "refusal.shown").digest
    except (FairdealError, ValueError, TypeError):
        return ""


def _verify_messages(
    c: MpCheck, setup: TableSetup, messages: list[Any], where: str, partial: bool = False
) -> VerifiedHand | None:
    """The hand's messages through the state machine (v4: opened from their signed envelopes first); a failure
    becomes a finding against the signer, or against the transcript for what nobody signed."""
    digests: list[str] | None = None
    try:
        if c.seating is not None:
            messages, digests = _open_all(c.seating, setup, messages, where)
        return verify_hand(setup, messages, digests=digests, partial=partial)
    except _Unopened as unopened:
        c.fail(*_first_fault(setup, unopened))
    except SignedMessageError as error:
        c.fail(TRANSCRIPT if error.party == "relay" else error.party, error.check, _bare_signed(error))
    except MentalPokerError as error:
        party = f"player {error.player}" if error.player else TRANSCRIPT
        c.fail(party, error.step or "messages", _bare(error))
    except FairdealError as exc:  # a message that cannot even be hashed (e.g. not encodable as canonical JSON)
        c.fail(TRANSCRIPT, "messages", str(exc))
    return None


class _Unopened(Exception):
    """An envelope that does not open, with the messages before it (one of which may be the real fault)."""

    def __init__(self, error: Exception, messages: list[dict[str, Any]], digests: list[str]):
        super().__init__(str(error))
        self.error, self.messages, self.digests = error, messages, digests


def _open_all(
    seating: Seating, setup: TableSetup, envelopes: list[Any], where: str
) -> tuple[list[dict[str, Any]], list[str]]:
    head = setup.genesis()
    messages: list[dict[str, Any]] = []
    digests: list[str] = []
    for index, envelope in enumerate(envelopes):
        try:
            opened = open_message(envelope, seating, setup.context.hand, head, TRANSCRIPT, f"{where}[{index}]")
        except (SignedMessageError, MentalPokerError) as error:
            raise _Unopened(error, messages, digests) from None
        messages.append(opened.message)
        digests.append(opened.digest)
        head = opened.digest
    return messages, digests


def _first_fault(setup: TableSetup, unopened: _Unopened) -> tuple[str, str, str]:
    """The first fault in order, as a listening player meets it: a signed message before the one that does not
    open may itself be false (a sender who re-signed his own lie breaks the next link, not his signature)."""
    state = HandState(setup)
    try:
        for message, digest in zip(unopened.messages, unopened.digests):
            state.apply(message, digest=digest)
    except MentalPokerError as error:
        return (f"player {error.player}" if error.player else TRANSCRIPT, error.step or "messages", _bare(error))
    fault = unopened.error
    if isinstance(fault, SignedMessageError):
        return (TRANSCRIPT if fault.party == "relay" else fault.party, fault.check, _bare_signed(fault))
    assert isinstance(fault, MentalPokerError)
    return (f"player {fault.player}" if fault.player else TRANSCRIPT, fault.step or "messages", _bare(fault))


def _bare_signed(error: SignedMessageError) -> str:
    text, prefix = str(error), f"{error.party}: {error.check}: "
    return text[len(prefix) :] if text.startswith(prefix) else text


def _check_roster(c: MpCheck, pins: Pins) -> bool:
    """The roster the transcript states: every party's signature, this table, session, convention and seats,
    then the pinned identities (or a note that there are none)."""
    doc = c.doc
    try:
        roster = Roster.from_json(doc["roster"], "$.roster")
        roster.check()
    except ProtocolError as exc:
        c.fail(TRANSCRIPT, "roster", str(exc))
        return False
    stated = (roster.table, roster.session, [seat.name for seat in roster.seats], roster.protocol)
    if stated != (doc["table"], doc["session"], doc["players"], PROTOCOL_V4):
        c.fail(TRANSCRIPT, "roster", "the roster is for another table, session, protocol or seating than the hand")
        return False
    header = {"system": roster.system, "convention": dict(roster.convention), "pulya": roster.pulya}
    if header != {"system": doc["system"], "convention": doc.get("convention", {}), "pulya": doc.get("pulya")}:
        c.fail(TRANSCRIPT, "roster", "the roster signs another convention than the hand states")
        return False
    for check, problem in pin_problems(pins, roster):
        c.fail(TRANSCRIPT, check, problem)
    if c.findings:
        return False
    mine = [seat.name for seat in roster.seats if pins.me is not None and seat.key == pins.me.public]
    if mine:
        c.notes.append(
            f"my key sits at this table as {mine[0]}; every hand's messages and record statements are checked"
        )
    c.seating = Seating(roster)
    return True


def pin_problems(pins: Pins, roster: Roster) -> list[tuple[str, str]]:
    """``(check, detail)`` for each way the roster a transcript states departs from the pinned identities."""
    found = []
    if pins.roster is not None and pins.roster.hash != roster.hash:
        found.append(("roster pin", "the transcript's roster is not the pinned roster"))
    for who, key in pins.keys:
        seats = [i for i, seat in enumerate(roster.seats) if who in (str(i), seat.name)]
        held = roster.service if who == "service" else roster.seats[seats[0]].key if seats else None
        if held is None:
            found.append(("identity pin", f"{who!r} is not a seat, a name or 'service' of this roster"))
        elif held != key:
            found.append(("identity pin", f"{who} holds key {held.hex[:16]}…, pinned {key.hex[:16]}…"))
    if pins.me is not None and pins.me.public not in [seat.key for seat in roster.seats]:
        found.append(("my seat", "my identity key is not on this roster: the session was not played with me"))
    return found


def _check_aborts(c: MpCheck, spec: TableSpec) -> bool:
    """Earlier attempts of this hand, each an opening abandoned by a witnessed, signed abandon."""
    doc = c.doc
    aborts = doc["aborts"]
    if doc["attempt"] != len(aborts) + 1 or doc["attempt"] < 1:
        c.fail(TRANSCRIPT, "abort", f"attempt {doc['attempt']} must follow {len(aborts)} abandoned attempt(s)")
        return False
    for number, abort in enumerate(aborts, start=1):
        if not isinstance(abort, dict) or abort.get("attempt") != number or not isinstance(abort.get("messages"), list):
            c.fail(TRANSCRIPT, "abort", f"aborts[{number - 1}] is not attempt {number}'s messages")
            return False
        setup = hand_setup(spec, doc["hand"], doc["dealer"], c.seating, number)
        verified = _verify_messages(c, setup, abort["messages"], f"aborts[{number - 1}].messages")
        if verified is None:
            return False
        if verified.abandoned is None:
            c.fail(TRANSCRIPT, "abort", f"attempt {number} is not abandoned, yet the hand was dealt again")
            return False
        player, step = verified.abandoned
        c.absent.append(player)
        c.notes.append(
            f"attempt {number}: player {player} walked away at step {step}; the hand was dealt again, "
            f"player {player} charged {_charge(spec, player)}"
        )
    return True


def _charge(spec: TableSpec, player: str) -> str:
    lines = abort_penalty(spec.convention, spec.players.index(player), len(spec.players))
    return ", ".join(f"{line.points} {line.column}" for line in lines) or "nothing (the convention charges none)"


def _check_penalty(c: MpCheck) -> None:
    """The record's ``penalty`` charges exactly the players the abandoned attempts prove absent."""
    assert c.spec is not None  # set before any hand is verified
    for finding in penalty_findings(c.doc["record"], c.spec.convention, c.spec.players, c.absent):
        c.fail(*finding)


def _bare(error: MentalPokerError) -> str:
    """The error's text without the ``player X, step Y: `` prefix ``MentalPokerError`` puts before it (the
    report states the player and step in their own columns)."""
    text = str(error)
    return text.split(": ", 1)[1] if error.player and ": " in text else text


def _check_shape(c: MpCheck) -> bool:
    doc = c.doc
    for name, kind in _FIELDS.items():
        value = doc.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            c.fail(TRANSCRIPT, "transcript shape", f"field {name!r} is missing or not a {kind.__name__}")
            return False
    states = (COMPLETE, ABANDONED, REFUSED) if doc.get("protocol") == PROTOCOL_V4 else (COMPLETE, ABANDONED)
    if doc["state"] not in states:
        c.fail(TRANSCRIPT, "transcript shape", f"state {doc['state']!r} is none of {', '.join(states)}")
        return False
    if doc["protocol"] not in (PROTOCOL, PROTOCOL_V3):
        c.fail(
            TRANSCRIPT,
            "transcript shape",
            f"protocol {doc['protocol']!r} is not the {PROTOCOL} (or {PROTOCOL_V3}) this verifier "
            "reads (protocols/mental-poker.md says what changed)",
        )
        return False
    for name, kind in _V4_FIELDS.items() if doc["protocol"] == PROTOCOL_V4 else ():
        value = doc.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            c.fail(TRANSCRIPT, "transcript shape", f"field {name!r} is missing or not a {kind.__name__}")
            return False
    if (doc.get("format"), doc.get("version")) != (FORMAT, VERSION):
        c.fail(TRANSCRIPT, "transcript shape", f"not a {FORMAT} version {VERSION} document")
        return False
    try:
        stated_convention(doc)
    except FairdealError as exc:
        c.fail(TRANSCRIPT, "table", str(exc))
        return False
    return True


def _check_outcome(c: MpCheck) -> None:
    verified, doc = c.verified, c.doc
    assert verified is not None and c.spec is not None  # the spec is set before any hand is verified
    if verified.abandoned is not None:
        player, step = verified.abandoned
        if doc["state"] != ABANDONED:
            c.fail(TRANSCRIPT, "state", "the messages end with an abandonment, the transcript says complete")
        if c.seating is not None and verified.state.awaited_by_game:
            _check_abandoned_play(c, player, step)
        c.notes.append(f"abandoned: player {player} stopped answering at step {step}")
        return
    if doc["state"] != COMPLETE or verified.order is None or not verified.state.finished:
        c.fail(TRANSCRIPT, "state", "the messages stop before every share is revealed and the discard opened")
        return
    deal = seat_deal(
        np.asarray(verified.order, dtype=np.uint8), c.spec.pattern.name, doc["dealer"], len(doc["players"])
    )
    if doc.get("deal") != deal:
        c.fail(TRANSCRIPT, "deal", "the published deal is not the one the messages decrypt to")
    if "record" in doc:
        _check_record_events(c)
        if c.seating is not None:
            _check_penalty(c)
            head = verified.state.head
            for finding in check_record_statements(doc.get("statements"), c.seating, doc["hand"], doc["record"], head):
                c.fail(*finding)


def _check_abandoned_play(c: MpCheck, player: str, step: str) -> None:
    """A v4 abandon where the game, not the protocol, said whose step was due must name that step's player: the
    record's replay says whose card (the simulation files one); a live hand cut short has none, and states the
    start its game is followed from through the chain."""
    verified, spec, doc = c.verified, c.spec, c.doc
    assert verified is not None and spec is not None
    witness = str(verified.state.messages[-1].get("witness"))
    if "record" not in doc and "start" in doc:
        facts = public_facts(verified)
        dealt = verified.state.setup.players
        found = live_abandon_findings(
            spec.convention, spec.players, dealt, doc["dealer"], doc["hand"], doc["start"], facts, player, step, witness
        )
    else:
        done = len([event for event in _proven_events(verified) if event[0] != "abandon"])
        dummy = spec.pattern.dummy_hand is not None
        record = doc.get("record")
        found = abandoned_play_findings(record, spec.convention, spec.players, dummy, done, player, witness)
    for finding in found:
        c.fail(*finding)


def public_facts(verified: VerifiedHand) -> list[Fact]:
    """What the messages after the deal showed everyone, in order, as the host read them (``live.fact_of``): the
    cards each play, hand laid open, and round's last message opened; each decision; the abandon left out."""
    state, setup = verified.state, verified.state.setup
    plays = iter(verified.plays)
    facts: list[Fact] = []
    left = turned = 0
    for message in state.messages[len(setup.schedule()) :]:
        player, step = message["player"], message["step"]
        if step in ROUNDS:
            left = (left or len(setup.players) - (1 if step == "take" else 0)) - 1
            talon, to = message.get("talon", 0), message.get("to")
            positions: Sequence[int] = ()
            if left == 0 and step == "talon":
                positions = setup.talon_rows[talon]
            elif left == 0 and step == "turn":
                positions, turned = setup.talon_rows[0][turned : turned + 1], turned + 1
            elif left == 0 and step == "dummy":
                positions = setup.dummy_positions
            cards = tuple(state.open_position(p) for p in positions)
            facts.append(Fact(step, player, cards, talon, to, round_done=left == 0))
        elif step == "play":
            facts.append(Fact(step, player, (next(plays)[2],)))
        elif step == DECIDE:
            facts.append(Fact(step, player, decision=read_decision(message)))
        elif step == "open":
            facts.append(Fact(step, player, tuple(state.open_position(p) for p in state.laid_open[player])))
        elif step != ABANDON:
            facts.append(Fact(step, player))
    return facts


def _check_record_events(c: MpCheck) -> None:
    """The record's talon, discard, turned cards and plays are exactly what the messages prove, in order, and its
    decisions the signed ones."""
    verified, spec = c.verified, c.spec
    assert verified is not None and verified.order is not None and spec is not None  # _check_outcome's checks
    rows = verified.state.setup.talon_rows
    turned = [verified.order[p] for p in (rows[0] if rows else ())[: verified.state.turned]]
    dummy = spec.pattern.dummy_hand is not None
    proven = _proven_events(verified)
    for finding in record_findings(
        c.doc["record"], spec.convention, spec.players, dummy, proven, turned, verified.discards
    ) + decision_findings(c.doc["record"], spec.convention, spec.players, verified.state.decisions):
        c.fail(*finding)


def _proven_events(verified: VerifiedHand) -> list[tuple[Any, ...]]:
    """The post-deal steps the messages hold, each round as one event, with the plays' proven cards."""
    state = verified.state
    plays = iter(verified.plays)
    events: list[tuple[Any, ...]] = []
    left_in_round = 0
    for message in state.messages[len(state.setup.schedule()) :]:
        step = message["step"]
        if step in ROUNDS:
            if left_in_round == 0:
                events.append(_round_event(message, len(state.setup.talon_rows)))
                left_in_round = len(state.setup.players) - (1 if step == "take" else 0)
            left_in_round -= 1
        elif step == "play":
            player, _, card = next(plays)
            events.append(("play", player, card))
        elif step != DECIDE:
            events.append((step, message["player"]))
    return events


def _round_event(message: Mapping[str, Any], talons: int) -> tuple[Any, ...]:
    """A round as one event: a talon round names its talon (and a ``take`` its recipient), as the record's do."""
    step = message["step"]
    talon = message.get("talon", 0) if talons > 1 else 0
    if step == "take":
        return step, message["to"], talon
    return (step, talon) if step == "talon" else (step,)


def check_sequence(checks: Sequence[MpCheck]) -> list[tuple[MpCheck, str, str, str]]:
    """Across one session: hands 1, 2, ... each once, each citing the previous transcript's hash."""
    found = []
    ordered = sorted(checks, key=lambda c: c.hand or 0)
    rosters = {c.doc.get("protocol"): c.doc.get("roster") for c in ordered[:1]}
    for c in ordered[1:]:
        if {c.doc.get("protocol"): c.doc.get("roster")} != rosters:
            detail = "signed under another roster or protocol than the session's first hand (two sessions spliced)"
            found.append((c, TRANSCRIPT, "transcript chain", detail))
    for previous, current in zip([None, *ordered[:-1]], ordered):
        assert current.hand is not None  # a session's checks passed the shape check
        if previous is not None and previous.hand == current.hand:
            found.append((current, TRANSCRIPT, "hand sequence", f"hand {current.hand} appears twice"))
            continue
        try:
            expected = _previous_hash(previous, current)
        except FairdealError as exc:
            found.append((current, TRANSCRIPT, "transcript chain", str(exc)))
            continue
        if previous is not None and previous.hand != current.hand - 1:
            found.append((current, TRANSCRIPT, "hand sequence", f"hands before {current.hand} are missing"))
        elif (previous is not None or current.hand == 1) and current.doc.get("previous") != expected:
            found.append(
                (
                    current,
                    TRANSCRIPT,
                    "transcript chain",
                    "'previous' is not the hash of the previous hand's transcript",
                )
            )
    return found


def _previous_hash(previous: MpCheck | None, current: MpCheck) -> str | None:
    assert current.hand is not None  # a session's checks passed the shape check
    return transcript_hash(previous.doc) if previous is not None and previous.hand == current.hand - 1 else None


def check_records(checks: Sequence[MpCheck]) -> tuple[list[tuple[MpCheck, str, str]], list[tuple[MpCheck, str]]]:
    """The session's records through the engine (play legality, renonces included, and score lines)."""
    ordered = sorted(checks, key=lambda c: c.hand or 0)
    docs = [_engine_view(c) for c in ordered]
    trusted = [c.verified is not None and c.verified.order is not None and not c.findings for c in ordered]
    convention = ordered[0].spec.convention if ordered[0].spec is not None else None
    problems, notes = check_session_records(docs, trusted, convention, len(ordered[0].doc["players"]))
    return ([(ordered[p.index], p.check, p.detail) for p in problems], [(ordered[i], text) for i, text in notes])


def _engine_view(c: MpCheck) -> dict[str, Any]:
    """The fields ``record_check`` reads, with the deal the messages proved."""
    doc = c.doc
    view = {"hand": doc["hand"], "dealer": doc["dealer"]}
    if c.verified is not None and c.verified.order is not None:
        assert c.spec is not None  # the spec is set before any hand is verified
        view["deal"] = seat_deal(
            np.asarray(c.verified.order, dtype=np.uint8), c.spec.pattern.name, doc["dealer"], len(doc["players"])
        )
    if "record" in doc:
        view["record"] = played_record(doc["record"])
    if "start" in doc:
        view["start"] = doc["start"]
    return view


def is_mental_poker_v4(doc: Any) -> bool:
    return isinstance(doc, Mapping) and doc.get("protocol") == PROTOCOL_V4


def check_settlement_file(
    log_path: Path, cited: Sequence[Path], end: Mapping[str, Any] | None
) -> list[tuple[str, str, str]]:
    """A v4 evening's log closes with the settlement every seated player signed (``settlement.json`` beside the
    transcripts): the same hand count, the last transcript the log cites, the log's settlement line."""
    try:
        last_bytes = Path(cited[-1]).read_bytes() if cited else b""
        last_doc = decode(last_bytes) if cited else None
    except (OSError, CanonicalError):
        return []  # the transcript's own checks report it
    ended = ended_transcript(log_path, cited)
    if ended is None and not cited and end is not None and end.get("penalty") and not _other_protocol(log_path):
        return [(RECORD, "settlement", "the log charges an evening's end, but the hand that ended it is missing")]
    proved: dict[str, Any] | None = None
    if ended is not None:
        last_bytes = ended.read_bytes()
        last_doc = decode(last_bytes)
        proved = proved_end(str(ended), last_doc)
    if not isinstance(last_doc, dict) or last_doc.get("protocol") != PROTOCOL_V4 or end is None:
        return []
    path = log_path.with_name(log_path.name + ".transcripts") / SETTLEMENT_FILE
    try:
        doc = decode(path.read_bytes())
        seating = Seating(Roster.from_json(last_doc.get("roster"), "$.roster"))
    except OSError:
        return [(RECORD, "settlement", f"no signed settlement beside the transcripts ({path.name})")]
    except (CanonicalError, ProtocolError) as exc:
        return [(RECORD, "settlement", f"{path.name}: {exc}")]
    settlement = end.get("settlement")
    amounts = None
    if isinstance(settlement, dict):
        amounts = dict(settlement)
    found = check_settlement(doc, seating, len(cited), hashlib.sha256(last_bytes).hexdigest(), amounts, proved)
    charged = [] if proved is None else proved["charged"]
    names = [s.name for s in seating.roster.seats]
    convention = stated_convention(last_doc)
    charge = [line.to_record() for name in charged for line in abort_penalty(convention, names.index(name), len(names))]
    if end.get("penalty", []) != charge:
        found.append(
            (RECORD, "end penalty", f"the log's end charges {end.get('penalty', [])}, the stopped hand {charge}")
        )
    return found


def refused_settlement(log_path: Path) -> Path | None:
    """The settlement beside a v4 log that a seat signed a refusal of: the evening did not settle, so the log has
    no settlement line and the refusals, judged against the transcripts, say whose fault that was."""
    path = log_path.with_name(log_path.name + ".transcripts") / SETTLEMENT_FILE
    try:
        doc = decode(path.read_bytes())
        bodies = [signed.parse(entry).body for entry in doc["statements"]]
    except (OSError, CanonicalError, FairdealError, KeyError, TypeError):
        return None
    if not is_mental_poker_v4(doc) or not any(body.get("agrees") is False for body in bodies):
        return None
    return path


def _other_protocol(log_path: Path) -> bool:
    """Whether the settlement beside the log is another protocol's (an evening that ended in its first hand
    cites no transcript to tell by)."""
    path = log_path.with_name(log_path.name + ".transcripts") / SETTLEMENT_FILE
    try:
        doc = decode(path.read_bytes())
    except (OSError, CanonicalError):
        return False
    return isinstance(doc, Mapping) and doc.get("protocol") != PROTOCOL_V4


def ended_transcript(log_path: Path, cited: Sequence[Path]) -> Path | None:
    """The transcript of the hand that ended a v4 evening (abandoned during play, or refused): the one after the
    last hand the log cites, chained to it; the log has no line for it."""
    path = log_path.with_name(log_path.name + ".transcripts") / f"hand-{len(cited) + 1:04d}.json"
    try:
        doc = decode(path.read_bytes())
        previous = transcript_hash(decode(Path(cited[-1]).read_bytes())) if cited else None
    except (OSError, CanonicalError):
        return None
    if not is_mental_poker_v4(doc) or doc.get("state") not in (ABANDONED, REFUSED) or doc.get("previous") != previous:
        return None
    return path


def proved_end(source: str, doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``end`` a stopped hand proves: the player its witnessed abandon names, or for a refusal the party at
    fault (the signer of the refused message, or the refuser when that message verifies); ``None`` when the hand's
    own messages fail."""
    c = check_document(source, doc)
    if doc.get("state") == ABANDONED:
        if c.verified is None or c.verified.abandoned is None:
            return None
        return {"hand": doc["hand"], "charged": [c.verified.abandoned[0]]}
    players = [f"player {name}" for name in doc.get("players", [])]
    refusers = [party for party, check, _ in c.findings if check == "refusal" and party in players]
    signers = [party for party, check, _ in c.findings if check != "refusal" and party in players]
    fault = (refusers or signers)[:1]
    return {"hand": doc["hand"], "charged": [party.removeprefix("player ") for party in fault]}
