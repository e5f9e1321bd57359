"""The signed roster a v4 table opens with: who sits where, under which identity key, playing what.

Its body (canonical JSON) names the protocol, table, session, time, the convention in the game-log header's
form (``system``, ``convention`` overrides, ``pulya``), the service's identity key and each seat's name and key.
The service and every seated player sign ``context("fairdeal-roster", 1) + encode(body)``; its hash binds every
signed message of the session (``signed.Context.roster``). On disk (``--roster FILE``)::

    {"roster": body, "signatures": {"service": hex, "seats": [hex per seat]}}
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from fairdeal.bounded import quote
from fairdeal.errors import CanonicalError, ProtocolError
from fairdeal.files import write_file
from fairdeal.protocols.canonical import context, decode, encode
from fairdeal.protocols.identity import SIGNATURE_BYTES, IdentityKey, PublicKey

ROSTER_FORMAT = "fairdeal-roster"
ROSTER_VERSION = 1
SERVICE = "service"
MAX_ROSTER_BYTES = 1 << 16
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z")
_BODY_FIELDS = ("format", "version", "protocol", "table", "session", "time", "system", "convention", "pulya")


@dataclass(frozen=True)
class Seat:
    name: str
    key: PublicKey


@dataclass(frozen=True)
class Roster:
    """The roster and the signatures gathered so far (``b""`` where a party has not signed)."""

    protocol: str
    table: str
    session: str
    time: str  # UTC, ``YYYY-MM-DDTHH:MM:SSZ``
    system: str
    convention: tuple[tuple[str, Any], ...]  # house rules, ``group.field`` -> value, sorted
    pulya: int
    service: PublicKey
    seats: tuple[Seat, ...]
    service_signature: bytes = b""
    seat_signatures: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if not _TIME.match(self.time):
            raise ProtocolError(f"roster: time {self.time!r} is not YYYY-MM-DDTHH:MM:SSZ")
        names = [seat.name for seat in self.seats]
        if not names or len(set(names)) != len(names) or not all(names):
            raise ProtocolError(f"roster: seat names must be distinct and non-empty: {names}")
        keys = [self.service.raw] + [seat.key.raw for seat in self.seats]
        if len(set(keys)) != len(keys):
            raise ProtocolError("roster: every party needs its own identity key (one key sits twice)")
        if self.seat_signatures and len(self.seat_signatures) != len(self.seats):
            raise ProtocolError("roster: one signature slot per seat is required")

    @classmethod
    def create(
        cls,
        protocol: str,
        table: str,
        session: str,
        time: str,
        header: Mapping[str, Any],
        service: PublicKey,
        seats: Sequence[tuple[str, PublicKey]],
    ) -> Roster:
        """An unsigned roster; ``header`` holds ``system``, ``convention`` and ``pulya`` as the log header does."""
        return cls(
            protocol,
            table,
            session,
            time,
            header["system"],
            tuple(sorted(dict(header.get("convention") or {}).items())),
            header["pulya"],
            service,
            tuple(Seat(name, key) for name, key in seats),
        )

    def body(self) -> dict[str, Any]:
        return {
            "format": ROSTER_FORMAT,
            "version": ROSTER_VERSION,
            "protocol": self.protocol,
            "table": self.table,
            "session": self.session,
            "time": self.time,
            "system": self.system,
            "convention": dict(self.convention),
            "pulya": self.pulya,
            "service": self.service.hex,
            "seats": [{"seat": i, "name": s.name, "key": s.key.hex} for i, s in enumerate(self.seats)],
        }

    def header(self) -> dict[str, Any]:
        """The convention in the log header's form."""
        return {"system": self.system, "convention": dict(self.convention), "pulya": self.pulya}

    def message(self) -> bytes:
        """What every party signs."""
        return context(ROSTER_FORMAT, ROSTER_VERSION) + encode(self.body())

    @cached_property
    def hash(self) -> str:
        """SHA-256 (hex) of the body's canonical bytes: the roster every signed message is bound to."""
        return hashlib.sha256(encode(self.body())).hexdigest()

    def party(self, sender: int | str) -> str:
        """How reports name a party: ``service`` or ``player NAME``."""
        return SERVICE if sender == SERVICE else f"player {self.seats[int(sender)].name}"

    def key_of(self, sender: int | str) -> PublicKey:
        return self.service if sender == SERVICE else self.seats[int(sender)].key

    def signed_by(self, key: IdentityKey) -> Roster:
        """This roster with ``key``'s signature added in the slot of the party that holds it."""
        signature = key.sign(self.message())
        if key.public == self.service:
            return replace(self, service_signature=signature)
        for index, seat in enumerate(self.seats):
            if key.public == seat.key:
                slots = list(self.seat_signatures or [b""] * len(self.seats))
                slots[index] = signature
                return replace(self, seat_signatures=tuple(slots))
        raise ProtocolError("roster: the key signing it is not the service's or any seat's")

    def check(self) -> None:
        """Every party's signature verifies; else ``ProtocolError`` naming the first party that fails."""
        message = self.message()
        if not self.service.verify(message, self.service_signature, repeated=True):
            raise ProtocolError("roster: service: the service's signature does not verify")
        signatures = self.seat_signatures or (b"",) * len(self.seats)
        for index, (seat, signature) in enumerate(zip(self.seats, signatures)):
            if not seat.key.verify(message, signature, repeated=True):
                raise ProtocolError(f"roster: player {seat.name} (seat {index}): the signature does not verify")

    def to_json(self) -> dict[str, Any]:
        slots = self.seat_signatures or (b"",) * len(self.seats)
        return {
            "roster": self.body(),
            "signatures": {"service": self.service_signature.hex(), "seats": [s.hex() for s in slots]},
        }

    @classmethod
    def from_json(cls, doc: Any, where: str = "$") -> Roster:
        """The roster a document states; ``ProtocolError`` names the field that is wrong."""
        top = _object(doc, where, ("roster", "signatures"))
        body = _object(top["roster"], f"{where}.roster", (*_BODY_FIELDS, "service", "seats"))
        at = f"{where}.roster"
        if not (_exactly(body["format"], ROSTER_FORMAT) and _exactly(body["version"], ROSTER_VERSION)):
            raise ProtocolError(f"{at}.format: not a {ROSTER_FORMAT} version {ROSTER_VERSION}")
        for name in ("protocol", "table", "session", "time", "system"):
            _string(body[name], f"{at}.{name}")
        if not isinstance(body["pulya"], int) or isinstance(body["pulya"], bool) or body["pulya"] < 1:
            raise ProtocolError(f"{at}.pulya: a positive whole number is expected")
        if not isinstance(body["convention"], dict):
            raise ProtocolError(f"{at}.convention: an object of house rules is expected")
        seats = body["seats"]
        if not isinstance(seats, list) or not seats:
            raise ProtocolError(f"{at}.seats: a non-empty list is expected")
        read = []
        for index, entry in enumerate(seats):
            seat = _object(entry, f"{at}.seats[{index}]", ("seat", "name", "key"))
            if not _exactly(seat["seat"], index):
                raise ProtocolError(f"{at}.seats[{index}].seat: seats are numbered 0..n-1 in order")
            read.append(
                (_string(seat["name"], f"{at}.seats[{index}].name"), _key(seat["key"], f"{at}.seats[{index}].key"))
            )
        signatures = _object(top["signatures"], f"{where}.signatures", ("service", "seats"))
        seat_signatures = signatures["seats"]
        if not isinstance(seat_signatures, list) or len(seat_signatures) != len(read):
            raise ProtocolError(f"{where}.signatures.seats: one signature per seat is expected")
        roster = cls.create(
            body["protocol"],
            body["table"],
            body["session"],
            body["time"],
            body,
            _key(body["service"], f"{at}.service"),
            read,
        )
        return replace(
            roster,
            service_signature=_signature(signatures["service"], f"{where}.signatures.service"),
            seat_signatures=tuple(
                _signature(s, f"{where}.signatures.seats[{i}]") for i, s in enumerate(seat_signatures)
            ),
        )

    def save(self, path: str | Path, force: bool = False) -> None:
        write_file(path, encode(self.to_json()), force=force)

    @classmethod
    def load(cls, path: str | Path) -> Roster:
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ProtocolError(f"{path}: no such roster file") from None
        except OSError as exc:
            raise ProtocolError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if len(data) > MAX_ROSTER_BYTES:
            raise ProtocolError(f"{path}: not a roster (more than {MAX_ROSTER_BYTES:,} bytes)")
        try:
            return cls.from_json(decode(data))
        except CanonicalError as exc:
            raise ProtocolError(f"{path}: not a roster: {exc}") from None
        except ProtocolError as exc:
            raise ProtocolError(f"{path}: {exc}") from None


def _object(value: Any, where: str, fields: Sequence[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError(f"{where}: an object is expected")
    if set(value) != set(fields):
        missing, unknown = sorted(set(fields) - set(value)), sorted(set(value) - set(fields))
        named = [*missing, *(quote(key) for key in unknown[:3])]
        raise ProtocolError(f"{where}: fields {', '.join(named)} are missing or unknown")
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ProtocolError(f"{where}: a non-empty string is expected")
    return value


def _key(value: Any, where: str) -> PublicKey:
    known = _known_key(value) if isinstance(value, str) else None
    return known if known is not None else PublicKey.from_hex(value, where)


@lru_cache(maxsize=1024)  # every transcript of a session states the same roster: decode each key once
def _known_key(text: str) -> PublicKey | None:
    try:
        return PublicKey.from_hex(text)
    except ProtocolError:
        return None  # named with its field by ``_key``


def _signature(value: Any, where: str) -> bytes:
    if value == "":
        return b""
    if not isinstance(value, str) or len(value) != 2 * SIGNATURE_BYTES or value != value.lower():
        raise ProtocolError(f"{where}: a signature is {2 * SIGNATURE_BYTES} lowercase hex digits")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise ProtocolError(f"{where}: not hex") from None


def _exactly(value: Any, expected: str | int) -> bool:
    """``value == expected`` with the same JSON type: ``false`` equals ``0`` in Python, not in a signed roster."""
    return type(value) is type(expected) and value == expected
