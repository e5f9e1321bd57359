"""The normative JSON Schema of one log line (protocols/game-log.schema.json) and the slow, reference path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema

from fairdeal.resources import protocol_file

SCHEMA_PATH = protocol_file("game-log.schema.json")


@lru_cache(maxsize=1)
def schema_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(document: Any) -> list[str]:
    """The schema's complaints about one decoded line, each as ``path: message``."""
    validator = schema_validator()
    if validator.is_valid(document):
        return []
    return [f"{error.json_path.lstrip('$.') or '$'}: {error.message}" for error in validator.iter_errors(document)]


def schema_check_lines(lines: Iterator[bytes]) -> Iterator[tuple[int, list[str]]]:
    """Line number and schema complaints for each non-blank line (unparsable JSON is one complaint)."""
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            document = json.loads(raw)
        except ValueError as exc:
            yield number, [f"$: not JSON: {exc}"]
            continue
        yield number, schema_errors(document)
