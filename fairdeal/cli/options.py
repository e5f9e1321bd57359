"""The table options `play` and `deal` share, so both name the same systems and table sizes the same way."""

from __future__ import annotations

import click

from fairdeal.systems import conventions

system_option = click.option(
    "--system",
    type=click.Choice(sorted(conventions())),
    default="sochi",
    show_default=True,
    help="System and convention (rules and scoring); `fairdeal systems` lists them.",
)
players_option = click.option(
    "--players",
    "num_players",
    type=click.IntRange(2, 5),
    default=None,
    help="Players at the table (default: three where the system is played by three, else its smallest; "
    "at four the dealer sits out, at five two sit out).",
)
