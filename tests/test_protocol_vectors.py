"""The published test vectors and the canonical encoding: files match the generator, an independent
re-implementation from protocols/commit-reveal.md alone reproduces them, and their transcripts verify."""

from __future__ import annotations

import hashlib
import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.errors import ProtocolError
from fairdeal.protocols.encoding import canonical_json
from fairdeal.protocols.transcript import transcript_hash
from fairdeal.protocols.vectors import VECTOR_DIR, all_vectors, main, render
from fairdeal.protocols.verify import SCHEMA_PATH, verify_documents

CARD_CODES = {
    f"{r}{s}": si * 8 + ri
    for si, s in enumerate("SCDH")
    for ri, r in enumerate(["7", "8", "9", "10", "J", "Q", "K", "A"])
}


def load(name: str) -> dict:
    return json.loads((VECTOR_DIR / name).read_text(encoding="utf-8"))


def protocol_vectors() -> list[dict]:
    return [load(p.name) for p in sorted(VECTOR_DIR.glob("*.json")) if "hand_vectors" in load(p.name)]


def test_vector_files_are_what_the_generator_writes():
    assert main(["--check"]) == 0
    for name, vector in all_vectors().items():
        assert (VECTOR_DIR / name).read_text(encoding="utf-8") == render(vector)


# ---- an independent verifier written from the spec (hashlib only) -----------------------------------------------


def spec_frame(*fields) -> bytes:
    out = b""
    for f in fields:
        data = f.encode() if isinstance(f, str) else f
        out += len(data).to_bytes(4, "big") + data
    return out


def spec_shuffle(stream: bytes, start: list[int]) -> tuple[list[int], list[int], int]:
    a, draws, p = list(start), [], 0
    for i in range(len(a) - 1, 0, -1):
        m = i + 1
        limit = 256 - 256 % m
        while stream[p] >= limit:
            p += 1
        j = stream[p] % m
        p += 1
        draws.append(j)
        a[i], a[j] = a[j], a[i]
    return a, draws, p


@pytest.mark.parametrize("vector", protocol_vectors(), ids=lambda v: v["name"])
def test_independent_reimplementation_reproduces_the_vectors(vector):
    P = "fairdeal-commit-reveal/1"
    table, session = vector["table"], vector["session"]
    links = [bytes.fromhex(vector["service_tail"])]
    for k in range(vector["hands"], 0, -1):
        links.insert(
            0, hashlib.sha256(spec_frame(P + "/chain", table, session, k.to_bytes(8, "big"), links[0])).digest()
        )
    assert [link.hex() for link in links] == vector["chain"]
    for hv in vector["hand_vectors"]:
        hand = hv["hand"].to_bytes(8, "big")
        fields = [
            P + "/deck",
            table,
            session,
            hand,
            vector["deck"],
            bytes.fromhex(hv["service_seed"]),
            len(vector["players"]).to_bytes(8, "big"),
        ]
        for entry in hv["player_seeds"]:
            seed = bytes.fromhex(entry["seed"])
            commitment = hashlib.sha256(spec_frame(P + "/player-seed", table, session, hand, entry["player"], seed))
            assert commitment.hexdigest() == entry["commitment"]
            fields += [entry["player"], seed]
        data = spec_frame(*fields)
        assert data.hex() == hv["deck_input"]
        stream = hashlib.shake_256(data).digest(64)
        assert stream.hex() == hv["stream_prefix"]
        start = [CARD_CODES[c] for c in hv["start_order"]]
        order, draws, used = spec_shuffle(stream, start)
        assert (draws, used) == (hv["draws"], hv["bytes_used"])
        assert order == [CARD_CODES[c] for c in hv["deck_order"]]
        assert hv["service_seed"] == vector["chain"][hv["hand"]]


@pytest.mark.parametrize("vector", protocol_vectors(), ids=lambda v: v["name"])
def test_vector_transcripts_verify_and_hash_as_stated(vector):
    docs = [(f"{vector['name']}#{hv['hand']}", hv["transcript"]) for hv in vector["hand_vectors"]]
    report = verify_documents(docs)
    assert report.ok, [f.line() for f in report.failures]
    for hv in vector["hand_vectors"]:
        assert transcript_hash(hv["transcript"]) == hv["transcript_sha256"]
        assert hashlib.sha256(canonical_json(hv["transcript"])).hexdigest() == hv["transcript_sha256"]


def test_fisher_yates_rejection_vectors_follow_the_spec():
    for case in load("fisher-yates-rejection.json")["cases"]:
        stream = bytes.fromhex(case["stream"])
        try:
            _, draws, used = spec_shuffle(stream, list(range(case["deck_size"])))
        except IndexError:
            draws, used = None, None
        assert (draws, used) == (case["draws"], case["bytes_used"])


def test_vector_transcripts_satisfy_the_json_schema():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    for vector in protocol_vectors():
        for hv in vector["hand_vectors"]:
            jsonschema.validate(hv["transcript"], schema)


# ---- canonical JSON ---------------------------------------------------------------------------------------------

# Strings without spaces, so that a space found in the encoding can only come from the encoder.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.text(st.characters(exclude_characters=" ", exclude_categories=("Cs",)))
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(st.characters(exclude_characters=" ", exclude_categories=("Cs",)), max_size=6), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_canonical_json_is_a_fixed_point_and_has_no_whitespace(value):
    data = canonical_json(value)
    assert canonical_json(json.loads(data.decode("utf-8"))) == data
    text = data.decode("utf-8")
    assert "\n" not in text and ", " not in text and '": ' not in text


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=5), st.integers(), max_size=6))
def test_canonical_json_does_not_depend_on_key_order(mapping):
    reversed_mapping = dict(reversed(list(mapping.items())))
    assert canonical_json(mapping) == canonical_json(reversed_mapping)


def test_canonical_json_rules():
    assert canonical_json({"b": 2.0, "a": [1.5, "й"]}) == '{"a":[1.5,"й"],"b":2}'.encode()
    with pytest.raises(ProtocolError, match="NaN"):
        canonical_json({"x": float("nan")})
    with pytest.raises(ProtocolError, match="keys must be strings"):
        canonical_json({1: 2})
