"""Canonical JSON for everything protocol v4 signs or hashes, with a decoder that accepts nothing else.

The form: UTF-8; object keys sorted by code point, each once; no whitespace; integers only, ``|n| < 2**63``,
written in the shortest decimal form (no ``-0``, no leading zeros, no fraction or exponent); strings escape only
``"``, ``\\`` and the control characters (``\\b \\f \\n \\r \\t`` by name, the rest as ``\\u00xx``), everything
else is written as itself. ``decode`` accepts a byte string only if it is exactly ``encode`` of what it parses,
so two parties that agree on a value agree on its bytes, its hash and its signature. ``context`` frames the
domain a signature or hash belongs to as a length-prefixed tuple, so no two tuples share bytes.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from fairdeal.errors import CanonicalError, one_line

MAX_DEPTH = 64
MAX_STRING_BYTES = 1 << 16  # a key, name or hex value; whole records are objects, not strings
MAX_INT = 2**63  # integers lie strictly inside (-MAX_INT, MAX_INT)
MAX_DOCUMENT_BYTES = 16 << 20

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NAMED_ESCAPES = {'"': '"', "\\": "\\", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_CANONICAL_ESCAPE = {v: k for k, v in _NAMED_ESCAPES.items()}
_INTEGER = re.compile(rb"-?(0|[1-9][0-9]*)")
_NUMBER = re.compile(rb"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_HEX4 = re.compile(rb"[0-9a-fA-F]{4}")


def key_path(path: str, key: str) -> str:
    """The JSON path of ``key`` inside the object at ``path``: ``$.hands`` or ``$["odd key"]``."""
    return f"{path}.{key}" if _IDENTIFIER.match(key) else f"{path}[{json.dumps(key, ensure_ascii=True)}]"


def encode(value: Any) -> bytes:
    """The canonical bytes of ``value`` (dicts with str keys, lists or tuples, str, int, bool, None)."""
    try:
        out = _c_encode(value)
        # The C encoder writes what canonical JSON refuses (floats, NaN as null, bytes as base64, huge numbers)
        # without a word: what it wrote must read back, through the same checks as ``decode``, as the very value.
        if _read_back(out) == value:
            return out
    except (TypeError, ValueError, UnicodeError, RecursionError, OverflowError, msgspec.EncodeError):
        pass
    _check_value(value, "$", 0)  # names the field at fault; a value that passes differs only as tuples do
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def encode_decoded(value: Any) -> bytes:
    """``encode`` of a value ``decode`` returned, or of one built only of parts of such values: canonical by
    construction, so the C encoder's bytes are the canonical ones without the read-back ``encode`` makes of a
    value from anywhere (``tests/test_canonical.py`` holds the two equal on what ``decode`` accepts)."""
    return _c_encode(value)


def _c_encode(value: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8 written as itself and only ``"``, ``\\`` and control characters escaped:
    byte for byte what ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` writes for a
    canonical value (``tests/test_canonical.py`` compares them), several times faster."""
    return _ENCODER.encode(value)


_ENCODER = msgspec.json.Encoder(order="sorted")


def _check_value(value: Any, path: str, depth: int) -> None:
    if isinstance(value, str):
        _check_string(value, path)
    elif value is None or isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not -MAX_INT < value < MAX_INT:
            raise CanonicalError(f"{path}: integer out of range (|n| < 2**63)")
    elif isinstance(value, (dict, list, tuple)):
        if depth >= MAX_DEPTH:
            raise CanonicalError(f"{path}: nesting deeper than {MAX_DEPTH}")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise CanonicalError(f"{path}: object key {one_line(repr(key), 40)} is not a string")
                _check_string(key, path)
                _check_value(item, key_path(path, key), depth + 1)
        else:
            for index, item in enumerate(value):
                _check_value(item, f"{path}[{index}]", depth + 1)
    elif isinstance(value, float):
        raise CanonicalError(f"{path}: {value!r} is a float; canonical JSON holds integers only")
    else:
        raise CanonicalError(f"{path}: a {type(value).__name__} is not a JSON value")


def _check_string(text: str, path: str) -> None:
    if _too_long(text):
        raise CanonicalError(f"{path}: string longer than {MAX_STRING_BYTES:,} bytes")
    if _SURROGATE.search(text):
        raise CanonicalError(f"{path}: lone surrogate in a string")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _too_long(text: str) -> bool:
    # A character is at most 4 UTF-8 bytes: only a string near the limit needs encoding to be measured.
    n = len(text)
    return n > MAX_STRING_BYTES or (
        4 * n > MAX_STRING_BYTES and len(text.encode("utf-8", "surrogatepass")) > MAX_STRING_BYTES
    )


def _within_limits(value: Any) -> bool:
    """The depth, string-length and integer limits of a parsed value, walked without a path per field (the
    common, honest case; ``_check_value`` then names the field at fault). Lone surrogates are not looked for: a
    value holding one fails the UTF-8 encoding every caller makes of it."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return False
        items = node.items() if type(node) is dict else enumerate(node)
        for key, item in items:
            if type(key) is str and len(key) > _SHORT and _too_long(key):
                return False
            kind = type(item)
            if kind is str:
                if len(item) > _SHORT and _too_long(item):
                    return False
            elif kind is int:
                if not -MAX_INT < item < MAX_INT:
                    return False
            elif kind is dict or kind is list:
                stack.append((item, depth + 1))
            elif item is not None and kind is not bool:
                return False
    return True


_SHORT = MAX_STRING_BYTES // 4  # no string this short can break the byte limit


def decode(data: bytes, depth_checked: bool = False) -> Any:
    """The value whose canonical encoding is exactly ``data``; ``CanonicalError`` names the path of the first
    field that breaks the form. ``depth_checked``: the caller has found the brackets outside strings in ``data``
    nested at most ``MAX_DEPTH`` deep (``bounded.check`` does, to the same limit, for every transcript read), so
    the depth is not measured again."""
    if not isinstance(data, (bytes, bytearray)):
        raise CanonicalError("$: canonical JSON is bytes")
    if len(data) > MAX_DOCUMENT_BYTES:
        raise CanonicalError(f"$: {len(data):,} bytes, more than the limit of {MAX_DOCUMENT_BYTES:,}")
    data = bytes(data)
    value = _fast_decode(data, depth_checked)
    if value is not _NOT_CANONICAL:
        return value
    value = _Parser(data).document()
    if encode(value) != data:  # the parser enforces the form; this guards it
        raise CanonicalError("$: not the canonical encoding of its value")
    return value


_NOT_CANONICAL = object()


def _refuse(_text: str) -> Any:
    raise ValueError("not an integer")


_DECODER = msgspec.json.Decoder(float_hook=_refuse)
# msgspec reads integers of any size: only a run of 19 or more digits can be one outside (-2**63, 2**63). The
# digits mapped to "0" and everything else to "." find such a run in two C passes (a regex takes ten times as long).
_DIGITS_ONLY = bytes.maketrans(
    b"0123456789" + bytes(b for b in range(256) if b not in b"0123456789"), b"0" * 10 + b"." * 246
)
_LONG_RUN = b"0" * 19


def _read_back(data: bytes, depth_checked: bool = False) -> Any:
    """``data`` read by the C parser (no floats), the integer, depth and string limits checked where they could
    be broken (the depth not when the caller has: ``decode``); ``_NOT_CANONICAL`` if it cannot be."""
    try:
        value = _DECODER.decode(data)
    except (msgspec.DecodeError, ValueError, RecursionError, UnicodeError):
        return _NOT_CANONICAL
    if len(data) > MAX_STRING_BYTES:
        return value if _scalar_or_within_limits(value) else _NOT_CANONICAL
    long_run = _LONG_RUN in data.translate(_DIGITS_ONLY)
    deep = not depth_checked and data.count(b"[") + data.count(b"{") > MAX_DEPTH
    if not long_run and not deep:
        return value
    # Only a run of digits outside the strings is an integer (hashes and signatures are hex strings, and one in
    # eight transcripts holds a run of 19 decimal digits in one): without such a run no integer can break the
    # range and no string the byte limit, and only the depth can be wrong.
    bare = _outside_strings(data)
    if long_run and _LONG_RUN in bare.translate(_DIGITS_ONLY):
        return value if _scalar_or_within_limits(value) else _NOT_CANONICAL
    if deep and _deeper_than(bare, MAX_DEPTH):
        return _NOT_CANONICAL
    return value


def _scalar_or_within_limits(value: Any) -> bool:
    kind = type(value)
    if kind is dict or kind is list:
        return _within_limits(value)
    if kind is int:
        return bool(-MAX_INT < value < MAX_INT)
    if kind is str:
        return not _too_long(value)
    return value is None or kind is bool


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_SQUARE = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def _outside_strings(data: bytes) -> bytes:
    """JSON text ``data`` (that a JSON parser read) without its strings."""
    # An escaped quote could hide a string's end: then the strings are stripped exactly; with no escapes, quotes
    # open and close strings in turn.
    return _STRING.sub(b"", data) if b"\\" in data else b"".join(data.split(b'"')[::2])


def _deeper_than(bare: bytes, limit: int) -> bool:
    """Does JSON text without its strings (``bare``) nest brackets deeper than ``limit``? The brackets alone,
    squared, lose exactly one level each time every empty pair is removed: at most ``limit + 1`` passes in C,
    instead of a walk of the parsed value (a transcript has hundreds of lists and is six deep)."""
    brackets = bare.translate(_SQUARE, _NOT_BRACKET)
    for _ in range(limit):
        brackets = brackets.replace(b"[]", b"")
        if not brackets:
            return False
    return True


def _fast_decode(data: bytes, depth_checked: bool) -> Any:
    """The C parser, then the C encoder: if re-encoding gives ``data`` back, ``data`` is canonical (duplicate keys
    and escapes would re-encode differently)."""
    value = _read_back(data, depth_checked)
    if value is _NOT_CANONICAL:
        return value
    try:
        again = _c_encode(value)
    except UnicodeError:  # a lone surrogate, escaped in ``data``
        return _NOT_CANONICAL
    return value if again == data else _NOT_CANONICAL


class _Parser:
    """A recursive-descent reader of the canonical form only; its errors name the JSON path."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def fail(self, path: str, what: str) -> CanonicalError:
        return CanonicalError(f"{path}: {what} (byte {self.pos})")

    def document(self) -> Any:
        value = self.value("$", 0)
        if self.pos != len(self.data):
            raise self.fail("$", "bytes after the value" + self._whitespace_hint())
        return value

    def _whitespace_hint(self) -> str:
        return (
            ": whitespace is not canonical" if self.data[self.pos : self.pos + 1] in (b" ", b"\n", b"\t", b"\r") else ""
        )

    def value(self, path: str, depth: int) -> Any:
        if self.pos >= len(self.data):
            raise self.fail(path, "the document ends where a value belongs")
        head = self.data[self.pos : self.pos + 1]
        if head in (b"{", b"["):
            if depth >= MAX_DEPTH:
                raise self.fail(path, f"nesting deeper than {MAX_DEPTH}")
            return self.object(path, depth) if head == b"{" else self.array(path, depth)
        if head == b'"':
            return self.string(path)
        for word, meaning in ((b"true", True), (b"false", False), (b"null", None)):
            if self.data.startswith(word, self.pos):
                self.pos += len(word)
                return meaning
        return self.number(path)

    def object(self, path: str, depth: int) -> dict[str, Any]:
        self.pos += 1
        out: dict[str, Any] = {}
        previous: str | None = None
        if self.data[self.pos : self.pos + 1] == b"}":
            self.pos += 1
            return out
        while True:
            if self.data[self.pos : self.pos + 1] != b'"':
                raise self.fail(path, "an object key must be a string" + self._whitespace_hint())
            key = self.string(path)
            if key in out:
                raise self.fail(path, f"duplicate key {one_line(json.dumps(key, ensure_ascii=False), 60)}")
            if previous is not None and key < previous:
                raise self.fail(path, f"key {one_line(json.dumps(key, ensure_ascii=False), 60)} is out of sorted order")
            self.expect(b":", path)
            out[key] = self.value(key_path(path, key), depth + 1)
            previous = key
            if self.data[self.pos : self.pos + 1] == b"}":
                self.pos += 1
                return out
            self.expect(b",", path)

    def array(self, path: str, depth: int) -> list[Any]:
        self.pos += 1
        out: list[Any] = []
        if self.data[self.pos : self.pos + 1] == b"]":
            self.pos += 1
            return out
        while True:
            out.append(self.value(f"{path}[{len(out)}]", depth + 1))
            if self.data[self.pos : self.pos + 1] == b"]":
                self.pos += 1
                return out
            self.expect(b",", path)

    def expect(self, token: bytes, path: str) -> None:
        if self.data[self.pos : self.pos + 1] != token:
            raise self.fail(path, f"expected {token.decode()}" + self._whitespace_hint())
        self.pos += 1

    def number(self, path: str) -> int:
        whole = _NUMBER.match(self.data, self.pos)
        if whole is None:
            raise self.fail(path, "not a JSON value" + self._whitespace_hint())
        text = whole.group()
        if whole.group(1) or whole.group(2):
            raise self.fail(path, f"{one_line(text.decode(), 40)} is not an integer (no fractions or exponents)")
        integer = _INTEGER.fullmatch(text)
        if integer is None or text == b"-0":
            raise self.fail(path, f"{one_line(text.decode(), 40)} is not the canonical form of an integer")
        if len(text) > 20 or not -MAX_INT < int(text) < MAX_INT:
            raise self.fail(path, "integer out of range (|n| < 2**63)")
        self.pos = whole.end()
        return int(text)

    def string(self, path: str) -> str:
        start = self.pos = self.pos + 1
        parts: list[str] = []
        while True:
            end = self._plain_run(start, path)
            parts.append(self._utf8(start, end, path))
            self.pos = end
            if end >= len(self.data):
                raise self.fail(path, "unterminated string")
            if self.data[end] == 0x22:  # the closing quote
                self.pos = end + 1
                text = "".join(parts)
                if len(text.encode("utf-8")) > MAX_STRING_BYTES:
                    raise self.fail(path, f"string longer than {MAX_STRING_BYTES:,} bytes")
                return text
            if self.data[end] < 0x20:
                raise self.fail(path, "a control character must be escaped")
            parts.append(self.escape(path))
            start = self.pos

    def _plain_run(self, start: int, path: str) -> int:
        end = start
        data = self.data
        while end < len(data) and data[end] not in (0x22, 0x5C) and data[end] >= 0x20:
            end += 1
            if end - start > MAX_STRING_BYTES:
                raise self.fail(path, f"string longer than {MAX_STRING_BYTES:,} bytes")
        return end

    def _utf8(self, start: int, end: int, path: str) -> str:
        try:
            return self.data[start:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            self.pos = start + exc.start
            raise self.fail(path, "invalid UTF-8 (or a surrogate) in a string") from None

    def escape(self, path: str) -> str:
        code = self.data[self.pos + 1 : self.pos + 2].decode("latin-1")
        if code in _NAMED_ESCAPES:
            self.pos += 2
            return _NAMED_ESCAPES[code]
        if code != "u" or _HEX4.fullmatch(self.data, self.pos + 2, self.pos + 6) is None:
            raise self.fail(path, "invalid escape in a string")
        digits = self.data[self.pos + 2 : self.pos + 6].decode("ascii")
        char = chr(int(digits, 16))
        if "\ud800" <= char <= "\udfff":
            raise self.fail(path, "lone surrogate in a string")
        if char >= " " or char in _CANONICAL_ESCAPE or digits != digits.lower():
            raise self.fail(path, f"non-canonical escape \\u{digits}")
        self.pos += 6
        return char


_EIGHT = (8).to_bytes(4, "big")


def context(*parts: str | int | bytes) -> bytes:
    """A domain-separation tuple: each part tagged by type and prefixed by its length, so the tuple is recoverable
    from the bytes and no two different tuples share them."""
    out = [len(parts).to_bytes(4, "big")]
    for part in parts:
        # The exact types first, without the checks a subclass needs: a context is built for every seed and
        # chain link checked.
        if type(part) is str:
            data = part.encode("utf-8")
            out += [b"s", len(data).to_bytes(4, "big"), data]
            continue
        if type(part) is bytes:
            out += [b"b", len(part).to_bytes(4, "big"), part]
            continue
        if type(part) is int and -MAX_INT <= part < MAX_INT:
            out += [b"i", _EIGHT, part.to_bytes(8, "big", signed=True)]
            continue
        if isinstance(part, bool) or not isinstance(part, (str, int, bytes)):
            raise CanonicalError(f"a context part is str, int or bytes, not {type(part).__name__}")
        if isinstance(part, str):
            tag, data = b"s", part.encode("utf-8")
        elif isinstance(part, int):
            if not -MAX_INT <= part < MAX_INT:
                raise CanonicalError("a context integer is a signed 64-bit number")
            tag, data = b"i", part.to_bytes(8, "big", signed=True)
        else:
            tag, data = b"b", part
        out += [tag, len(data).to_bytes(4, "big"), data]
    return b"".join(out)
