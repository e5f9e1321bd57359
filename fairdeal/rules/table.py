"""Every convention parameter side by side, as the Markdown table of ``docs/conventions.md``."""

from __future__ import annotations

from dataclasses import fields
from fractions import Fraction

from fairdeal.rules.convention import Convention

GROUPS = ("bidding", "defence", "raspasy", "scoring", "pulya", "table", "play")


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, frozenset):
        return "{" + ", ".join(str(v) for v in sorted(value)) + "}" if value else "—"
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return " ".join(f"{a}→{b}" for a, b in value)
    if isinstance(value, tuple):
        return "-".join(str(v) for v in value)
    return "—" if value is None else str(value)


def parameter_rows(conventions: list[Convention]) -> list[tuple[str, ...]]:
    """(``group.field``, value per convention) for every parameter."""
    rows = [("players", *(_show(c.players) for c in conventions))]
    for group in GROUPS:
        for f in fields(getattr(conventions[0], group)):
            rows.append((f"{group}.{f.name}", *(_show(getattr(getattr(c, group), f.name)) for c in conventions)))
    return rows


def markdown_table(conventions: list[Convention]) -> str:
    header = ("parameter", *(c.name for c in conventions))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in parameter_rows(conventions)]
    return "\n".join(lines)
