"""One hand's transcript: the canonical, versioned JSON document that lets anyone re-check the deal.

Shape (normative: ``protocols/commit-reveal.md`` and ``protocols/transcript.schema.json``)::

    {format, version, protocol, state, session: {statement, service_signature, player_signatures},
     hand, dealer, service: {commitment, seed?}, players: [{seat, statement, signature, seed?}],
     deck_order?, deal?, record?, previous}

``previous`` is the SHA-256 of the canonical bytes of the session's previous transcript (``None`` for the
first hand), so the hands of a table form one hash chain next to the service's seed chain.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from fairdeal.bounded import MAX_DOCUMENT_BYTES, check, strip_bom
from fairdeal.cards import to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order, get_pattern
from fairdeal.errors import ProtocolError, one_line
from fairdeal.files import write_file
from fairdeal.protocols.commit_reveal import HandRound, SignedSession
from fairdeal.protocols.derive import PROTOCOL
from fairdeal.protocols.encoding import canonical_json, sha256_hex

FORMAT = "fairdeal-transcript"
VERSION = 1
REVEALED, UNREVEALED = "revealed", "unrevealed"


def seat_deal(order: np.ndarray, pattern_name: str, dealer: int, num_seats: int) -> dict[str, Any]:
    """The deal as the log writes it: cards per seat (``[]`` for a seat that sits out) and the talons."""
    pattern = get_pattern(pattern_name)
    dealt = deal_order(order, pattern)
    by_seat = deal_by_seat(dealt, pattern, dealer, num_seats)
    out: dict[str, Any] = {
        "hands": [to_ascii_list(h) for h in by_seat[:num_seats]],
        "talons": [to_ascii_list(t) for t in dealt.talons],
    }
    if len(by_seat) > num_seats:
        out["dummy"] = to_ascii_list(by_seat[num_seats])
    return out


def session_part(session: SignedSession) -> dict[str, Any]:
    return {
        "statement": session.statement,
        "service_signature": session.service_signature,
        "player_signatures": list(session.player_signatures),
    }


def build_transcript(
    session: SignedSession,
    round_: HandRound,
    service_commitment: str,
    previous: str | None,
    service_seed: bytes | None = None,
    record: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble a transcript; without ``service_seed`` it is ``unrevealed`` (no deck, no deal)."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "protocol": PROTOCOL,
        "state": UNREVEALED if service_seed is None else REVEALED,
        "session": session_part(session),
        "hand": round_.hand,
        "dealer": round_.dealer,
        "service": {"commitment": service_commitment},
        "players": [_player_entry(round_, seat) for seat in sorted(round_.commitments)],
        "previous": previous,
    }
    if service_seed is not None:
        statement = session.statement
        assert round_.order is not None  # the service derives the order before it reveals its seed
        doc["service"]["seed"] = service_seed.hex()
        doc["deck_order"] = to_ascii_list(round_.order)
        doc["deal"] = seat_deal(round_.order, statement["deal_pattern"], round_.dealer, len(statement["players"]))
    if record is not None:
        doc["record"] = dict(record)
    return copy.deepcopy(doc)  # transcripts never share mutable parts with the parties or each other


def _player_entry(round_: HandRound, seat: int) -> dict[str, Any]:
    commitment = round_.commitments[seat]
    entry = {"seat": seat, "statement": commitment.statement, "signature": commitment.signature}
    if seat in round_.seeds:
        entry["seed"] = round_.seeds[seat].hex()
    return entry


def transcript_bytes(doc: Mapping[str, Any]) -> bytes:
    return canonical_json(doc)


def transcript_hash(doc: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical bytes: the value the next transcript and the game log cite."""
    return sha256_hex(transcript_bytes(doc))


def write_transcript(doc: Mapping[str, Any], path: Path) -> str:
    """Write the canonical bytes (the file hash then equals ``transcript_hash``); returns the hash."""
    data = transcript_bytes(doc)
    write_file(path, data, force=True, durable=False)  # the log that cites it is the durable record
    return sha256_hex(data)


def read_raw(path: Path) -> bytes:
    """A transcript file's bytes (a leading BOM dropped), within the document limits."""
    path = Path(path)
    try:
        raw = strip_bom(path.read_bytes())
    except OSError as exc:
        # Reading a folder always fails, so asking whether it is one only then costs a file nothing.
        if path.is_dir():
            raise ProtocolError(f"{path}: is a folder, not a transcript") from None
        if isinstance(exc, FileNotFoundError):
            raise ProtocolError(f"{path}: no such transcript") from None
        raise ProtocolError(f"{path}: cannot read: {exc.strerror or exc}") from None
    problem = check(raw, MAX_DOCUMENT_BYTES)
    if problem is not None:
        raise ProtocolError(f"{path}: not a transcript: {problem}")
    return raw


def parse_transcript(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError(f"{path}: not a JSON transcript: {one_line(str(exc))}") from None
    if not isinstance(doc, dict):
        raise ProtocolError(f"{path}: a transcript is a JSON object")
    return doc


def read_transcript(path: Path) -> dict[str, Any]:
    return parse_transcript(path, read_raw(path))
