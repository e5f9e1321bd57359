"""`fairdeal shuffle` (apply a logged shuffle to a deck) and `fairdeal theory riffles` (Bayer-Diaconis table)."""

from __future__ import annotations

import json

import click
import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fairdeal.cards import Card, DeckKind, parse_order, to_ascii_list
from fairdeal.shuffle import apply_order, parse_notation, riffle_table

MAX_THEORY_CARDS = 1000  # exact arithmetic is quadratic in the deck size; beyond this it takes too long
MAX_THEORY_RIFFLES = 60


def _card_text(code: int) -> Text:
    card = Card.from_code(code)
    return Text(str(card), style="bold red" if card.suit.is_red else "bold")


def _order_table(before: np.ndarray, after: np.ndarray) -> Table:
    table = Table(title="deck, top first", show_edge=False)
    table.add_column("#", justify="right")
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    for position, (old, new) in enumerate(zip(before, after), start=1):
        table.add_row(str(position), _card_text(int(old)), _card_text(int(new)))
    return table


@click.command(short_help="Apply a shuffle written in the notation and show the deck before and after.")
@click.option(
    "--deck",
    "deck_name",
    default=DeckKind.PIQUET32.value,
    show_default=True,
    type=click.Choice([k.value for k in DeckKind]),
    help="Which deck.",
)
@click.option(
    "--from",
    "from_order",
    default=None,
    metavar="ORDER",
    help="Starting order, top first (e.g. 'AS KS ...'); default: the deck in code order.",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"before": [...], "after": [...]}.')
@click.argument("actions", nargs=-1)
def shuffle(deck_name: str, from_order: str | None, as_json: bool, actions: tuple[str, ...]) -> None:
    """Apply a shuffle written in the notation (e.g. `2 4 cut 12`) and show the deck before and after."""
    deck = DeckKind.parse(deck_name)
    before = deck.codes() if from_order is None else parse_order(from_order, deck)
    after = apply_order(before, parse_notation(" ".join(actions)))
    if as_json:
        click.echo(json.dumps({"before": to_ascii_list(before), "after": to_ascii_list(after)}, ensure_ascii=False))
        return
    Console().print(_order_table(before, after))


@click.group()
def theory() -> None:
    """Exact shuffle theory."""


@theory.command()
@click.option("--cards", type=click.IntRange(1, MAX_THEORY_CARDS), required=True, help="Deck size n.")
@click.option(
    "--max",
    "max_riffles",
    type=click.IntRange(1, MAX_THEORY_RIFFLES),
    default=12,
    show_default=True,
    help="Largest number of riffles k.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a list of {riffles, tv, separation} rows.")
def riffles(cards: int, max_riffles: int, as_json: bool) -> None:
    """Total-variation and separation distance to uniform after k GSR riffles (exact, Bayer-Diaconis)."""
    rows = riffle_table(cards, max_riffles)
    if as_json:
        payload = [{"riffles": r.riffles, "tv": float(r.tv), "separation": float(r.separation)} for r in rows]
        click.echo(json.dumps(payload))
        return
    table = Table(title=f"{cards} cards after k GSR riffles: distance to uniform", show_edge=False)
    for name in ("riffles", "total variation", "separation"):
        table.add_column(name, justify="right")
    for row in rows:
        table.add_row(str(row.riffles), f"{float(row.tv):.3f}", f"{float(row.separation):.3f}")
    Console().print(table)


COMMANDS = [shuffle, theory]
