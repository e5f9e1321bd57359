"""The offline verifier page's record replay: the engine itself, run in the browser by Pyodide.

The page's JavaScript checks signatures, chains, seeds and deals; a session's records are replayed and scored
here, by the functions ``fairdeal verify`` calls, so the page and the command cannot judge a record differently.
So are a mental-poker record against the steps its messages prove, and a mental-poker seat's settlement against
its own sheet.
Values cross from JavaScript as canonical JSON text and go back as JSON text. This module and everything it
imports run without numpy or msgspec: the page carries Pyodide with the standard library only.
"""

from __future__ import annotations

import json
from typing import Any

from fairdeal.cards import parse_card
from fairdeal.deal import get_pattern
from fairdeal.engine.sheet import Sheet, new_sheet, number
from fairdeal.errors import FairdealError
from fairdeal.protocols.mental_poker.events import (
    Event,
    Finding,
    abandoned_play_findings,
    decision_findings,
    live_abandon_findings,
    penalty_findings,
    record_findings,
)
from fairdeal.protocols.mental_poker.following import Fact
from fairdeal.protocols.record_check import (
    amounts_objection,
    check_hand_record,
    end_penalty,
    replay_session,
    settled_amounts,
    settlement_due,
)
from fairdeal.protocols.record_form import played_record
from fairdeal.systems import rebuild_convention


class Evening:
    """One session, as its roster states it (``{"system", "convention", "pulya", "seats"}``, the seats by name),
    and the sheet after the hands replayed so far (``None`` once a hand leaves it unknown)."""

    def __init__(self, table: str) -> None:
        stated = json.loads(table)
        self.names: list[str] = list(stated["seats"])
        self.convention = rebuild_convention(stated["system"], stated["convention"], stated["pulya"])
        self.sheet: Sheet | None = new_sheet(self.convention, len(self.names))
        self.dummy = get_pattern(self.convention.table.pattern_name(len(self.names))).dummy_hand is not None

    def played(self, docs: str, trusted: str) -> str:
        """``replay_session`` over the hands played to their end (``{"hand", "dealer", "deal", "record"?}`` each,
        in hand order): ``{"problems": [[index, check, detail]...], "notes": [[index, text]...]}``."""
        played = [_played(doc) for doc in json.loads(docs)]
        problems, notes, self.sheet = replay_session(played, json.loads(trusted), self.convention, len(self.names))
        return json.dumps(
            {"problems": [[p.index, p.check, p.detail] for p in problems], "notes": [list(note) for note in notes]}
        )

    def refused(self, doc: str) -> str:
        """A refused record, replayed on the sheet before it: ``[[check, detail]...]``, its faults."""
        if self.sheet is None:
            return "[]"
        found, _ = check_hand_record(_played(json.loads(doc)), self.convention, len(self.names), self.sheet)
        return json.dumps([list(fault) for fault in found])

    def due(self, charged: str) -> str:
        """What the settlement must state by seat name (``null`` while the sheet is unknown), the evening's end
        charging the seats ``charged``."""
        if self.sheet is None:
            return "null"
        return json.dumps(settlement_due(self.sheet, self.convention, self.names, json.loads(charged)))

    def penalty(self, charged: str) -> str:
        """The score items an evening's end charging the seats ``charged`` writes (the convention's abort
        penalty, house rules applied), as the log's end line states them."""
        lines = end_penalty(self.convention, len(self.names), json.loads(charged))
        return json.dumps([line.to_record() for line in lines])

    def settled(self, complete: str, charged: str) -> str:
        """What a mental-poker session's ``complete`` transcripts, their records replayed, and an end charging the
        players ``charged`` (by name) settle to, in seat order as the log's numbers; ``null`` when they do not
        replay."""
        amounts = settled_amounts(self.convention, self.names, json.loads(complete), json.loads(charged))
        return "null" if amounts is None else json.dumps([number(amount) for amount in amounts])

    def amounts_objection(self, complete: str, charged: str, settlement: str) -> str:
        """A mental-poker seat's objection to the ``settlement`` put to it (``null`` when the records it signed,
        the ``complete`` transcripts, and the end's charge on the players ``charged`` settle to it)."""
        objection = amounts_objection(
            self.convention, self.names, json.loads(complete), json.loads(charged), json.loads(settlement)
        )
        return json.dumps(objection)

    def hand_steps(self, facts: str) -> str:
        """A complete mental-poker hand's record against the steps its messages prove, as ``verify.py``'s
        ``_check_record_events`` and ``_check_penalty`` word it: ``facts`` holds the ``record``, the ``proven``
        events, the ``turned`` talon cards, the opened ``discards`` by player, the signed decisions ``decided``
        (``[player, decision]`` in order) and the players earlier attempts prove ``absent`` (the page checks v4
        hands only); ``[[party, check, detail]...]``."""
        given = json.loads(facts)
        record, proven = given["record"], [_event(event) for event in given["proven"]]
        discards = {player: _codes(cards) for player, cards in given["discards"].items()}
        found = record_findings(
            record, self.convention, self.names, self.dummy, proven, _codes(given["turned"]), discards
        )
        decided = [(player, decision) for player, decision in given["decided"]]
        found += decision_findings(record, self.convention, self.names, decided)
        return _findings(found + penalty_findings(record, self.convention, self.names, given["absent"]))

    def abandoned_play(self, facts: str) -> str:
        """Whether a hand abandoned during play names the player whose card was due after its ``done`` steps, as
        ``verify.py``'s ``_check_abandoned_play`` words it (``record``, ``done``, ``player``, ``witness``)."""
        given = json.loads(facts)
        found = abandoned_play_findings(
            given["record"], self.convention, self.names, self.dummy, given["done"], given["player"], given["witness"]
        )
        return _findings(found)

    def abandoned_live(self, facts: str) -> str:
        """Whether a live hand cut short names the player whose step its game left due, as ``verify.py``'s
        ``_check_abandoned_play`` words it without a record: ``facts`` holds the hand's ``dealt`` players, its
        ``dealer``, ``hand`` and stated ``start``, the chain's ``facts`` (``Fact.from_json``), the ``player`` and
        step (``at``) the abandon names, and its ``witness``; cards come as their text, as the page holds them."""
        given = json.loads(facts)
        found = live_abandon_findings(
            self.convention,
            self.names,
            given["dealt"],
            given["dealer"],
            given["hand"],
            given["start"],
            [Fact.from_json({**fact, "cards": _codes(fact["cards"])}) for fact in given["facts"]],
            given["player"],
            given["at"],
            given["witness"],
        )
        return _findings(found)


def _event(event: list[Any]) -> Event:
    """A proven step from JavaScript: a play's card as its code, as the Python's ``_proven_events`` holds it."""
    return ("play", event[1], parse_card(event[2]).code) if event[0] == "play" else tuple(event)


def _codes(cards: list[str]) -> list[int]:
    return [parse_card(card).code for card in cards]


def _findings(found: list[Finding]) -> str:
    return json.dumps([list(finding) for finding in found])


def _played(doc: dict[str, Any]) -> dict[str, Any]:
    """A transcript's record as the log holds it (its fractions signed as ``"p/q"`` texts, record_form.py)."""
    return {**doc, "record": played_record(doc["record"])} if "record" in doc else doc


def open_evening(table: str) -> Evening | str:
    """The session's ``Evening``, or the reason its convention cannot be rebuilt (the records are then not
    replayed, as ``fairdeal verify`` notes)."""
    try:
        return Evening(table)
    except FairdealError as exc:
        return str(exc)
