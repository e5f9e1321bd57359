"""The files fairdeal ships as package data (``fairdeal/data``): the normative schemas and test vectors of
``protocols/`` and the sample logs of ``samples/``. In a checkout both are symbolic links to those folders, so
there is one copy; a wheel holds real files. Read them through here, never relative to the source tree.

Paths are real ``Path``s: a wheel is always installed unpacked, and the auditor's worker processes open a sample
by name."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

_DATA = Path(str(files("fairdeal") / "data"))


def data(*parts: str) -> Path:
    """A shipped file or folder, e.g. ``data("protocols", "game-log.schema.json")``."""
    return _DATA.joinpath(*parts)


def protocol_file(*parts: str) -> Path:
    """A file or folder of ``protocols/`` (schemas, ``vectors/...``)."""
    return data("protocols", *parts)


def sample(name: str) -> Path:
    """A sample log of ``samples/`` (or its ``.transcripts`` folder)."""
    return data("samples", name)
