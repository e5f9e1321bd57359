"""The deals-only form (protocols/deals.md), for servers that log who dealt what and nothing else: CSV with one
row per hand, or JSON Lines with a table line and then one object per hand. Import only: each row becomes a
game-log hand line with ``dealer``, ``deal`` and, when given, ``shuffle`` and ``order_before``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, cast

from msgspec import UNSET

from fairdeal.cards import parse_card
from fairdeal.deal import get_pattern
from fairdeal.errors import FairdealError
from fairdeal.log.formats import Imported
from fairdeal.log.records import FORMAT_NAME, FORMAT_VERSION, Dealing, DealRecord, HandRecord, TableRecord

KNOWN_COLUMNS = ("hand", "dealer", "talon", "shuffle", "order_before", "dummy")


@dataclass(frozen=True)
class TableFacts:
    """What a deals-only file does not say and the header needs (CSV: from the command line)."""

    pattern: str = "russian"
    system: str = "sochi"
    dealing: str = "server-rng"
    started: str | None = None


def _cards(text: str) -> list[str]:
    """Card names in the log's spelling (``10H``, ``AS``) from any spelling the card reader accepts."""
    return [parse_card(token).ascii for token in text.replace(",", " ").split()]


def _header(players: list[str], facts: TableFacts) -> TableRecord:
    pattern = get_pattern(facts.pattern)
    return TableRecord(
        format=FORMAT_NAME,
        version=FORMAT_VERSION,
        system=facts.system,
        players=players,
        deck=pattern.deck.value,
        deal_pattern=pattern.name,
        # The validator checks the value (``Imported.keep``), naming it when it is not a known kind.
        dealing=cast(Dealing, facts.dealing),
        started=facts.started or UNSET,
    )


def _talons(cards: list[str], pattern_name: str) -> list[list[str]]:
    pattern = get_pattern(pattern_name)
    size = pattern.talon_size
    if len(cards) != size * pattern.talons:
        return [cards]  # the validator words the wrong size
    return [cards[i * size : (i + 1) * size] for i in range(pattern.talons)]


def _dealer(text: object, players: list[str]) -> int:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if isinstance(text, str):
        if text in players:
            return players.index(text)
        if text.strip().isdigit():
            return int(text)
    raise ValueError(f"{text!r} is neither a player ({', '.join(players)}) nor a seat number")


def read_csv(text: str, facts: TableFacts = TableFacts()) -> Imported:
    """Rows ``hand,dealer,<player>...,[dummy,]talon[,shuffle][,order_before]``: the player columns, in seat order,
    name the players; cells hold cards separated by spaces; a seat that sits out has an empty cell."""
    result = Imported()
    rows = csv.reader(io.StringIO(text))
    columns = next(rows, None)
    if columns is None:
        result.fail(1, "$", "the file is empty: a header row (hand,dealer,<players>...,talon) comes first")
        return result
    columns = [c.strip() for c in columns]
    players = [c for c in columns if c not in KNOWN_COLUMNS]
    for needed in ("dealer", "talon"):
        if needed not in columns:
            result.fail(1, needed, f"the header row has no {needed!r} column")
    if result.problems:
        return result
    try:
        header = _header(players, facts)
    except FairdealError as exc:
        result.fail(1, "pattern", str(exc))
        return result
    if not result.keep(header, 1, lambda f: f.replace("players", "header row")):
        return result
    for number, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            result.fail(number, "$", f"{len(row)} cells; the header row names {len(columns)} columns")
            continue
        _hand(result, dict(zip(columns, row)), number, players, facts, len(result.records))
    return result


def _hand(
    result: Imported, cells: dict[str, Any], number: int, players: list[str], facts: TableFacts, index: int
) -> None:
    column = "?"
    try:
        column = "hand"
        hand = int(cells["hand"]) if str(cells.get("hand", "")).strip() else index
        column = "dealer"
        dealer = _dealer(cells["dealer"], players)
        hands = []
        for column in players + (["dummy"] if "dummy" in cells else []):
            hands.append(_cards(cells[column]))
        column = "talon"
        talons = _talons(_cards(cells["talon"]), facts.pattern)
        fields = {}
        if str(cells.get("shuffle") or "").strip():
            fields["shuffle"] = cells["shuffle"].strip()
        if str(cells.get("order_before") or "").strip():
            column = "order_before"
            fields["order_before"] = _cards(cells["order_before"])
    except (FairdealError, ValueError) as exc:
        result.fail(number, column, str(exc))
        return
    record = HandRecord(hand=hand, dealer=dealer, deal=DealRecord(hands=hands, talons=talons), **fields)
    names = players + ["dummy"]
    result.keep(record, number, lambda f: _column_of(f, names))


def _column_of(path: str, names: list[str]) -> str:
    """A game-log field path in the source's words: ``deal.hands[1][3]`` -> ``Boris[3]``."""
    if path.startswith("deal.hands["):
        seat, _, rest = path[len("deal.hands[") :].partition("]")
        if seat.isdigit() and int(seat) < len(names):
            return names[int(seat)] + rest
    if path.startswith("deal.talons"):
        return "talon"
    return path


def read_json(text: str, facts: TableFacts = TableFacts()) -> Imported:
    """JSON Lines: first ``{"players": [...], "pattern"?, "system"?, "dealing"?, "started"?}``, then per hand
    ``{"hand"?, "dealer": name or seat, "hands": [[cards] per seat] or {name: [cards]}, "talon": [cards],
    "shuffle"?, "order_before"?}``."""
    result = Imported()
    players: list[str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            result.fail(number, "$", f"not JSON: {exc.msg} at column {exc.colno}")
            continue
        if not isinstance(item, dict):
            result.fail(number, "$", "each line must be a JSON object")
            continue
        if players is None:
            players = _json_table(result, item, number, facts)
            if players is None:
                return result
            facts = TableFacts(
                item.get("pattern", facts.pattern),
                item.get("system", facts.system),
                item.get("dealing", facts.dealing),
                item.get("started", facts.started),
            )
            continue
        cells = _json_cells(result, item, number, players)
        if cells is not None:
            _hand(result, cells, number, players, facts, len(result.records))
    if players is None:
        result.fail(1, "$", 'the file is empty: a table line {"players": [...]} comes first')
    return result


def _json_table(result: Imported, item: dict[str, Any], number: int, facts: TableFacts) -> list[str] | None:
    players = item.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        result.fail(number, "players", 'the first line must name the players: {"players": ["Anna", ...]}')
        return None
    try:
        header = _header(
            players,
            TableFacts(
                item.get("pattern", facts.pattern),
                item.get("system", facts.system),
                item.get("dealing", facts.dealing),
                item.get("started", facts.started),
            ),
        )
    except (FairdealError, TypeError) as exc:
        result.fail(number, "pattern", str(exc))
        return None
    return players if result.keep(header, number) else None


def _json_cells(result: Imported, item: dict[str, Any], number: int, players: list[str]) -> dict[str, Any] | None:
    """The hand object as the CSV row's cells (card lists joined), so both forms share one mapping."""
    unknown = sorted(set(item) - {"hand", "dealer", "hands", "talon", "shuffle", "order_before", "dummy"})
    if unknown:
        result.fail(number, unknown[0], "unknown field")
        return None
    hands = item.get("hands")
    if isinstance(hands, list):
        if len(hands) not in (len(players), len(players) + 1):
            result.fail(number, "hands", f"{len(hands)} hands for {len(players)} players")
            return None
        hands = dict(zip(players + ["dummy"], hands))
    if not isinstance(hands, dict):
        result.fail(number, "hands", "expected a list of card lists per seat or an object by player name")
        return None
    cells = {"dealer": item.get("dealer"), "hand": str(item.get("hand", ""))}
    for name in players + (["dummy"] if "dummy" in hands else []):
        cells[name] = hands.get(name, [])
    cells["talon"] = item.get("talon", [])
    for key in ("shuffle", "order_before"):
        if key in item:
            cells[key] = item[key]
    for key, value in list(cells.items()):
        if isinstance(value, list):
            if not all(isinstance(card, str) for card in value):
                result.fail(number, key, 'cards are strings such as "AS" or "10H"')
                return None
            cells[key] = " ".join(value)
    return cells
