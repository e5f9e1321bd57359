"""The strict canonical JSON of protocol v4: round trips, and every non-canonical variant refused by path."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.errors import CanonicalError
from fairdeal.protocols.canonical import MAX_DEPTH, context, decode, encode

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
SCALARS = st.none() | st.booleans() | st.integers(-(2**63) + 1, 2**63 - 1) | TEXT
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=20
)


@given(VALUES)
def test_decode_inverts_encode(value: object) -> None:
    assert decode(encode(value)) == value


@given(VALUES)
def test_encode_is_python_canonical_json(value: object) -> None:
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert encode(value) == expected


@given(VALUES, st.sampled_from(["ascii", "indent", "spaces"]))
def test_every_other_serialisation_is_refused(value: object, style: str) -> None:
    text = {
        "ascii": json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True),
        "indent": json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False),
        "spaces": json.dumps(value, sort_keys=True, ensure_ascii=False),
    }[style].encode()
    if text == encode(value):
        assert decode(text) == value
    else:
        with pytest.raises(CanonicalError):
            decode(text)


@settings(max_examples=300)
@given(st.binary(max_size=60))
def test_random_bytes_are_decoded_only_when_canonical(data: bytes) -> None:
    try:
        value = decode(data)
    except CanonicalError as exc:
        assert str(exc).startswith("$")
    else:
        assert encode(value) == data


@settings(max_examples=300)
@given(VALUES, st.data())
def test_a_mutated_encoding_is_refused_or_canonical(value: object, data: st.DataObject) -> None:
    raw = bytearray(encode(value))
    if not raw:
        return
    position = data.draw(st.integers(0, len(raw) - 1))
    raw[position] = data.draw(st.integers(0, 255))
    try:
        decoded = decode(bytes(raw))
    except CanonicalError:
        return
    assert encode(decoded) == bytes(raw)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"hands":[0,1,{"seed":{"seat":1,"seat":2}}]}', '$.hands[2].seed: duplicate key "seat"'),
        (b'{"a":1.0}', "$.a: 1.0 is not an integer"),
        (b'{"a":1e3}', "$.a: 1e3 is not an integer"),
        (b'{"a":007}', "$.a: 007 is not the canonical form"),
        (b'{"a":-0}', "$.a: -0 is not the canonical form"),
        (b'{"a":"\\ud800"}', "$.a: lone surrogate"),
        (b'{"a":"\xed\xa0\x80"}', "$.a: invalid UTF-8"),
        (b'{"a":' + b"9" * 5000 + b"}", "$.a: integer out of range"),
        (b'{"a":9223372036854775808}', "$.a: integer out of range"),
        (b'{"b":1,"a":2}', '$: key "a" is out of sorted order'),
        (b'{"a": 1}', "whitespace is not canonical"),
        (b'{"a":"\\u0041"}', "$.a: non-canonical escape"),
        (b'{"a":"\\u000A"}', "$.a: non-canonical escape"),
        (b'{"a":"\\/"}', "$.a: invalid escape"),
        (b'{"a":1}\n', "$: bytes after the value"),
        (b'{"a":NaN}', "$.a: not a JSON value"),
        (b'{"odd key":{"x":1.5}}', '$["odd key"].x: 1.5 is not an integer'),
    ],
)
def test_each_non_canonical_form_names_its_field(data: bytes, message: str) -> None:
    with pytest.raises(CanonicalError) as caught:
        decode(data)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_depth_and_size_limits() -> None:
    deep: object = 1
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert decode(encode(deep)) == deep
    with pytest.raises(CanonicalError, match="nesting deeper"):
        decode(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    with pytest.raises(CanonicalError, match="nesting deeper"):
        encode([deep])
    with pytest.raises(CanonicalError, match="string longer"):
        decode(b'{"a":"' + b"x" * 70_000 + b'"}')


@pytest.mark.parametrize("bad", [1.5, 2.0, float("nan"), 2**63, -(2**63), {1: 2}, b"x", {"a": "\udc00"}, {"a": {3}}])
def test_encode_refuses_what_canonical_json_cannot_hold(bad: object) -> None:
    with pytest.raises(CanonicalError):
        encode(bad)


@given(
    st.lists(st.one_of(TEXT, st.integers(-(2**63), 2**63 - 1), st.binary(max_size=8)), max_size=5),
    st.lists(st.one_of(TEXT, st.integers(-(2**63), 2**63 - 1), st.binary(max_size=8)), max_size=5),
)
def test_context_is_injective(a: list[str | int | bytes], b: list[str | int | bytes]) -> None:
    same = [(type(x), x) for x in a] == [(type(y), y) for y in b]
    assert (context(*a) == context(*b)) == same


def test_context_separates_joined_names() -> None:
    assert context("club/night", "s1") != context("club", "night/s1")
    assert context("7") != context(7)
    assert context(b"ab", b"c") != context(b"a", b"bc")


def test_every_code_point_is_written_as_python_writes_it() -> None:
    chars = "".join(chr(c) for c in [*range(0xD800), *range(0xE000, 0x10000), *range(0x10000, 0x110000, 97)])
    pieces = [chars[i : i + 8000] for i in range(0, len(chars), 8000)]  # each within the string limit
    value = {**{p: [p, -(2**63) + 1, 2**63 - 1, True, None, {}, []] for p in pieces}, "\uffff": 1, "\U0001f600": 2}
    assert encode(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.mark.parametrize("text", ["]]]]", "[[[[{{", '\\"]]', 'a\\\\"[', "}"])
def test_the_depth_limit_skips_brackets_inside_strings(text: str) -> None:
    deep: object = text
    for _ in range(MAX_DEPTH - 1):  # the innermost object is the 64th level
        deep = [text, deep, {"k" + text: text}]
    assert decode(encode(deep)) == deep
    with pytest.raises(CanonicalError, match="nesting deeper"):
        decode(encode(deep).replace(b"[", b"[[", 1).replace(b"]", b"]]", 1) + b"")


@pytest.mark.parametrize("escaped", [False, True])
def test_brackets_inside_strings_do_not_count_towards_the_depth(escaped):
    text = '\\"[[[[' if escaped else "[[[[{{{{"
    deep = b'["' + text.encode() * 40 + b'"]'
    assert decode(deep) == [text.replace('\\"', '"') * 40]
    nested = b"[" * (MAX_DEPTH - 1) + deep + b"]" * (MAX_DEPTH - 1)
    assert decode(nested) is not None  # exactly MAX_DEPTH levels
    with pytest.raises(CanonicalError, match="nesting deeper"):
        decode(b"[" + nested + b"]")


@pytest.mark.parametrize("number", [2**63, 2**63 + 1, 2**64 - 1, 2**64, 10**30, -(2**63), -(2**64) - 5])
def test_integers_out_of_range_are_refused_whatever_their_size(number):
    with pytest.raises(CanonicalError, match="out of range"):
        decode(b'{"a":[1,' + str(number).encode() + b"]}")


def test_long_digit_runs_in_strings_and_the_range_ends_are_accepted():
    value = {"a": "1234567890123456789012345", "b": [2**63 - 1, -(2**63) + 1], "c": "0" * 40}
    assert decode(encode(value)) == value
