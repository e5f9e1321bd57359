"""The input limits of every JSON reader and the safe quoting of what an input held (issue 19)."""

from hypothesis import given
from hypothesis import strategies as st

from fairdeal.bounded import MAX_DEPTH, MAX_LINE_BYTES, check, quote, strip_bom
from fairdeal.errors import LogError, one_line


def test_depth_numbers_and_length_are_bounded():
    assert check(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is None
    assert "nested more than" in check(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    assert check(b'{"a": "' + b"[" * 500 + b'"}') is None  # brackets inside a string do not nest
    assert "out of range" in check(b'{"hand": 18446744073709551616}')
    assert "out of range" in check(b'{"points": 1e400}')
    assert check(b'{"hand": 999999999999999, "points": 3.3333333333333335}') is None
    assert check(b'{"seed": "18446744073709551616"}') is None  # digits in a string are text
    assert "bytes, more than the limit" in check(b" " * (MAX_LINE_BYTES + 1))


def test_a_byte_order_mark_is_dropped():
    assert strip_bom(b"\xef\xbb\xbf{}") == b"{}" and strip_bom(b"{}") == b"{}"


@given(st.text())
def test_a_message_is_one_short_line_whatever_it_quotes(text):
    for shown in (one_line(text), quote(text), str(LogError(f"bad {text}", 3, text))):
        assert "\n" not in shown and "\r" not in shown and "\u2028" not in shown
        assert len(shown) <= 400


def test_a_long_value_keeps_its_ends_and_says_how_much_was_cut():
    shown = quote("X" * 1_000_000)
    assert shown.startswith("'XXXX") and shown.endswith("XXXX'") and "chars)" in shown and len(shown) <= 40
