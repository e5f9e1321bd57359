"""A mentally dealt hand played live (``mental_poker/live.py``, ``seat.py``): the host holds no card and follows
the game from the verified messages; every seat is a separate party with its own secrets and its own run of the
game. At every table of every system the transcript verifies as ``fairdeal verify`` checks it."""

from __future__ import annotations

import numpy as np
import pytest

from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.system import conventions, get_convention
from fairdeal.errors import IllegalAction
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.live import LiveHand
from fairdeal.protocols.mental_poker.seat import LiveSeat, play_through
from fairdeal.protocols.mental_poker.signing import Seating
from fairdeal.protocols.mental_poker.source import hand_setup, signed_roster, transcript_document
from fairdeal.protocols.mental_poker.verify import check_document
from fairdeal.protocols.table import TableSpec

TABLES = [(name, players) for name, convention in sorted(conventions().items()) for players in convention.players]
NAMES = ("ann", "bob", "cyd", "dan", "eve")


def live_hand(system: str, players: int, seed: int) -> tuple[LiveHand, dict[str, LiveSeat], TableSpec, Seating]:
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
    return hand, seats, spec, seating


@pytest.mark.parametrize(("system", "players"), TABLES)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_live_hand_verifies_at_every_table(system: str, players: int, seed: int) -> None:
    hand, seats, spec, seating = live_hand(system, players, seed)
    try:
        play_through(hand, seats)
    except IllegalAction as exc:
        assert "Nachgehen follower" in str(exc)
        return
    record, order, _ = hand.record()
    statements = [seats[name].sign(record, hand.protocol.head) for name in spec.players]
    doc = transcript_document(
        spec,
        seating,
        1,
        hand.dealer,
        hand.messages,
        record,
        order,
        None,
        {"attempt": 1, "aborts": [], "statements": statements},
    )
    check = check_document("live", doc)
    assert check.findings == []
