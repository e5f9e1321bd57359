"""The signed statements of mental poker v4: the record of each hand, and the session's settlement.

After a hand every seated player signs (envelope kind ``record``, ``prev`` = the hand's last message) the SHA-256
of the canonical hand record, score lines included — or signs a refusal with his reason. The session closes with a
settlement (kind ``settlement``, hand 0, ``prev`` = the last transcript's hash) every seated player signs: how
many hands were played and what everybody wins or pays, as exact fractions. Changing a record, a score line or the
settlement after the signing breaks every signature on it; dropping or splicing hands breaks the settlement's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from fairdeal.engine.sheet import number
from fairdeal.errors import FairdealError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.signing import PROTOCOL_V4, Seating
from fairdeal.protocols.record_form import signed_record

RECORD, SETTLEMENT = "record", "settlement"
SETTLEMENT_FORMAT = "fairdeal-settlement"
SETTLEMENT_FILE = "settlement.json"
SETTLEMENT_HEAD: dict[str, Any] = {"format": SETTLEMENT_FORMAT, "version": 1, "protocol": PROTOCOL_V4}
TRANSCRIPT = "transcript"

Finding = tuple[str, str, str]  # (party, check, detail)


def record_digest(record: Any) -> str:
    """The digest a statement signs; of whatever value a transcript states as its record (a hostile one too)."""
    return hashlib.sha256(encode(signed_record(dict(record) if isinstance(record, Mapping) else record))).hexdigest()


def _seat(seating: Seating, key: IdentityKey) -> int:
    return int(next(s for s, k in seating.keys.items() if k == key.public))


def sign_record(
    key: IdentityKey, seating: Seating, hand: int, record: Mapping[str, Any], head: str, refusal: str | None = None
) -> dict[str, Any]:
    """``key``'s holder signs the hand's record (or, with ``refusal``, signs that he will not, and why)."""
    body: dict[str, Any] = {"record": record_digest(record), "agrees": refusal is None}
    if refusal is not None:
        body["reason"] = refusal
    return signed.seal(key, seating.context(hand), _seat(seating, key), RECORD, body, head).to_json()


def check_record_statements(statements: Any, seating: Seating, hand: int, record: Any, head: str) -> list[Finding]:
    """One valid statement per roster seat over exactly this record, after exactly this hand."""
    if not isinstance(statements, list):
        return [(TRANSCRIPT, "record statement", "'statements' must list the players' signed statements")]
    found: list[Finding] = []
    signers: dict[int, Mapping[str, Any]] = {}
    digest = record_digest(record)
    for index, doc in enumerate(statements):
        try:
            envelope = signed.open_checked(
                signed.parse(doc, f"statements[{index}]"),
                seating.context(hand),
                seating.keys,
                prev=head,
                kind=RECORD,
                presenter=TRANSCRIPT,
                names=seating.names,
            )
        except SignedMessageError as error:
            found.append((error.party, "record statement", _detail(error)))
            continue
        if envelope.sender in signers:
            found.append((TRANSCRIPT, "record statement", f"two statements from seat {envelope.sender}"))
        signers[int(envelope.sender)] = envelope.body
    for seat, name in seating.names.items():
        body = signers.get(int(seat))
        if body is None:
            found.append((TRANSCRIPT, "record statement", f"no signed statement of the record from player {name}"))
        elif body.get("record") != digest:
            found.append((TRANSCRIPT, "record statement", f"player {name} signed another record than this one"))
        elif body.get("agrees") is not True:
            found.append(("record", "record statement", f"player {name} refuses the record: {body.get('reason')}"))
    return found


def _detail(error: SignedMessageError) -> str:
    text = str(error)
    prefix = f"{error.party}: {error.check}: "
    return text[len(prefix) :] if text.startswith(prefix) else text


def settlement_body(players: Sequence[str], hands: int, last: str, amounts: Sequence[Fraction]) -> dict[str, Any]:
    return {"hands": hands, "last": last, "settlement": {name: str(a) for name, a in zip(players, amounts)}}


def settlement_proposal(
    seating: Seating, hands: int, last: str, amounts: Sequence[Fraction], end: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The body every seated player is asked to sign; after an evening's ``end`` (``{"hand", "charged"}``: the hand
    that stopped, the players at fault) it says so."""
    body = settlement_body([s.name for s in seating.roster.seats], hands, last, amounts)
    if end is not None:
        body["end"] = {"hand": end["hand"], "charged": list(end["charged"])}
    return body


def sign_settlement(
    key: IdentityKey, seating: Seating, proposal: Mapping[str, Any], refusal: str | None = None
) -> dict[str, Any]:
    """``key``'s holder signs the settlement ``proposal`` (or, with ``refusal``, signs that he will not, and why:
    the proposal itself with ``agrees: false`` and the ``reason``)."""
    body = dict(proposal) if refusal is None else dict(proposal, agrees=False, reason=refusal)
    return signed.seal(key, seating.context(0), _seat(seating, key), SETTLEMENT, body, proposal["last"]).to_json()


def settlement_document(statements: Sequence[Mapping[str, Any]], seating: Seating) -> dict[str, Any]:
    """The session's closing document: every seated player's signed statement (after an evening's end, every
    player's but the charged), in seat order."""
    return {
        **SETTLEMENT_HEAD,
        "roster": seating.roster.to_json(),
        "statements": [dict(statement) for statement in statements],
    }


def _settlement_form(doc: Any) -> bool:
    """Exactly the closing document's fields, its head's values of their own JSON types (``true`` is no 1)."""
    if not isinstance(doc, dict) or doc.keys() != {*SETTLEMENT_HEAD, "roster", "statements"}:
        return False
    return all(type(doc[key]) is type(value) and doc[key] == value for key, value in SETTLEMENT_HEAD.items())


def check_settlement(
    doc: Any,
    seating: Seating,
    hands: int,
    last: str,
    amounts: Mapping[str, int | float] | None,
    end: Mapping[str, Any] | None = None,
) -> list[Finding]:
    """The closing statement: every seat signed this session's hand count, last transcript and settlement; after
    an evening's ``end`` (what the stopped hand proves), every seat but the charged signed exactly that end."""
    if not _settlement_form(doc):
        fields = ", ".join(sorted([*SETTLEMENT_HEAD, "roster", "statements"]))
        return [("record", "settlement", f"not a {SETTLEMENT_FORMAT} version 1 document of {PROTOCOL_V4} ({fields})")]
    if doc.get("roster") != seating.roster.to_json():
        return [("record", "settlement", "the settlement is signed for another roster than the transcripts'")]
    found: list[Finding] = []
    signed_by: set[int] = set()
    refused_by: set[int] = set()
    entries = doc.get("statements")
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        try:
            envelope = signed.open_checked(
                signed.parse(entry, f"statements[{index}]"),
                seating.context(0),
                seating.keys,
                kind=SETTLEMENT,
                presenter="record",
                names=seating.names,
            )
        except SignedMessageError as error:
            found.append((error.party, "settlement", _detail(error)))
            continue
        who = seating.names[envelope.sender]
        if envelope.body.get("agrees") is False:
            found += _judge_refusal(who, envelope.body, envelope.prev, hands, last, amounts, end)
            refused_by.add(int(envelope.sender))
            continue
        found += _check_settlement_body(who, envelope.body, envelope.prev, hands, last, amounts)
        if envelope.body.get("end") != (None if end is None else dict(end)):
            detail = f"player {who} signed the end {envelope.body.get('end')}; the stopped hand proves {end}"
            found.append(("record", "settlement end", detail))
        signed_by.add(int(envelope.sender))
    charged = [] if end is None else list(end["charged"])
    for seat, name in seating.names.items():
        if int(seat) not in signed_by | refused_by and name not in charged:
            found.append(("record", "settlement", f"player {name} did not sign the settlement"))
        if int(seat) in signed_by and name in charged:
            found.append(("record", "settlement end", f"player {name}, charged, signed his own end"))
    return found


def _judge_refusal(
    who: str,
    body: Mapping[str, Any],
    prev: str,
    hands: int,
    last: str,
    amounts: Mapping[str, int | float] | None,
    end: Mapping[str, Any] | None,
) -> list[Finding]:
    """A signed refusal of the settlement put to a player: founded when what it refuses is not this session's
    settlement (another end than the stopped hand proves, another count, last transcript or amounts), and then
    the publisher's fault; else the refuser broke off without cause."""
    reason = body.get("reason")
    refused = {k: v for k, v in body.items() if k not in ("agrees", "reason")}
    wrong = _check_settlement_body(who, refused, prev, hands, last, amounts)
    if wrong or refused.get("end") != (None if end is None else dict(end)):
        detail = f"player {who} refused, with cause, the settlement put to him ({reason})"
        return [("record", "settlement end" if not wrong else "settlement", detail)]
    return [(f"player {who}", "settlement refusal", f"refused a settlement that holds ({reason})")]


def _check_settlement_body(
    who: str, body: Mapping[str, Any], prev: str, hands: int, last: str, amounts: Mapping[str, int | float] | None
) -> list[Finding]:
    """``amounts`` are the log's settlement line (JSON numbers, as ``sheet.number`` writes them)."""
    if body.get("hands") != hands or body.get("last") != last or prev != last:
        detail = (
            f"player {who} signed a session of {body.get('hands')} hand(s) ending elsewhere; the log cites "
            f"{hands} ending at the transcript it cites last (hands dropped or spliced)"
        )
        return [("record", "settlement", detail)]
    if amounts is None:
        return []
    try:
        stated = {name: number(Fraction(value)) for name, value in dict(body.get("settlement") or {}).items()}
    except (FairdealError, TypeError, ValueError, ZeroDivisionError):
        return [("record", "settlement", f"player {who}'s signed settlement is not a table of amounts")]
    if stated != dict(amounts):
        return [("record", "settlement", f"the log's settlement line is not the one player {who} signed")]
    return []
