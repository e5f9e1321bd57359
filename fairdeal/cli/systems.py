"""`fairdeal systems`: every system the engine plays, with its table sizes, a one-line description and its seeds."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from fairdeal.rules import ALL


def system_rows() -> list[dict]:
    """One row per system: name, title, players, description, seeds."""
    return [
        {"name": c.name, "title": c.title, "players": list(c.players), "description": c.description,
         "seeds": list(c.seeds)}
        for c in ALL
    ]


@click.command("systems")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def systems_command(as_json: bool) -> None:
    """List the systems `fairdeal play --system NAME` plays."""
    rows = system_rows()
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    table = Table("system", "players", "description", "seeds")
    for row in rows:
        table.add_row(row["name"], "/".join(map(str, row["players"])), row["description"],
                      ", ".join(seed.split("_")[0] for seed in row["seeds"]))
    Console(width=160).print(table)


COMMANDS = [systems_command]
