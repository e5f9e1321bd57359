"""Mentally dealt hands played live (``mental_poker/live.py``) for the tests: a host and its seats, the finished
hand's transcript, and a transcript whose chain is signed again from one changed message on (every sender
re-signing his own messages: a table where everyone colludes, or a seat that lies)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.system import get_convention
from fairdeal.protocols import signed
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.live import LiveHand
from fairdeal.protocols.mental_poker.seat import LiveSeat, play_through
from fairdeal.protocols.mental_poker.signing import Seating
from fairdeal.protocols.mental_poker.source import hand_setup, signed_roster, transcript_document
from fairdeal.protocols.mental_poker.statements import record_digest
from fairdeal.protocols.table import TableSpec

NAMES = ("ann", "bob", "cyd", "dan", "eve")
Identities = Mapping[str, IdentityKey]


def live_hand(
    system: str, players: int, seed: int
) -> tuple[LiveHand, dict[str, LiveSeat], TableSpec, Seating, Identities]:
    names = NAMES[:players]
    spec = TableSpec("club", f"{system}-{players}", 1, names, get_convention(system))
    identities = {name: IdentityKey.generate(name) for name in names}
    seating = Seating(signed_roster(spec, identities, IdentityKey.generate("service")))
    dealer = seed % players
    setup = hand_setup(spec, 1, dealer, seating)
    hand = LiveHand(spec, setup, seating, dealer, new_sheet(spec.convention, players))
    rng = np.random.default_rng(seed)
    seats = {
        name: LiveSeat(
            spec, setup, seating, identities[name], RandomBot(rng) if seed % 2 else HeuristicBot(), hand.start
        )
        for name in names
    }
    return hand, seats, spec, seating, identities


def finished_transcript(hand: LiveHand, seats: Mapping[str, LiveSeat], spec: TableSpec) -> dict[str, Any]:
    """The played-out hand's transcript, its record signed by every seat."""
    record, order, _ = hand.record()
    statements = [seats[name].sign(record, hand.protocol.head) for name in spec.players]
    meta = {"attempt": 1, "aborts": [], "statements": statements}
    return transcript_document(spec, hand.seating, 1, hand.dealer, hand.messages, record, order, None, meta)


def live_transcript(system: str, players: int, seed: int) -> tuple[dict[str, Any], Seating, Identities]:
    hand, seats, spec, seating, identities = live_hand(system, players, seed)
    play_through(hand, seats)
    return finished_transcript(hand, seats, spec), seating, identities


def rechained(
    doc: dict[str, Any],
    seating: Seating,
    identities: Identities,
    index: int,
    change: Callable[[list[dict[str, Any]]], None],
) -> dict[str, Any]:
    """``doc`` with ``change`` made to its messages at ``index`` (a body rewritten, a message dropped), every
    message from there on and every record statement signed again by its own sender over the new chain."""
    doc = copy.deepcopy(doc)
    messages = doc["messages"]
    change(messages)
    context = seating.context(doc["hand"])
    prev = signed.parse(messages[index - 1]).digest
    for at in range(index, len(messages)):
        old = signed.parse(messages[at])
        key = identities[seating.names[old.sender]]
        sealed = signed.seal(key, context, old.sender, old.kind, old.body, prev)
        messages[at], prev = sealed.to_json(), sealed.digest
    statements = []
    for statement in doc["statements"]:
        old = signed.parse(statement)
        key = identities[seating.names[old.sender]]
        body = dict(old.body, record=record_digest(doc["record"]))
        statements.append(signed.seal(key, context, old.sender, old.kind, body, prev).to_json())
    doc["statements"] = statements
    return doc
