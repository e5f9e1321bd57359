"""The game record as a signed statement holds it: canonical JSON has integers only, so a score line's fraction
(half whists, a third of a remiz) is written as its exact rational text ``"p/q"``, like the settlement's amounts.

``signed_record`` is what is signed and hashed; ``played_record`` gives the log's form back (the same numbers the
engine wrote), for replaying and for comparing with the game log's hand line.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

_RATIONAL = re.compile(r"-?[0-9]+/[0-9]+")


def signed_record(record: Any) -> Any:
    """``record`` with every fraction replaced by the exact text of its value."""
    if isinstance(record, float):
        # A whole float is the integer (JSON readers such as JavaScript's cannot tell 4.0 from 4).
        return int(record) if record.is_integer() else str(Fraction(record))
    if isinstance(record, dict):
        return {key: signed_record(value) for key, value in record.items()}
    if isinstance(record, list | tuple):
        return [signed_record(value) for value in record]
    return record


def played_record(record: Any) -> Any:
    """The inverse of ``signed_record``: each rational text becomes the number the log holds."""
    if isinstance(record, str) and _RATIONAL.fullmatch(record):
        return float(Fraction(record))
    if isinstance(record, dict):
        return {key: played_record(value) for key, value in record.items()}
    if isinstance(record, list):
        return [played_record(value) for value in record]
    return record
