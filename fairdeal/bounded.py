"""The limits every JSON input of fairdeal is held to before it is decoded, and safe quoting of what it contained.

A log line, a transcript or a signed statement comes from outside: it may nest without end, carry numbers no
integer type holds, or be megabytes of one string. ``check`` finds such input in linear time and names the
problem; ``quote`` (and ``errors.one_line``) make any text fit on one short line of an error message (a key with a
newline must not print as two lines, and a 1 MB card is not echoed in full). A leading UTF-8 byte-order mark is
accepted.
"""

from __future__ import annotations

import re

import numpy as np

from fairdeal.errors import one_line

MAX_DEPTH = 64  # a hand line nests 4 deep; extras and conventions get room to spare
MAX_LINE_BYTES = 1 << 20  # one log line; a played hand is about 1 KB
MAX_DOCUMENT_BYTES = 16 << 20  # one transcript file; a mental-poker hand is about 70 KB
MAX_DIGITS = 15  # integers stay below 10**15 < 2**53, exact in every JSON reader
MAX_EXPONENT_DIGITS = 2  # 1e99 at most: no float overflows to infinity
QUOTE_CHARS = 40  # a quoted value in a message keeps this many characters

BOM = b"\xef\xbb\xbf"
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BIG_NUMBER = re.compile(rb"(?<![\w.])-?\d{%d,}|[eE][+-]?\d{%d,}" % (MAX_DIGITS + 1, MAX_EXPONENT_DIGITS + 1))
_OPEN = frozenset(b"[{")
# One pass of bytes.translate folds what the limits look at into a few symbols, so the common, harmless line is
# passed by substring tests (a regex scan of a 1 KB line costs ten times more); only a hit goes to the exact check.
_FOLD = bytes(
    ord("0")
    if b in b"0123456789"
    else ord("e")
    if b in b"eE"
    else ord("s")
    if b in b"+-"
    else ord("[")
    if b in _OPEN
    else 32
    for b in range(256)
)
_SUSPECT = (b"0" * (MAX_DIGITS + 1), b"e" + b"0" * (MAX_EXPONENT_DIGITS + 1), b"es" + b"0" * (MAX_EXPONENT_DIGITS + 1))
_NOT_A_NUMBER = re.compile(rb"NaN|-?Infinity")  # Python's json reads them; JSON has no such numbers


def strip_bom(raw: bytes) -> bytes:
    return raw[len(BOM) :] if raw.startswith(BOM) else raw


def check(raw: bytes, max_bytes: int = MAX_LINE_BYTES) -> str | None:
    """The first limit ``raw`` breaks, in words, or None. Linear in its length."""
    if len(raw) > max_bytes:
        return f"{len(raw):,} bytes, more than the limit of {max_bytes:,}"
    folded = raw.translate(_FOLD)
    opens = folded.count(b"[")
    odd = b"NaN" in raw or b"Infinity" in raw
    if opens <= MAX_DEPTH and not _suspect(folded) and not odd:
        return None
    bare = _bare(raw)
    if odd and (match := _NOT_A_NUMBER.search(bare)) is not None:
        return f"{match.group().decode('ascii')} is not a JSON number"
    # Outside strings, where a number can be: hex digits in hashes and signatures look like long numbers.
    if _suspect(bare.translate(_FOLD)) and (match := _BIG_NUMBER.search(bare)) is not None:
        return f"the number {one_line(match.group().decode('ascii'), 24)} is out of range (at most {MAX_DIGITS} digits)"
    if opens > MAX_DEPTH and _depth(bare) > MAX_DEPTH:
        return f"nested more than {MAX_DEPTH} deep"
    return None


def _suspect(folded: bytes) -> bool:
    """Whether folded text holds what ``_BIG_NUMBER`` needs (a run of digits or an exponent that long)."""
    digits, exponent, signed_exponent = _SUSPECT
    return digits in folded or exponent in folded or signed_exponent in folded


def _bare(raw: bytes) -> bytes:
    """``raw`` with every string's contents dropped (``"..."`` becomes ``""``). Without a backslash and with an
    even number of quotes, quotes open and close strings in turn, and splitting on them gives exactly what the
    regular expression does, ten times faster (a transcript holds hundreds of strings)."""
    if b"\\" in raw or raw.count(b'"') % 2:
        return _STRING.sub(b'""', raw)
    return b'""'.join(raw.split(b'"')[::2])


# Each opening bracket to +1 and each closing one to -1 (as int8), everything else deleted: the running sum of
# what is left is the nesting depth.
_STEP = bytes(1 if b in _OPEN else 255 if b in b"]}" else 0 for b in range(256))
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def _depth(bare: bytes) -> int:
    steps = np.frombuffer(bare.translate(_STEP, _NOT_BRACKET), dtype=np.int8)
    return int(np.cumsum(steps, dtype=np.int64).max(initial=0))


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` for a message, shortened: ``'AS'``, ``'xxxxxxxxxx…(999,964 chars)…xxxxxxxxxx'``."""
    return one_line(repr(value), limit)
