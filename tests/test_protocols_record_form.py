"""A record's fractions in signed statements: exact rational text, and back to the log's numbers unchanged."""

from __future__ import annotations

import json
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.record_form import played_record, signed_record

POINTS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.fractions(max_denominator=12).filter(lambda f: abs(f) < 10**6).map(float),
)
LINES = st.lists(
    st.fixed_dictionaries(
        {"seat": st.integers(0, 4), "column": st.sampled_from(["pulya", "gora", "whists"]), "points": POINTS}
    ),
    max_size=8,
)


@given(LINES)
def test_a_record_with_fractions_encodes_canonically_and_comes_back_as_the_log_wrote_it(lines):
    record = {"tricks": [{"lead": 0, "cards": ["AS", "7H", "10D"]}], "score": lines}
    signed = signed_record(record)
    assert decode(encode(signed)) == signed  # canonical: integers and strings only
    back = played_record(json.loads(json.dumps(signed)))
    assert back == record  # 4.0 comes back as 4, equal as JSON numbers are


def test_a_half_whist_is_written_as_its_exact_value():
    assert signed_record({"points": 2.5, "on": 4.0}) == {"points": "5/2", "on": 4}
    assert Fraction(signed_record(1 / 3)) == Fraction(1 / 3)  # the float's own value, not a rounding of it
    assert played_record(["AS", "10D", "7/2x", "3/2"]) == ["AS", "10D", "7/2x", 1.5]
