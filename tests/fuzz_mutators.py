"""Structured mutators for the reader fuzzing of issue 19: grammar-aware changes of real log lines and transcripts.

Each mutator takes the bytes of one valid JSON document (a hand line, a transcript) and returns changed bytes. Most
keep the document well-formed JSON and change what the grammar of the log cares about (a card, a seat, a bid word,
the shuffle notation, a key, a type, a number's size), so the input reaches the validator's and the replay's deep
checks instead of stopping at the JSON decoder; the others break the text itself (truncation, joined documents,
control characters, byte-order marks, bad UTF-8). ``mutate_file`` changes a whole log (a truncated file, CRLF line
ends, lines swapped, a header mid-file).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

Json = Any
T = TypeVar("T")
Mutator = Callable[[bytes, np.random.Generator, bytes], bytes]

RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "C", "D", "H")
CARDS = tuple(rank + suit for suit in SUITS for rank in RANKS)
NOT_CARDS = ("", "1S", "11H", "as", "AX", "A", "10", " AS", "AS ", "А♠", "0S", "AS\n", "\u0000", "X" * 3000)
BID_WORDS = (
    "pass",
    "mine",
    "6S",
    "6C",
    "7H",
    "10NT",
    "misere",
    "misere-bp",
    "9S-bp",
    "9-bp",
    "dark-6S",
    "dark-pass",
    "dark-mine",
    "one",
    "eight",
    "game",
    "game-two",
    "hearts",
    "bettel",
    "sanac",
    "spades",
    "notrump",
    "buy",
    "6NT-open",
    "11S",
    "5S",
    "-",
    "PASS",
    "whist",
    "half-whist",
    "whist-talon",
)
SHUFFLE_TOKENS = (
    "1",
    "2",
    "16",
    "31",
    "32",
    "33",
    "0",
    "-1",
    "cut@0",
    "cut@9",
    "cut@2 0",
    "cut@2 32",
    "riffle",
    "overhand",
    "r",
    "@",
    "2@1",
    "2@99",
    "1@-1",
    "9" * 30,
    "cut@1 " + "9" * 20,
    "(",
    ")",
    "*",
)
WEIRD_NUMBERS = (
    b"-0",
    b"1e400",
    b"-1e400",
    b"1E5",
    b"0.0000001",
    b"00012",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"123456789012345678901234567890",
    b"18446744073709551616",
    b"9223372036854775808",
    b"-9223372036854775809",
    b"1.0",
    b"2e1",
    b"0x10",
    b"+1",
    b"1_000",
)
ODD_VALUES: tuple[Json, ...] = (
    None,
    True,
    False,
    0,
    -1,
    2**31,
    2**53 + 1,
    2**63,
    2**64,
    10**30,
    -(10**30),
    1.5,
    1e300,
    -0.0,
    "",
    "AS",
    "as",
    "X" * 5000,
    "a\nb",
    "\u2028",
    "\ud800",
    "\x00",
    "\x1b[31mred",
    [],
    [1],
    ["AS"] * 33,
    [None] * 10,
    {},
    {"seat": "x"},
    {"a": {"b": {"c": {}}}},
    [[["deep"]]],
    "1 " * 1200,
)
CONTROL = tuple(bytes([c]) for c in range(32) if c not in (9, 10, 13)) + (b"\x7f", b"\xc2\x85")


def _walk(node: Json, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Json]]:
    """Every (path, value) inside a document, the document itself first."""
    found = [(path, node)]
    if isinstance(node, dict):
        for key, child in node.items():
            found += _walk(child, (*path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found += _walk(child, (*path, index))
    return found


def document_paths(node: Json) -> list[tuple[Any, ...]]:
    """Every path inside a document, the document's own (empty) first."""
    return [path for path, _ in _walk(node)]


def replaced(document: Json, path: tuple[Any, ...], value: Json) -> Json:
    """A copy of the document with the value at ``path`` replaced (only the nodes along the path are copied)."""
    if not path:
        return value
    head, *rest = path
    copy = dict(document) if isinstance(document, dict) else list(document)
    copy[head] = replaced(document[head], tuple(rest), value)
    return copy


def _replace(document: Json, path: tuple[Any, ...], value: Json) -> Json:
    if not path:
        return value
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return document


def _pick(rng: np.random.Generator, items: Sequence[T]) -> T:
    return items[int(rng.integers(len(items)))]


def _places(document: Json, wanted: Callable[[tuple[Any, ...], Json], bool]) -> list[tuple[tuple[Any, ...], Json]]:
    return [(path, value) for path, value in _walk(document) if path and wanted(path, value)]


def _dump(document: Json, rng: np.random.Generator) -> bytes:
    compact = (",", ":") if rng.random() < 0.5 else (", ", ": ")
    return json.dumps(document, ensure_ascii=bool(rng.integers(2)), separators=compact).encode("utf-8", "surrogatepass")


def _document_mutator(change: Callable[[Json, np.random.Generator], Json]) -> Mutator:
    def mutator(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
        return _dump(change(json.loads(raw), rng), rng)

    return mutator


def _set_place(
    wanted: Callable[[tuple[Any, ...], Json], bool], values: Callable[[Json, np.random.Generator], Json]
) -> Callable[[Json, np.random.Generator], Json]:
    def change(document: Json, rng: np.random.Generator) -> Json:
        places = _places(document, wanted)
        if not places:
            return _odd_value(document, rng)
        path, value = _pick(rng, places)
        return _replace(document, path, values(value, rng))

    return change


def _odd_value(document: Json, rng: np.random.Generator) -> Json:
    """Any field at any depth set to a value of a wrong type or an extreme size."""
    path, _ = _pick(rng, _walk(document)[1:] or [((), None)])
    return _replace(document, path, _pick(rng, ODD_VALUES))


def _is_card(path: tuple[Any, ...], value: Json) -> bool:
    return isinstance(value, str) and value in CARDS


def _other_card(value: Json, rng: np.random.Generator) -> Json:
    roll = rng.random()
    if roll < 0.6:
        return _pick(rng, CARDS)  # a real card elsewhere: a card twice, a card missing
    if roll < 0.8:
        return value.lower() if rng.random() < 0.5 else value[::-1]
    return _pick(rng, NOT_CARDS)


def _is_seat(path: tuple[Any, ...], value: Json) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and path[-1] in ("seat", "lead", "winner", "dealer", "declarer", "on")
    )


def _other_seat(value: Json, rng: np.random.Generator) -> Json:
    return int(_pick(rng, (value + 1, value - 1, value + 3, 4, 5, -1, 99, 2**40)))


def _is_word(path: tuple[Any, ...], value: Json) -> bool:
    return isinstance(value, str) and path[-1] in ("bid", "call", "kind", "column", "type")


def _other_word(value: Json, rng: np.random.Generator) -> Json:
    return _pick(rng, BID_WORDS) if rng.random() < 0.8 else value + _pick(rng, ("-bp", "-open", "x", " "))


def _is_count(path: tuple[Any, ...], value: Json) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and not _is_seat(path, value)


def _other_count(value: Json, rng: np.random.Generator) -> Json:
    return int(_pick(rng, (value + 1, value - 1, 0, -value, value * 10, 10**14, -(10**14), 11, 33)))


def _shuffle_change(document: Json, rng: np.random.Generator) -> Json:
    if not isinstance(document, dict) or not isinstance(document.get("shuffle"), str):
        return _odd_value(document, rng)
    tokens = document["shuffle"].split()
    at = int(rng.integers(len(tokens) + 1))
    roll = rng.random()
    if roll < 0.4 or not tokens:
        tokens.insert(at, _pick(rng, SHUFFLE_TOKENS))
    elif roll < 0.6:
        tokens.pop(min(at, len(tokens) - 1))
    elif roll < 0.8:
        tokens *= int(rng.integers(2, 40))
    else:
        tokens = [str(int(t) + 1) if t.isdigit() else t for t in tokens]
    document["shuffle"] = " ".join(tokens)
    return document


def _swap_cards(document: Json, rng: np.random.Generator) -> Json:
    places = _places(document, _is_card)
    if len(places) < 2:
        return _odd_value(document, rng)
    (a, x), (b, y) = _pick(rng, places), _pick(rng, places)
    return _replace(_replace(document, a, y), b, x)


def _drop_key(document: Json, rng: np.random.Generator) -> Json:
    objects = [node for _, node in _walk(document) if isinstance(node, dict) and node]
    node = _pick(rng, objects)
    node.pop(_pick(rng, list(node)))
    return document


def _add_key(document: Json, rng: np.random.Generator) -> Json:
    objects = [node for _, node in _walk(document) if isinstance(node, dict)]
    key = _pick(rng, ("x", "seat", "Hand", "key\n", "line 9: fake", "\u0000", "k" * 2000, "extras", "cards"))
    _pick(rng, objects)[key] = _pick(rng, ODD_VALUES)
    return document


def _drop_item(document: Json, rng: np.random.Generator) -> Json:
    lists = [node for _, node in _walk(document) if isinstance(node, list) and node]
    if not lists:
        return _drop_key(document, rng)
    node = _pick(rng, lists)
    node.pop(int(rng.integers(len(node))))
    return document


def _repeat_item(document: Json, rng: np.random.Generator) -> Json:
    lists = [node for _, node in _walk(document) if isinstance(node, list) and node]
    if not lists:
        return _add_key(document, rng)
    node = _pick(rng, lists)
    node.insert(int(rng.integers(len(node) + 1)), _pick(rng, node))
    return document


def _shuffle_keys(document: Json, rng: np.random.Generator) -> Json:
    """Every object's keys in a random order: the same document, which every reader must take alike."""
    if isinstance(document, dict):
        keys = list(document)
        return {keys[i]: _shuffle_keys(document[keys[i]], rng) for i in rng.permutation(len(keys))}
    if isinstance(document, list):
        return [_shuffle_keys(item, rng) for item in document]
    return document


def _nest(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    """A value anywhere replaced by arrays and objects nested up to thousands deep (written as text: too deep for
    the ``json`` module)."""
    depth = int(_pick(rng, (2, 10, 63, 64, 65, 200, 1000, 5000)))
    opens = [b"[" if rng.random() < 0.5 else b'{"x":' for _ in range(depth)]
    closes = [b"]" if opening == b"[" else b"}" for opening in reversed(opens)]
    nest = b"".join(opens) + _pick(rng, (b"[]", b"{}", b'"AS"', b"0")) + b"".join(closes)
    document = json.loads(raw)
    path, _ = _pick(rng, _walk(document)[1:] or [((), None)])
    return _dump(_replace(document, path, _PLACEHOLDER), rng).replace(json.dumps(_PLACEHOLDER).encode(), nest, 1)


_PLACEHOLDER = "nest-goes-here"


def _duplicate_key(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    keys = re.findall(rb'"([A-Za-z_]+)":', raw)
    key = _pick(rng, keys) if keys else b"hand"
    value = _pick(rng, (b"1", b'"AS"', b"null", b"[]", b"{}", b"99999"))
    at = raw.index(b"{") + 1
    return raw[:at] + b'"' + key + b'":' + value + b"," + raw[at:]


def _weird_number(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    numbers = [m.span() for m in re.finditer(rb"(?<![\w\"])-?\d+(?![\w\"])", raw)]
    if not numbers:
        return raw
    start, stop = _pick(rng, numbers)
    return raw[:start] + _pick(rng, WEIRD_NUMBERS) + raw[stop:]


def _control_character(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    strings = [m.start() + 1 for m in re.finditer(rb'"[^"\\]+"', raw)]
    at = _pick(rng, strings) if strings and rng.random() < 0.8 else int(rng.integers(len(raw)))
    inserted = _pick(rng, CONTROL) if rng.random() < 0.7 else _pick(rng, (b"\\u0000", b"\\ud800", b"\\uDFFF", b"\\x41"))
    return raw[:at] + inserted + raw[at:]


def _truncate(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    return raw[: int(rng.integers(len(raw)))]


def _join(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    return raw + _pick(rng, (b",", b"", b" ", b"\r", b"\x00", b"][")) + other


def _bytes(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    at = int(rng.integers(len(raw)))
    noise = bytes(rng.integers(0, 256, size=int(rng.integers(1, 4)), dtype=np.uint8))
    return raw[:at] + noise + raw[at + int(rng.integers(0, 3)) :]


def _bom(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    return _pick(rng, (b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xfe\xff", b"\xef\xbb")) + raw


def _whitespace(raw: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    spots = [m.end() for m in re.finditer(rb"[,:\[{]", raw)]
    at = _pick(rng, spots) if spots else 0
    return raw[:at] + _pick(rng, (b" ", b"\t", b"\r", b"\xc2\xa0", b"\xe2\x80\xa8", b"\x0b")) + raw[at:]


MUTATORS: dict[str, Mutator] = {
    "odd value": _document_mutator(_odd_value),
    "card": _document_mutator(_set_place(_is_card, _other_card)),
    "swapped cards": _document_mutator(_swap_cards),
    "seat": _document_mutator(_set_place(_is_seat, _other_seat)),
    "word": _document_mutator(_set_place(_is_word, _other_word)),
    "count": _document_mutator(_set_place(_is_count, _other_count)),
    "shuffle": _document_mutator(_shuffle_change),
    "missing key": _document_mutator(_drop_key),
    "unknown key": _document_mutator(_add_key),
    "missing item": _document_mutator(_drop_item),
    "repeated item": _document_mutator(_repeat_item),
    "shuffled fields": _document_mutator(_shuffle_keys),
    "deep nest": _nest,
    "duplicated key": _duplicate_key,
    "huge number": _weird_number,
    "control character": _control_character,
    "truncated": _truncate,
    "joined": _join,
    "bytes": _bytes,
    "byte-order mark": _bom,
    "whitespace": _whitespace,
}
NAMES = tuple(MUTATORS)


def mutate(raw: bytes, rng: np.random.Generator, other: bytes) -> tuple[str, bytes]:
    """One or two structured mutations of ``raw`` (``other``: a neighbouring document, for joins); their name."""
    name = _pick(rng, NAMES)
    changed = MUTATORS[name](raw, rng, other)
    if rng.random() < 0.15:
        second = _pick(rng, NAMES)
        # Best effort: the first change may have left no JSON (or JSON too deep) for a document mutator.
        with contextlib.suppress(ValueError, RecursionError, TypeError, KeyError, IndexError):
            changed, name = MUTATORS[second](changed, rng, other), f"{name}+{second}"
    return name, changed


def mutate_file(lines: list[bytes], rng: np.random.Generator) -> tuple[str, bytes]:
    """A change of a whole log's layout: the file cut short, CRLF ends, two lines swapped, a header mid-file,
    an end record mid-file, no final newline, blank lines."""
    kind = int(rng.integers(7))
    text = b"\n".join(lines) + b"\n"
    if kind == 0:
        return "truncated file", text[: int(rng.integers(len(lines[0]), len(text)))]
    if kind == 1:
        return "CRLF", text.replace(b"\n", b"\r\n")
    if kind == 2 and len(lines) > 2:
        a, b = sorted(rng.choice(np.arange(1, len(lines)), size=2, replace=False))
        swapped = [*lines[:a], lines[b], *lines[a + 1 : b], lines[a], *lines[b + 1 :]]
        return "swapped lines", b"\n".join(swapped) + b"\n"
    at = int(rng.integers(1, len(lines) + 1))
    if kind == 3:
        return "header mid-file", b"\n".join([*lines[:at], lines[0], *lines[at:]]) + b"\n"
    if kind == 4:
        return "end mid-file", b"\n".join([*lines[:at], b'{"type":"end"}', *lines[at:]]) + b"\n"
    if kind == 5:
        return "no final newline", text[:-1]
    return "blank lines", b"\n".join([*lines[:at], b"", b"   ", b"\t", *lines[at:]]) + b"\n"
