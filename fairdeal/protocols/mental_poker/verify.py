"""Re-check mental-poker transcripts: every message in order (proofs, turns, hash links), then the game record
against what the messages prove (talon opened only where the rules say, discard, every card played from its
owner's holdings, raspasy talon cards), then the record through the engine, and the chain between hands.

Findings are ``(party, check, detail)``: ``player NAME`` for a message that fails (the step is the check),
``record`` for a game record the messages contradict, ``transcript`` for a malformed or mis-chained document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal.cards import to_ascii_list
from fairdeal.errors import FairdealError, MentalPokerError
from fairdeal.protocols.mental_poker.protocol import ROUNDS, VerifiedHand, verify_hand
from fairdeal.protocols.mental_poker.source import (
    ABANDONED,
    COMPLETE,
    PROTOCOL,
    discards_of,
    engine_plays,
    expected_events,
    hand_setup,
)
from fairdeal.protocols.record_check import check_session_records
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

    @property
    def hand(self) -> int | None:
        hand = self.doc.get("hand") if isinstance(self.doc, Mapping) else None
        return hand if isinstance(hand, int) and not isinstance(hand, bool) else None

    def fail(self, party: str, check: str, detail: str) -> None:
        self.findings.append((party, check, detail))


def check_document(source: str, doc: Mapping[str, Any]) -> MpCheck:
    """Messages first (stopping at the first failure), then the record against them."""
    c = MpCheck(source, doc)
    if not _check_shape(c):
        return c
    try:
        spec = TableSpec(
            doc["table"], doc["session"], max(doc["hand"], 1), tuple(doc["players"]), stated_convention(doc)
        )
        setup = hand_setup(spec, doc["hand"], doc["dealer"])
        c.spec = spec
    except (FairdealError, IndexError, TypeError, ValueError) as exc:
        c.fail(TRANSCRIPT, "table", f"cannot set the hand up: {exc}")
        return c
    try:
        c.verified = verify_hand(setup, doc["messages"])
    except MentalPokerError as error:
        party = f"player {error.player}" if error.player else TRANSCRIPT
        c.fail(party, error.step or "messages", _bare(error))
        return c
    except FairdealError as exc:  # a message that cannot even be hashed (e.g. not encodable as canonical JSON)
        c.fail(TRANSCRIPT, "messages", str(exc))
        return c
    _check_outcome(c)
    return c


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
    if doc["state"] not in (COMPLETE, ABANDONED):
        c.fail(TRANSCRIPT, "transcript shape", f"state {doc['state']!r} is neither {COMPLETE} nor {ABANDONED}")
        return False
    if doc["protocol"] != PROTOCOL:
        c.fail(
            TRANSCRIPT,
            "transcript shape",
            f"protocol {doc['protocol']!r} is not the {PROTOCOL} this verifier "
            "reads (protocols/mental-poker.md says what changed)",
        )
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
    if verified.abandoned is not None:
        player, step = verified.abandoned
        if doc["state"] != ABANDONED:
            c.fail(TRANSCRIPT, "state", "the messages end with an abandonment, the transcript says complete")
        c.notes.append(f"abandoned: player {player} stopped answering at step {step}")
        return
    if doc["state"] != COMPLETE or verified.order is None or not verified.state.finished:
        c.fail(TRANSCRIPT, "state", "the messages stop before every share is revealed and the discard opened")
        return
    deal = seat_deal(verified.order, c.spec.pattern.name, doc["dealer"], len(doc["players"]))
    if doc.get("deal") != deal:
        c.fail(TRANSCRIPT, "deal", "the published deal is not the one the messages decrypt to")
    if "record" in doc:
        _check_record_events(c)


def _check_record_events(c: MpCheck) -> None:
    """The record's talon, discard, turned cards and plays are exactly what the messages prove, in order."""
    record, verified = c.doc["record"], c.verified
    try:
        # A record the engine cannot replay is named by ``record_check``; here its plays are compared by card.
        plays = engine_plays(record, c.spec.convention, len(c.spec.players))
        expected = expected_events(record, c.spec.players, plays, c.spec.pattern.dummy_hand is not None)
    except (FairdealError, KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        c.fail(RECORD, "events", f"malformed record ({type(exc).__name__}: {exc})")
        return
    actual = _proven_events(verified)
    for index, (want, got) in enumerate(zip(expected, actual)):
        if want != got and not (want[0] == got[0] == "play" and want[1] is None and want[2] == got[2]):
            c.fail(
                RECORD,
                "events",
                f"step {index + 1} after the deal: the record calls for {_say(want)}, the messages prove {_say(got)}",
            )
            return
    if len(expected) != len(actual):
        c.fail(
            RECORD,
            "events",
            f"the record calls for {len(expected)} steps after the deal, the messages hold {len(actual)}",
        )
        return
    rows = verified.state.setup.talon_rows
    turned = [verified.order[p] for p in (rows[0] if rows else ())[: verified.state.turned]]
    recorded = [t["talon_card"] for t in record.get("tricks", []) if "talon_card" in t]
    if to_ascii_list(turned) != recorded:
        c.fail(RECORD, "talon card", f"the turned talon cards are {to_ascii_list(turned)}, the record says {recorded}")
    recorded = discards_of(record, c.spec.players)
    for player, cards in verified.discards.items():
        if sorted(to_ascii_list(cards)) != sorted(recorded.get(player, [])):
            c.fail(
                RECORD,
                "discard",
                f"{player}'s opened discard is {to_ascii_list(cards)}, the record says {recorded.get(player)}",
            )


def _proven_events(verified: VerifiedHand) -> list[tuple]:
    """The post-deal steps the messages hold, each round as one event, with the plays' proven cards."""
    state = verified.state
    plays = iter(verified.plays)
    events: list[tuple] = []
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
        else:
            events.append((step, message["player"]))
    return events


def _round_event(message: Mapping[str, Any], talons: int) -> tuple:
    """A round as one event: a talon round names its talon (and a ``take`` its recipient), as the record's do."""
    step = message["step"]
    talon = message.get("talon", 0) if talons > 1 else 0
    if step == "take":
        return step, message["to"], talon
    return (step, talon) if step == "talon" else (step,)


def _say(event: tuple) -> str:
    if event[0] == "play":
        return f"{event[1] or 'a player'} plays {to_ascii_list([event[2]])[0]}"
    return " ".join(str(part) for part in event)


def check_sequence(checks: Sequence[MpCheck]) -> list[tuple[MpCheck, str, str, str]]:
    """Across one session: hands 1, 2, ... each once, each citing the previous transcript's hash."""
    found = []
    ordered = sorted(checks, key=lambda c: c.hand or 0)
    for previous, current in zip([None] + ordered[:-1], ordered):
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
    return transcript_hash(previous.doc) if previous is not None and previous.hand == current.hand - 1 else None


def check_records(checks: Sequence[MpCheck]) -> tuple[list[tuple[MpCheck, str, str]], list[tuple[MpCheck, str]]]:
    """The session's records through the engine (play legality, renonces included, and score lines)."""
    ordered = sorted(checks, key=lambda c: c.hand or 0)
    docs = [_engine_view(c) for c in ordered]
    trusted = [c.verified is not None and c.verified.order is not None and not c.findings for c in ordered]
    convention = ordered[0].spec.convention if ordered[0].spec is not None else None
    problems, notes = check_session_records(docs, trusted, convention, len(ordered[0].doc["players"]))
    return ([(ordered[p.index], p.check, p.detail) for p in problems], [(ordered[i], text) for i, text in notes])


def _engine_view(c: MpCheck) -> dict:
    """The fields ``record_check`` reads, with the deal the messages proved."""
    doc = c.doc
    view = {"hand": doc["hand"], "dealer": doc["dealer"]}
    if c.verified is not None and c.verified.order is not None:
        view["deal"] = seat_deal(c.verified.order, c.spec.pattern.name, doc["dealer"], len(doc["players"]))
    if "record" in doc:
        view["record"] = doc["record"]
    return view
