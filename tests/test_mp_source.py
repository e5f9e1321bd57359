"""Mental poker behind the match loop and `fairdeal deal/verify`: bots whose player objects deal, play with proofs
and reveal; the verifier replays the record through the engine and names whoever broke what."""

from __future__ import annotations

import copy
import json
from itertools import combinations

import numpy as np
import pytest
from click.testing import CliRunner

from fairdeal.cards import parse_card
from fairdeal.cli import cli
from fairdeal.deal import deal_order, get_pattern
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.driver import play_hand
from fairdeal.engine.hand import result
from fairdeal.engine.match import play_match
from fairdeal.engine.match_log import hand_fields
from fairdeal.engine.record import replay_record
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import new_sheet
from fairdeal.errors import IllegalAction
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4.check import Pins
from fairdeal.protocols.mental_poker.player import HandAbandoned, Player, Unresponsive
from fairdeal.protocols.mental_poker.source import MentalPokerSource
from fairdeal.protocols.mental_poker.verify import UNPINNED
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import verify_documents, verify_log
from fairdeal.systems import get_convention

CONVENTION = get_convention("sochi")
PLAYERS = ("north", "east", "south")


def spec(hands=3, players=PLAYERS, table="club-9"):
    return TableSpec(table, "friday", hands, players, CONVENTION)


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    source = MentalPokerSource(spec())
    log = tmp_path_factory.mktemp("evening") / "evening.log"
    outcome = play_match(CONVENTION, PLAYERS, [HeuristicBot() for _ in PLAYERS], source=source, max_hands=3, log=log)
    return source, log, outcome


@pytest.fixture(scope="module")
def evening_v3():
    """A v3 evening (unsigned messages): what `verify` still reads, with v3's weaker guarantees."""
    source = MentalPokerSource(spec(), version=3)
    play_match(CONVENTION, PLAYERS, [HeuristicBot() for _ in PLAYERS], source=source, max_hands=3)
    return source, None, None


def named(docs):
    return [(f"hand-{doc['hand']}", doc) for doc in docs]


def test_an_evening_dealt_by_mental_poker_verifies_with_its_log(evening):
    source, log, outcome = evening
    assert len(source.transcripts) == len(outcome.hands) == 3
    report = verify_log(log)
    assert report.ok and report.transcripts == 3 and report.caveats == (f"mental poker: {UNPINNED}",), report.failures
    pinned = verify_log(log, pins=Pins(roster=source.seating.roster))
    assert pinned.ok and pinned.caveats == (), pinned.failures
    assert (log.parent / "evening.log.transcripts" / "settlement.json").is_file()
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["dealing"] == "mental-poker"


def test_the_transcript_holds_the_rules_steps_in_order(evening):
    source, _, _ = evening
    for doc in source.transcripts:
        steps = [m["kind"] for m in doc["messages"]]
        record = doc["record"]
        assert steps[:9] == ["keys"] * 3 + ["shuffle"] * 3 + ["deal"] * 3
        assert ("talon" in steps) == record["talon_shown"]
        assert ("discard" in steps) == ("discard" in record)
        assert steps.count("play") == sum(len(t["cards"]) for t in record["tricks"])
        assert steps.count("turn") == 3 * sum("talon_card" in t for t in record["tricks"])
        assert doc["deal"]["hands"] == record["deal"]["hands"] and doc["deal"]["talons"] == record["deal"]["talons"]


def failures(docs):
    return [(f.party, f.check) for f in verify_documents(named(docs)).failures]


def test_a_transcript_of_another_protocol_version_gets_one_clear_line(evening):
    source, _, _ = evening
    older = dict(source.transcripts[0], protocol="fairdeal-mental-poker/2")
    found = verify_documents([("older", older)]).failures
    assert [(f.party, f.check) for f in found] == [("transcript", "transcript shape")]
    assert (
        "'fairdeal-mental-poker/2' is not the fairdeal-mental-poker/4 (or fairdeal-mental-poker/3)" in found[0].detail
    )


def test_a_record_that_contradicts_the_proven_plays_is_blamed_on_the_record(evening):
    source, _, _ = evening
    docs = copy.deepcopy(source.transcripts)
    docs[0]["record"]["talon_shown"] = not docs[0]["record"]["talon_shown"]
    assert ("record", "events") in failures(docs)
    docs = copy.deepcopy(source.transcripts)
    played = next((doc for doc in docs if doc["record"]["tricks"]), None)
    if played is None:
        pytest.skip("no hand of this evening was played out")
    trick = played["record"]["tricks"][0]
    trick["cards"][0], trick["cards"][1] = trick["cards"][1], trick["cards"][0]
    assert ("record", "events") in failures(docs)


def test_a_v3_transcript_still_verifies_and_says_it_is_v3(evening_v3):
    source, _, _ = evening_v3
    report = verify_documents(named(source.transcripts))
    assert report.ok and any("fairdeal-mental-poker/3" in n and "weaker guarantees" in n for n in report.caveats)


def test_a_wrong_share_is_blamed_on_its_sender(evening_v3):
    source, _, _ = evening_v3
    docs = copy.deepcopy(source.transcripts)
    message = docs[1]["messages"][7]
    entry = message["shares"][2]
    entry["share"], message["shares"][3]["share"] = message["shares"][3]["share"], entry["share"]
    assert failures(docs)[0] == (f"player {message['player']}", "decrypt")


def test_a_transcript_from_another_hand_is_rejected_naming_the_first_player(evening_v3):
    source, _, _ = evening_v3
    moved = copy.deepcopy(source.transcripts[0])
    moved["hand"] = 2
    found = [(f.party, f.check) for f in verify_documents([("moved", moved)]).failures]
    assert found and found[0][1] in ("keys", "chain") and found[0][0].startswith("player ")
    elsewhere = copy.deepcopy(source.transcripts[0])
    elsewhere["table"] = "club-10"
    assert next(f.check for f in verify_documents([("x", elsewhere)]).failures) in ("keys", "chain")


def test_hands_out_of_chain_are_reported(evening):
    source, _, _ = evening
    docs = copy.deepcopy(source.transcripts)
    docs[2]["previous"] = docs[1]["previous"]
    assert ("transcript", "transcript chain") in failures(docs)
    assert ("transcript", "hand sequence") in failures([docs[0], docs[2]])


def test_the_published_deal_must_be_what_the_messages_decrypt_to(evening):
    source, _, _ = evening
    docs = copy.deepcopy(source.transcripts)
    hands = docs[0]["deal"]["hands"]
    seat = next(i for i, h in enumerate(hands) if h)
    hands[seat][0], docs[0]["deal"]["talons"][0][0] = docs[0]["deal"]["talons"][0][0], hands[seat][0]
    assert ("transcript", "deal") in failures(docs)


def _one_hand(source, number=1, dealer=0):
    dealt = source.deal(number, dealer)
    state = play_hand(
        CONVENTION, 3, dealer, deal_order(dealt.order, get_pattern("russian")), [HeuristicBot() for _ in PLAYERS]
    )
    _, lines = score_hand(new_sheet(CONVENTION, 3), result(state), CONVENTION)
    fields = hand_fields(number, state, dealt.evidence, lines)
    return {k: v for k, v in fields.items() if k != "type"}


def _renonce(record):
    """The record with two cards of one seat swapped between tricks so that the replay fails on suit."""
    tricks = record["tricks"]
    for (i, a), (j, b) in combinations([(i, t) for i, t in enumerate(tricks)], 2):
        for k in range(len(a["cards"])):
            for m in range(len(b["cards"])):
                changed = copy.deepcopy(record)
                x, y = changed["tricks"][i]["cards"], changed["tricks"][j]["cards"]
                x[k], y[m] = y[m], x[k]
                try:
                    replay_record(changed, CONVENTION, 3)
                except IllegalAction as exc:
                    if "must follow suit" in str(exc) or "must trump" in str(exc):
                        seat_k = _seat_of(record, i, k)
                        if seat_k == _seat_of(record, j, m):
                            return changed
    return None


def _seat_of(record, trick, index):
    seats = [(record["dealer"] + 1 + s) % 3 for s in range(3)]
    lead = record["tricks"][trick]["lead"]
    return seats[(seats.index(lead) + index) % 3]


def test_a_renonce_played_with_valid_proofs_is_caught_by_the_engine_replay():
    source = MentalPokerSource(spec(hands=1))
    for _ in range(12):
        record = _one_hand(source)
        tampered = _renonce(record)
        if tampered is not None:
            break
        source = MentalPokerSource(spec(hands=1))
    else:
        pytest.skip("no hand with a possible renonce in 12 deals")
    plays = [
        [(_seat_of(record, i, k), parse_card(card).code) for k, card in enumerate(trick["cards"])]
        for i, trick in enumerate(tampered["tricks"])
    ]
    doc = source.finish(1, tampered, plays)  # every card really is the player's own: all proofs hold
    report = verify_documents([("renonce", doc)])
    assert [(f.party, f.check) for f in report.failures] == [("record", "replay")]
    assert "must" in report.failures[0].detail


class SilentShuffler(Player):
    def shuffle(self):
        raise Unresponsive()


def test_a_silent_player_abandons_the_hand_cleanly_and_verify_names_him():
    def seat(setup, name):
        return (SilentShuffler if name == "south" else Player)(setup, name)

    source = MentalPokerSource(spec(hands=1), make_player=seat)
    with pytest.raises(HandAbandoned) as caught:
        source.deal(1, 0)
    assert (caught.value.player, caught.value.step) == ("south", "shuffle")
    doc = source.transcripts[-1]
    assert doc["state"] == "abandoned" and "deal" not in doc
    report = verify_documents([("abandoned", doc)])
    assert report.ok and any("player south stopped answering at step shuffle" in n for n in report.notes)


def test_four_players_the_dealer_sits_out_of_the_protocol():
    source = MentalPokerSource(spec(hands=1, players=("north", "east", "south", "west")))
    dealt = source.deal(1, 2)
    doc = source.finish(1)
    assert {m["sender"] for m in doc["messages"]} == {3, 0, 1}
    assert doc["deal"]["hands"][2] == [] and verify_documents([("four", doc)]).ok
    assert sorted(np.asarray(dealt.order).tolist()) == list(range(32))


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_deals_an_evening_by_mental_poker_and_verify_checks_it(tmp_path):
    result = run("deal", "--protocol", "mental-poker", "--hands", "2", "--out", str(tmp_path))
    assert result.exit_code == 0 and "dealt by mental-poker" in result.output, result.output
    checked = run("verify", "--log", str(tmp_path / "evening.log"))
    assert checked.exit_code == 0 and "ok: 2 transcript(s) verified" in checked.output
    path = sorted((tmp_path / "evening.log.transcripts").glob("hand-*.json"))[0]
    doc = json.loads(path.read_text(encoding="utf-8"))
    deal = doc["messages"][7]
    deal["body"]["proof"]["s"] = doc["messages"][0]["body"]["s"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    broken = run("verify", str(path))
    # Not the canonical bytes: the file's publisher is blamed, not the sender.
    assert broken.exit_code == 1 and "service: transcript file:" in broken.output, broken.output
    path.write_bytes(encode(doc))
    broken = run("verify", str(path))
    # Canonical, but not what the sender signed: still not the sender's statement.
    assert broken.exit_code == 1 and "transcript: signature:" in broken.output, broken.output


def _leaves(value, path=()):
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key], path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, path + (index,))
    else:
        yield path


def test_every_change_to_a_document_field_outside_the_messages_is_rejected(evening):
    """The messages have their own mutation test (test_mp_hand); here: every other leaf but the record's."""
    source, _, _ = evening
    docs = source.transcripts
    paths = [p for p in _leaves(docs[1]) if p[0] not in ("messages", "record")]
    assert len(paths) > 30
    for path in paths:
        changed = copy.deepcopy(docs)
        holder = changed[1]
        for key in path[:-1]:
            holder = holder[key]
        value = holder[path[-1]]
        holder[path[-1]] = value + 1 if isinstance(value, int) and not isinstance(value, bool) else f"{value}x"
        report = verify_documents(named(changed), replay_records=True)
        assert not report.ok, path
