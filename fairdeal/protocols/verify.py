"""Re-check hand transcripts: signatures, commitments, chain links, deck derivation, deal, game record.

Every failure names the hand, the party responsible — ``service``, ``player NAME``, ``record`` (or, for
mental-poker transcripts, ``transcript``) — and the check that failed. Deck derivations of all revealed
commit-reveal hands are recomputed in one batch; mental-poker transcripts go to ``mental_poker.verify``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np

from fairdeal import bounded
from fairdeal.bounded import check, strip_bom
from fairdeal.cards import DeckKind, to_ascii_list
from fairdeal.collector import without_collector
from fairdeal.errors import CanonicalError, FairdealError, ProtocolError, one_line
from fairdeal.protocols import canonical
from fairdeal.protocols.canonical import decode
from fairdeal.protocols.commit_reveal import seed_statement, signature_holds
from fairdeal.protocols.commit_reveal4.check import Checked, hand_of, is_v4, portable_checks, restored_checks, verify_v4
from fairdeal.protocols.commit_reveal4.messages import REFUSAL, SETTLEMENT, SETTLEMENT_SIGN
from fairdeal.protocols.commit_reveal4.parties import roster_convention
from fairdeal.protocols.commit_reveal4.source import SETTLEMENT_FILE
from fairdeal.protocols.commit_reveal4.source import SETTLEMENT_FORMAT as V4_SETTLEMENT_FORMAT
from fairdeal.protocols.deck import derive_orders
from fairdeal.protocols.derive import chain_step, deck_input, seed_commitment
from fairdeal.protocols.mental_poker.source import ABANDONED, COMPLETE, REFUSED
from fairdeal.protocols.mental_poker.statements import SETTLEMENT_FORMAT as MP_SETTLEMENT_FORMAT
from fairdeal.protocols.mental_poker.statements import check_settlement as check_mp_settlement
from fairdeal.protocols.mental_poker.verify import (
    UNPINNED,
    V3_NOTE,
    MpCheck,
    check_settlement_file,
    ended_transcript,
    is_mental_poker,
    is_mental_poker_v4,
    proved_end,
    refused_settlement,
)
from fairdeal.protocols.mental_poker.verify import check_document as check_mp_document
from fairdeal.protocols.mental_poker.verify import check_records as check_mp_records
from fairdeal.protocols.mental_poker.verify import check_sequence as check_mp_sequence
from fairdeal.protocols.pins import Pins
from fairdeal.protocols.record_check import check_session_records, end_penalty, settled_amounts
from fairdeal.protocols.record_form import played_record
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import parse
from fairdeal.protocols.table import stated_convention, states_house_rules
from fairdeal.protocols.transcript import REVEALED, parse_transcript, read_raw, seat_deal, transcript_hash
from fairdeal.protocols.workers import in_chunks
from fairdeal.resources import protocol_file
from fairdeal.rules.convention import Convention
from fairdeal.systems import house_rules, rebuild_convention

SCHEMA_PATH = protocol_file("transcript.schema.json")
SERVICE, RECORD = "service", "record"


@dataclass(frozen=True)
class Failure:
    source: str  # the file (or label) the transcript came from
    hand: int | None
    party: str  # "service", "player NAME" or "record"
    check: str
    detail: str

    def line(self) -> str:
        hand = "?" if self.hand is None else self.hand
        return f"{self.source}: hand {hand}: {self.party}: {self.check}: {self.detail}"


@dataclass(frozen=True)
class Report:
    transcripts: int
    failures: tuple[Failure, ...]
    notes: tuple[str, ...] = ()  # what could not be checked (e.g. score lines without the earlier hands)
    caveats: tuple[str, ...] = ()  # what an "ok" does not prove (unpinned identities, v3's weaker guarantees)

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "transcripts": self.transcripts,
            "failures": [asdict(f) for f in self.failures],
            "notes": list(self.notes),
            "caveats": list(self.caveats),
        }


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    """The schema with references to its leaf definitions (hash, signature, card) written in place: the same
    constraints, validated about twice as fast (reference lookups dominate the cost)."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    text = json.dumps(schema)
    for name in ("hash", "signature", "card"):
        text = text.replace(json.dumps({"$ref": f"#/$defs/{name}"}), json.dumps(schema["$defs"][name]))
    return jsonschema.Draft202012Validator(json.loads(text))


def player_party(doc: Mapping[str, Any], seat: int) -> str:
    try:
        return f"player {doc['session']['statement']['players'][seat]['name']}"
    except (KeyError, IndexError, TypeError):
        return f"player at seat {seat}"


class _Checker:
    """Collects failures for one transcript."""

    def __init__(self, source: str, doc: Mapping[str, Any]):
        self.source, self.doc = source, doc
        hand = doc.get("hand") if isinstance(doc, Mapping) else None
        self.hand = hand if isinstance(hand, int) and not isinstance(hand, bool) else None
        self.failures: list[Failure] = []
        self.links: dict[int, str] = {}  # proven links of this session's seed chain (shared per session)
        self.convention: Convention | None = None  # rebuilt from the session statement

    def fail(self, party: str, check: str, detail: str) -> None:
        self.failures.append(Failure(self.source, self.hand, party, check, detail))


def _shortened(message: str, limit: int = 240) -> str:
    """A schema message quotes the offending value whole, which for a document is the document: keep its start."""
    return message if len(message) <= limit else message[:limit] + " … (shortened)"


def check_structure(c: _Checker) -> bool:
    errors = sorted(_validator().iter_errors(c.doc), key=lambda e: list(e.absolute_path))
    for error in errors[:5]:
        where = "/".join(map(str, error.absolute_path)) or "(document)"
        c.fail(SERVICE, "transcript schema", f"{where}: {_shortened(error.message)}")
    if errors:
        return False
    # JSON Schema counts 20.0 as an integer; the signed statements hold none (the record's score lines may hold
    # half whists, and the replay checks them).
    fraction = _first_float({key: value for key, value in c.doc.items() if key != "record"}, "")
    if fraction is not None:
        c.fail(SERVICE, "transcript schema", f"{fraction or '(document)'}: a whole number is expected, not a fraction")
        return False
    statement = c.doc["session"]["statement"]
    roster = statement["players"]
    if [p["seat"] for p in roster] != list(range(len(roster))):
        c.fail(SERVICE, "transcript schema", "session roster seats are not 0..n-1 in order")
        return False
    if len(c.doc["session"]["player_signatures"]) != len(roster):
        c.fail(SERVICE, "transcript schema", "one session countersignature per seated player is required")
        return False
    return True


def _first_float(value: Any, path: str) -> str | None:
    """The path of the first float in a decoded document, or None."""
    if isinstance(value, float):
        return path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _first_float(item, f"{path}/{key}" if path else str(key))
        if found is not None:
            return found
    return None


def check_session(c: _Checker) -> bool:
    """Signatures of the session opening; ``False`` (stop) if the service's own signature fails: then the
    opening was altered after signing, the publisher is to blame and nothing derived from it can be judged."""
    session = c.doc["session"]
    statement = session["statement"]
    if not signature_holds(statement["service_key"], statement, session["service_signature"]):
        c.fail(SERVICE, "session signature", "the service's signature of the session opening does not verify")
        return False
    for seat, signature in enumerate(session["player_signatures"]):
        if not signature_holds(statement["players"][seat]["key"], statement, signature):
            c.fail(player_party(c.doc, seat), "session countersignature", "does not verify under the player's key")
    try:
        c.convention = stated_convention(statement)
        c.convention.check_players(len(statement["players"]))
    except FairdealError as exc:
        c.fail(SERVICE, "table statement", str(exc))
        return False
    if c.doc["hand"] > statement["hands"]:
        c.fail(SERVICE, "hand number", f"hand {c.doc['hand']} is beyond the session's {statement['hands']} hands")
    if c.doc["dealer"] >= len(statement["players"]):
        c.fail(SERVICE, "dealer", f"dealer seat {c.doc['dealer']} is not at the table")
    return True


def check_service_commitment(c: _Checker) -> None:
    s = c.doc["session"]["statement"]
    hand = c.doc["hand"]
    if hand <= s["hands"] and not _in_chain(s, hand, c.doc["service"]["commitment"], c.links):
        c.fail(SERVICE, "commitment in chain", f"the hand's commitment is not link {hand - 1} of the anchored chain")


def _in_chain(s: Mapping[str, Any], hand: int, commitment: str, known: dict[int, str]) -> bool:
    """Is ``commitment`` link ``hand-1`` of the anchored chain? Hashes down to the anchor, or to a link already
    proven (``known``: index -> link of this session's chain), and remembers the links it proves."""
    known.setdefault(0, s["anchor"])
    link, index, path = bytes.fromhex(commitment), hand - 1, []
    while known.get(index) != link.hex():
        if index == 0:
            return False
        path.append((index, link.hex()))
        link = chain_step(s["table"], s["session"], index, link)
        index -= 1
    known.update(path)
    return True


SHARED_FIELDS = ("hand", "dealer", "service_commitment")


def check_contributions(c: _Checker) -> None:
    """Every seat signed a seed commitment naming the service commitment, then opened a matching seed."""
    doc, s = c.doc, c.doc["session"]["statement"]
    seats = [p["seat"] for p in doc["players"]]
    for missing in sorted(set(range(len(s["players"]))) - set(seats)):
        c.fail(player_party(doc, missing), "seed commitment", "no seed commitment from this seat")
    if seats != sorted(set(seats)) or any(seat >= len(s["players"]) for seat in seats):
        c.fail(SERVICE, "transcript schema", f"player entries must list distinct table seats in order, got {seats}")
        return
    blamed = _service_misstatements(c)
    for entry in doc["players"]:
        _check_contribution(c, s, entry, blamed)


def _service_misstatements(c: _Checker) -> set[str]:
    """Shared fields on which every player signed the same value and the transcript states another.

    The players' signed statements outvote the unsigned copy: the service published a wrong hand, dealer or
    commitment (for the commitment, only if what the players signed is the chain's link and the copy is not).
    """
    doc = c.doc
    expected = {"hand": doc["hand"], "dealer": doc["dealer"], "service_commitment": doc["service"]["commitment"]}
    blamed = set()
    for name in SHARED_FIELDS:
        signed = {json.dumps(p["statement"][name]) for p in doc["players"]}
        if len(signed) != 1 or doc["players"][0]["statement"][name] == expected[name]:
            continue
        if name == "service_commitment":
            s, value = doc["session"]["statement"], doc["players"][0]["statement"][name]
            if doc["hand"] > s["hands"] or not _in_chain(s, doc["hand"], value, c.links):
                continue
        blamed.add(name)
        c.fail(SERVICE, "hand statement", f"the transcript's {name} is not what every player signed")
    return blamed


def _check_contribution(c: _Checker, s: Mapping[str, Any], entry: Mapping[str, Any], blamed: set[str]) -> None:
    doc, seat = c.doc, entry["seat"]
    party = player_party(doc, seat)
    statement = entry["statement"]
    expected = seed_statement(
        s, doc["hand"], doc["dealer"], seat, doc["service"]["commitment"], statement["seed_commitment"]
    )
    wrong = sorted(k for k in expected if statement.get(k) != expected[k] and k not in blamed)
    if wrong:
        c.fail(party, "seed statement", f"does not bind this table/hand/seat/service commitment: {', '.join(wrong)}")
    if not signature_holds(s["players"][seat]["key"], statement, entry["signature"]):
        c.fail(party, "seed signature", "the signed seed commitment does not verify under the player's key")
    if "seed" not in entry:
        c.fail(party, "seed opening", "the player's seed was never opened")
        return
    seed = bytes.fromhex(entry["seed"])
    name = s["players"][seat]["name"]
    if seed_commitment(s["table"], s["session"], statement["hand"], name, seed).hex() != statement["seed_commitment"]:
        c.fail(party, "seed opening", "the seed does not open the player's commitment")


def check_reveal(c: _Checker) -> bool:
    """The service revealed a seed that opens its commitment; ``True`` iff the deck can now be judged."""
    doc, s = c.doc, c.doc["session"]["statement"]
    if doc["state"] != REVEALED:
        c.fail(SERVICE, "reveal", "the service has not revealed its seed (transcript state 'unrevealed')")
        return False
    seed = bytes.fromhex(doc["service"]["seed"])
    if chain_step(s["table"], s["session"], doc["hand"], seed).hex() != doc["service"]["commitment"]:
        c.fail(SERVICE, "reveal", "the revealed seed does not open the service's commitment")
    if c.failures:
        return False
    c.links[doc["hand"]] = doc["service"]["seed"]
    return len(doc["players"]) == len(s["players"])


def deck_input_of(doc: Mapping[str, Any]) -> bytes:
    s = doc["session"]["statement"]
    players = [(s["players"][p["seat"]]["name"], bytes.fromhex(p["seed"])) for p in doc["players"]]
    return deck_input(s["table"], s["session"], doc["hand"], s["deck"], bytes.fromhex(doc["service"]["seed"]), players)


def check_deck_and_deal(c: _Checker, order: Sequence[int]) -> None:
    doc, s = c.doc, c.doc["session"]["statement"]
    if doc["deck_order"] != to_ascii_list(order):
        c.fail(SERVICE, "deck derivation", "the published deck order is not the one the seeds derive")
    assert c.convention is not None  # derivable: check_session stated it
    pattern = c.convention.table.pattern_name(len(s["players"]))
    try:
        expected = seat_deal(np.asarray(order, dtype=np.uint8), pattern, doc["dealer"], len(s["players"]))
    except FairdealError as exc:
        c.fail(SERVICE, "deal pattern", str(exc))
        return
    if doc["deal"] != expected:
        c.fail(SERVICE, "deal pattern", f"the published deal does not follow pattern {pattern}")


def check_sequence(checkers: Sequence[_Checker]) -> list[Failure]:
    """Across one session's transcripts: hands 1, 2, ... each once; links and document hashes chained."""
    failures: list[Failure] = []
    by_hand = sorted(checkers, key=lambda c: c.doc["hand"])
    seen: dict[tuple[int, str], int] = {}
    for prev, cur in zip([None, *by_hand[:-1]], by_hand):
        hand = cur.doc["hand"]

        def fail(party: str, check: str, detail: str, source: str = cur.source, hand: Any = hand) -> None:
            failures.append(Failure(source, hand, party, check, detail))

        if prev is not None and prev.doc["hand"] == hand:
            fail(SERVICE, "hand sequence", f"hand {hand} appears twice ({prev.source})")
            continue
        expected_previous = transcript_hash(prev.doc) if prev is not None and prev.doc["hand"] == hand - 1 else None
        if prev is not None and prev.doc["hand"] != hand - 1:
            gap = (
                f"hand {hand - 1} is"
                if prev.doc["hand"] == hand - 2
                else f"hands {prev.doc['hand'] + 1}..{hand - 1} are"
            )
            fail(SERVICE, "hand sequence", f"{gap} missing")
        elif prev is not None:
            if prev.doc["service"].get("seed") != cur.doc["service"]["commitment"]:
                fail(SERVICE, "chain link", f"the commitment is not hand {hand - 1}'s revealed seed")
            if cur.doc["previous"] != expected_previous:
                fail(SERVICE, "transcript chain", f"'previous' is not the hash of hand {hand - 1}'s transcript")
        elif hand == 1 and cur.doc["previous"] is not None:
            fail(SERVICE, "transcript chain", "the first hand of a session has previous = null")
        for entry in cur.doc["players"]:
            if "seed" in entry:
                key = (entry["seat"], entry["seed"])
                if key in seen:
                    fail(player_party(cur.doc, entry["seat"]), "seed reuse", f"same seed as in hand {seen[key]}")
                seen[key] = hand
    return failures


V3_CAVEAT = (
    "v3 transcripts (fairdeal-commit-reveal/1) carry v3's weaker guarantees: the keys are the transcript's own "
    "(identities cannot be pinned), messages are not chained and the game record is nobody's signed statement"
)


def verify_documents(
    docs: Iterable[tuple[str, Mapping[str, Any]]],
    replay_records: bool = True,
    pins: Pins | None = None,
    workers: int = 1,
) -> Report:
    """Verify transcripts given as ``(source, document)``: commit-reveal v3 sessions are grouped by (table,
    session, anchor), v4 ones by roster, mental-poker ones by (table, session); ``workers`` processes check a long
    run of commit-reveal v4 documents."""
    return _verify_all(list(docs), replay_records, pins or Pins(), workers)


def _verify_all(
    docs: Sequence[tuple[str, Mapping[str, Any]]],
    replay_records: bool,
    pins: Pins,
    workers: int = 1,
    v4_checked: Sequence[Checked] = (),
    poker_checked: Sequence[MpCheck] = (),
) -> Report:
    """``verify_documents``, with documents the workers that read them have checked on their own already."""
    poker = [(source, doc) for source, doc in docs if is_mental_poker(doc)]
    v4 = [(source, doc) for source, doc in docs if is_v4(doc)]
    v3 = [(s, d) for s, d in docs if not is_mental_poker(d) and not is_v4(d)]
    report = _verify_commit_reveal(v3, replay_records)
    if v3:
        report = Report(report.transcripts, report.failures, report.notes, (V3_CAVEAT,))
    if v4 or v4_checked:
        found = _verify_v4(v4, pins, replay_records, workers, v4_checked)
        report = Report(
            report.transcripts + found.transcripts,
            report.failures + found.failures,
            report.notes + found.notes,
            report.caveats + found.caveats,
        )
    if not poker and not poker_checked:
        return report
    failures, notes, caveats = _verify_mental_poker(poker, replay_records, pins, poker_checked)
    return Report(
        report.transcripts + len(poker) + len(poker_checked),
        report.failures + tuple(failures),
        report.notes + tuple(notes),
        report.caveats + tuple(caveats),
    )


def _verify_v4(
    docs: Sequence[tuple[str, Mapping[str, Any]]],
    pins: Pins,
    replay_records: bool,
    workers: int = 1,
    checked: Sequence[Checked] = (),
) -> Report:
    findings, notes, _ = verify_v4(docs, pins, replay_records, workers, checked)
    caveats = tuple(n for n in notes if n.startswith("identities are unpinned"))
    kept = tuple(n for n in notes if n not in caveats)
    return Report(len(docs) + len(checked), tuple(Failure(*finding) for finding in findings), kept, caveats)


def _verify_mental_poker(
    docs: Sequence[tuple[str, Mapping[str, Any]]], replay_records: bool, pins: Pins, checked: Sequence[MpCheck] = ()
) -> tuple[list[Failure], list[str], list[str]]:
    """Findings, notes and caveats (what an ok does not prove: v3's weaker guarantees, unpinned identities);
    ``checked``: transcripts checked on their own already, where they were read (they come first)."""
    closing = [(source, doc) for source, doc in docs if doc.get("format") == MP_SETTLEMENT_FORMAT]
    checks = [*checked]
    checks += [
        check_mp_document(source, doc, pins) for source, doc in docs if doc.get("format") != MP_SETTLEMENT_FORMAT
    ]
    sessions: dict[tuple[str, str], list[MpCheck]] = {}
    for c in checks:
        if c.verified is not None or not c.findings:
            sessions.setdefault((c.doc["table"], c.doc["session"]), []).append(c)
    failures = [Failure(c.source, c.hand, *finding) for c in checks for finding in c.findings]
    notes = [f"{c.source}: hand {c.hand}: {note}" for c in checks for note in c.notes if note != V3_NOTE]
    caveats = [f"mental poker: {V3_NOTE}"] if any(V3_NOTE in c.notes for c in checks) else []
    if not pins.pinned and any(c.seating is not None for c in checks):
        caveats.append(f"mental poker: {UNPINNED}")
    for group in sessions.values():
        failures += [
            Failure(c.source, c.hand, party, check, detail) for c, party, check, detail in check_mp_sequence(group)
        ]
        if replay_records:
            problems, record_notes = check_mp_records(group)
            failures += [Failure(c.source, c.hand, RECORD, check, detail) for c, check, detail in problems]
            notes += [f"{c.source}: hand {c.hand}: {text}" for c, text in record_notes]
    for source, doc in closing:
        failures += [Failure(source, None, *finding) for finding in _check_mp_settlement(doc, checks)]
    return failures, notes, caveats


def _check_mp_settlement(doc: Mapping[str, Any], checks: Sequence[MpCheck]) -> list[tuple[str, str, str]]:
    """A mental-poker settlement given beside its session's transcripts (no game log states the amounts): signed
    by every seat for the hands given, the end their stopped hand proves, and the amounts their records (and that
    end's charge) settle to."""
    from fairdeal.engine.sheet import number
    from fairdeal.protocols.mental_poker.signing import Seating

    try:
        seating = Seating(Roster.from_json(doc.get("roster"), "$.roster"))
    except FairdealError as exc:
        return [(RECORD, "settlement", f"the settlement's roster: {exc}")]
    hands = sorted((c for c in checks if c.doc.get("roster") == doc.get("roster")), key=lambda c: c.hand or 0)
    if not hands:
        return [(RECORD, "settlement", "no transcript of the session it settles was given")]
    complete = [c.doc for c in hands if c.doc.get("state") == COMPLETE]
    stopped = hands[-1].doc if hands[-1].doc.get("state") in (ABANDONED, REFUSED) else None
    last = stopped if stopped is not None else (complete[-1] if complete else None)
    end = None if stopped is None else proved_end(hands[-1].source, stopped)
    names = [seat.name for seat in seating.roster.seats]
    try:
        convention = stated_convention(hands[0].doc)
        amounts = settled_amounts(convention, names, complete, [] if end is None else end["charged"])
    except (FairdealError, KeyError, TypeError, ValueError):
        amounts = None  # the transcripts' own checks name what is wrong with them
    paid = None if amounts is None else {name: number(a) for name, a in zip(names, amounts)}
    digest = "" if last is None else transcript_hash(last)
    return check_mp_settlement(doc, seating, len(complete), digest, paid, end)


def _verify_commit_reveal(docs: Sequence[tuple[str, Mapping[str, Any]]], replay_records: bool) -> Report:
    checkers = [_Checker(source, doc) for source, doc in docs]
    derivable: list[_Checker] = []
    sessions: dict[tuple[str, str, str], list[_Checker]] = {}
    chains: dict[tuple[str, str, str], dict[int, str]] = {}
    for c in sorted(checkers, key=lambda c: c.hand or 0):
        if not check_structure(c):
            continue
        s = c.doc["session"]["statement"]
        c.links = chains.setdefault((s["table"], s["session"], s["anchor"]), {})
        if check_session(c):
            check_service_commitment(c)
            check_contributions(c)
            if check_reveal(c):
                derivable.append(c)
        sessions.setdefault((s["table"], s["session"], s["anchor"]), []).append(c)
    _check_decks(derivable)
    notes: list[str] = []
    sequence_failures: list[Failure] = []
    for group in sessions.values():
        group.sort(key=lambda c: c.doc["hand"])
        sequence_failures += check_sequence(group)
        if replay_records:
            notes += _check_records(group, set(map(id, derivable)))
    failures = [f for c in checkers for f in c.failures] + sequence_failures
    return Report(len(checkers), tuple(failures), tuple(notes))


def _check_records(group: list[_Checker], derivable: set[int]) -> list[str]:
    """Replay the group's game records; adds ``record`` failures to the report, returns the notes."""
    trusted = [id(c) in derivable and not any(f.party == SERVICE for f in c.failures) for c in group]
    seats = len(group[0].doc["session"]["statement"]["players"])
    problems, notes = check_session_records([c.doc for c in group], trusted, group[0].convention, seats)
    for problem in problems:
        c = group[problem.index]
        c.failures.append(Failure(c.source, c.hand, RECORD, problem.check, problem.detail))
    return [f"{group[i].source}: hand {group[i].hand}: {text}" for i, text in notes]


def _check_decks(checkers: Sequence[_Checker]) -> None:
    by_deck: dict[str, list[_Checker]] = {}
    for c in checkers:
        by_deck.setdefault(c.doc["session"]["statement"]["deck"], []).append(c)
    for deck_name, group in by_deck.items():
        orders = derive_orders([deck_input_of(c.doc) for c in group], DeckKind(deck_name))
        for c, order in zip(group, orders):
            check_deck_and_deal(c, order)


def read_document(path: Path) -> dict[str, Any]:
    """A transcript: v4 documents must be canonical JSON (``CanonicalError`` names the field); v3 ones are read
    as JSON, as v3 wrote them."""
    raw = read_raw(path)
    try:
        doc = decode(raw, depth_checked=DEPTH_CHECKED)
    except CanonicalError as exc:
        doc = parse_transcript(path, raw)
        if is_v4(doc) or is_mental_poker_v4(doc):
            raise ProtocolError(f"{path}: not canonical JSON: {exc}") from None
        return doc
    if not isinstance(doc, dict):
        raise ProtocolError(f"{path}: a transcript is a JSON object")
    return doc


# read_raw holds every transcript to the reader's depth limit: no deeper than canonical JSON's, the decoder
# need not measure it again.
DEPTH_CHECKED = bounded.MAX_DEPTH <= canonical.MAX_DEPTH

_UNREAD = object()  # what a file gave for the log's checks when it could not give it


@dataclass
class _Read:
    """One file as the process that read it left it: checked on its own as far as a document can be (a
    commit-reveal v4 one through ``portable_checks``, a mental-poker transcript whole), or the document itself
    for this process (v3, a mental-poker settlement), or why it could not be read; with, for a game log, the record
    and table statement it holds."""

    source: str
    error: str | None = None
    doc: dict[str, Any] | None = None
    v4: Checked | None = None
    poker: MpCheck | None = None
    hand: int = 0
    is_v4: bool = False
    record: Any = _UNREAD
    statement: Any = _UNREAD


def _read_chunk(sources: Sequence[str], pins: Pins, for_log: bool) -> list[_Read]:
    """Read, decode and check each file of ``sources`` on its own (a worker's share of ``read_files``)."""
    reads, v4 = [], []
    for source in sources:
        read = _Read(source)
        reads.append(read)
        try:
            doc = read_document(Path(source))
        except FairdealError as exc:
            read.error = str(exc)
            continue
        if for_log:
            with contextlib.suppress(FairdealError, KeyError, TypeError, ValueError):
                read.record = _record_of(doc)
            with contextlib.suppress(FairdealError, KeyError, TypeError):
                read.statement = _statement_of(doc)
        read.is_v4 = is_v4(doc)
        if read.is_v4:
            read.hand = hand_of(doc)
            v4.append((read, doc))
        elif is_mental_poker(doc) and doc.get("format") != MP_SETTLEMENT_FORMAT:
            read.poker = check_mp_document(source, doc, pins)
        else:
            read.doc = doc
    v4.sort(key=lambda item: item[0].hand)  # in hand order each chain link costs one step
    for (read, _), checked in zip(v4, portable_checks([(r.source, doc) for r, doc in v4], pins)):
        read.v4 = checked
    return reads


def read_files(paths: Sequence[Path], pins: Pins, workers: int = 1, for_log: bool = False) -> list[_Read]:
    """Every file read, decoded and checked on its own by ``workers`` processes, each reading its own share: this
    process only gets back what the checks across hands need. The collector is paused meanwhile, the workers'
    results taken back included: the decoded documents are trees without cycles, and its passes over them as they
    pile up cost a tenth of the checks (and as much again while the results are unpickled)."""
    chunk = partial(_read_chunk, pins=pins, for_log=for_log)
    return without_collector(partial(in_chunks, chunk, workers=workers), [str(path) for path in paths])


def _verify_reads(reads: Sequence[_Read], replay_records: bool, pins: Pins) -> Report:
    """The checks across documents (sessions, chains, records), on what ``read_files`` gave back."""
    unreadable = [Failure(r.source, None, SERVICE, "transcript file", r.error) for r in reads if r.error is not None]
    docs = [(r.source, r.doc) for r in reads if r.doc is not None]
    v4 = restored_checks([r.v4 for r in sorted(reads, key=lambda r: r.hand) if r.v4 is not None])
    poker = [r.poker for r in reads if r.poker is not None]
    report = _verify_all(docs, replay_records, pins, 1, v4, poker)
    return Report(
        report.transcripts + len(unreadable), tuple(unreadable) + report.failures, report.notes, report.caveats
    )


def verify_paths(
    paths: Sequence[Path], replay_records: bool = True, pins: Pins | None = None, workers: int = 1
) -> Report:
    """Verify transcript files; a file that cannot be read is itself a failure of the service that published it.
    With ``workers`` > 1 a long run of files is read, decoded and checked on that many processes."""
    pins = pins or Pins()
    return _verify_reads(read_files(paths, pins, workers), replay_records, pins)


def verify_log(log_path: Path, replay_records: bool = True, pins: Pins | None = None, workers: int = 1) -> Report:
    """Verify every transcript a game log cites, and that the log cites each by its true hash and copies its record.

    The log is JSON lines (``protocols/game-log.md``); hand lines cite ``"transcript": {"file", "sha256"}`` with
    ``file`` relative to the log's folder. The header must name a protocol's dealing and the convention every
    transcript states; a log without hands, or without its closing settlement line, is an evening cut short.
    """
    log_path = Path(log_path)
    try:
        lines = strip_bom(log_path.read_bytes()).split(b"\n")
    except OSError as exc:
        return Report(
            0, (Failure(str(log_path), None, RECORD, "game log", f"cannot read the log: {exc.strerror or exc}"),)
        )
    failures: list[Failure] = []
    cited: list[tuple[Path, dict[str, Any]]] = []
    kinds: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for number, raw in enumerate(lines, start=1):
        where = f"{log_path}:{number}"
        if not raw.strip():
            continue
        problem = check(raw)
        try:
            if problem is not None:
                raise ValueError(problem)
            line = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            failures.append(Failure(where, None, RECORD, "game log", f"not a JSON line: {one_line(str(exc))}"))
            continue
        if isinstance(line, dict) and line.get("type") in ("table", "end"):
            kinds.setdefault(line["type"], (where, line))
        if not isinstance(line, dict) or line.get("type") != "hand":
            continue
        found = _check_citation(log_path, where, line)
        failures += found[0]
        if found[1] is not None:
            cited.append((found[1], line))
    # A settlement a seat refused: no settlement line, and the refusal judged tells whose fault.
    unsettled = None
    if "end" not in kinds:
        mp_refused = refused_settlement(log_path)
        unsettled = (mp_refused, REFUSAL) if mp_refused is not None else _refused_v4_settlement(log_path)
    refused = unsettled[0] if unsettled is not None else None
    evening = _check_evening(str(log_path), kinds, len(cited), refused is not None)
    if evening and evening[0].check == "dealing":  # nothing in such a log is a protocol's to verify
        return Report(0, tuple(evening))
    failures += evening
    paths = [path for path, _ in cited]
    pins = pins or Pins()
    reads = read_files(paths, pins, workers, for_log=True)
    v4 = [path for path, read in zip(paths, reads) if read.is_v4]
    settlement = _settlement_of(log_path, paths, v4, kinds, failures)
    ended = _ended_hand(settlement or refused, len(cited)) or ended_transcript(log_path, paths)
    extra = [p for p in (ended, settlement, refused) if p is not None]
    report = _verify_reads([*reads, *read_files(extra, pins)], replay_records, pins)
    if unsettled is not None:
        note = _unsettled_note(*unsettled)
        report = Report(report.transcripts, report.failures, (note, *report.notes), report.caveats)
    failures += _check_copies(cited, reads)
    end = kinds.get("end")
    closing = check_settlement_file(log_path, paths, end[1] if end else None)
    failures += [Failure(str(log_path), None, party, check, detail) for party, check, detail in closing]
    if "table" in kinds:
        failures += _check_conventions(*kinds["table"], cited, reads)
    transcripts = report.transcripts - len(extra)
    return Report(transcripts, tuple(failures) + report.failures, report.notes, report.caveats)


def _refused_v4_settlement(log_path: Path) -> tuple[Path, str] | None:
    """The commit-reveal settlement beside the log that did not settle, and the kind of the answer that stopped
    it: a seat's signed refusal, or anything else but its countersignature (the source stops at that answer and
    files the document). Read unverified, to know the evening did not settle; its checks then judge the answer."""
    path = log_path.with_name(log_path.name + ".transcripts") / SETTLEMENT_FILE
    try:
        doc = read_document(path)
    except FairdealError:
        return None
    messages = doc.get("messages") if is_v4(doc) and doc.get("format") == V4_SETTLEMENT_FORMAT else None
    if not isinstance(messages, list) or not messages or not all(isinstance(e, dict) for e in messages):
        return None
    if any(e.get("kind") == REFUSAL for e in messages):
        return path, REFUSAL
    last = messages[-1]
    if not isinstance(last.get("sender"), int) or isinstance(last.get("sender"), bool):
        return None
    if last.get("kind") != SETTLEMENT_SIGN:
        return path, str(last.get("kind"))
    return (path, "a countersignature of another settlement") if not _countersigns_the_settlement(messages) else None


def _countersigns_the_settlement(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the last message names the digest of the document's settlement (read unverified)."""
    try:
        settlement = next(parse(e) for e in messages if e.get("kind") == SETTLEMENT)
        return bool(messages[-1]["body"]["settlement"] == settlement.digest)
    except (StopIteration, FairdealError, KeyError, TypeError):
        return True  # nothing to tell by: the document's own checks judge it


def _unsettled_note(path: Path, answer: str) -> str:
    if answer == REFUSAL:
        return f"{path}: a seat refused the settlement: the evening did not settle (the log has no settlement line)"
    return (
        f"{path}: a seat answered the settlement with {one_line(answer)!r} instead of its countersignature: the "
        "evening did not settle (the log has no settlement line)"
    )


def _ended_hand(settlement: Path | None, hands: int) -> Path | None:
    """The transcript of the hand an evening's end voided (the log has no line for it): the one after the last
    hand the log cites, beside the settlement whose signed ``end`` cites it."""
    if settlement is None:
        return None
    try:
        doc = read_document(settlement)
    except FairdealError:
        return None
    first = doc.get("messages", [None])[0] if isinstance(doc.get("messages"), list) and doc["messages"] else None
    if not isinstance(first, dict) or first.get("kind") != "end":
        return None
    return settlement.parent / f"hand-{hands + 1:04d}.json"


def _settlement_of(
    log_path: Path,
    cited: Sequence[Path],
    v4: Sequence[Path],
    kinds: Mapping[str, tuple[str, Mapping[str, Any]]],
    failures: list[Failure],
) -> Path | None:
    """A v4 evening closes with the signed settlement beside its transcripts (``v4``: the commit-reveal v4 ones of
    those the log ``cited``); the log's last line must state it."""
    folder = v4[0].parent if v4 else log_path.with_name(log_path.name + ".transcripts")
    if "end" not in kinds or not (v4 or (not cited and kinds["end"][1].get("penalty"))):
        return None
    path = folder / SETTLEMENT_FILE
    if not v4 and not (path.exists() and _is_v4_file(path)):  # an evening ended in its first hand, not this protocol's
        return None
    try:
        doc = read_document(path)
        settlement = next(e["body"] for e in doc["messages"] if e["kind"] == "settlement")
        signed = {name: Fraction(text) for name, text in settlement["amounts"].items()}
    except (
        FairdealError,
        KeyError,
        IndexError,
        TypeError,
        AttributeError,
        ValueError,
        ZeroDivisionError,
        StopIteration,
    ):
        failures.append(
            Failure(str(path), None, SERVICE, "settlement", "the evening's signed settlement is missing or unreadable")
        )
        return path if path.exists() else None
    where, end = kinds["end"]
    stated = end.get("settlement")
    if not isinstance(stated, dict) or {k: _as_fraction(v) for k, v in stated.items()} != signed:
        failures.append(
            Failure(where, None, RECORD, "settlement line", f"the log's settlement is not the signed one {signed}")
        )
    charge = _signed_end_penalty(doc)
    if charge is not None and end.get("penalty", []) != charge:
        failures.append(
            Failure(
                where,
                None,
                RECORD,
                "end penalty",
                f"the log's end charges {end.get('penalty', [])}, the signed end {charge}",
            )
        )
    return path


def _signed_end_penalty(doc: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The score items the settlement's signed end charges (``None`` when the evening did not end so): the log's
    end line must carry exactly these."""
    first = doc["messages"][0]
    if first.get("kind") != "end":
        return [] if is_v4(doc) else None
    try:
        roster = Roster.from_json(doc["roster"], "$.roster")
        convention = roster_convention(roster)
        lines = end_penalty(convention, len(roster.seats), [int(s) for s in first["body"]["charged"]])
    except (FairdealError, KeyError, TypeError, ValueError):
        return None  # the settlement's own checks name it
    return [line.to_record() for line in lines]


def _as_fraction(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Fraction(value).limit_denominator(1000) if isinstance(value, float) else Fraction(value)


def _is_v4_file(path: Path) -> bool:
    try:
        return is_v4(read_document(path))
    except FairdealError:
        return False


def _check_evening(
    source: str, kinds: Mapping[str, tuple[str, Mapping[str, Any]]], hands: int, refused: bool = False
) -> list[Failure]:
    """The log opens with a protocol's header, holds hands and closes with the settlement: nothing is missing
    (but the settlement line of an evening whose settlement a seat ``refused``: it did not settle)."""
    if "table" not in kinds:
        return [Failure(source, None, RECORD, "game log", "the log has no header line")]
    where, header = kinds["table"]
    dealing = header.get("dealing")
    if dealing not in ("commit-reveal", "mental-poker"):
        return [
            Failure(
                where,
                None,
                RECORD,
                "dealing",
                f"the header says the cards were dealt by {dealing!r}, not by a protocol with transcripts",
            )
        ]
    if refused:
        return []
    if hands == 0 and not kinds.get("end", ("", {}))[1].get("penalty"):  # an evening may end in its first hand
        return [
            Failure(
                source,
                None,
                RECORD,
                "game log",
                "the log holds no hand: the evening stopped before its "
                "first hand was played, so there is nothing to verify",
            )
        ]
    if "end" not in kinds:
        return [
            Failure(
                source,
                None,
                RECORD,
                "game log",
                f"the log ends after {hands} hand(s) without its settlement line: the evening was cut short",
            )
        ]
    return []


def _check_conventions(
    where: str, header: Mapping[str, Any], cited: Sequence[tuple[Path, Mapping[str, Any]]], reads: Sequence[_Read]
) -> list[Failure]:
    """Each transcript states the convention the header names (house rules and pulya included, when it states
    them; a statement written before house rules travelled states the system, deck and deal pattern)."""
    try:
        expected = rebuild_convention(str(header.get("system")), header.get("convention") or {}, header.get("pulya"))
    except FairdealError as exc:
        return [Failure(where, None, RECORD, "game log", f"the header names no convention: {exc}")]
    failures = []
    for (path, line), read in zip(cited, reads):
        if read.statement is _UNREAD:
            continue  # the transcript's own checks report it
        statement = read.statement
        try:
            stated = stated_convention(statement)
        except (FairdealError, KeyError, TypeError):
            continue
        same = stated == expected if states_house_rules(statement) else stated.name == expected.name
        if not same:
            failures.append(
                Failure(
                    str(path),
                    line.get("hand"),
                    RECORD,
                    "convention",
                    f"the transcript's table statement plays {_describe(stated, statement)}, the "
                    f"log header {_describe(expected, header)}",
                )
            )
    return failures


def _statement_of(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """Where a transcript states its table: the signed session opening (v3), the signed roster (v4), or a
    mental-poker document itself."""
    if is_v4(doc):
        body = doc["roster"]["roster"]
        return {
            "system": body["system"],
            "convention": body["convention"],
            "pulya": body["pulya"],
            "players": body["seats"],
        }
    return doc if is_mental_poker(doc) else doc["session"]["statement"]


def _describe(convention: Convention, stated: Mapping[str, Any]) -> str:
    rules = ", ".join(f"{k}={json.dumps(v)}" for k, v in house_rules(convention).items())
    return f"{convention.name} to a pulya of {convention.pulya.size}" + (f" with {rules}" if rules else "")


def _check_citation(log_path: Path, where: str, line: Mapping[str, Any]) -> tuple[list[Failure], Path | None]:
    hand = line.get("hand") if isinstance(line.get("hand"), int) else None
    reference = line.get("transcript")
    if not isinstance(reference, dict) or not isinstance(reference.get("file"), str):
        return [Failure(where, hand, RECORD, "transcript reference", "the hand line cites no transcript")], None
    path = log_path.parent / reference["file"]
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return [Failure(where, hand, RECORD, "transcript reference", f"cannot read {path}: {exc.strerror}")], None
    if digest != reference.get("sha256"):
        return [
            Failure(
                where,
                hand,
                RECORD,
                "transcript reference",
                f"{reference['file']} has SHA-256 {digest}, the log cites {reference.get('sha256')}",
            )
        ], path
    return [], path


def _check_copies(cited: Sequence[tuple[Path, Mapping[str, Any]]], reads: Sequence[_Read]) -> list[Failure]:
    """The hand line (without ``type`` and ``transcript``) must be the record the transcript holds."""
    failures = []
    for (path, line), read in zip(cited, reads):
        if read.error is not None:
            continue  # already reported by verify_paths
        expected = {k: v for k, v in line.items() if k not in ("type", "transcript")}
        if read.record != expected:
            failures.append(
                Failure(
                    str(path),
                    line.get("hand"),
                    RECORD,
                    "log line",
                    "the game log's hand line differs from the record in the transcript",
                )
            )
    return failures


def _record_of(doc: Mapping[str, Any]) -> Any:
    """The game record a transcript holds: v4 keeps it in the service's signed hand-close."""
    if not is_v4(doc):
        return played_record(doc.get("record"))  # a mental-poker v4 hand writes a fraction as its exact text
    try:
        close = next(m for m in doc["messages"] if isinstance(m, dict) and m.get("kind") == "hand-close")
        return played_record(close["body"]["record"])
    except (StopIteration, KeyError, TypeError):
        return None
