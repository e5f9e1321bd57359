"""The message kinds of ``fairdeal-commit-reveal/4`` and the typed check of each body.

A body that does not have exactly its kind's fields, each of its type, is the sender's fault: the sender's valid
signature is on it (``open_checked`` has already refused anything unsigned).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from fairdeal.errors import SignedMessageError
from fairdeal.protocols.signed import Envelope, describe

OPEN, ACCEPT = "session-open", "session-accept"
HAND_OPEN, COMMIT, REVEAL_REQUEST, REVEAL = "hand-open", "seed-commit", "reveal-request", "seed-reveal"
CLOSE, RECORD_SIGN, REFUSAL, ABORT = "hand-close", "record-sign", "refusal", "abort"
SETTLEMENT, SETTLEMENT_SIGN, END = "settlement", "settlement-sign", "end"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_HEX32 = re.compile("[0-9a-f]{64}")


def _is_hex32(value: Any) -> bool:
    return isinstance(value, str) and _HEX32.fullmatch(value) is not None


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _is_record(value: Any) -> bool:
    return value is None or isinstance(value, dict)


def _is_seats(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _is_cards(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_beacon(value: Any) -> bool:
    return value is None or _is_hex32(value)


def _is_amounts(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


Check = Callable[[Any], bool]
BODIES: dict[str, dict[str, Check]] = {
    OPEN: {"hands": _is_int, "anchor": _is_hex32},
    ACCEPT: {"roster": _is_hex32},
    HAND_OPEN: {"attempt": _is_int, "dealer": _is_int, "commitment": _is_hex32, "beacon": _is_beacon},
    COMMIT: {"attempt": _is_int, "commitment": _is_hex32},
    REVEAL_REQUEST: {"attempt": _is_int},
    REVEAL: {"attempt": _is_int, "seed": _is_hex32},
    CLOSE: {"attempt": _is_int, "seed": _is_hex32, "deck_order": _is_cards, "deal": _is_object, "record": _is_record},
    RECORD_SIGN: {"record": _is_hex32},
    REFUSAL: {"step": _is_text, "check": _is_text, "reason": _is_text},
    ABORT: {"attempt": _is_int, "step": _is_text, "missing": _is_seats, "request": _is_hex32},
    SETTLEMENT: {"hands": _is_int, "amounts": _is_amounts},
    SETTLEMENT_SIGN: {"settlement": _is_hex32},
    END: {"hand": _is_int, "step": _is_text, "charged": _is_seats, "evidence": _is_hex32},
}
FROM_SERVICE = frozenset({OPEN, HAND_OPEN, REVEAL_REQUEST, CLOSE, ABORT, SETTLEMENT, END})


def checked_body(envelope: Envelope, names: Mapping[Any, str] | None = None) -> dict[str, Any]:
    """The body, if it is what the kind prescribes and the kind is one the sender may send."""
    # The sender is named only in an error: a verifier checks a dozen bodies a hand.
    fields = BODIES.get(envelope.kind)
    if fields is None:
        who = describe(envelope.sender, names)
        raise SignedMessageError(f"unknown message kind {envelope.kind!r}", who, "message kind")
    if (envelope.kind in FROM_SERVICE) != (envelope.sender == "service") and envelope.kind != REFUSAL:
        who = describe(envelope.sender, names)
        raise SignedMessageError(f"{who} may not send {envelope.kind}", who, "message kind")
    body = dict(envelope.body)
    if body.keys() != fields.keys():
        odd = ", ".join(sorted(set(body) ^ set(fields)))
        what = f"{envelope.kind}: fields {odd} missing or unknown"
        raise SignedMessageError(what, describe(envelope.sender, names), "message body")
    for name, check in fields.items():
        if not check(body[name]):
            what = f"{envelope.kind}: body.{name} has the wrong type or form"
            raise SignedMessageError(what, describe(envelope.sender, names), "message body")
    return body
