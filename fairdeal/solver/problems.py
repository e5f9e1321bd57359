"""The line format of `fairdeal solve`: one JSON object per line describing a layout, and its answer.

``{"hands": {"0": ["AS", ...], "1": [...], "2": [...]}, "lead": 0, "declarer": 0, "trump": "S" | null,
"goal": "tricks" | "misere"}``, optionally ``"overtake": true`` (the Austrian/Croatian «Перебивать карту хода
обязательно»). Seats play 0 → 1 → 2 → 0; two seats (Hussar) are "0" and "1".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fairdeal.cards import Card, parse_card
from fairdeal.errors import CardError, FairdealError
from fairdeal.solver.dds import GOALS, Goal, Position, declarer_tricks

TRUMPS = {"S": 0, "C": 1, "D": 2, "H": 3}
FIELDS = ("hands", "lead", "declarer", "trump", "goal")
OPTIONAL = ("overtake",)


class ProblemError(FairdealError, ValueError):
    def __init__(self, line: int, field: str, message: str):
        super().__init__(f"line {line}: field {field}: {message}")


@dataclass(frozen=True)
class Problem:
    position: Position
    declarer: int
    goal: Goal


def parse_problem(text: str, line: int) -> Problem:
    """One line of the input; ``ProblemError`` names the line and the field at fault."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ProblemError(line, "(line)", f"not JSON: {getattr(exc, 'msg', 'nested too deeply')}") from None
    if not isinstance(data, dict):
        raise ProblemError(line, "(line)", "expected a JSON object")
    for name in FIELDS:
        if name not in data:
            raise ProblemError(line, name, "missing")
    unknown = sorted(set(data) - set(FIELDS) - set(OPTIONAL))
    if unknown:
        raise ProblemError(line, unknown[0], f"unknown field (known: {', '.join(FIELDS + OPTIONAL)})")
    hands = _hands(data["hands"], line)
    seats = len(hands)
    lead = _seat(data["lead"], seats, line, "lead")
    declarer = _seat(data["declarer"], seats, line, "declarer")
    trump = data["trump"]
    if trump is not None and trump not in TRUMPS:
        raise ProblemError(line, "trump", f"expected one of S C D H or null, got {_short(trump)}")
    goal = data["goal"]
    if goal not in GOALS:
        raise ProblemError(line, "goal", f"expected tricks or misere, got {_short(goal)}")
    overtake = data.get("overtake", False)
    if not isinstance(overtake, bool):
        raise ProblemError(line, "overtake", f"expected true or false, got {_short(overtake)}")
    position = Position(hands, lead, trump=None if trump is None else TRUMPS[trump], must_overtake=overtake)
    return Problem(position, declarer, goal)


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _hands(value: object, line: int) -> tuple[tuple[int, ...], ...]:
    if not isinstance(value, dict):
        raise ProblemError(line, "hands", 'expected an object of seats "0", "1"[, "2"]')
    seats = len(value)
    if sorted(value) != [str(s) for s in range(seats)] or seats not in (2, 3):
        raise ProblemError(line, "hands", f'expected seats "0", "1" and perhaps "2", got {_short(sorted(value))}')
    hands: list[tuple[int, ...]] = []
    seen: dict[int, str] = {}
    for s in range(seats):
        field = f"hands.{s}"
        cards = value[str(s)]
        if not isinstance(cards, list) or not 1 <= len(cards) <= 10:
            raise ProblemError(line, field, "expected a list of 1 to 10 cards")
        codes = []
        for item in cards:
            if not isinstance(item, str):
                raise ProblemError(line, field, f'expected card strings like "AS", got {_short(item)}')
            try:
                code = parse_card(item).code
            except CardError as exc:
                raise ProblemError(line, field, str(exc)) from None
            if code in seen:
                raise ProblemError(line, field, f"{Card.from_code(code).ascii} is also in {seen[code]}")
            seen[code] = field
            codes.append(code)
        hands.append(tuple(sorted(codes)))
    if len({len(h) for h in hands}) != 1:
        sizes = ", ".join(f"{s}: {len(h)}" for s, h in enumerate(hands))
        raise ProblemError(line, "hands", f"every seat must hold the same number of cards ({sizes})")
    return tuple(hands)


def _seat(value: object, seats: int, line: int, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise ProblemError(line, field, f"expected a seat 0..{seats - 1}, got {_short(value)}")
    return value


def answer(problem: Problem) -> dict[str, Any]:
    """The declarer's tricks under optimal play and the value of each legal first card."""
    solution = declarer_tricks(problem.position, problem.declarer, problem.goal, values=True)
    cards = {Card.from_code(c).ascii: v for c, v in sorted(solution.card_values.items())}
    return {"declarer_tricks": solution.value, "card_values": cards}
