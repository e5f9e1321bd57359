"""PPN, the portable preferans notation (protocols/ppn.md): PGN-style tag pairs, one section per hand, and the
play as numbered trick lines — both ways, losslessly for every field of the game log.

Reading builds each record's JSON form from the tags and converts it to the typed record, so a tag that does not
fit is reported with its line and tag name; the record is then checked by ``LogValidator`` like any log line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from fairdeal.errors import FairdealError
from fairdeal.log.formats import Imported, Problem
from fairdeal.log.reader import read_log
from fairdeal.log.records import FORMAT_NAME, FORMAT_VERSION, EndRecord, HandRecord, Record, ScoreRecord, TableRecord

TAG = re.compile(r'^\[(?P<name>[A-Za-z][A-Za-z0-9_]*)\s+"(?P<value>(?:[^"\\]|\\.)*)"\]\s*$')
TRICK = re.compile(
    r"^(?P<number>\d+)\.\s+(?P<lead>\d+)(?:\s+\*(?P<talon>\S+))?:\s+(?P<cards>[^=]*?)\s*=\s*"
    r"(?P<winner>\d+)\s*$"
)
TABLE_TAGS = ("System", "Deck", "Pattern", "Dealing", "Pulya", "Started", "Notes", "Convention")
YES_NO = {"yes": True, "no": False}
_R = TypeVar("_R", TableRecord, HandRecord, EndRecord)


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _number(value: int | float) -> str:
    return json.dumps(value)


def _cards(cards: list[str]) -> str:
    return " ".join(cards) if cards else "-"


def _read_cards(text: str) -> list[str]:
    return [] if text.strip() == "-" else text.split()


# -- writing --------------------------------------------------------------------------------------------------


def table_section(record: TableRecord) -> list[str]:
    tags = [("Format", "PPN 1"), ("System", record.system)]
    tags += [(f"Player{seat}", name) for seat, name in enumerate(record.players)]
    tags += [("Deck", record.deck), ("Pattern", record.deal_pattern), ("Dealing", record.dealing)]
    optional = {
        "Pulya": record.pulya,
        "Started": record.started,
        "Notes": record.notes,
        "Convention": record.convention,
    }
    for name, value in optional.items():
        if value is not msgspec.UNSET:
            text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
            tags.append((name, text))
    return [f"[{name} {_quote(value)}]" for name, value in tags]


def hand_section(record: HandRecord) -> list[str]:
    tags: list[tuple[str, str]] = [("Hand", str(record.hand)), ("Dealer", str(record.dealer))]
    if record.order_before is not msgspec.UNSET:
        tags.append(("OrderBefore", _cards(record.order_before)))
    if record.shuffle is not msgspec.UNSET:
        tags.append(("Shuffle", record.shuffle))
    if record.deal is not msgspec.UNSET:
        tags.append(
            ("Deal", " / ".join(map(_cards, record.deal.hands)) + " | " + " / ".join(map(_cards, record.deal.talons)))
        )
    if record.auction is not msgspec.UNSET:
        tags.append(("Auction", " ".join(f"{b.seat}:{b.bid}" for b in record.auction) or "-"))
    if record.talon_shown is not msgspec.UNSET:
        tags.append(("TalonShown", "yes" if record.talon_shown else "no"))
    if record.discard is not msgspec.UNSET:
        tags.append(("Exchange", _cards(record.discard)))
    if record.contract is not msgspec.UNSET:
        tags.append(("Contract", f"{record.contract.declarer}:{record.contract.bid}"))
    if record.defence is not msgspec.UNSET:
        tags.append(("Defence", " ".join(f"{d.seat}:{d.call}" for d in record.defence) or "-"))
    if record.defence_open is not msgspec.UNSET:
        tags.append(("DefenceOpen", "yes" if record.defence_open else "no"))
    if record.result is not msgspec.UNSET:
        tags.append(("Result", " ".join([record.result.kind, *map(str, record.result.tricks)])))
    if record.score is not msgspec.UNSET:
        tags.append(("Score", " ".join(_score(s) for s in record.score) or "-"))
    if record.transcript is not msgspec.UNSET:
        tags.append(("Transcript", f"{record.transcript.sha256} {record.transcript.file}"))
    if record.extras is not msgspec.UNSET:
        tags.append(("Extras", json.dumps(record.extras, sort_keys=True, ensure_ascii=False)))
    lines = [f"[{name} {_quote(value)}]" for name, value in tags]
    if record.tricks is not msgspec.UNSET:
        lines.append(f"[Play {_quote(str(len(record.tricks)))}]")
        for number, trick in enumerate(record.tricks, start=1):
            talon = f" *{trick.talon_card}" if trick.talon_card is not msgspec.UNSET else ""
            lines.append(f"{number}. {trick.lead}{talon}: {_cards(trick.cards)} = {trick.winner}")
    return lines


def _score(line: ScoreRecord) -> str:
    on = f"@{line.on}" if line.on is not msgspec.UNSET else ""
    return f"{line.seat}:{line.column}{on}:{_number(line.points)}"


def end_section(record: EndRecord) -> list[str]:
    lines = ['[End "1"]']
    if record.settlement is not msgspec.UNSET:
        lines.append(f"[Settlement {_quote(json.dumps(record.settlement, ensure_ascii=False))}]")
    return lines


def to_ppn(records: list[Record]) -> str:
    """The records (a header first) as PPN text: sections separated by one blank line."""
    sections = []
    for record in records:
        if isinstance(record, TableRecord):
            sections.append(table_section(record))
        elif isinstance(record, HandRecord):
            sections.append(hand_section(record))
        else:
            sections.append(end_section(record))
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def write_ppn(log: str | Path) -> tuple[str, list[Problem]]:
    """A log file as PPN, and a problem for each line of the log that is not a valid record (left out)."""
    records: list[Record] = []
    problems: list[Problem] = []
    for item in read_log(log):
        if item.errors:
            problems += [Problem(item.line, e.field or "$", str(e)) for e in item.errors]
        elif item.record is not None:  # a line without errors always holds its record
            records.append(item.record)
    if not records or not isinstance(records[0], TableRecord):
        raise FairdealError(f"{log}: no valid table header: nothing to export")
    return to_ppn(records), problems


# -- reading --------------------------------------------------------------------------------------------------


class TagError(ValueError):
    def __init__(self, line: int, tag: str, message: str):
        super().__init__(message)
        self.line, self.tag = line, tag


def sections(text: str) -> Iterator[list[tuple[int, str]]]:
    """Numbered non-blank lines, grouped into sections at blank lines; ``%`` lines are comments."""
    section: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("%"):
            continue
        if line.strip():
            section.append((number, line.rstrip()))
        elif section:
            yield section
            section = []
    if section:
        yield section


def read_ppn(text: str) -> Imported:
    """PPN text into records; a section that cannot be mapped is reported at its line and tag, and left out."""
    result = Imported()
    table_seen = False
    for section in sections(text):
        tags: dict[str, tuple[int, str]] = {}
        record: Record
        try:
            tags, plays = _split(section)
            if not table_seen:
                record, line = _table(tags), section[0][0]
                table_seen = True
            elif "End" in tags:
                record, line = _end(tags), tags["End"][0]
            else:
                record, line = _hand(tags, plays), tags.get("Hand", (section[0][0], ""))[0]
        except TagError as exc:
            result.fail(exc.line, exc.tag, str(exc))
            continue
        result.keep(record, line, locate=partial(_located, tags=tags, line=line))
    if not table_seen:
        result.fail(1, "$", "no PPN section: the first section holds the table tags ([System ...], [Player0 ...])")
    return result


def _located(path: str, tags: dict[str, tuple[int, str]], line: int) -> tuple[int, str]:
    """The line of the tag that carries a game-log field (the section's first line when it has none)."""
    tag = _tag_of(path)
    return tags.get(tag, (line, ""))[0], tag


def _tag_of(path: str) -> str:
    """A game-log field path in PPN's words (the tag that carries it)."""
    head = path.split(".")[0].split("[")[0]
    names = {
        "order_before": "OrderBefore",
        "shuffle": "Shuffle",
        "deal": "Deal",
        "auction": "Auction",
        "talon_shown": "TalonShown",
        "discard": "Exchange",
        "contract": "Contract",
        "defence": "Defence",
        "defence_open": "DefenceOpen",
        "tricks": "Play",
        "result": "Result",
        "score": "Score",
        "transcript": "Transcript",
        "extras": "Extras",
        "hand": "Hand",
        "dealer": "Dealer",
        "players": "Player0",
        "system": "System",
        "deck": "Deck",
        "deal_pattern": "Pattern",
        "dealing": "Dealing",
        "pulya": "Pulya",
        "started": "Started",
        "settlement": "Settlement",
    }
    return names.get(head, path)


def _split(section: list[tuple[int, str]]) -> tuple[dict[str, tuple[int, str]], list[tuple[int, str]]]:
    tags: dict[str, tuple[int, str]] = {}
    plays: list[tuple[int, str]] = []
    for number, line in section:
        match = TAG.match(line)
        if match:
            if match["name"] in tags:
                raise TagError(number, match["name"], "the tag appears twice in one section")
            tags[match["name"]] = (number, _unquote(match["value"]))
        elif line.startswith("["):
            raise TagError(number, "$", f'not a tag pair [Name "value"]: {line[:60]!r}')
        else:
            plays.append((number, line))
    return tags, plays


def _table(tags: dict[str, tuple[int, str]]) -> TableRecord:
    for name in ("System", "Deck", "Pattern", "Dealing", "Player0"):
        if name not in tags:
            raise TagError(min((line for line, _ in tags.values()), default=1), name, f"the table has no [{name}] tag")
    players: list[str] = []
    while f"Player{len(players)}" in tags:
        players.append(tags[f"Player{len(players)}"][1])
    data: dict[str, Any] = {
        "type": "table",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "system": tags["System"][1],
        "players": players,
        "deck": tags["Deck"][1],
        "deal_pattern": tags["Pattern"][1],
        "dealing": tags["Dealing"][1],
    }
    if "Pulya" in tags:
        data["pulya"] = _json(tags["Pulya"], "Pulya")
    for name, key in (("Started", "started"), ("Notes", "notes")):
        if name in tags:
            data[key] = tags[name][1]
    if "Convention" in tags:
        data["convention"] = _json(tags["Convention"], "Convention")
    return _convert(data, TableRecord, tags)


def _json(tag: tuple[int, str], name: str) -> Any:
    try:
        return json.loads(tag[1])
    except json.JSONDecodeError as exc:
        raise TagError(tag[0], name, f"not JSON: {exc.msg}") from None


def _int(tag: tuple[int, str], name: str, text: str | None = None) -> int:
    value = tag[1] if text is None else text
    if not value.strip().lstrip("-").isdigit():
        raise TagError(tag[0], name, f"expected a whole number, got {value!r}")
    return int(value)


def _pairs(tag: tuple[int, str], name: str, key: str) -> list[dict[str, Any]]:
    if tag[1].strip() == "-":
        return []
    items = []
    for token in tag[1].split():
        seat, colon, word = token.partition(":")
        if not colon or not word:
            raise TagError(tag[0], name, f"expected SEAT:WORD, got {token!r}")
        items.append({"seat": _int(tag, name, seat), key: word})
    return items


def _hand(tags: dict[str, tuple[int, str]], plays: list[tuple[int, str]]) -> HandRecord:
    for name in ("Hand", "Dealer"):
        if name not in tags:
            raise TagError(
                min((line for line, _ in tags.values()), default=plays[0][0] if plays else 1),
                name,
                f"a hand section has no [{name}] tag",
            )
    data: dict[str, Any] = {
        "type": "hand",
        "hand": _int(tags["Hand"], "Hand"),
        "dealer": _int(tags["Dealer"], "Dealer"),
    }
    get = tags.get
    if get("OrderBefore"):
        data["order_before"] = _read_cards(tags["OrderBefore"][1])
    if get("Shuffle"):
        data["shuffle"] = tags["Shuffle"][1]
    if get("Deal"):
        hands, bar, talons = tags["Deal"][1].partition("|")
        if not bar:
            raise TagError(tags["Deal"][0], "Deal", "expected HANDS | TALONS (hands and talons separated by '/')")
        data["deal"] = {
            "hands": [_read_cards(h) for h in hands.split("/")],
            "talons": [_read_cards(t) for t in talons.split("/")],
        }
    if get("Auction"):
        data["auction"] = _pairs(tags["Auction"], "Auction", "bid")
    for name, key in (("TalonShown", "talon_shown"), ("DefenceOpen", "defence_open")):
        if get(name):
            if tags[name][1] not in YES_NO:
                raise TagError(tags[name][0], name, f"expected yes or no, got {tags[name][1]!r}")
            data[key] = YES_NO[tags[name][1]]
    if get("Exchange"):
        data["discard"] = _read_cards(tags["Exchange"][1])
    if get("Contract"):
        contract: list[dict[str, Any] | None] = list(_pairs(tags["Contract"], "Contract", "bid")) or [None]
        (pair,) = contract
        if pair is None:
            raise TagError(tags["Contract"][0], "Contract", "expected DECLARER:BID")
        data["contract"] = {"declarer": pair["seat"], "bid": pair["bid"]}
    if get("Defence"):
        data["defence"] = _pairs(tags["Defence"], "Defence", "call")
    if get("Result"):
        kind, *tricks = tags["Result"][1].split()
        data["result"] = {"kind": kind, "tricks": [_int(tags["Result"], "Result", t) for t in tricks]}
    if get("Score"):
        data["score"] = _scores(tags["Score"])
    if get("Transcript"):
        digest, _, file = tags["Transcript"][1].partition(" ")
        data["transcript"] = {"file": file, "sha256": digest}
    if get("Extras"):
        data["extras"] = _json(tags["Extras"], "Extras")
    if get("Play") or plays:
        data["tricks"] = _tricks(tags.get("Play"), plays)
    return _convert(data, HandRecord, tags)


def _scores(tag: tuple[int, str]) -> list[dict[str, Any]]:
    if tag[1].strip() == "-":
        return []
    lines = []
    for token in tag[1].split():
        parts = token.split(":")
        if len(parts) != 3:
            raise TagError(tag[0], "Score", f"expected SEAT:COLUMN[@ON]:POINTS, got {token!r}")
        column, at, on = parts[1].partition("@")
        line = {"seat": _int(tag, "Score", parts[0]), "column": column, "points": _json((tag[0], parts[2]), "Score")}
        if at:
            line["on"] = _int(tag, "Score", on)
        lines.append(line)
    return lines


def _tricks(play: tuple[int, str] | None, lines: list[tuple[int, str]]) -> list[dict[str, Any]]:
    tricks: list[dict[str, Any]] = []
    for number, line in lines:
        match = TRICK.match(line)
        if not match or int(match["number"]) != len(tricks) + 1:
            raise TagError(
                number,
                "Play",
                f"expected trick {len(tricks) + 1} as 'N. LEAD[ *TALONCARD]: CARDS = WINNER', got {line[:60]!r}",
            )
        trick: dict[str, Any] = {
            "lead": int(match["lead"]),
            "cards": _read_cards(match["cards"]),
            "winner": int(match["winner"]),
        }
        if match["talon"]:
            trick["talon_card"] = match["talon"]
        tricks.append(trick)
    if play is not None and _int(play, "Play") != len(tricks):
        raise TagError(play[0], "Play", f"[Play] announces {play[1]} tricks; {len(tricks)} follow")
    return tricks


def _end(tags: dict[str, tuple[int, str]]) -> EndRecord:
    data: dict[str, Any] = {"type": "end"}
    if "Settlement" in tags:
        data["settlement"] = _json(tags["Settlement"], "Settlement")
    return _convert(data, EndRecord, tags)


def _convert(data: dict[str, Any], kind: type[_R], tags: dict[str, tuple[int, str]]) -> _R:
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        text = str(exc)
        path = text.rpartition("`$.")[2].rstrip("`") if "`$." in text else "$"
        tag = _tag_of(path)
        line = tags.get(tag, next(iter(tags.values()), (1, "")))[0]
        raise TagError(line, tag, text.split(" - at ")[0]) from None
