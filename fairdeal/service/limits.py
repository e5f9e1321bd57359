"""Input limits and rate limits, checked before anything reaches a table or the database."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

MAX_MESSAGE_BYTES = 16 * 1024  # a seed commitment with its statement is under 2 KiB
MAX_REQUEST_BYTES = 4 * 1024
NAME = re.compile(r"^[A-Za-z0-9А-Яа-яЁё _.-]{1,24}$")
TABLE_ID = re.compile(r"^[a-z0-9-]{1,40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
HEX128 = re.compile(r"^[0-9a-f]{128}$")


class Envelope(msgspec.Struct, forbid_unknown_fields=True):
    """Every client message: ``signature`` is the slot protocol v4 fills (a signature of the envelope)."""

    type: str
    table: str
    seat: int
    seq: int
    body: dict[str, Any]
    signature: str | None = None


class Hello(msgspec.Struct, forbid_unknown_fields=True):
    """The first message of a connection: the identity key, its signature of the server's nonce, and a chair."""

    type: str
    key: str
    signature: str
    name: str | None = None
    seat: int | None = None


T = TypeVar("T")


class BadInput(ValueError):
    """One line naming the field that is wrong."""


def decode(raw: str | bytes, kind: type[T], limit: int = MAX_MESSAGE_BYTES) -> T:
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    if len(data) > limit:
        raise BadInput(f"message of {len(data)} bytes exceeds the limit of {limit}")
    try:
        value = msgspec.json.decode(data, type=kind)
    except msgspec.ValidationError as exc:
        raise BadInput(f"malformed message: {exc}") from None
    except msgspec.DecodeError as exc:
        raise BadInput(f"not JSON: {exc}") from None
    return value


def check_envelope(env: Envelope) -> None:
    if not 0 < env.seq < 2**62:
        raise BadInput(f"seq must be a positive integer, got {env.seq}")
    if env.signature is not None and not HEX128.match(env.signature):
        raise BadInput("signature must be 128 lowercase hex digits or null")


def check_name(name: Any, where: str = "name") -> str:
    if not isinstance(name, str) or not NAME.match(name) or name != name.strip():
        raise BadInput(f"{where} must be 1-24 letters, digits, spaces, '.', '_' or '-'")
    return name


@dataclass
class Bucket:
    """A token bucket: ``rate`` tokens a second, at most ``burst`` saved."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        now = time.monotonic()
        if self.tokens < 0:
            self.tokens = self.burst
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass
class RateLimits:
    """One bucket per client address for HTTP; each WebSocket connection gets its own bucket."""

    http_rate: float = 50.0
    http_burst: float = 100.0
    ws_rate: float = 30.0
    ws_burst: float = 60.0
    _http: dict[str, Bucket] = field(default_factory=dict)

    def http(self, client: str) -> bool:
        if len(self._http) > 10_000:  # forget idle clients rather than grow without bound
            self._http.clear()
        return self._http.setdefault(client, Bucket(self.http_rate, self.http_burst)).take()

    def socket(self) -> Bucket:
        return Bucket(self.ws_rate, self.ws_burst)
