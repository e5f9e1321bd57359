"""`fairdeal solve` and `fairdeal review`: double-dummy values of layouts and of a logged hand's plays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from fairdeal.errors import FairdealError

if TYPE_CHECKING:
    from fairdeal.solver.review import HandReview


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


def review_log(path: str | Path, hand: int) -> HandReview:
    """The review of hand ``hand`` of the game log at ``path``."""
    import msgspec

    from fairdeal.log.reader import read_log
    from fairdeal.log.records import HandRecord, TableRecord
    from fairdeal.solver.review import ReviewError, review_record
    from fairdeal.systems import get_convention

    header = None
    try:
        for item in read_log(path):
            if header is None:
                if not item.ok or not isinstance(item.record, TableRecord):
                    raise ReviewError(f"{path}: line {item.line}: no usable table header")
                header = item.record
            elif item.ok and isinstance(item.record, HandRecord) and item.record.hand == hand:
                break
        else:
            raise ReviewError(f"{path}: no valid hand {hand} in the log")
    except OSError as exc:
        raise ReviewError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        convention = get_convention(header.system)
        return review_record(msgspec.to_builtins(item.record), convention, len(header.players))
    except FairdealError as exc:
        raise ReviewError(f"{path}: {exc}") from None


@click.command("review")
@click.argument("log", type=click.Path(exists=True, dir_okay=False))
@click.option("--hand", "hand", type=int, required=True, help="The hand number in the log.")
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON.")
def review_command(log: str, hand: int, as_json: bool) -> None:
    """Card by card, the double-dummy cost of each play of a logged hand (computed from the log alone)."""
    from fairdeal.cards import Card
    from fairdeal.solver.review import review_json

    review = review_log(log, hand)
    if as_json:
        click.echo(json.dumps(review_json(review), ensure_ascii=False))
        return
    click.echo(f"hand {review.hand} ({review.kind}); value: {review.counted} at the end, best play after the card")
    for p in review.plays:
        best = " ".join(str(Card.from_code(c)) for c in p.best_cards)
        note = "" if p.cost == 0 else f"  costs {p.cost} (best: {best} for {p.best})"
        click.echo(f"  trick {p.trick:2d}  seat {p.seat}  {Card.from_code(p.card)!s:>4s}  value {p.value}{note}")
    total = sum(p.cost for p in review.plays)
    click.echo(f"total double-dummy cost: {total} trick{'s' if total != 1 else ''}")


COMMANDS = [solve_command, review_command]
