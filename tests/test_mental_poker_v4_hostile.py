"""Mental poker v4 against hostile parties: one test per attack of issue 13 that touches mental poker. Each is
rejected, blamed on the party whose signature is on the faulty statement (or on the transcript's publisher when
nobody signed it), and the honest parties are never blamed."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from mental_poker_parties import SwappedShares

from fairdeal.cli import cli
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.commit_reveal4.check import Pins
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.player import STEP_TIMEOUTS, HandAbandoned, HandRefused, Player, Table
from fairdeal.protocols.mental_poker.signing import Seating, open_message, seal_message
from fairdeal.protocols.mental_poker.source import MentalPokerSource, hand_setup, signed_roster
from fairdeal.protocols.mental_poker.verify import UNPINNED
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import transcript_hash, write_transcript
from fairdeal.protocols.verify import verify_documents, verify_log, verify_paths
from fairdeal.systems import get_convention

SOCHI = get_convention("sochi")
PLAYERS = ("ann", "bob", "cyd")


def spec(hands: int = 4, session: str = "friday", players: tuple[str, ...] = PLAYERS) -> TableSpec:
    return TableSpec("club", session, hands, players, SOCHI)


def evening(out: Path, session: str = "friday", hands: int = 4) -> tuple[MentalPokerSource, Path]:
    source = MentalPokerSource(spec(hands, session))
    log = out / "evening.log"
    play_match(SOCHI, PLAYERS, [HeuristicBot() for _ in PLAYERS], source=source, max_hands=hands, log=log)
    return source, log


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    return evening(tmp_path_factory.mktemp("v4"))


def found(docs, pins=None):
    report = verify_documents([(f"hand-{d['hand']}", d) for d in docs], pins=pins)
    return [(f.party, f.check) for f in report.failures], report


def digest(envelope) -> str:
    return signed.parse(envelope).digest


def resign(source, doc, index, change):
    """Message ``index`` changed by ``change(body)`` and signed again by its own sender (a sender who lies)."""
    doc = copy.deepcopy(doc)
    envelope = doc["messages"][index]
    seat = envelope["sender"]
    key = source.identities[PLAYERS[seat]]
    change(envelope["body"])
    ctx = source.seating.context(doc["hand"])
    doc["messages"][index] = signed.seal(key, ctx, seat, envelope["kind"], envelope["body"], envelope["prev"]).to_json()
    return doc


def abandon(source, doc, keep, witness, absent, at):
    """The first ``keep`` messages, then an abandon signed by ``witness`` naming ``absent`` at step ``at``."""
    doc = copy.deepcopy(doc)
    messages = doc["messages"][:keep]
    message = {"step": "abandon", "player": absent, "at": at, "prev": digest(messages[-1])}
    messages.append(seal_message(source.identities[witness], source.seating, doc["hand"], message))
    doc.update(messages=messages, state="abandoned")
    doc.pop("statements", None)
    return doc


def test_an_honest_evening_verifies_and_pinned_identities_are_checked(played):
    source, log = played
    report = verify_log(log)
    assert report.ok and report.caveats == (f"mental poker: {UNPINNED}",), report.failures
    assert verify_log(log, pins=Pins(roster=source.seating.roster)).ok
    me = source.identities["bob"]
    mine = verify_log(log, pins=Pins(me=me))
    assert mine.ok and any("my key sits at this table as bob" in n for n in mine.notes)


def test_one_program_playing_every_seat_is_not_the_pinned_table(played):
    """The issue's "identity is not bound": a look-alike evening made by one program with its own keys verifies
    only as unpinned; against the real table's roster, or a real player's key, it fails on identity."""
    source, _ = played
    impostor = MentalPokerSource(spec(1))
    impostor.deal(1, 0)
    doc = impostor.finish(1)
    pins = Pins(roster=source.seating.roster)
    failures, _ = found([doc], pins)
    assert failures == [("transcript", "roster pin")]
    failures, _ = found([doc], Pins(me=source.identities["ann"]))
    assert failures == [("transcript", "my seat")]
    failures, _ = found([doc], Pins(keys=(("1", source.identities["bob"].public),)))
    assert failures == [("transcript", "identity pin")]


def test_an_altered_message_is_blamed_on_the_publisher_not_on_the_player_it_names(played):
    source, _ = played
    doc = copy.deepcopy(source.transcripts[0])
    doc["messages"][7]["body"]["shares"][0]["share"] = doc["messages"][7]["body"]["shares"][1]["share"]
    failures, _ = found([doc])
    assert failures == [("transcript", "signature")]


def test_a_lie_the_sender_signed_is_blamed_on_the_sender(played):
    source, _ = played
    doc = source.transcripts[0]

    def swap(body):
        body["shares"][0]["share"], body["shares"][1]["share"] = body["shares"][1]["share"], body["shares"][0]["share"]

    liar = PLAYERS[doc["messages"][7]["sender"]]
    failures, _ = found([resign(source, doc, 7, swap)])
    assert failures[0] == (f"player {liar}", "decrypt")
    assert all(party in (f"player {liar}", "transcript") for party, _ in failures)


def test_a_forged_abandon_signed_by_no_seat_is_refused(played):
    source, _ = played
    doc = source.transcripts[0]
    outsider = MentalPokerSource(spec(1))  # other keys, same names
    forged = abandon(outsider, copy.deepcopy(doc), 4, "cyd", "ann", "shuffle")
    failures, _ = found([forged])
    assert failures == [("transcript", "signature")]


def test_an_abandon_outside_a_round_or_naming_someone_else_is_refused_and_blamed_on_its_signer(played):
    source, _ = played
    doc = source.transcripts[0]
    # During the opening the hand waits for one player's one step: naming another is the witness's lie.
    failures, _ = found([abandon(source, doc, 4, "cyd", "ann", "shuffle")])
    assert failures == [("player cyd", "abandon")]
    # Outside a fixed step, only an awaited card can be missing; a talon nobody asked for cannot.
    dealt = 9
    failures, _ = found([abandon(source, doc, dealt, "cyd", "ann", "talon")])
    assert failures == [("player cyd", "abandon")]
    # A player cannot witness his own absence.
    failures, _ = found([abandon(source, doc, 4, "bob", "bob", "shuffle")])
    assert failures == [("player bob", "abandon")]


def test_a_true_abandon_names_the_absent_player_and_nobody_else(played):
    source, _ = played
    doc = source.transcripts[0]
    second_shuffler = PLAYERS[doc["messages"][4]["sender"]]
    witness = next(p for p in PLAYERS if p != second_shuffler)
    failures, report = found([abandon(source, doc, 4, witness, second_shuffler, "shuffle")])
    assert failures == []
    assert any(f"player {second_shuffler} stopped answering at step shuffle" in n for n in report.notes)


def _with_discard(source):
    for doc in source.transcripts:
        kinds = [m["kind"] for m in doc["messages"]]
        if "discard-open" in kinds:
            return doc, kinds.index("discard-open")
    return None, None


def test_a_declarer_who_would_not_open_his_discard_cannot_escape_by_an_abandon_naming_another(tmp_path):
    source, _ = evening(tmp_path, hands=6)
    doc, at = _with_discard(source)
    if doc is None:
        pytest.skip("no hand of this evening had a discard")
    declarer = PLAYERS[doc["messages"][at]["sender"]]
    other, witness = [p for p in PLAYERS if p != declarer][:2]
    failures, _ = found([abandon(source, doc, at, witness, other, "discard-open")])
    assert failures == [(f"player {witness}", "abandon")]
    failures, report = found([abandon(source, doc, at, witness, declarer, "discard-open")])
    assert failures == [] and any(
        f"player {declarer} stopped answering at step discard-open" in n for n in report.notes
    )


def test_an_abandon_during_play_must_name_the_player_whose_card_is_due(played):
    source, _ = played
    doc = next(d for d in source.transcripts if [m["kind"] for m in d["messages"]].count("play") > 3)
    first_play = [m["kind"] for m in doc["messages"]].index("play")
    due = PLAYERS[doc["messages"][first_play]["sender"]]
    other = next(p for p in PLAYERS if p != due)
    witness = next(p for p in PLAYERS if p not in (due, other))
    failures, _ = found([abandon(source, doc, first_play, witness, other, "play")])
    assert failures == [(f"player {witness}", "abandon")]
    failures, _ = found([abandon(source, doc, first_play, witness, due, "play")])
    assert failures == []


def test_a_contract_raised_in_the_transcript_or_the_log_fails(played, tmp_path):
    source, log = played
    doc = copy.deepcopy(source.transcripts[0])
    contract = doc["record"].get("contract") or {}
    # Raised to a bid the hand did not have (the random deal may have been a 7C already: no change at all).
    doc["record"]["contract"] = dict(contract, bid="8C" if contract.get("bid") == "7C" else "7C")
    failures, _ = found([doc])
    assert ("transcript", "record statement") in failures
    # The same change in the log and in the transcript, with the citation's hash recomputed, still fails.
    folder = tmp_path / "evening.log.transcripts"
    folder.mkdir()
    lines = log.read_text(encoding="utf-8").splitlines()
    out = []
    for raw in lines:
        line = json.loads(raw)
        if line.get("type") == "hand":
            original = Path(log.parent / line["transcript"]["file"])
            copied = folder / original.name
            copied.write_bytes(original.read_bytes())
            if line["hand"] == 1:
                line["contract"] = doc["record"]["contract"]
                line["transcript"]["sha256"] = write_transcript(
                    dict(source.transcripts[0], record=doc["record"]), copied
                )
        out.append(json.dumps(line, ensure_ascii=False))
    (folder / "settlement.json").write_bytes((log.parent / "evening.log.transcripts" / "settlement.json").read_bytes())
    forged = tmp_path / "evening.log"
    forged.write_text("\n".join(out) + "\n", encoding="utf-8")
    checks = {(f.party, f.check) for f in verify_log(forged).failures}
    assert ("transcript", "record statement") in checks


@pytest.mark.parametrize("record", [7, None, True, "hand", [], ["AS"]])
def test_a_record_that_is_not_an_object_is_a_finding_not_a_crash(played, record):
    """The publisher replaced the record with another JSON value: the players signed none of them."""
    source, _ = played
    failures, report = found([dict(source.transcripts[0], record=record)])
    assert not report.ok
    assert ("transcript", "record statement") in failures
    assert [f.detail for f in report.failures if f.check == "events"] == ["the record is not a JSON object"]


@pytest.mark.parametrize("change", [{"version": None}, {"version": True}, {"version": 2}, {"note": "paid"}])
def test_a_settlement_of_another_version_or_with_another_field_is_not_the_signed_one(played, change):
    """The statements inside still verify; the document around them is not the one a v4 table writes."""
    _, log = played
    folder = log.parent / "evening.log.transcripts"
    docs = [(p.name, decode(p.read_bytes())) for p in sorted(folder.glob("hand-*.json"))]
    settlement = decode((folder / "settlement.json").read_bytes()) | change
    report = verify_documents([*docs, ("settlement.json", settlement)])
    assert [(f.party, f.check) for f in report.failures] == [("record", "settlement")]
    assert "version 1 document" in report.failures[0].detail


@pytest.mark.parametrize("statements", [True, 7, "statements", {"0": "x"}, None])
def test_a_settlement_whose_statements_are_not_a_list_is_signed_by_nobody(played, statements):
    """The session's transcripts with a settlement whose statements the publisher replaced: no seat signed it."""
    _, log = played
    folder = log.parent / "evening.log.transcripts"
    docs = [(p.name, decode(p.read_bytes())) for p in sorted(folder.glob("hand-*.json"))]
    settlement = dict(decode((folder / "settlement.json").read_bytes()), statements=statements)
    report = verify_documents([*docs, ("settlement.json", settlement)])
    assert not report.ok
    assert {(f.party, f.check) for f in report.failures} == {("record", "settlement")}


def test_a_rescored_settlement_line_fails_against_the_signed_settlement(played, tmp_path):
    _, log = played
    lines = [json.loads(raw) for raw in log.read_text(encoding="utf-8").splitlines()]
    end = lines[-1]
    assert end["type"] == "end"
    names = list(end["settlement"])
    end["settlement"][names[0]], end["settlement"][names[1]] = (
        end["settlement"][names[1]] + 1,
        end["settlement"][names[0]] - 1,
    )
    forged = log.with_name("rescored.log")
    forged.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n", encoding="utf-8")
    (log.parent / "rescored.log.transcripts").symlink_to(log.parent / "evening.log.transcripts")
    checks = [(f.party, f.check) for f in verify_log(forged).failures]
    assert ("record", "settlement") in checks


def test_a_log_that_stops_citing_hands_fails_against_the_settlement(played):
    _, log = played
    lines = log.read_text(encoding="utf-8").splitlines()
    hands = [i for i, raw in enumerate(lines) if json.loads(raw).get("type") == "hand"]
    kept = [raw for i, raw in enumerate(lines) if i != hands[-1]]
    cut = log.with_name("cut.log")
    cut.write_text("\n".join(kept) + "\n", encoding="utf-8")
    (log.parent / "cut.log.transcripts").symlink_to(log.parent / "evening.log.transcripts")
    checks = [(f.party, f.check) for f in verify_log(cut).failures]
    assert ("record", "settlement") in checks


def test_hands_of_two_evenings_spliced_fail(played, tmp_path):
    source, _ = played
    other, _ = evening(tmp_path, session="friday", hands=2)  # same table and session name, another roster
    spliced = [source.transcripts[0], dict(other.transcripts[1], previous=transcript_hash(source.transcripts[0]))]
    failures, _ = found(spliced)
    assert ("transcript", "transcript chain") in failures


def test_messages_replayed_from_another_hand_or_session_are_refused(played):
    source, _ = played
    first, second = source.transcripts[0], source.transcripts[1]
    moved = copy.deepcopy(second)
    moved["messages"] = first["messages"] + moved["messages"][len(first["messages"]) :]
    failures, _ = found([first, moved])
    assert ("transcript", "context") in failures or ("transcript", "chain link") in failures


def test_contexts_are_length_prefixed_tuples_and_proofs_are_bound_to_the_session():
    keys = {name: IdentityKey.generate(name) for name in PLAYERS}
    service = IdentityKey.generate("service")
    a = Seating(signed_roster(TableSpec("club/night", "s1", 1, PLAYERS, SOCHI), keys, service))
    b = Seating(signed_roster(TableSpec("club", "night/s1", 1, PLAYERS, SOCHI), keys, service))
    assert a.hand_context(1).encode() != b.hand_context(1).encode()
    assert HandContext("club/night/s1", 1) == HandContext("club/night/s1", 1)  # v3's joined string collides
    c = Seating(signed_roster(TableSpec("club", "s2", 1, PLAYERS, SOCHI), keys, service))
    assert c.hand_context(1) != Seating(
        signed_roster(TableSpec("club", "s3", 1, PLAYERS, SOCHI), keys, service)
    ).hand_context(1)


@pytest.mark.parametrize(
    "bad,field",
    [
        (lambda text: text.replace('"hand":1,', '"hand":1,"hand":1,', 1), "duplicate key"),
        (lambda text: text.replace('"hand":1,', '"hand":1.0,', 1), "not an integer"),
        (lambda text: text.replace('"hand":1,', '"hand":' + "9" * 5000 + ",", 1), "out of range"),
        (lambda text: text.replace('"table":"club"', '"table":"\\ud800"', 1), "surrogate"),
        (lambda text: text.replace('{"aborts"', '{ "aborts"', 1), "whitespace"),
    ],
)
def test_a_non_canonical_transcript_gets_one_clear_line(played, tmp_path, bad, field):
    source, _ = played
    path = tmp_path / "hand.json"
    path.write_text(bad(encode(source.transcripts[0]).decode("utf-8")), encoding="utf-8")
    report = verify_paths([path])
    assert not report.ok and len(report.failures) == 1
    line = report.failures[0].line()
    assert "\n" not in line and "Traceback" not in line and field in line, line


def _table(source, hand=1, make=Player, timeouts=None):
    setup = hand_setup(source.spec, hand, 0, source.seating)
    players = [make(setup, name).sign_with(source.identities[name], source.seating) for name in setup.players]
    return Table(players, timeouts)


def test_honest_players_check_before_they_act_and_sign_their_refusal():
    source = MentalPokerSource(spec(1))
    table = _table(source, make=lambda setup, name: (SwappedShares if name == "ann" else Player)(setup, name))
    with pytest.raises(HandRefused) as caught:
        table.deal()
    refusal = caught.value.refusal
    assert caught.value.error.player == "ann"
    envelope = signed.open_checked(refusal, source.seating.context(1), source.seating.keys, kind="refuse")
    assert source.seating.names[envelope.sender] != "ann" and "decrypt" in envelope.body["check"]
    # The cheat's message never joined the transcript, and nobody acted on it: the table stopped at the refusal.
    before = 6 + table.players[0].setup.players.index("ann")
    assert len(table.messages) == before and all(m["kind"] in ("keys", "shuffle", "deal") for m in table.messages)


def test_a_message_the_relay_forged_for_one_player_is_refused_before_he_acts():
    source = MentalPokerSource(spec(1))
    table = _table(source)
    ann, bob, cyd = table.players
    table.say(ann, "keys", lambda p: p.keys())
    forged = copy.deepcopy(bob.keys())  # bob's genuine key message, altered by the relay on its way to cyd
    forged["body"]["public"] = forged["body"]["public"][::-1]
    with pytest.raises(Exception) as caught:
        cyd.receive(forged)
    assert getattr(caught.value, "party", None) == "relay" and caught.value.check == "signature"
    assert cyd.state.head == digest(table.messages[-1])  # cyd's view did not move


def test_a_message_from_another_hand_is_refused():
    source = MentalPokerSource(spec(2))
    first = _table(source, hand=1)
    first.deal()
    second = _table(source, hand=2)
    bob = second.players[1]
    with pytest.raises(Exception) as caught:
        bob.receive(first.messages[0])
    assert caught.value.check in ("context", "signature", "chain link")


class WalksAway(Player):
    """The last player of the deal round sees his hand, and leaves if it is not to his liking."""

    def deal(self):
        if self.setup.context.hand == 1 and "attempt" not in self.__dict__:
            type(self).walked = getattr(type(self), "walked", 0) + 1
            if type(self).walked == 1:
                from fairdeal.protocols.mental_poker.player import Unresponsive

                raise Unresponsive()
        return super().deal()


def test_the_last_dealer_who_walks_away_is_named_and_the_hand_is_dealt_again():
    last = "cyd"
    make = type("Leaver", (WalksAway,), {})
    source = MentalPokerSource(spec(1), make_player=lambda setup, name: (make if name == last else Player)(setup, name))
    dealt = source.deal(1, 0)
    doc = source.finish(1)
    assert doc["attempt"] == 2 and len(doc["aborts"]) == 1
    failures, report = found([doc])
    assert failures == [], failures
    assert any(f"attempt 1: player {last} walked away at step deal" in n for n in report.notes)
    witness = doc["aborts"][0]["messages"][-1]["sender"]
    assert PLAYERS[witness] != last
    assert sorted(dealt.order.tolist()) == list(range(32))


class Sleeper(Player):
    def shuffle(self):
        time.sleep(1.0)
        return super().shuffle()


def test_a_seat_that_exceeds_its_step_timeout_is_abandoned():
    source = MentalPokerSource(spec(1))
    table = _table(
        source,
        make=lambda setup, name: (Sleeper if name == "bob" else Player)(setup, name),
        timeouts=dict(STEP_TIMEOUTS, shuffle=0.2),
    )
    with pytest.raises(HandAbandoned) as caught:
        table.deal()
    assert (caught.value.player, caught.value.step) == ("bob", "shuffle")
    last = table.messages[-1]
    assert last["kind"] == "abandon" and last["body"] == {"at": "shuffle", "player": "bob"}


def test_verify_cli_pins_identities(played, tmp_path):
    source, log = played
    roster = tmp_path / "roster.json"
    source.seating.roster.save(roster)
    runner = CliRunner()
    ok = runner.invoke(cli, ["verify", "--log", str(log), "--roster", str(roster)])
    assert ok.exit_code == 0 and "unpinned" not in ok.output, ok.output
    unpinned = runner.invoke(cli, ["verify", "--log", str(log)])
    assert unpinned.exit_code == 0 and "unpinned" in unpinned.output
    stranger = IdentityKey.generate("x").public.hex
    wrong = runner.invoke(cli, ["verify", "--log", str(log), "--key", f"1={stranger}"])
    assert wrong.exit_code == 1 and "transcript: identity pin" in wrong.output


def test_honest_opened_messages_round_trip(played):
    source, _ = played
    doc = source.transcripts[0]
    setup = hand_setup(source.spec, 1, doc["dealer"], source.seating)
    head = setup.genesis()
    for envelope in doc["messages"]:
        opened = open_message(envelope, source.seating, 1, head)
        assert opened.signer == PLAYERS[envelope["sender"]]
        head = opened.digest
    assert digest(doc["messages"][-1]) == head and head == source.transcripts[0]["statements"][0]["prev"]
