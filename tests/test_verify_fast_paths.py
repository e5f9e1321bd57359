"""Issue 13's verification speed-up skips work only where it can prove the answer is the same: each fast path here
gives the verdict its slow path gives, on hostile input — the reader's limits on bytes of any shape, the strict
decoder without its second depth measure, envelopes re-encoded without the read-back, card names by table, the
documents checked as files (decoded) or as given (not), and the forked workers' share."""

from __future__ import annotations

import copy
import hashlib
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from commit_reveal_helpers import leaves, written
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal import bounded
from fairdeal.cards import Card, to_ascii_list
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.errors import CanonicalError, FairdealError, WorkerFailed
from fairdeal.protocols import canonical, identity
from fairdeal.protocols.canonical import decode, encode, encode_decoded
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents, verify_paths
from fairdeal.protocols.workers import in_chunks
from fairdeal.systems import get_convention

# What the limits look at: quotes, escapes, brackets, digits, exponents, signs, and what surrounds them.
JSONISH = st.binary(max_size=300).map(lambda b: bytes(b'"\\[]{}0123456789eE+-.,:aN I\n'[x % 27] for x in b))


def reference_check(raw: bytes, max_bytes: int = bounded.MAX_LINE_BYTES) -> str | None:
    """``bounded.check`` as it was before issue 13's speed-up: every string stripped by the regular expression,
    the depth counted over every byte."""
    if len(raw) > max_bytes:
        return f"{len(raw):,} bytes, more than the limit of {max_bytes:,}"
    folded = raw.translate(bounded._FOLD)
    opens = folded.count(b"[")
    digits, exponent, signed_exponent = bounded._SUSPECT
    suspect = digits in folded or exponent in folded or signed_exponent in folded
    big = suspect and bounded._BIG_NUMBER.search(raw) is not None
    odd = b"NaN" in raw or b"Infinity" in raw
    if opens <= bounded.MAX_DEPTH and not big and not odd:
        return None
    bare = bounded._STRING.sub(b'""', raw)
    if odd and (match := bounded._NOT_A_NUMBER.search(bare)) is not None:
        return f"{match.group().decode('ascii')} is not a JSON number"
    if big and (match := bounded._BIG_NUMBER.search(bare)) is not None:
        return f"the number {bounded.one_line(match.group().decode('ascii'), 24)} is out of range (at most 15 digits)"
    if opens > bounded.MAX_DEPTH:
        data = np.frombuffer(bare, dtype=np.uint8)
        step = np.isin(data, list(b"[{")).astype(np.int64) - np.isin(data, list(b"]}")).astype(np.int64)
        if int(np.cumsum(step).max(initial=0)) > bounded.MAX_DEPTH:
            return f"nested more than {bounded.MAX_DEPTH} deep"
    return None


@settings(max_examples=600)
@given(JSONISH, st.integers(0, 70))
def test_the_reader_limits_answer_as_before_on_any_bytes(raw: bytes, nesting: int) -> None:
    for text in (raw, b"[" * nesting + raw + b"]" * nesting, b'{"a":' * nesting + raw):
        assert bounded.check(text) == reference_check(text)


@pytest.mark.parametrize(
    "raw",
    [
        b'["' + b"[" * 80 + b'"]',  # brackets inside a string
        b'["\\"' + b"[" * 80 + b'"]',  # and after an escaped quote
        b"[" * 65 + b"]" * 65,
        b'["a"' + b"1" * 16 + b"]",
        b'["e12345", 1e123]',
        b'"unterminated ' + b"[" * 70,
        b'[NaN, "Infinity"]',
    ],
)
def test_the_reader_limits_answer_as_before_on_the_edges(raw: bytes) -> None:
    assert bounded.check(raw) == reference_check(raw)


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "value", fn()
    except CanonicalError as exc:
        return "error", str(exc)


HEX = st.from_regex(r"[0-9a-f]{20,70}", fullmatch=True)  # runs of decimal digits inside strings
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=24) | HEX
SCALARS = st.none() | st.booleans() | st.integers(-(2**64), 2**64) | TEXT
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=30
)


@settings(max_examples=400)
@given(VALUES, st.integers(0, 70), st.data())
def test_the_decoder_trusts_the_readers_depth_only_to_the_same_verdict(
    value: Any, nesting: int, data: st.DataObject
) -> None:
    """Mutated encodings (hex runs of digits, integers beyond the range, nesting around the limit): where the
    reader's limits pass, decoding without the second depth measure decides as decoding with it."""
    try:
        raw = bytearray(b"[" * nesting + encode(value) + b"]" * nesting)
    except CanonicalError:
        return
    for _ in range(data.draw(st.integers(0, 3))):
        if raw:
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.sampled_from(b'"[]{}0123456789,:\\ae'))
    text = bytes(raw)
    if bounded.check(text, bounded.MAX_DOCUMENT_BYTES) is None:
        assert outcome(lambda: decode(text, depth_checked=True)) == outcome(lambda: decode(text))


@given(VALUES)
def test_what_the_decoder_returns_re_encodes_without_the_read_back(value: Any) -> None:
    try:
        raw = encode(value)
    except CanonicalError:
        return
    assert encode_decoded(decode(raw)) == raw == encode(decode(raw))


@given(st.lists(st.integers(-3, 40) | st.booleans() | st.floats(-2, 40, allow_nan=False) | st.text(max_size=2)))
def test_card_names_by_table_are_the_cards_names(codes: list[Any]) -> None:
    try:
        expected: Any = [Card.from_code(int(c)).ascii for c in codes]
    except (FairdealError, ValueError, TypeError) as exc:
        expected = type(exc)
    try:
        got: Any = to_ascii_list(codes)
    except (FairdealError, ValueError, TypeError) as exc:
        got = type(exc)
    assert got == expected
    array = np.array([c for c in codes if isinstance(c, int) and 0 <= c < 32], dtype=np.uint8)
    assert to_ascii_list(array) == [Card.from_code(int(c)).ascii for c in array]


def key(label: str) -> IdentityKey:
    return IdentityKey.from_seed(hashlib.sha256(label.encode()).digest(), label)


@pytest.fixture(scope="module")
def evening() -> list[dict[str, Any]]:
    """Four played hands (records, countersignatures) and the signed settlement."""
    names = ("ann", "bob", "cid")
    convention = get_convention("sochi")
    spec = TableSpec("club", "fast", 4, names, convention)
    source = CommitRevealSource4(spec, key("s"), [key(n) for n in names], b"\x09" * 32, None, "2026-12-06T05:00:00Z")
    result = play_match(convention, names, [HeuristicBot() for _ in names], source=source, max_hands=4)
    return [*source.transcripts, source.close(result.settlement.amounts)]


def mutated(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool) or value is None:
        return rng.choice([other for other in (True, False, 0, 1, None, "x") if encode(other) != encode(value)])
    if isinstance(value, int):
        return value + rng.choice([-1, 1])
    if value and re.fullmatch("[0-9a-f]+", value):
        i = rng.randrange(len(value))
        return value[:i] + "0123456789abcdef"[("0123456789abcdef".index(value[i]) + 1) % 16] + value[i + 1 :]
    return value + "x"


def same(files: Report, given: Report) -> None:
    assert files.failures == given.failures and files.notes == given.notes and files.caveats == given.caveats


def test_files_and_given_documents_get_one_verdict_under_mutation(
    evening: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents read from files take the decoded path (no read-back, the depth measured once, the roster JSON
    shared); the same documents given as objects take the slow one. Under 250 random single-leaf mutations of
    every document (signatures, links, seeds, records, roster, settlement) both reject, alike, and on two forked
    workers as well."""
    import fairdeal.protocols.verify as verify_module

    monkeypatch.setattr(verify_module, "in_chunks", lambda check, items, workers: in_chunks(check, items, workers, 1))
    rng = random.Random(13)
    paths = [leaves(doc) for doc in evening]
    for trial in range(250):
        which = rng.randrange(len(evening))
        docs = copy.deepcopy(evening)
        where = rng.choice(paths[which])
        target = docs[which]
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = mutated(target[where[-1]], rng)
        files = written(docs, tmp_path / f"t{trial % 2}")
        identity._remembered.cache_clear()
        given = verify_documents([(str(p), decode(p.read_bytes())) for p in files])
        assert not given.ok, where
        same(verify_paths(files), given)
        same(verify_paths(files, workers=2), given)


def test_an_honest_evening_is_one_verdict_every_way(evening: list[dict[str, Any]], tmp_path: Path) -> None:
    files = written(evening, tmp_path)
    given = verify_documents([(str(p), decode(p.read_bytes())) for p in files])
    assert given.ok
    same(verify_paths(files), given)


def fails_in_the_second_chunk(part: Any) -> list[int]:
    if 50 in part:
        raise ValueError("chunk two")
    return list(part)


class Unpicklable(Exception):
    def __reduce__(self) -> Any:
        raise TypeError("not this one")


def fails_unpicklably(part: Any) -> list[int]:
    if 50 in part:
        raise Unpicklable("lost")
    return list(part)


def test_a_workers_exception_is_raised_in_the_parent() -> None:
    with pytest.raises(ValueError, match="chunk two"):
        in_chunks(fails_in_the_second_chunk, list(range(100)), 2, least=10)
    with pytest.raises(WorkerFailed, match="Unpicklable"):
        in_chunks(fails_unpicklably, list(range(100)), 2, least=10)


def test_the_depth_limits_of_reader_and_decoder_agree() -> None:
    """The verifier skips the decoder's depth measure because the reader's limit is no looser."""
    assert bounded.MAX_DEPTH <= canonical.MAX_DEPTH
