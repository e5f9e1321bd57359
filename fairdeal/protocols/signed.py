"""The signed-message envelope of protocol v4: every message a party sends, in both protocols.

An envelope is ``{"sender": seat | "service", "kind", "hand", "body", "prev", "signature"}``. The sender signs
``context(DOMAIN, table, session, hand, roster hash) + encode({sender, kind, hand, body, prev})`` with its
identity key, so a message cannot be moved to another table, session, hand or roster, and ``prev`` — the digest
of the message before it (the roster hash for a session's first) — chains it to everything it answers. The relay
can drop, delay or reorder messages, but cannot forge one: ``open_checked`` refuses anything whose signature,
context or link does not hold, and blames the party whose signature is on the faulty message only when the fault
is in what that party signed (a bad signature, a replay or a broken link is the presenter's doing).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, TypeVar, overload

from fairdeal.errors import SignedMessageError
from fairdeal.protocols.canonical import context, encode, encode_decoded
from fairdeal.protocols.identity import SIGNATURE_BYTES, IdentityKey, PublicKey

DOMAIN = "fairdeal-signed/4"
SERVICE = "service"
FIELDS = frozenset({"sender", "kind", "hand", "body", "prev", "signature"})

Sender = int | str  # a seat number, or "service"

_KIND = re.compile(r"[a-z][a-z0-9-]{0,39}")  # every kind is a word: nothing a report could not print on one line


@dataclass(frozen=True)
class Context:
    """Where a message belongs: the table, the session, the hand (0 for the session's own messages), the roster."""

    table: str
    session: str
    hand: int
    roster: str  # the roster's hash (hex)

    def at(self, hand: int) -> Context:
        return Context(self.table, self.session, hand, self.roster)

    def prefix(self) -> bytes:
        return _prefix(self.table, self.session, self.hand, self.roster)


@lru_cache(maxsize=1024)  # every message of a hand is signed under the same context
def _prefix(table: str, session: str, hand: int, roster: str) -> bytes:
    return context(DOMAIN, table, session, hand, roster)


V = TypeVar("V")


class _once(Generic[V]):
    """``functools.cached_property`` without its lock: Python 3.11 takes one on each first access, which costs
    more than hashing the message (a verifier opens a dozen envelopes a hand and reads each one's bytes and
    digest once). An envelope is a value, so computing one twice in a race gives the same bytes."""

    def __init__(self, compute: Callable[[Any], V]):
        self.compute, self.name = compute, compute.__name__

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> _once[V]: ...

    @overload
    def __get__(self, instance: object, owner: type[Any]) -> V: ...

    def __get__(self, instance: object | None, owner: type[Any]) -> V | _once[V]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)  # later reads find it, not this descriptor
        return value


@dataclass(frozen=True)
class Envelope:
    sender: Sender
    kind: str
    hand: int
    body: Mapping[str, Any]
    prev: str
    signature: bytes
    # Only ``parse(decoded=True)`` sets it: the parts came from ``canonical.decode``, so their canonical bytes
    # need no read-back check. Not part of the value.
    decoded: bool = field(default=False, compare=False, repr=False)

    def content(self) -> dict[str, Any]:
        return {"sender": self.sender, "kind": self.kind, "hand": self.hand, "body": self.body, "prev": self.prev}

    def to_json(self) -> dict[str, Any]:
        return {**self.content(), "signature": self.signature.hex()}

    @_once
    def content_bytes(self) -> bytes:
        return encode_decoded(self.content()) if self.decoded else encode(self.content())

    def signed_bytes(self, ctx: Context) -> bytes:
        return _prefix(ctx.table, ctx.session, self.hand, ctx.roster) + self.content_bytes

    @_once
    def digest(self) -> str:
        """SHA-256 (hex) of the content's canonical bytes followed by the signature: the next message's ``prev``."""
        return hashlib.sha256(self.content_bytes + self.signature).hexdigest()


def seal(key: IdentityKey, ctx: Context, sender: Sender, kind: str, body: Mapping[str, Any], prev: str) -> Envelope:
    """Sign a message from ``sender`` (whose identity ``key`` is) for ``ctx``, following the message ``prev``."""
    unsigned = Envelope(sender, kind, ctx.hand, dict(body), prev, b"")
    return Envelope(sender, kind, ctx.hand, dict(body), prev, key.sign(unsigned.signed_bytes(ctx)))


def describe(sender: Sender, names: Mapping[Sender, str] | None = None) -> str:
    """``service`` or ``player NAME`` (``seat N`` without names)."""
    if sender == SERVICE:
        return SERVICE
    name = (names or {}).get(sender)
    return f"player {name}" if name is not None else f"seat {sender}"


def parse(doc: Any, where: str = "message", decoded: bool = False) -> Envelope:
    """An envelope from its JSON form; ``SignedMessageError`` (against the presenter) names the bad field.
    ``decoded``: ``doc`` is part of what ``canonical.decode`` returned (its bytes are canonical as they stand)."""

    def bad(field: str, what: str) -> SignedMessageError:
        return SignedMessageError(f"{where}.{field}: {what}", "relay", "message form")

    if not isinstance(doc, dict) or doc.keys() != FIELDS:
        raise bad("*", f"a message has exactly the fields {', '.join(sorted(FIELDS))}")
    sender = doc["sender"]
    if sender != SERVICE and (not isinstance(sender, int) or isinstance(sender, bool) or not 0 <= sender < 16):
        raise bad("sender", "a seat number or 'service' is expected")
    if not isinstance(doc["kind"], str) or not _KIND.fullmatch(doc["kind"]):
        raise bad("kind", "a message kind (a lowercase word, hyphens allowed) is expected")
    if not isinstance(doc["hand"], int) or isinstance(doc["hand"], bool) or doc["hand"] < 0:
        raise bad("hand", "a hand number is expected")
    if not isinstance(doc["body"], dict):
        raise bad("body", "an object is expected")
    if not _is_hex(doc["prev"], 32):
        raise bad("prev", "64 lowercase hex digits are expected")
    signature = _hex(doc["signature"], SIGNATURE_BYTES)
    if signature is None:
        raise bad("signature", f"{2 * SIGNATURE_BYTES} lowercase hex digits are expected")
    return Envelope(sender, doc["kind"], doc["hand"], doc["body"], doc["prev"], signature, decoded)


def _is_hex(value: Any, length: int) -> bool:
    return _hex(value, length) is not None


def _hex(value: Any, length: int) -> bytes | None:
    """The ``length`` bytes ``value`` writes as lowercase hex, or None."""
    if not isinstance(value, str) or len(value) != 2 * length or value != value.lower():
        return None
    try:
        return bytes.fromhex(value)
    except ValueError:
        return None


def open_checked(
    message: Envelope | Mapping[str, Any],
    ctx: Context,
    keys: Mapping[Sender, PublicKey],
    prev: str | None = None,
    sender: Sender | None = None,
    kind: str | None = None,
    presenter: str = "relay",
    names: Mapping[Sender, str] | None = None,
    signature: bool = True,
) -> Envelope:
    """The envelope, if it is what the receiver expects here: ``sender``'s, of ``kind``, for ``ctx`` (its hand),
    following ``prev``, under the sender's identity key from ``keys``. Otherwise ``SignedMessageError`` naming
    the sender and the check, charged to ``presenter`` (whoever handed the message over): a message that does not
    verify is nobody's statement, and a genuine one out of place was put there by the one who placed it.
    ``signature=False``: every check but the signature's, for a verifier that has the sender's signature on a later
    message of the chain (which covers this one's digest)."""
    envelope = message if isinstance(message, Envelope) else parse(message)

    def refuse(check: str, what: str) -> SignedMessageError:
        who = describe(envelope.sender, names)
        return SignedMessageError(f"{envelope.kind} from {who} (hand {envelope.hand}): {what}", presenter, check)

    key = keys.get(envelope.sender)
    if key is None:
        raise refuse("sender", "the sender is not on the roster")
    # Hand 0 holds a session's opening (and its settlement): every transcript of the session repeats the opening.
    if signature and not key.verify(envelope.signed_bytes(ctx), envelope.signature, repeated=envelope.hand == 0):
        raise refuse(
            "signature",
            f"the signature does not verify under {describe(envelope.sender, names)}'s identity key for this table, "
            "session and roster: not their statement",
        )
    if envelope.hand != ctx.hand:
        raise refuse("context", f"signed for hand {envelope.hand}, presented in hand {ctx.hand}: a replay")
    if sender is not None and envelope.sender != sender:
        raise refuse("sender", f"expected a message from {describe(sender, names)}")
    if kind is not None and envelope.kind != kind:
        raise refuse("kind", f"expected {kind}")
    if prev is not None and envelope.prev != prev:
        raise refuse("chain link", "it does not follow the message before it (dropped, reordered or spliced)")
    return envelope
