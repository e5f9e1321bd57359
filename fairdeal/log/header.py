"""The convention a log header names: the registered system, the header's overrides and its agreed pulya."""

from __future__ import annotations

from msgspec import UNSET

from fairdeal.engine.system import rebuild_convention
from fairdeal.errors import ConventionError
from fairdeal.log.records import TableRecord
from fairdeal.rules.convention import Convention


def header_convention(header: TableRecord) -> Convention:
    """Rebuild the convention of ``header``; ``ConventionError`` names the field that cannot be read."""
    pulya = None
    if header.pulya is not UNSET:
        if isinstance(header.pulya, bool) or header.pulya != int(header.pulya) or header.pulya <= 0:
            raise ConventionError(f"pulya: {header.pulya!r} is not a positive whole number")
        pulya = int(header.pulya)
    overrides = {} if header.convention is UNSET else header.convention
    return rebuild_convention(header.system, overrides, pulya)
