"""The validator's one-pass acceptance of a whole deck (``order_before``, ``deal``) and the byte-level pre-check of
line limits agree with the exact, field-by-field checks on any mutation of a real line (property tests)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal import bounded
from fairdeal.log import read_log
from fairdeal.log.validate import HandChecker, LogContext

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "sochi-3p-honest.jsonl"
CARDS = ["AS", "7D", "10H", "XX", "as", "", "JC", "KD"]


def _errors(lines: list[dict]) -> list[tuple[int, str, str]]:
    data = b"".join(json.dumps(doc).encode() + b"\n" for doc in lines)
    return [(e.line, e.field, str(e)) for item in read_log(io.BytesIO(data)) for e in item.errors]


def _mutated(doc: dict, field: str, index: int, position: int, card: str) -> dict:
    doc = json.loads(json.dumps(doc))
    if field == "order_before":
        target = doc["order_before"]
    else:
        lists = doc["deal"]["hands"] + doc["deal"]["talons"]
        target = lists[index % len(lists)]
    if card == "drop" and target:
        target.pop(position % len(target))
    elif card == "copy" and target:
        target.append(target[0])
    elif target:
        target[position % len(target)] = card
    return doc


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["order_before", "deal"]),
    st.integers(0, 5),
    st.integers(0, 40),
    st.sampled_from([*CARDS, "drop", "copy"]),
)
def test_fast_deck_checks_report_what_the_exact_checks_report(field, index, position, card):
    docs = [json.loads(line) for line in SAMPLE.read_bytes().splitlines()]
    hand = next(i for i, d in enumerate(docs) if d.get("type") == "hand" and "order_before" in d and "deal" in d)
    docs[hand] = _mutated(docs[hand], field, index, position, card)
    fast = _errors(docs)
    with exact_only():
        exact = _errors(docs)
    assert fast == exact


@contextmanager
def exact_only() -> Iterator[None]:
    """The one-pass acceptances always decline here, so every list is checked field by field."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogContext, "is_the_deck", lambda self, cards: False)
        patch.setattr(HandChecker, "_plainly_a_deal", lambda self: False)
        yield


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet='0123456789eE+-.[]{}" ,:a\\', max_size=80))
def test_the_byte_pre_check_never_passes_what_the_exact_scan_refuses(text):
    raw = text.encode()
    exact = bounded._BIG_NUMBER.search(bounded._STRING.sub(b'""', raw)) is not None
    if exact:
        assert bounded.check(raw) is not None
