"""The v4 JSON Schema is documentation; the verifier's typed checks are the rule. They must agree: every honest
document is valid under both, and every structural change of a message or roster is refused by both."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.errors import ProtocolError
from fairdeal.protocols.commit_reveal4.messages import checked_body
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import parse
from fairdeal.protocols.table import TableSpec
from fairdeal.systems import get_convention

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "protocols" / "transcript-v4.schema.json").read_text())
NAMES = ("ann", "bob", "cid")


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    spec = TableSpec("club", "schema", 2, NAMES, get_convention("sochi"))
    source = CommitRevealSource4(spec)
    result = play_match(spec.convention, NAMES, [HeuristicBot() for _ in NAMES], source=source, max_hands=2)
    return [*source.transcripts, source.close(result.settlement.amounts)]


def validator(definition: str | None = None) -> jsonschema.Draft202012Validator:
    schema = SCHEMA if definition is None else {**SCHEMA, "$ref": f"#/$defs/{definition}"}
    if definition is not None:
        schema = {k: v for k, v in schema.items() if k not in ("oneOf", "properties", "additionalProperties", "type")}
    return jsonschema.Draft202012Validator(schema)


def typed_envelope_ok(doc: Any) -> bool:
    try:
        checked_body(parse(doc))
    except ProtocolError:
        return False
    return True


def typed_roster_ok(doc: Any) -> bool:
    try:
        Roster.from_json(doc)
    except ProtocolError:
        return False
    return True


def test_honest_documents_are_valid_under_the_schema(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        assert not list(validator().iter_errors(doc))


def variants(value: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Each field removed, an unknown field added, and each field given a value of another type."""
    for name in value:
        if name == "sender":  # who may send which kind is the protocol's rule, not the form's
            continue
        yield f"without {name}", {k: v for k, v in value.items() if k != name}
        yield f"{name} as a list", {**value, name: [1]}
    yield "with an extra field", {**value, "extra": 1}


def nested(envelope: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    yield from variants(envelope)
    for label, body in variants(envelope["body"]):
        yield f"body {label}", {**envelope, "body": body}


def test_schema_and_typed_checks_agree_on_every_message_variant(docs: list[dict[str, Any]]) -> None:
    check = validator("envelope")
    seen = 0
    for doc in docs:
        for envelope in doc["opening"] + doc["messages"]:
            assert typed_envelope_ok(envelope) and check.is_valid(envelope)
            for label, changed in nested(copy.deepcopy(envelope)):
                assert typed_envelope_ok(changed) == check.is_valid(changed), (envelope["kind"], label)
                assert not check.is_valid(changed), (envelope["kind"], label)
                seen += 1
    assert seen > 300


def test_schema_and_typed_checks_agree_on_roster_variants(docs: list[dict[str, Any]]) -> None:
    check = validator("roster")
    roster = docs[0]["roster"]
    assert typed_roster_ok(roster) and check.is_valid(roster)
    for label, changed in variants(roster["roster"]):
        doc = {**roster, "roster": changed}
        assert not typed_roster_ok(doc) and not check.is_valid(doc), label
