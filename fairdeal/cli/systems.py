"""`fairdeal systems`: every system the engine plays, with its table sizes, a one-line description and its seeds."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from fairdeal.rules.table import markdown_table
from fairdeal.systems import registered


def system_rows() -> list[dict[str, Any]]:
    """One row per registered system: name, family, title, players, deck, deal pattern, description, seeds."""
    return [
        {
            "name": s.name,
            "family": s.family,
            "title": s.convention.title,
            "players": list(s.players),
            "deck": s.deck.value,
            "deal_patterns": {str(n): s.pattern(n).name for n in s.players},
            "description": s.convention.description,
            "seeds": list(s.convention.seeds),
        }
        for s in registered()
    ]


@click.command("systems")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.option("--markdown", is_flag=True, help="Print every parameter of every system (docs/conventions.md's table).")
def systems_command(as_json: bool, markdown: bool) -> None:
    """List the systems `fairdeal play --system NAME` plays."""
    if markdown:
        click.echo(markdown_table([system.convention for system in registered()]))
        return
    rows = system_rows()
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    table = Table("system", "players", "description", "seeds")
    for row in rows:
        table.add_row(
            row["name"],
            "/".join(map(str, row["players"])),
            row["description"],
            ", ".join(seed.split("_")[0] for seed in row["seeds"]),
        )
    Console(width=160).print(table)


COMMANDS = [systems_command]
