"""Byte encodings the commit-reveal protocol hashes and signs.

Two encodings, both specified in ``protocols/commit-reveal.md``:

* ``frame`` — length-prefixed fields for hash inputs (no delimiter ambiguity, trivially portable);
* ``canonical_json`` — sorted keys, no whitespace, UTF-8, integral numbers as integers — for signed
  statements and whole transcripts, so a document's hash does not depend on who serialised it.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from fairdeal.errors import ProtocolError, one_line

MAX_FIELD = 2**32 - 1


def u64(value: int) -> bytes:
    """An unsigned integer as 8 big-endian bytes; refuses values that would wrap."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"{one_line(repr(value), 40)} is not a whole number")
    if not 0 <= value < 2**64:
        raise ProtocolError(f"integer {value} does not fit an unsigned 64-bit field")
    return value.to_bytes(8, "big")


def frame(*fields: bytes | str) -> bytes:
    """Concatenate fields, each preceded by its length as 4 big-endian bytes; strings are UTF-8."""
    parts = []
    for field in fields:
        data = field.encode("utf-8") if isinstance(field, str) else field
        if len(data) > MAX_FIELD:
            raise ProtocolError("a framed field is longer than 2**32-1 bytes")
        parts += [len(data).to_bytes(4, "big"), data]
    return b"".join(parts)


def _normalise(value: Any, where: str = "$") -> Any:
    """Integral floats become ints; NaN/inf and non-JSON types are refused."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ProtocolError(f"{where}: canonical JSON has no NaN or infinity")
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise ProtocolError(f"{where}: object keys must be strings, got {key!r}")
        return {k: _normalise(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normalise(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise ProtocolError(f"{where}: {type(value).__name__} is not a JSON value")


def canonical_json(value: Any) -> bytes:
    """The canonical UTF-8 bytes of a JSON value (see the spec's 'Canonical encoding')."""
    text = json.dumps(_normalise(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ProtocolError(f"canonical JSON is UTF-8; a lone surrogate cannot be encoded ({exc.reason})") from None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def from_hex(text: Any, length: int, what: str) -> bytes:
    """Decode lowercase hex of exactly ``length`` bytes or raise ``ProtocolError`` naming ``what``."""
    if not isinstance(text, str) or len(text) != 2 * length or text != text.lower():
        raise ProtocolError(f"{what} must be {2 * length} lowercase hex digits")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ProtocolError(f"{what} is not hex: {text[:16]!r}...") from None
