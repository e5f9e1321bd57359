"""Mental poker beyond three Russian hands: a passer who sits out plays no card, Gusarik's dummy is nobody's until
the dummy round lays it open, Hussar's two talons are opened or taken one at a time with a discard per taker.
Every deviation is refused naming the sender and the step."""

from __future__ import annotations

import copy
import json
from operator import methodcaller

import pytest
from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.deal import get_pattern
from fairdeal.errors import MentalPokerError, ProtocolError
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.player import Player, Table
from fairdeal.protocols.mental_poker.protocol import TableSetup, message_hash, verify_hand
from fairdeal.protocols.mental_poker.source import expected_events

GUSARIK = TableSetup(HandContext("club/gusarik", 1), get_pattern("gusarik"), ("north", "east"))
HUSSAR = TableSetup(HandContext("club/hussar", 1), get_pattern("hussar"), ("north", "east"))


def dealt(setup: TableSetup) -> Table:
    table = Table([Player(setup, name) for name in setup.players])
    table.deal()
    return table


def refused(setup: TableSetup, messages, player: str, step: str) -> str:
    with pytest.raises(MentalPokerError) as caught:
        verify_hand(setup, messages)
    assert (caught.value.player, caught.value.step) == (player, step), str(caught.value)
    return str(caught.value)


def relinked(messages):
    """Messages with every ``prev`` recomputed, so only the change itself can be refused."""
    out, head = [], None
    for message in messages:
        message = dict(message, prev=head if head is not None else message["prev"])
        out.append(message)
        head = message_hash(message)
    return out


@pytest.mark.parametrize("system", ["croatian", "austrian"])
def test_a_passer_who_sits_out_plays_no_card_and_the_hand_verifies(tmp_path, system):
    for seed in range(12):
        out = tmp_path / str(seed)
        result = CliRunner().invoke(
            cli,
            [
                "deal",
                "--protocol",
                "mental-poker",
                "--system",
                system,
                "--hands",
                "2",
                "--seed",
                str(seed),
                "--out",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        lines = [json.loads(line) for line in (out / "evening.log").read_text(encoding="utf-8").splitlines()]
        if any(len(trick["cards"]) == 2 for line in lines if line["type"] == "hand" for trick in line["tricks"]):
            break
    else:
        pytest.fail("no hand in 24 where a passer sat out")
    verified = CliRunner().invoke(cli, ["verify", "--log", str(out / "evening.log")])
    assert verified.exit_code == 0 and "ok: 2 transcript(s) verified" in verified.output, verified.output


def test_gusariks_dummy_is_hidden_until_the_dummy_round_and_then_played_from():
    table = dealt(GUSARIK)
    north, east = table.players
    dummy = GUSARIK.dummy_positions
    assert len(dummy) == 10 and not set(dummy) & set(GUSARIK.deal_positions("north") + GUSARIK.deal_positions("east"))
    with pytest.raises(MentalPokerError, match="shares"):
        north.state.open_position(dummy[0], north.own_share(dummy[0]))  # east's share is not out
    before = north.state.snapshot()
    table.round("dummy", methodcaller("open_dummy"))
    cards = [north.card_at(p) for p in dummy]
    assert cards == [east.card_at(p) for p in dummy]
    table.say(east, "play", lambda p: p.play(cards[0]))
    table.round("reveal", methodcaller("reveal"))
    verified = verify_hand(GUSARIK, table.messages)
    assert verified.plays[0][::2] == ("east", cards[0]) and [verified.order[p] for p in dummy] == cards
    assert not before.dummy_open and verified.state.dummy_open


def test_a_dummy_card_played_before_the_dummy_round_or_a_second_dummy_round_is_refused():
    table = dealt(GUSARIK)
    north = table.players[0]
    shares = north._shares("reveal", (GUSARIK.dummy_positions[0],))  # a valid share and proof of that position
    forged = {
        "step": "play",
        "player": "north",
        "position": GUSARIK.dummy_positions[0],
        "share": shares["shares"][0]["share"],
        "proof": shares["proof"],
        "prev": north.state.head,
    }
    assert "was not dealt to this player" in refused(GUSARIK, table.messages + [forged], "north", "play")
    table.round("dummy", methodcaller("open_dummy"))
    again = dict(table.messages[-2], prev=table.messages[-1]["prev"])
    again = relinked(table.messages + [again])
    assert "not allowed at this point" in refused(GUSARIK, again, "north", "dummy")


def test_hussars_two_talons_are_opened_and_taken_one_at_a_time():
    table = dealt(HUSSAR)
    north, east = table.players
    table.round("talon", lambda p: p.open_talon(0))
    table.say(north, "discard", lambda p: p.discard([p.card_at(q) for q in HUSSAR.talon_rows[0]]))
    table.round("take", lambda p: p.take("east", 1), skip="east")
    table.say(east, "discard", lambda p: p.discard(list(p.hand()[:2])))
    table.round("reveal", methodcaller("reveal"))
    table.say(north, "discard-open", methodcaller("open_discard"))
    table.say(east, "discard-open", methodcaller("open_discard"))
    verified = verify_hand(HUSSAR, table.messages)
    assert verified.talon == tuple(verified.order[p] for p in HUSSAR.talon_rows[0])
    assert set(verified.discards) == {"north", "east"} and verified.state.finished
    assert verified.state.holders == {0: "north", 1: "east"}


def test_a_talon_message_must_name_its_talon_and_keep_to_the_rounds():
    table = dealt(HUSSAR)
    table.round("take", lambda p: p.take("east", 1), skip="east")
    take = table.messages[-1]
    unnamed = {k: v for k, v in take.items() if k != "talon"}
    assert "'talon' is missing" in refused(HUSSAR, relinked(table.messages[:-1] + [unnamed]), "north", "take")
    assert "not one of the deal's" in refused(
        HUSSAR, relinked(table.messages[:-1] + [dict(take, talon=2)]), "north", "take"
    )
    relabelled = relinked(table.messages[:-1] + [dict(take, talon=0)])  # talon 1's shares called talon 0's
    assert "expected" in refused(HUSSAR, relabelled, "north", "take")
    again = copy.deepcopy(table.messages[-1])
    assert "not allowed at this point" in refused(HUSSAR, relinked(table.messages + [again]), "north", "take")


def test_a_single_talon_deal_refuses_a_talon_index_and_a_discard_without_a_talon():
    setup = TableSetup(HandContext("club/russian", 1), get_pattern("russian"), ("north", "east", "west"))
    table = dealt(setup)
    north = table.players[0]
    indexed = dict(north._shares("talon", setup.talon_positions), talon=0, prev=north.state.head)
    assert "must be absent" in refused(setup, table.messages + [indexed], "north", "talon")
    early = {"step": "discard", "player": "east", "commitment": "00" * 32, "prev": north.state.head}
    assert "only the player who took the talon" in refused(setup, table.messages + [early], "east", "discard")


def test_a_one_card_discard_of_little_poverty_is_committed_and_opened():
    setup = TableSetup(HandContext("club/1800s", 1), get_pattern("russian"), ("north", "east", "west"))
    table = dealt(setup)
    north = table.players[0]
    table.round("take", lambda p: p.take("north"), skip="north")
    table.say(north, "discard", lambda p: p.discard([p.hand()[0]]))
    table.round("reveal", methodcaller("reveal"))
    table.say(north, "discard-open", methodcaller("open_discard"))
    verified = verify_hand(setup, table.messages)
    assert verified.discards == {"north": (north.hand()[0],)} and verified.state.finished


def test_a_nachgehen_follower_taking_the_discard_is_refused_with_the_reason():
    record = {"extras": {"nachgehen": [{"seat": 1, "take": True, "discard": ["7S", "8S"], "contract": "7S"}]}}
    with pytest.raises(ProtocolError, match="Nachgehen follower taking the discard"):
        expected_events(record, ("a", "b", "c"), [])
