"""Mental poker v4 (issue 13): an honest seat's signed refusal of a bad message is filed in the transcript and
judged by verify (the bad message's signer named, or the refuser if the message was sound); a seat that walks
away from the opening is charged the convention's abort penalty on the sheet, and verify refuses a charge on
anyone else."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest
from mental_poker_parties import SwappedShares

from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.sheet import ScoreLine
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker import source as mp_source
from fairdeal.protocols.mental_poker.player import HandRefused, Player, Unresponsive
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.source import MentalPokerSource
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents
from fairdeal.rules.convention import Convention
from fairdeal.systems import get_convention

SOCHI = get_convention("sochi")
PLAYERS = ("ann", "bob", "cyd")


def spec(players: Sequence[str] = PLAYERS, hands: int = 1, convention: Convention = SOCHI) -> TableSpec:
    return TableSpec("club", "friday", hands, tuple(players), convention)


def verify(docs: Sequence[dict[str, Any]]) -> Report:
    return verify_documents([(f"hand-{d['hand']}", d) for d in docs])


def blamed(report: Report) -> list[tuple[str, str]]:
    return [(f.party, f.check) for f in report.failures]


class Paranoid(Player):
    """Refuses a sound deal message: a refusal without cause."""

    def receive(self, message: Any) -> None:
        if isinstance(message, dict) and message.get("kind") == "deal":
            raise MentalPokerError("I do not like these shares", None, "deal")
        super().receive(message)


def refused_doc(make: type[Player], who: str) -> tuple[MentalPokerSource, dict[str, Any], HandRefused]:
    source = MentalPokerSource(spec(), make_player=lambda setup, name: (make if name == who else Player)(setup, name))
    with pytest.raises(HandRefused) as caught:
        source.deal(1, 0)
    return source, copy.deepcopy(source.transcripts[-1]), caught.value


def test_an_honest_refusal_is_filed_and_the_cheat_is_named() -> None:
    _, doc, refused = refused_doc(SwappedShares, "ann")
    assert doc["state"] == "refused" and doc["refusal"]["statement"] == refused.refusal
    report = verify([doc])
    assert blamed(report) == [("player ann", "decrypt")]
    assert any(f"player {refused.refuser} refused the faulty message" in n for n in report.notes)


def test_a_refusal_without_cause_is_the_refusers() -> None:
    _, doc, refused = refused_doc(Paranoid, "cyd")
    assert refused.refuser == "cyd"
    assert blamed(verify([doc])) == [("player cyd", "refusal")]


def test_a_filed_refusal_cannot_be_swapped_or_forged() -> None:
    _, doc, _ = refused_doc(SwappedShares, "ann")
    other = copy.deepcopy(doc)
    other["refusal"]["shown"] = doc["messages"][-1]  # another signed message than the one refused
    assert blamed(verify([other])) == [("transcript", "refusal")]
    forged = copy.deepcopy(doc)
    forged["refusal"]["statement"]["body"]["reason"] = "ann is innocent"
    assert blamed(verify([forged])) == [("transcript", "refusal")]
    missing = copy.deepcopy(doc)
    del missing["refusal"]
    assert blamed(verify([missing])) == [("transcript", "refusal")]
    v3_state = copy.deepcopy(doc)
    v3_state["protocol"] = "fairdeal-mental-poker/3"
    assert ("transcript", "transcript shape") in blamed(verify([v3_state]))


class WalksAway(Player):
    """Leaves the first attempt at its deal step (the last dealer, who has seen his hand); each table's leaver is
    a fresh subclass, since every attempt makes fresh player objects."""

    walked = False

    def deal(self) -> Any:
        if not type(self).walked:
            type(self).walked = True
            raise Unresponsive()
        return super().deal()


def leaver(name: str) -> Any:
    cls = type("Leaver", (WalksAway,), {})

    def make(setup: TableSetup, seat_name: str) -> Player:
        return Player(setup, seat_name) if seat_name != name else cls(setup, seat_name)

    return make


def evening(players: Sequence[str], absent: str, convention: Convention = SOCHI) -> list[dict[str, Any]]:
    source = MentalPokerSource(spec(players, 1, convention), make_player=leaver(absent))
    bots = [HeuristicBot() for _ in players]
    play_match(convention, tuple(players), bots, source=source, max_hands=1)
    return copy.deepcopy(source.transcripts)


@pytest.mark.parametrize(("players", "system"), [(PLAYERS, "sochi"), (("ann", "bob", "cyd", "dan"), "leningrad")])
def test_the_seat_that_walked_away_is_charged_on_the_sheet(players: Sequence[str], system: str) -> None:
    convention = get_convention(system)
    doc = evening(players, "bob", convention)[-1]
    assert doc["attempt"] == 2
    lines = abort_penalty(convention, players.index("bob"), len(players))
    assert doc["record"]["penalty"] == [line.to_record() for line in lines]
    report = verify([doc])
    assert report.ok, [f.line() for f in report.failures]
    assert any("player bob charged" in n for n in report.notes)


def test_verify_refuses_a_charge_on_a_seat_the_abandon_does_not_name(monkeypatch: pytest.MonkeyPatch) -> None:
    def framed(convention: Convention, absent: int, num_seats: int) -> tuple[ScoreLine, ...]:
        return abort_penalty(convention, 0, num_seats)  # ann charged for bob walking away

    monkeypatch.setattr(mp_source, "abort_penalty", framed)
    doc = evening(PLAYERS, "bob")[-1]
    assert blamed(verify([doc])) == [("record", "abort penalty")]
    doc["record"].pop("penalty")
    assert ("record", "abort penalty") in blamed(verify([doc]))


class StopsPlaying(Player):
    """Walks away at his first card of the hand."""

    def play(self, card: int) -> Any:
        raise Unresponsive()


def test_an_abandon_during_play_ends_the_evening_with_the_hand_filed() -> None:
    def make(setup: TableSetup, name: str) -> Player:
        return StopsPlaying(setup, name) if name == "bob" else Player(setup, name)

    source = MentalPokerSource(spec(hands=8), make_player=make)
    bots = [HeuristicBot() for _ in PLAYERS]
    result = play_match(SOCHI, PLAYERS, bots, source=source, max_hands=8)  # ends at the first hand with play
    assert not result.finished and "abandoned" in str(result.stopped)
    assert source.end == {"hand": source.transcripts[-1]["hand"], "charged": ["bob"]}
    doc = source.transcripts[-1]
    assert doc["state"] == "abandoned" and "penalty" not in doc.get("record", {})
    report = verify(source.transcripts)
    assert report.ok, [f.line() for f in report.failures]
    assert any("player bob stopped answering at step play" in n for n in report.notes)
