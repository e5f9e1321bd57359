"""The game record inside transcripts, replayed through the engine: cards, tricks, result and score lines.

Score lines depend on the sheet before the hand (a closed pulya spills into whists), so a session's records
are replayed in hand order from an empty sheet; when the first transcript given is not hand 1, or a hand is
missing or unreplayable, score lines after that point cannot be recomputed and are reported as not checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fairdeal.engine.hand import result
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.scoring import abort_penalty, penalty_lines
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import SHEET_EXTRAS, ScoreLine, Sheet, new_sheet
from fairdeal.engine.state import HandState
from fairdeal.engine.system import system_of
from fairdeal.errors import FairdealError, one_line
from fairdeal.protocols.encoding import canonical_json
from fairdeal.protocols.record_form import played_record
from fairdeal.rules.convention import Convention


@dataclass(frozen=True)
class RecordProblem:
    index: int  # position of the transcript in the sequence given
    check: str
    detail: str


def check_session_records(
    docs: Sequence[Mapping[str, Any]], trusted: Sequence[bool], convention: Convention | None, num_seats: int
) -> tuple[list[RecordProblem], list[tuple[int, str]]]:
    """Replay the records of one session's transcripts (given in hand order) under the session's ``convention``
    (``None`` when the statement names none it can be rebuilt from); ``trusted[i]`` is False when the deal of
    transcript ``i`` failed verification, so its record cannot be judged.

    Returns the problems and the notes (index, text) for what could not be checked.
    """
    problems, notes, _ = replay_session(docs, trusted, convention, num_seats)
    return problems, notes


def replay_session(
    docs: Sequence[Mapping[str, Any]], trusted: Sequence[bool], convention: Convention | None, num_seats: int
) -> tuple[list[RecordProblem], list[tuple[int, str]], Sheet | None]:
    """``check_session_records``, and the sheet after the last hand (``None`` when some hand left it unknown)."""
    problems: list[RecordProblem] = []
    notes: list[tuple[int, str]] = []
    if convention is None:
        return (
            [],
            [(i, "record not replayed: the session names no convention") for i, d in enumerate(docs) if "record" in d],
            None,
        )
    try:
        sheet: Sheet | None = new_sheet(convention, num_seats) if docs[0]["hand"] == 1 else None
    except FairdealError as exc:
        return [], [(i, f"record not replayed: {exc}") for i, d in enumerate(docs) if "record" in d], None
    previous_hand = 0
    for index, doc in enumerate(docs):
        if doc["hand"] != previous_hand + 1:
            sheet = None
        previous_hand = doc["hand"]
        if "start" in doc and "record" not in doc and sheet is not None:
            moved = _start_problem(doc["start"], sheet)
            if moved is not None:
                problems.append(RecordProblem(index, "start", moved))
        if "record" not in doc or not trusted[index]:
            sheet = None
            why = "no game record" if "record" not in doc else "the deal failed verification"
            notes.append((index, f"{why}: play and score not checked"))
            continue
        found, sheet = _check_one(doc, convention, num_seats, sheet)
        problems += [RecordProblem(index, check, detail) for check, detail in found]
        if sheet is None and not found:
            notes.append((index, "score lines not checked: the sheet before this hand is unknown"))
    return problems, notes, sheet


def _start_problem(stated: Any, sheet: Sheet) -> str | None:
    """A hand cut short in play states the start its game is followed from: it must be the sheet's."""
    given = {"raspasy_streak": sheet.raspasy_streak, "refe": sorted(sheet.refe_seats())}
    if stated == given:
        return None
    return f"the hand states its start as {one_line(repr(stated), 120)}; the sheet before it gives {given}"


def check_hand_record(
    doc: Mapping[str, Any], convention: Convention, num_seats: int, sheet: Sheet | None
) -> tuple[list[tuple[str, str]], Sheet | None]:
    """One hand's record (``doc`` holds ``hand``, ``dealer``, ``deal`` and ``record``) replayed and scored on
    ``sheet``: the problems found, and the sheet after the hand (``None`` when it cannot be known)."""
    found, after = _check_one(doc, convention, num_seats, sheet)
    return list(found), after


def _check_one(
    doc: Mapping[str, Any], convention: Convention, num_seats: int, sheet: Sheet | None
) -> tuple[list[tuple[str, str]], Sheet | None]:
    record = doc["record"]
    if not isinstance(record, Mapping):
        return [("record form", "the record is not a JSON object")], None
    found = _check_header(doc, record)
    if found:
        return found, None
    try:
        state = replay_record(record, convention, num_seats)
        outcome = result(state)
    except FairdealError as exc:
        return [("replay", str(exc))], None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        # The engine's replay names most malformed fields itself; anything else is still the record's fault.
        return [("replay", f"malformed record ({type(exc).__name__}: {exc})")], None
    found = _check_form(record, state)
    if found:
        return found, None
    if sheet is None:
        return [], None
    streak = record.get("extras", {}).get("raspasy_streak", 0)
    if streak != sheet.raspasy_streak:
        return [("raspasy streak", f"the record plays streak {streak}, the sheet has {sheet.raspasy_streak}")], None
    try:
        sheet = sheet.apply(penalty_lines(record.get("penalty", []), num_seats))
    except FairdealError as exc:
        return [("penalty", str(exc))], None
    sheet, lines = system_of(convention).score_hand(sheet, outcome)
    expected = [line.to_record() for line in lines]
    if canonical_json(record.get("score")) != canonical_json(expected):
        return [("score", f"the score lines should be {canonical_json(expected).decode()}")], sheet
    return [], sheet


def end_penalty(convention: Convention, num_seats: int, charged: Sequence[int]) -> tuple[ScoreLine, ...]:
    """What an evening's end charges: the convention's abort penalty for each seat at fault."""
    return tuple(line for seat in charged for line in abort_penalty(convention, seat, num_seats))


def fraction_text(amount: Fraction) -> str:
    return str(Fraction(amount))


def settlement_due(
    sheet: Sheet, convention: Convention, names: Sequence[str], charged: Sequence[int]
) -> dict[str, str]:
    """What the signed settlement after ``sheet`` must state, by seat name, when the evening's end charges
    ``charged`` (none when it ran to its settlement)."""
    final = sheet.apply(end_penalty(convention, len(names), charged))
    return {name: fraction_text(amount) for name, amount in zip(names, settle(final, convention).amounts)}


def settled_amounts(
    convention: Convention, players: Sequence[str], complete: Sequence[Mapping[str, Any]], charged: Sequence[str]
) -> list[Fraction] | None:
    """What the ``complete`` hands' records, replayed, and an end's charge on ``charged`` settle to; ``None`` when
    the records do not replay. Hands only dealt (``fairdeal deal --deal-only``) hold no record and score nothing."""
    docs = [
        {"hand": d["hand"], "dealer": d["dealer"], "deal": d["deal"], "record": played_record(d.get("record"))}
        for d in complete
    ]
    sheet = new_sheet(convention, len(players))
    if any(doc["record"] is not None for doc in docs):
        problems, _, replayed = replay_session(docs, [True] * len(docs), convention, len(players))
        if problems or replayed is None:
            return None
        sheet = replayed
    lines = end_penalty(convention, len(players), [players.index(name) for name in charged])
    return list(settle(sheet.apply(lines), convention).amounts)


def amounts_objection(
    convention: Convention,
    players: Sequence[str],
    complete: Sequence[Mapping[str, Any]],
    charged: Sequence[str],
    settlement: Any,
) -> str | None:
    """Why a mental-poker seat will not sign ``settlement`` (its amounts by name): they are not what the records
    it signed (the ``complete`` hands) and the end's charge on ``charged`` settle to; ``None`` when they are."""
    amounts = settled_amounts(convention, players, complete, charged)
    if amounts is None:
        return "the records I signed do not replay to a sheet"
    expected = {name: str(amount) for name, amount in zip(players, amounts)}
    if settlement != expected:
        return f"the amounts are not my sheet's {expected}"
    return None


# Fields of a record that the replay does not derive: the hand number, the sheet's lines (the penalties charged by
# the dealing protocol included) and the deck's history.
_NOT_DERIVED = frozenset({"hand", "score", "penalty", "extras", "order_before", "shuffle"})


def _check_form(record: Mapping[str, Any], state: HandState) -> list[tuple[str, str]]:
    """The record must be, field for field, what the engine writes for the hand it replays to: nothing hashes the
    last transcript's record later, so a string for a number, another spelling of a card, an extra key, a flipped
    flag or a reordered list would otherwise pass."""
    derived = to_record(state)
    found = [
        (key, "the record has a field the game-log format does not know")
        for key in sorted(set(record) - set(derived) - _NOT_DERIVED)
    ]
    for key, value in derived.items():
        mine = record.get(key)
        if key == "extras" and isinstance(mine, Mapping):
            mine = {k: v for k, v in mine.items() if k not in SHEET_EXTRAS}
        if canonical_json(mine) != canonical_json(value):
            found.append(
                (
                    key,
                    (
                        f"the record's {key} is not what the engine writes for this play: "
                        f"{one_line(canonical_json(value).decode(), 200)}"
                    ),
                )
            )
    return found


def _check_header(doc: Mapping[str, Any], record: Mapping[str, Any]) -> list[tuple[str, str]]:
    found = []
    if record.get("hand", doc["hand"]) != doc["hand"]:
        found.append(("hand number", f"the record is hand {record.get('hand')}, the transcript hand {doc['hand']}"))
    if record.get("dealer") != doc["dealer"]:
        found.append(("dealer", f"the record's dealer is {record.get('dealer')!r}, the transcript's {doc['dealer']!r}"))
    deal, derived = record.get("deal"), doc["deal"]
    hands = derived["hands"] + ([derived["dummy"]] if "dummy" in derived else [])  # the log lists the dummy last
    if not isinstance(deal, Mapping) or [deal.get("hands"), deal.get("talons")] != [hands, derived["talons"]]:
        found.append(("deal", "the record's deal is not the deal the seeds derive"))
    return found
