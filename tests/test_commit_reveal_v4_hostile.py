"""fairdeal-commit-reveal/4 against hostile parties (issue 13): one test per attack, each rejected and blamed on
a party whose signature is on the faulty message, the honest parties never blamed."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from commit_reveal_helpers import leaves
from commit_reveal_parties import Silent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.cli import cli
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.protocols.canonical import context, encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.check import Pins
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4, RefusedHand, write_document
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import SERVICE, Context, Envelope, parse, seal
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents, verify_paths
from fairdeal.systems import get_convention

NAMES = ("ann", "bob", "cid")
TIME = "2026-12-01T18:00:00Z"


def key(label: str) -> IdentityKey:
    return IdentityKey.from_seed(hashlib.sha256(label.encode()).digest(), label)


def seeds(label: str) -> list[Callable[[int, int], bytes]]:
    def source(name: str) -> Callable[[int, int], bytes]:
        return lambda hand, attempt: hashlib.sha256(f"{label}/{name}/{hand}/{attempt}".encode()).digest()

    return [source(name) for name in NAMES]


class Evening:
    """An honest evening played by bots: the source (its keys), the transcripts and the signed settlement."""

    def __init__(self, hands: int = 3, label: str = "e", table: str = "club", session: str = "night"):
        spec = TableSpec(table, session, hands, NAMES, get_convention("sochi"))
        self.service_key = key(f"{label}/service")
        self.keys = [key(f"{label}/{name}") for name in NAMES]
        self.source = CommitRevealSource4(
            spec, self.service_key, self.keys, hashlib.sha256(label.encode()).digest(), seeds(label), TIME
        )
        bots = [HeuristicBot() for _ in NAMES]
        result = play_match(spec.convention, NAMES, bots, source=self.source, max_hands=hands)
        self.docs = [copy.deepcopy(d) for d in self.source.transcripts]
        self.settlement = self.source.close(result.settlement.amounts)
        self.roster = self.source.roster

    def all_docs(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.docs) + [copy.deepcopy(self.settlement)]


@pytest.fixture(scope="module")
def evening() -> Evening:
    return Evening()


def verify(docs: Sequence[dict[str, Any]], pins: Pins | None = None) -> Report:
    return verify_documents([(f"doc{i}", d) for i, d in enumerate(docs)], pins=pins)


def blamed(report: Report) -> set[tuple[str, str]]:
    return {(f.party, f.check) for f in report.failures}


def assert_honest_players_not_blamed(report: Report, honest: Sequence[str] = NAMES) -> None:
    assert not report.ok
    for failure in report.failures:
        assert failure.party not in {f"player {name}" for name in honest}, failure.line()


def ctx(roster: Roster, hand: int) -> Context:
    return Context(roster.table, roster.session, hand, roster.hash)


def resign_service(doc: dict[str, Any], roster: Roster, service: IdentityKey, start: int = 0) -> None:
    """The service (colluding) re-signs its own messages from ``start`` on, re-chaining them; it cannot sign
    for a player, so players' messages keep their signatures (and their ``prev``)."""
    messages = doc["messages"]
    prev = messages[start - 1] if start else None
    for index in range(start, len(messages)):
        envelope = parse(messages[index])
        if envelope.sender == SERVICE:
            link = parse(prev).digest if prev is not None else envelope.prev
            messages[index] = seal(
                service, ctx(roster, envelope.hand), SERVICE, envelope.kind, envelope.body, link
            ).to_json()
        prev = messages[index]


def test_the_honest_evening_verifies_and_says_identities_are_unpinned(evening: Evening) -> None:
    report = verify(evening.all_docs())
    assert report.ok, [f.line() for f in report.failures]
    assert report.notes == ()
    assert any("unpinned" in c for c in report.caveats)
    pinned = verify(evening.all_docs(), Pins(roster=evening.roster))
    assert pinned.ok and pinned.caveats == ()


# --- 1. grinding against a fake commitment --------------------------------------------------------------------


class Table:
    """The parties of a fresh session, driven step by step so a hostile service can show what it likes."""

    def __init__(self) -> None:
        self.source = CommitRevealSource4(
            TableSpec("club", "night", 4, NAMES, get_convention("sochi")),
            key("t/service"),
            [key(f"t/{n}") for n in NAMES],
            b"\x07" * 32,
            seeds("t"),
            TIME,
        )
        self.service, self.players = self.source.service, self.source.players
        self.shown: list[Envelope] = list(self.source._log)


def test_honest_players_refuse_to_reveal_against_a_fake_commitment() -> None:
    table = Table()
    service, (ann, bob, _) = table.service, table.players
    shown = table.shown
    shown.append(service.open_hand(1, 0))
    shown.append(ann.commit(1, shown))
    shown.append(bob.commit(1, shown))
    # The colluding service forges seat 2's commitment (it cannot sign with cid's key) and asks for the seeds.
    fake = seal(
        key("t/service"),
        ctx(table.source.roster, 1),
        2,
        m.COMMIT,
        {"attempt": 0, "commitment": "00" * 32},
        shown[-1].digest,
    )
    shown.append(fake)
    shown.append(
        seal(key("t/service"), ctx(table.source.roster, 1), SERVICE, m.REVEAL_REQUEST, {"attempt": 0}, fake.digest)
    )
    for player in (ann, bob):
        answer = player.reveal(1, shown)
        assert answer.kind == m.REFUSAL and "seed" not in answer.body
        assert answer.body["check"] == "signature" and "player cid" in answer.body["reason"]
        assert table.source.roster.key_of(player.seat).verify(
            answer.signed_bytes(ctx(table.source.roster, 1)), answer.signature
        )


def test_honest_players_refuse_to_reveal_before_every_seat_has_committed() -> None:
    table = Table()
    service, (ann, bob, _) = table.service, table.players
    shown = table.shown
    shown.append(service.open_hand(1, 0))
    for player in (ann, bob):
        shown.append(service.take(player.commit(1, shown), 1, m.COMMIT))
    shown.append(service.request_reveals(1))  # the service asks although cid has not committed
    answer = ann.reveal(1, shown)
    assert answer.kind == m.REFUSAL and answer.body["check"] == "commitments"


def test_a_player_refuses_a_hand_open_off_the_service_chain() -> None:
    table = Table()
    service, ann = table.service, table.players[0]
    shown = table.shown
    forged = seal(
        key("t/service"),
        ctx(table.source.roster, 1),
        SERVICE,
        m.HAND_OPEN,
        {"attempt": 0, "dealer": 0, "commitment": "11" * 32, "beacon": None},
        table.shown[-1].digest,
    )
    shown.append(forged)
    answer = ann.commit(1, shown)
    assert answer.kind == m.REFUSAL and answer.body["check"] == "commitment"
    assert service.chain[-1].kind == m.ACCEPT  # the real service sent nothing


def test_a_player_refuses_to_countersign_a_changed_record(evening: Evening) -> None:
    table = Table()
    source = table.source
    dealt = source.deal(1, 0)
    assert dealt.order is not None
    honest = evening.docs[0]
    record = next(e["body"]["record"] for e in honest["messages"] if e["kind"] == m.CLOSE)
    with pytest.raises(RefusedHand, match="refused at record-sign") as refused:
        source.finish(1, {**record, "hand": 1})  # a record of another deal: its deal does not match
    last = refused.value.document["messages"][-1]
    assert last["kind"] == m.REFUSAL and last["sender"] == 0 and last["body"]["check"] == "record"


# --- 2. one program plays every seat --------------------------------------------------------------------------


def test_one_program_playing_all_seats_fails_against_pinned_identities(evening: Evening) -> None:
    forged = Evening(label="forger")  # every key the forger's own: it verifies on its own terms
    assert verify(forged.all_docs()).ok
    report = verify(forged.all_docs(), Pins(roster=evening.roster))
    assert ("service", "roster pin") in blamed(report)
    real_bob = evening.roster.seats[1].key
    report = verify(forged.all_docs(), Pins(keys=(("bob", real_bob),)))
    assert ("service", "identity pin") in blamed(report)
    assert_honest_players_not_blamed(report)
    report = verify(forged.all_docs(), Pins(me=evening.keys[0]))
    assert ("service", "my seat") in blamed(report)


def test_me_pin_finds_my_seat_and_seeds(evening: Evening) -> None:
    report = verify(evening.all_docs(), Pins(me=evening.keys[1]))
    assert report.ok and any("me: player bob at seat 1" in n and "1, 2, 3" in n for n in report.notes)


# --- 3. re-played records, a raised contract --------------------------------------------------------------------


def _close_index(doc: dict[str, Any]) -> int:
    return next(i for i, e in enumerate(doc["messages"]) if e["kind"] == m.CLOSE)


@pytest.mark.parametrize(
    "change",
    ["score", "contract", "discard reversed", "lower-case card", "extra key", "defence_open flipped"],
)
def test_a_changed_record_is_not_the_countersigned_one(evening: Evening, change: str) -> None:
    docs = evening.all_docs()
    doc = docs[-2]  # the last hand's transcript: nothing later hashes it but the countersignatures
    record = doc["messages"][_close_index(doc)]["body"]["record"]
    if change == "score":
        record["score"] = list(reversed(record["score"])) + [{"seat": 0, "gora": 1500}]
    elif change == "contract":
        record["contract"] = "7c" if record.get("contract") != "7c" else "8c"
    elif change == "discard reversed":
        record["discard"] = list(reversed(record.get("discard") or ["7S", "8S"]))
    elif change == "lower-case card":
        record["deal"]["hands"][0][0] = record["deal"]["hands"][0][0].lower()
    elif change == "extra key":
        record["note"] = "x"
    else:
        record["defence_open"] = not record.get("defence_open", False)
    resign_service(doc, evening.roster, evening.service_key, _close_index(doc))
    report = verify(docs)
    assert ("player ann", "record countersignature") not in blamed(report)
    assert ("service", "chain link") in blamed(report)
    assert_honest_players_not_blamed(report)


def test_replayed_deals_with_other_moves_cannot_be_rechained(evening: Evening) -> None:
    """Re-playing the same honest deals with other moves and re-scoring needs every player's new
    countersignature; the service alone can only re-sign its own messages, which breaks the chain."""
    docs = evening.all_docs()
    for doc in docs[:-1]:
        close = doc["messages"][_close_index(doc)]["body"]
        close["record"]["score"] = []
        resign_service(doc, evening.roster, evening.service_key, _close_index(doc))
    report = verify(docs)
    assert all(f.party == "service" for f in report.failures) and not report.ok


# --- 4. altered messages, forged refusals, dropped seeds, selective abort ---------------------------------------


def test_an_altered_player_message_is_blamed_on_the_publisher(evening: Evening) -> None:
    docs = evening.all_docs()
    commit = docs[0]["messages"][2]  # bob's commitment
    commit["body"]["commitment"] = "ab" * 32
    report = verify(docs)
    assert ("service", "signature") in blamed(report)
    assert_honest_players_not_blamed(report)
    assert "seed-commit from player bob" in report.failures[0].detail


def test_a_forged_refusal_is_the_forgers_and_a_groundless_one_the_refusers(evening: Evening) -> None:
    docs = evening.all_docs()
    doc = docs[1]
    roster = evening.roster
    head = doc["messages"][:5]
    forged = seal(
        evening.service_key,
        ctx(roster, 2),
        1,
        m.REFUSAL,
        {"step": "seed-reveal", "check": "x", "reason": "y"},
        parse(head[-1]).digest,
    )
    doc["messages"] = head + [forged.to_json()]
    report = verify(docs)
    assert ("service", "signature") in blamed(report)
    assert_honest_players_not_blamed(report)
    groundless = seal(
        evening.keys[1],
        ctx(roster, 2),
        1,
        m.REFUSAL,
        {"step": "seed-reveal", "check": "x", "reason": "y"},
        parse(head[-1]).digest,
    )
    doc["messages"] = head + [groundless.to_json()]
    report = verify(docs)
    assert ("player bob", "refusal") in blamed(report)
    assert_honest_players_not_blamed(report, ("ann", "cid"))


def test_a_seed_dropped_by_the_service_is_the_services_fault(evening: Evening) -> None:
    docs = evening.all_docs()
    messages = docs[0]["messages"]
    reveal = next(i for i, e in enumerate(messages) if e["kind"] == m.REVEAL and e["sender"] == 1)
    del messages[reveal]  # bob's seed dropped; cid's reveal still follows it in cid's signed chain
    report = verify(docs)
    assert ("service", "chain link") in blamed(report)
    assert_honest_players_not_blamed(report)


def test_selective_abort_after_the_seeds_is_the_services_fault(evening: Evening) -> None:
    docs = evening.all_docs()
    doc = docs[1]
    doc["messages"] = doc["messages"][: _close_index(doc)]  # every seed in, the service walks away
    report = verify(docs)
    assert ("service", "missing hand-close") in blamed(report)
    assert_honest_players_not_blamed(report)


def test_a_player_who_walks_away_after_a_signed_request_is_named(evening: Evening) -> None:
    docs = evening.all_docs()
    doc = docs[1]
    reveal_request = next(i for i, e in enumerate(doc["messages"]) if e["kind"] == m.REVEAL_REQUEST)
    doc["messages"] = doc["messages"][: reveal_request + 2]  # ann revealed; bob did not answer the request
    report = verify(docs)
    assert ("player bob", "missing seed-reveal") in blamed(report)
    assert_honest_players_not_blamed(report, ("ann", "cid"))


# --- 5. encoding attacks and context collisions -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda raw: raw.replace(b'"hand":1,', b'"hand":1,"hand":1,', 1), "duplicate key"),
        (lambda raw: raw.replace(b'"hand":1,', b'"hand":1.0,', 1), "1.0 is not an integer"),
        (lambda raw: raw.replace(b'"hand":1,', b'"hand": 1,', 1), "whitespace"),
        (lambda raw: raw.replace(b'"hand":1,', b'"hand":' + b"9" * 5000 + b",", 1), "out of range"),
        (lambda raw: raw.replace(b'"name":"ann"', b'"name":"\\ud800"', 1), "lone surrogate"),
    ],
)
def test_non_canonical_files_are_refused_naming_the_field(
    evening: Evening, tmp_path: Path, mangle: Callable[[bytes], bytes], message: str
) -> None:
    path = tmp_path / "hand-0001.json"
    path.write_bytes(mangle(encode(evening.docs[0])))
    report = verify_paths([path])
    assert [(f.party, f.check) for f in report.failures] == [("service", "transcript file")]
    assert message in report.failures[0].detail


def test_contexts_do_not_collide_and_messages_do_not_travel(evening: Evening) -> None:
    assert context("club/night", "s1") != context("club", "night/s1")
    other = Evening(hands=1, label="e", table="club/night", session="s1")
    same = Evening(hands=1, label="e", table="club", session="night/s1")
    assert other.roster.hash != same.roster.hash
    docs = same.all_docs()
    docs[0]["messages"][1] = other.docs[0]["messages"][1]  # ann's commitment from the other table
    report = verify(docs)
    assert ("service", "signature") in blamed(report)
    docs = evening.all_docs()
    docs[1]["messages"][1] = evening.docs[0]["messages"][1]  # hand 1's commitment presented in hand 2
    report = verify(docs)
    assert ("service", "context") in blamed(report) and "a replay" in report.failures[0].detail
    assert_honest_players_not_blamed(report)


# --- 6. spliced and truncated sessions --------------------------------------------------------------------------


def test_a_truncated_session_fails_against_its_settlement(evening: Evening) -> None:
    docs = evening.all_docs()
    del docs[-2]
    report = verify(docs)
    assert ("service", "session length") in blamed(report)


def test_hands_of_another_evening_do_not_splice_in(evening: Evening) -> None:
    second = Evening(label="second")
    docs = evening.all_docs()
    docs[1] = copy.deepcopy(second.docs[1])
    report = verify(docs)
    assert ("service", "hand sequence") in blamed(report) or ("service", "session length") in blamed(report)
    assert_honest_players_not_blamed(report)


def test_a_settlement_the_sheet_does_not_give_is_refused(evening: Evening) -> None:
    docs = evening.all_docs()
    body = docs[-1]["messages"][0]["body"]
    names = list(body["amounts"])
    body["amounts"][names[0]], body["amounts"][names[1]] = body["amounts"][names[1]], body["amounts"][names[0]]
    resign_service(docs[-1], evening.roster, evening.service_key)
    report = verify(docs)
    assert not report.ok and {f.party for f in report.failures} == {"service"}


def test_a_roster_a_player_did_not_sign_is_the_publishers(evening: Evening) -> None:
    docs = evening.all_docs()
    docs[0]["roster"]["roster"]["seats"][1]["name"] = "mallory"
    report = verify(docs)
    assert ("service", "roster signature") in blamed(report)


def test_the_log_of_a_v4_evening_checks_its_settlement_line(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["deal", "--hands", "3", "--seed", "4", "--out", str(tmp_path)]).exit_code == 0
    log = tmp_path / "evening.log"
    ok = runner.invoke(cli, ["verify", "--log", str(log), "--roster", str(tmp_path / "roster.json")])
    assert ok.exit_code == 0 and "caveat" not in ok.output, ok.output
    lines = log.read_text(encoding="utf-8").splitlines()
    end = json.loads(lines[-1])
    first, second = list(end["settlement"])[:2]
    end["settlement"][first], end["settlement"][second] = end["settlement"][second], end["settlement"][first]
    if end["settlement"][first] == end["settlement"][second]:
        end["settlement"][first] += 10
    log.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n", encoding="utf-8")
    changed = runner.invoke(cli, ["verify", "--log", str(log)])
    assert changed.exit_code == 1 and "record: settlement line" in changed.output
    (tmp_path / "evening.log.transcripts" / "settlement.json").unlink()
    missing = runner.invoke(cli, ["verify", "--log", str(log)])
    assert missing.exit_code == 1 and "service: settlement" in missing.output


def test_pins_on_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["deal", "--hands", "2", "--seed", "5", "--out", str(tmp_path)]).exit_code == 0
    log = str(tmp_path / "evening.log")
    roster = Roster.load(tmp_path / "roster.json")
    bob = roster.seats[1]
    good = runner.invoke(
        cli, ["verify", "--log", log, "--key", f"{bob.name}={bob.key.hex}", "--key", f"service={roster.service.hex}"]
    )
    assert good.exit_code == 0, good.output
    wrong = runner.invoke(cli, ["verify", "--log", log, "--key", f"1={key('x').public.hex}"])
    assert wrong.exit_code == 1 and "service: identity pin" in wrong.output
    bad = runner.invoke(cli, ["verify", "--log", log, "--key", "1=zz"])
    assert bad.exit_code == 2 and "Error" in bad.output and "--key 1" in bad.output


def test_write_document_is_canonical(evening: Evening, tmp_path: Path) -> None:
    digest = write_document(evening.docs[0], tmp_path / "h.json")
    assert (tmp_path / "h.json").read_bytes() == encode(evening.docs[0])
    assert digest == hashlib.sha256(encode(evening.docs[0])).hexdigest()


# --- 7. aborts with consequences ----------------------------------------------------------------------------------


@pytest.mark.parametrize("step", [m.COMMIT, m.REVEAL])
def test_a_silent_player_aborts_the_attempt_and_the_hand_is_dealt_again(step: str) -> None:
    spec = TableSpec("club", "night", 3, NAMES, get_convention("sochi"))
    source = CommitRevealSource4(spec, key("a/service"), [key(f"a/{n}") for n in NAMES], b"\x05" * 32, seeds("a"), TIME)
    source.players[1] = Silent(source.players[1], 2, step)
    result = play_match(spec.convention, NAMES, [HeuristicBot() for _ in NAMES], source=source, max_hands=3)
    docs = [*source.transcripts, source.close(result.settlement.amounts)]
    aborts = [e for e in docs[1]["messages"] if e["kind"] == m.ABORT]
    assert len(aborts) == 1 and aborts[0]["body"]["missing"] == [1] and aborts[0]["body"]["step"] == step
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]
    assert any("attempt 0 aborted: player bob did not answer" in n for n in report.notes)
    opens = [e for e in docs[1]["messages"] if e["kind"] == m.HAND_OPEN]
    assert [e["body"]["attempt"] for e in opens] == [0, 1]


def test_an_abort_when_everyone_answered_is_the_services(evening: Evening) -> None:
    docs = evening.all_docs()
    doc = docs[1]
    request = next(i for i, e in enumerate(doc["messages"]) if e["kind"] == m.REVEAL_REQUEST)
    head = doc["messages"][: request + 4]  # every seed revealed
    roster = evening.roster
    abort = seal(
        evening.service_key,
        ctx(roster, 2),
        SERVICE,
        m.ABORT,
        {"attempt": 0, "step": m.REVEAL, "missing": [1], "request": parse(head[request]).digest},
        parse(head[-1]).digest,
    )
    doc["messages"] = [*head, abort.to_json()]
    report = verify(docs)
    assert ("service", "missing hand-open") in blamed(report)
    assert_honest_players_not_blamed(report)
    redeal = seal(
        evening.service_key, ctx(roster, 2), SERVICE, m.HAND_OPEN, {**parse(head[0]).body, "attempt": 1}, abort.digest
    )
    doc["messages"] = [*head, abort.to_json(), redeal.to_json()]
    report = verify(docs)
    assert ("service", "abort") in blamed(report)
    assert_honest_players_not_blamed(report)


def test_a_player_named_absent_after_answering_refuses_the_next_attempt() -> None:
    table = Table()
    service, (ann, bob, cid) = table.service, table.players
    shown = table.shown
    shown.append(service.open_hand(1, 0))
    shown.append(service.take(ann.commit(1, shown), 1, m.COMMIT))
    bobs = bob.commit(1, shown)  # bob answers; the relay drops it and blames him
    shown.append(service.abort(1, m.COMMIT, 1))
    shown.append(service.open_hand(1, 0))
    answer = bob.commit(1, [e for e in shown if e.digest != bobs.digest])
    assert answer.kind == m.REFUSAL and answer.body["check"] in ("abort", "chain link")
    assert cid.commit(1, shown).kind == m.REFUSAL  # cid sees ann's attempt-1 commitment missing: out of order


def test_deal_with_the_players_own_keys_and_verify_pinned_by_them(tmp_path: Path) -> None:
    runner = CliRunner()
    keys = tmp_path / "keys"
    keys.mkdir()
    public = {}
    for name in ("service", "Anna", "Boris", "Vera"):
        made = runner.invoke(cli, ["keys", "new", "--out", str(keys / f"{name}.key"), "--name", name])
        assert made.exit_code == 0, made.output
        public[name] = made.output.split()[0]
    out = tmp_path / "out"
    dealt = runner.invoke(cli, ["deal", "--hands", "2", "--keys", str(keys), "--out", str(out)])
    assert dealt.exit_code == 0, dealt.output
    pins = [arg for name, hexkey in public.items() for arg in ("--key", f"{name}={hexkey}")]
    me = ["--me", str(keys / "Boris.key")]
    checked = runner.invoke(cli, ["verify", "--log", str(out / "evening.log"), *pins, *me])
    assert checked.exit_code == 0 and "caveat" not in checked.output, checked.output
    missing = runner.invoke(cli, ["deal", "--hands", "1", "--keys", str(tmp_path), "--out", str(tmp_path / "o2")])
    assert missing.exit_code == 2 and "no such key file" in missing.output


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_single_leaf_change_is_rejected_without_a_crash(evening: Evening, data: st.DataObject) -> None:
    docs = evening.all_docs()
    which = data.draw(st.integers(0, len(docs) - 1))
    path = data.draw(st.sampled_from(leaves(docs[which])))
    target: Any = docs[which]
    for step in path[:-1]:
        target = target[step]
    old = target[path[-1]]
    new = data.draw(
        st.one_of(st.integers(-3, 3), st.text(max_size=3), st.none(), st.booleans()).filter(
            lambda v: v != old or type(v) is not type(old)
        )
    )
    target[path[-1]] = new
    report = verify(docs)
    assert not report.ok, path
    assert all(f.party == "service" or f.party.startswith("player ") or f.party == "record" for f in report.failures)


@pytest.mark.parametrize(("path", "new"), [(("opening", 1, "sender"), False), (("opening", 0, "hand"), False)])
def test_a_copied_opening_is_compared_type_by_type(evening: Evening, path: tuple[Any, ...], new: Any) -> None:
    # The settlement (hand 0) is checked first and its opening kept; a later copy equal only as ``False == 0`` is
    # another document, checked on its own, and its signature fails.
    docs = evening.all_docs()
    target: Any = docs[0]
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    report = verify(docs)
    assert not report.ok and all(f.party == "service" for f in report.failures)


def test_a_boolean_for_an_integer_in_a_repeated_roster_or_opening_is_rejected(evening: Evening) -> None:
    """Python holds ``true == 1``: a copy of the session's roster or opening with a JSON boolean in place of 0 or 1
    must not pass as the copy already checked (the settlement is checked first, so every transcript is a copy)."""
    docs = evening.all_docs()
    tried = 0
    for which in range(len(docs)):
        for path in leaves({"roster": docs[which]["roster"], "opening": docs[which]["opening"]}):
            changed = copy.deepcopy(docs)
            target: Any = changed[which]
            for step in path[:-1]:
                target = target[step]
            old = target[path[-1]]
            if type(old) is not int or old not in (0, 1):
                continue
            target[path[-1]] = bool(old)
            tried += 1
            assert not verify(changed).ok, (which, path)
    assert tried >= 2 * len(docs)  # every copy's seat numbers and its session-open's attempt or version
