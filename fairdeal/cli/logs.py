"""`fairdeal deal-pattern` (who receives which card) and `fairdeal log validate` (check a game log)."""

from __future__ import annotations

import json
from typing import Any, BinaryIO

import click
import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fairdeal.cards import Card, parse_order, to_ascii_list
from fairdeal.deal import Deal, DealPattern, deal_order, get_pattern
from fairdeal.errors import LogError
from fairdeal.log import read_log
from fairdeal.log.sources import expand


@click.command("deal-pattern")
@click.option(
    "--system",
    "name",
    required=True,
    help="Pattern name: russian, austrian, croatian, hussar, gusarik, russian-talon-after-round-R.",
)
@click.option("--from", "order_text", default=None, help="A deck order, top first (e.g. 'AS KS ...'); deals it.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def deal_pattern(name: str, order_text: str | None, as_json: bool) -> None:
    """Show which hand or talon receives each deck position (1 = top of the deck)."""
    pattern = get_pattern(name)
    order = parse_order(order_text, pattern.deck) if order_text is not None else None
    deal = deal_order(order, pattern) if order is not None else None
    if as_json:
        click.echo(json.dumps(_pattern_json(pattern, order, deal), ensure_ascii=False))
    else:
        _print_pattern(pattern, order, deal)


def _receiver(pattern: DealPattern, target: int) -> str:
    if target >= pattern.hands:
        return f"talon {target - pattern.hands}"
    if target == pattern.aside_hand:
        return "laid aside"
    return "dummy" if target == pattern.dummy_hand else f"hand {target}"


def _pattern_json(pattern: DealPattern, order: np.ndarray | None, deal: Deal | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "pattern": pattern.name,
        "deck": pattern.deck.value,
        "hands": pattern.hands,
        "talons": pattern.talons,
        "description": pattern.description,
        "seed": pattern.seed,
        "receivers": [_receiver(pattern, int(t)) for t in pattern.targets],
        "targets": pattern.targets.tolist(),
    }
    if order is not None and deal is not None:
        result["order"] = to_ascii_list(order)
        result["deal"] = {
            "hands": [to_ascii_list(h) for h in deal.hands],
            "talons": [to_ascii_list(t) for t in deal.talons],
        }
    return result


def _card_text(code: int) -> Text:
    card = Card.from_code(code)
    return Text(str(card), style="red" if card.suit.is_red else "bold")


def _cards_text(codes: np.ndarray) -> Text:
    return Text(" ").join(_card_text(int(c)) for c in codes)


def _print_pattern(pattern: DealPattern, order: np.ndarray | None, deal: Deal | None) -> None:
    console = Console()
    console.print(f"[bold]{pattern.name}[/bold] ({pattern.deck.value}, seed {pattern.seed}): {pattern.description}")
    table = Table("position", "receiver", *(["card"] if order is not None else []))
    for position, target in enumerate(pattern.targets, start=1):
        cells = [str(position), _receiver(pattern, int(target))]
        table.add_row(*cells, *([_card_text(int(order[position - 1]))] if order is not None else []))
    console.print(table)
    if deal is None:
        return
    for index, hand in enumerate(deal.hands):
        console.print(Text(f"{_receiver(pattern, index)}: ").append_text(_cards_text(hand)))
    for index, talon in enumerate(deal.talons):
        console.print(Text(f"talon {index}: ").append_text(_cards_text(talon)))


@click.group("log")
def log() -> None:
    """Game logs (format v1, protocols/game-log.md)."""


@log.command("validate")
@click.argument("files", nargs=-1, required=True)
def validate(files: tuple[str, ...]) -> None:
    """Check logs (files, directories, globs, '-' for stdin, .gz/.zst): one line per error
    (FILE:LINE: field: message), then a summary per log; exit 1 if any is invalid, 2 if one cannot be read."""
    try:
        sources = expand(files)
    except LogError as exc:
        click.echo(f"Error: {exc}", err=True)
        click.get_current_context().exit(2)
    code = 0
    for source in sources:
        try:
            with source.open() as stream:
                valid_hands, errors = _report_errors(source.name, stream)
        except (OSError, EOFError, LogError) as exc:
            click.echo(f"Error: {source.name}: cannot read: {getattr(exc, 'strerror', None) or exc}", err=True)
            code = 2
            continue
        verdict = "valid" if errors == 0 else "INVALID"
        click.echo(f"{source.name}: {verdict}: {valid_hands} hands valid, {errors} errors")
        code = max(code, 1 if errors else 0)
    click.get_current_context().exit(code)


def _report_errors(name: str, stream: BinaryIO) -> tuple[int, int]:
    valid_hands = errors = lines = 0
    for item in read_log(stream):
        lines += 1
        for error in item.errors:
            message = _bare_message(error)
            click.echo(f"{name}:{item.line}: {error.field or '$'}: {message}")
            errors += 1
        if item.ok and getattr(item.record, "hand", None) is not None:
            valid_hands += 1
    if not lines:
        click.echo(f"{name}:1: $: the log is empty: a log starts with its table header")
        errors += 1
    return valid_hands, errors


def _bare_message(error: LogError) -> str:
    """The message without the "line N, field F: " prefix that ``LogError`` adds."""
    where = ", ".join(
        part
        for part in (
            f"line {error.line}" if error.line is not None else "",
            f"field {error.field}" if error.field else "",
        )
        if part
    )
    text = str(error)
    return text[len(where) + 2 :] if where and text.startswith(where + ": ") else text


COMMANDS = [deal_pattern, log]
