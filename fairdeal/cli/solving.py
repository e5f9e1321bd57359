"""`fairdeal solve` and `fairdeal review`: double-dummy values of layouts and of a logged hand's plays."""

from __future__ import annotations

import json

import click


@click.command("solve")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per input line.")
def solve_command(file: str, as_json: bool) -> None:
    """Double-dummy solve each layout of FILE (one JSON object a line; see fairdeal/solver/problems.py)."""
    from fairdeal.solver.problems import answer, parse_problem

    with click.open_file(file, encoding="utf-8") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            result = answer(parse_problem(text, number))
            if as_json:
                click.echo(json.dumps(result, separators=(",", ":")))
            else:
                cards = "  ".join(f"{c} {v}" for c, v in result["card_values"].items())
                click.echo(f"line {number}: declarer takes {result['declarer_tricks']}; first cards: {cards}")


COMMANDS = [solve_command]
