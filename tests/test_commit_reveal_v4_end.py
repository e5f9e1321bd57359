"""The evening's end in fairdeal-commit-reveal/4 (issue 13): a countersignature never sent or a refusal ends the
evening with the party at fault charged the convention's abort penalty, a settlement every other seat signs, and
the log's settlement line; verify accepts the charge only on the party the evidence proves at fault."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from commit_reveal_parties import TABLES, fixed_source, key

from fairdeal.audit.legality import check_legality
from fairdeal.cli.dealing import _deal_evening
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.engine.recount import sheet_from_log
from fairdeal.engine.scoring import abort_penalty
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.parties import Player, end_charge
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4, RefusedHand
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import SERVICE, Context, Envelope, parse, seal
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents, verify_log
from fairdeal.rules.convention import Convention
from fairdeal.systems import get_convention


class WalksAway(Player):
    """Plays along until hand ``hand``, then never countersigns its record (gone mid-evening)."""

    at = 2

    def countersign(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:  # type: ignore[override]
        return None if hand == self.at else super().countersign(hand, shown, deadline)


class Framer(Player):
    """Refuses the honest record of hand ``at`` with a claim against seat ``framed``'s seed."""

    at, framed = 2, 0

    def countersign(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        if hand != self.at:
            return super().countersign(hand, shown, deadline)
        self._accept_all(shown, hand)
        party = self.roster.party(self.framed)
        reason = f"{party}: seed opening: the seed does not open the commitment"
        return self.send(hand, m.REFUSAL, {"step": m.RECORD_SIGN, "check": "seed opening", "reason": reason})


def table(convention: Convention, players: int, seat: int, kind: type[Player], hands: int = 3) -> CommitRevealSource4:
    names = tuple(f"p{i}" for i in range(players))
    spec = TableSpec("club", "night", hands, names, convention)
    src = fixed_source(spec, b"\x07" * 32, "end", None)
    hostile = kind.__new__(kind)
    hostile.__dict__.update(src.players[seat].__dict__)
    src.players[seat] = hostile
    return src


def evening(src: CommitRevealSource4, hands: int = 3) -> tuple[list[dict[str, Any]], Any]:
    bots = [HeuristicBot() for _ in src.players]
    result = play_match(src.spec.convention, src.spec.players, bots, source=src, max_hands=hands)
    ended = [copy.deepcopy(src.ended)] if src.ended is not None else []
    return [*copy.deepcopy(src.transcripts), *ended, src.close(result.settlement.amounts)], result


def verify(docs: Sequence[dict[str, Any]]) -> Report:
    return verify_documents([(f"doc{i}", d) for i, d in enumerate(docs)])


def blamed(report: Report) -> set[tuple[str, str]]:
    return {(f.party, f.check) for f in report.failures}


def amounts(doc: dict[str, Any]) -> dict[str, Fraction]:
    body = next(e["body"] for e in doc["messages"] if e["kind"] == m.SETTLEMENT)
    return {name: Fraction(text) for name, text in body["amounts"].items()}


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_seat_that_walks_away_mid_evening_is_charged_on_every_system(cell: tuple[str, int]) -> None:
    name, players = cell
    convention = get_convention(name)
    walker = players - 1
    src = table(convention, players, walker, WalksAway)
    docs, result = evening(src)
    assert len(src.transcripts) == 1 and src.ended is not None and src.ended["hand"] == 2
    end, settlement, *signs = docs[-1]["messages"]
    assert end["kind"] == m.END and end["body"]["charged"] == [walker] and end["body"]["step"] == m.RECORD_SIGN
    assert [e["sender"] for e in signs] == [s for s in range(players) if s != walker]
    # The settlement is the sheet after the countersigned hand with the walker's charge on it, and sums to zero.
    assert settlement["body"]["hands"] == 1
    assert sum(amounts(docs[-1]).values()) == 0
    assert [amounts(docs[-1])[n] for n in src.spec.players] == list(result.settlement.amounts)
    assert result.sheet == src.players[0]._before[0].apply(abort_penalty(convention, walker, players))
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]
    assert any(f"player p{walker} charged" in note and "void" in note for note in report.notes)


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_refusal_that_frames_an_honest_seat_charges_the_refuser(cell: tuple[str, int]) -> None:
    name, players = cell
    framer = players - 1
    src = table(get_convention(name), players, framer, Framer)
    docs, _ = evening(src)
    assert docs[-1]["messages"][0]["body"]["charged"] == [framer]
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]
    assert any(f"player p{framer} charged" in note for note in report.notes)
    assert not any("p0 charged" in note for note in report.notes)


def test_a_service_that_charges_the_framed_seat_is_refused_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import fairdeal.protocols.commit_reveal4.source as source

    real = end_charge
    monkeypatch.setattr(
        source, "end_charge", lambda roster, segment, judge: [0] if real(roster, segment, judge) else []
    )
    src = table(get_convention("sochi"), 3, 2, Framer)
    with pytest.raises(RefusedHand) as refused:
        evening(src)
    refusal = refused.value.document["messages"][-1]
    assert refusal["kind"] == m.REFUSAL and refusal["sender"] == 1 and refusal["body"]["check"] == "end"


def forge_settlement(doc: dict[str, Any], end: dict[str, Any], signers: Sequence[int]) -> None:
    """Replace a settlement document's messages with ``end``, the same settlement and ``signers``' countersignatures,
    every one validly signed: what a service colluding with those seats could publish."""
    roster = Roster.from_json(doc["roster"], "$.roster")
    keys: dict[Any, IdentityKey] = {SERVICE: key("s"), **{i: key(f"p{i}") for i in range(len(roster.seats))}}
    ctx = Context(roster.table, roster.session, 0, roster.hash)
    settlement = next(e for e in doc["messages"] if e["kind"] == m.SETTLEMENT)
    sealed = [seal(keys[SERVICE], ctx, SERVICE, m.END, end, doc["messages"][0]["prev"])]
    sealed.append(seal(keys[SERVICE], ctx, SERVICE, m.SETTLEMENT, settlement["body"], sealed[-1].digest))
    closing = sealed[-1].digest
    for seat in signers:
        sealed.append(seal(keys[seat], ctx, seat, m.SETTLEMENT_SIGN, {"settlement": closing}, sealed[-1].digest))
    doc["messages"] = [e.to_json() for e in sealed]


def test_verify_puts_the_charge_on_the_proved_party_even_if_every_signer_agrees() -> None:
    convention = get_convention("sochi")
    src = table(convention, 3, 2, Framer)
    docs, _ = evening(src)
    framed = copy.deepcopy(docs)
    end = framed[-1]["messages"][0]["body"]
    # Charge p0 (named by the refusal) instead of p2; p1 and p2 sign it: every signature holds.
    forge_settlement(framed[-1], dict(end, charged=[0]), [1, 2])
    report = verify(framed)
    assert ("service", "end") in blamed(report)
    assert {f.party for f in report.failures} == {"service", "player p2"}  # the framer, never the framed p0
    # And an end that charges no one for a walk-away, signed by all: the same.
    walked, _ = evening(table(convention, 3, 1, WalksAway))
    forge_settlement(walked[-1], dict(walked[-1]["messages"][0]["body"], charged=[]), [0, 1, 2])
    assert ("service", "end") in blamed(verify(walked))


def test_a_service_that_drops_a_countersignature_and_blames_the_seat_is_named() -> None:
    # Every seat countersigned hand 2; the service drops p1's and claims p1 walked away.
    convention = get_convention("sochi")
    src = table(convention, 3, 0, Player)
    docs, _ = evening(src, hands=2)
    walked = table(convention, 3, 1, WalksAway)
    ended_docs, _ = evening(walked, hands=2)
    forged = copy.deepcopy(docs[:2]) + [copy.deepcopy(ended_docs[-1])]
    forged[1]["messages"] = [e for e in forged[1]["messages"] if not (e["kind"] == m.RECORD_SIGN and e["sender"] == 1)]
    report = verify(forged)
    assert report.failures and all(f.party == "service" for f in report.failures)
    assert ("service", "chain link") in blamed(report)


def test_an_end_needs_the_hand_it_voids_and_the_settlement_it_closes() -> None:
    src = table(get_convention("sochi"), 3, 1, WalksAway)
    docs, _ = evening(src)
    without_hand = verify([docs[0], docs[-1]])
    assert ("service", "session length") in blamed(without_hand)
    without_settlement = verify(docs[:-1])
    assert ("player p1", "missing record-sign") in blamed(without_settlement)


def test_an_honest_player_refuses_an_end_that_omits_the_charge(monkeypatch: pytest.MonkeyPatch) -> None:
    import fairdeal.protocols.commit_reveal4.source as source

    monkeypatch.setattr(source, "end_charge", lambda roster, segment, judge: [])
    src = table(get_convention("leningrad"), 4, 3, WalksAway)
    with pytest.raises(RefusedHand) as refused:
        evening(src)
    refusal = refused.value.document["messages"][-1]
    assert refusal["kind"] == m.REFUSAL and refusal["sender"] == 0 and refusal["body"]["check"] == "end"


def ended_log(tmp_path: Path, seat: int, kind: type[Player]) -> Path:
    src = table(get_convention("sochi"), 3, seat, kind)
    _deal_evening(src, src.spec, "commit-reveal", tmp_path)
    return tmp_path / "evening.log"


def test_the_log_of_an_ended_evening_verifies_with_its_settlement_line(tmp_path: Path) -> None:
    log = ended_log(tmp_path, 1, WalksAway)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["table", "hand", "end"]
    charge = [line.to_record() for line in abort_penalty(get_convention("sochi"), 1, 3)]
    assert lines[-1]["penalty"] == charge
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]
    recount = sheet_from_log(log)
    assert recount.problems == ()
    assert [float(a) for a in recount.settlement.amounts] == list(lines[-1]["settlement"].values())
    assert check_legality(log).findings == ()


def test_a_truncated_or_altered_log_after_an_end_fails(tmp_path: Path) -> None:
    log = ended_log(tmp_path, 1, WalksAway)
    folder = tmp_path / "evening.log.transcripts"
    text = log.read_text().splitlines()
    log.write_text("\n".join(text[:-1]) + "\n")  # the end line cut off
    assert ("record", "game log") in blamed(verify_log(log))
    end = json.loads(text[-1])
    log.write_text("\n".join([*text[:-1], json.dumps(dict(end, penalty=[dict(end["penalty"][0], seat=0)]))]) + "\n")
    assert ("record", "end penalty") in blamed(verify_log(log))
    log.write_text("\n".join(text) + "\n")
    (folder / "hand-0002.json").unlink()  # the voided hand, the end's evidence, dropped
    assert ("service", "session length") in blamed(verify_log(log))
    (folder / "settlement.json").unlink()
    assert ("service", "settlement") in blamed(verify_log(log))


def test_a_refusal_with_cause_charges_no_honest_seat() -> None:
    # The service publishes a record that does not replay: the first seat refuses with cause. Verify names the
    # record, not the refuser; the next honest seat will not sign an end that charges the refuser.
    convention = get_convention("sochi")
    names = ("p0", "p1", "p2")
    spec = TableSpec("club", "night", 2, names, convention)
    src = fixed_source(spec, b"\x07" * 32, "end", None)
    bots = [HeuristicBot() for _ in names]
    honest = fixed_source(spec, b"\x07" * 32, "end", None)
    play_match(convention, names, bots, source=honest, max_hands=1)
    record = next(e["body"]["record"] for e in honest.transcripts[0]["messages"] if e["kind"] == m.CLOSE)
    src.deal(1, 0)
    with pytest.raises(RefusedHand):
        src.finish(1, dict(record, score=[]))  # the score lines dropped
    assert src.ended is not None and src.ended["messages"][-1]["kind"] == m.REFUSAL
    alone = verify([src.ended])
    assert not any(f.party == "player p0" for f in alone.failures)
    assert ("record", "score") in blamed(alone)
    with pytest.raises(RefusedHand) as refused:
        src.close([Fraction(0)] * 3)
    last = refused.value.document["messages"][-1]
    assert last["kind"] == m.REFUSAL and last["sender"] == 1 and last["body"]["check"] == "end"


class AskedTwice(Player):
    """Every request comes twice with the same messages shown, as after a relay lost the answer (a restart): the
    second answer must be the first envelope again, never a refusal or a second, different signature."""

    def _twice(self, answer: Callable[[], Envelope]) -> Envelope:
        first, again = answer(), answer()
        assert again == first and again.kind != m.REFUSAL
        return again

    def accept_session(self, shown: Sequence[Envelope]) -> Envelope:
        return self._twice(lambda: super(AskedTwice, self).accept_session(shown))

    def commit(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        return self._twice(lambda: super(AskedTwice, self).commit(hand, shown, deadline))

    def reveal(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        return self._twice(lambda: super(AskedTwice, self).reveal(hand, shown, deadline))

    def countersign(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        return self._twice(lambda: super(AskedTwice, self).countersign(hand, shown, deadline))

    def sign_settlement(self, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        return self._twice(lambda: super(AskedTwice, self).sign_settlement(shown, deadline))


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_request_asked_again_gets_the_same_answer(cell: tuple[str, int]) -> None:
    name, players = cell
    src = table(get_convention(name), players, players - 1, AskedTwice)
    docs, _ = evening(src)
    assert src.ended is None
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]


class NeverCommits(Player):
    """Reads every message of hand ``at`` but commits to no seed in any attempt (walks away from the opening)."""

    at = 2

    def commit(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:  # type: ignore[override]
        if hand != self.at:
            return super().commit(hand, shown, deadline)
        self._accept_all(shown, hand)
        return None


class NoSettlementSign(Player):
    """Plays every hand, then never countersigns the settlement (gone at the last step)."""

    def sign_settlement(self, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:  # type: ignore[override]
        return None


def signers(doc: dict[str, Any]) -> list[int]:
    return [e["sender"] for e in doc["messages"] if e["kind"] == m.SETTLEMENT_SIGN]


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_an_opening_aborted_to_the_last_attempt_ends_the_evening_on_every_system(cell: tuple[str, int]) -> None:
    name, players = cell
    convention = get_convention(name)
    src = table(convention, players, 0, NeverCommits)  # seat 0: the others never commit in that hand either
    docs, result = evening(src)
    assert len(src.transcripts) == 1 and src.ended is not None and src.ended["hand"] == 2
    aborts = [e for e in src.ended["messages"] if e["kind"] == m.ABORT]
    assert [(a["body"]["attempt"], a["body"]["missing"]) for a in aborts] == [(0, [0]), (1, [0]), (2, [0])]
    end, settlement, *_ = docs[-1]["messages"]
    assert end["body"] == {"hand": 2, "step": m.ABORT, "charged": [0, 0, 0], "evidence": parse(aborts[-1]).digest}
    assert signers(docs[-1]) == list(range(1, players))
    # Every abort is charged, as the hand's penalty would have charged it, after the countersigned hand.
    charge = abort_penalty(convention, 0, players) * 3
    assert result.sheet == src.players[1].sheet.apply(charge)
    assert [amounts(docs[-1])[n] for n in src.spec.players] == list(result.settlement.amounts)
    assert settlement["body"]["hands"] == 1 and sum(amounts(docs[-1]).values()) == 0
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]
    assert any("aborted 3 times" in note and "void" in note and "player p0 charged" in note for note in report.notes)


def test_aborts_of_different_seats_charge_each_and_neither_signs() -> None:
    class Flaky(Player):
        def commit(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:  # type: ignore[override]
            self._accept_all(shown, hand)
            attempt = sum(1 for e in self.chain if e.kind == m.ABORT and e.hand == hand)
            return None if (hand, attempt, self.seat) in {(1, 0, 2), (1, 2, 2)} else super().commit(hand, [], deadline)

        def reveal(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:  # type: ignore[override]
            self._accept_all(shown, hand)
            attempt = sum(1 for e in self.chain if e.kind == m.ABORT and e.hand == hand)
            return None if (hand, attempt, self.seat) == (1, 1, 0) else super().reveal(hand, [], deadline)

    convention = get_convention("leningrad")
    src = table(convention, 4, 0, Flaky)
    src.players[2] = table(convention, 4, 2, Flaky).players[2]
    docs, result = evening(src)
    end = docs[-1]["messages"][0]["body"]
    assert (end["hand"], end["step"], end["charged"]) == (1, m.ABORT, [2, 0, 2]) and src.transcripts == []
    assert signers(docs[-1]) == [1, 3]
    charge = [*abort_penalty(convention, 2, 4), *abort_penalty(convention, 0, 4), *abort_penalty(convention, 2, 4)]
    assert result.sheet == src.players[1].sheet.apply(charge)
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_an_end_before_the_last_attempt_or_charging_another_seat_is_refused(
    monkeypatch: pytest.MonkeyPatch, cell: tuple[str, int]
) -> None:
    import fairdeal.protocols.commit_reveal4.source as source

    name, players = cell
    walker = players - 1
    monkeypatch.setattr(source, "MAX_ATTEMPTS", 1)  # the service ends after one abort: the walker's escape
    with pytest.raises(RefusedHand) as refused:
        evening(table(get_convention(name), players, walker, NeverCommits))
    refusal = refused.value.document["messages"][-1]
    assert (refusal["kind"], refusal["sender"], refusal["body"]["check"]) == (m.REFUSAL, 0, "end")
    assert "dealt again" in refusal["body"]["reason"]
    monkeypatch.undo()
    monkeypatch.setattr(source, "end_charge", lambda roster, messages, judge: [0, 0, 0])  # seat 0 framed
    with pytest.raises(RefusedHand) as refused:
        evening(table(get_convention(name), players, walker, NeverCommits))
    refusal = refused.value.document["messages"][-1]
    assert (refusal["kind"], refusal["sender"], refusal["body"]["check"]) == (m.REFUSAL, 1, "end")


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_verify_holds_an_abort_end_to_the_aborts_even_if_every_signer_agrees(cell: tuple[str, int]) -> None:
    name, players = cell
    walker = players - 1
    docs, _ = evening(table(get_convention(name), players, walker, NeverCommits))
    assert verify(docs).ok
    body = docs[-1]["messages"][0]["body"]
    for charged in ([], [walker], [0, 0, 0], [walker] * 4):
        forged = copy.deepcopy(docs)
        forge_settlement(forged[-1], dict(body, charged=charged), [s for s in range(players) if s not in charged])
        report = verify(forged)
        assert ("service", "end") in blamed(report), charged
        assert all(f.party in ("service", f"player p{walker}") for f in report.failures), charged
    # An end cut after the first abort: the hand is dealt again, not ended, whoever signs.
    cut = copy.deepcopy(docs)
    messages = cut[1]["messages"]
    first = next(i for i, e in enumerate(messages) if e["kind"] == m.ABORT)
    cut[1]["messages"] = messages[: first + 1]
    others = [s for s in range(players) if s != walker]
    forge_settlement(cut[-1], dict(body, charged=[walker], evidence=parse(messages[first]).digest), others)
    assert ("service", "end") in blamed(verify(cut))


def test_the_log_of_an_evening_aborted_in_its_first_hand_verifies(tmp_path: Path) -> None:
    src = table(get_convention("sochi"), 3, 1, NeverCommits)
    NeverCommits.at = 1
    try:
        _deal_evening(src, src.spec, "commit-reveal", tmp_path)
    finally:
        NeverCommits.at = 2
    log = tmp_path / "evening.log"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["table", "end"]
    assert lines[-1]["penalty"] == [line.to_record() for line in abort_penalty(get_convention("sochi"), 1, 3) * 3]
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]
    assert [float(a) for a in sheet_from_log(log).settlement.amounts] == list(lines[-1]["settlement"].values())


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_seat_gone_at_the_settlement_leaves_it_standing_on_every_system(cell: tuple[str, int]) -> None:
    name, players = cell
    gone = players - 1 if players % 2 else 0
    src = table(get_convention(name), players, gone, NoSettlementSign, hands=2)
    docs, result = evening(src, hands=2)
    assert src.ended is None and src.unsigned == [gone]
    assert signers(docs[-1]) == [s for s in range(players) if s != gone]
    assert [amounts(docs[-1])[n] for n in src.spec.players] == list(result.settlement.amounts)
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]
    assert any(f"player p{gone} did not countersign the settlement" in note for note in report.notes)


def test_a_seat_gone_at_the_settlement_after_an_end(tmp_path: Path) -> None:
    src = table(get_convention("sochi"), 3, 1, WalksAway)
    gone = NoSettlementSign.__new__(NoSettlementSign)
    gone.__dict__.update(src.players[2].__dict__)
    src.players[2] = gone
    _deal_evening(src, src.spec, "commit-reveal", tmp_path)
    settlement = json.loads((tmp_path / "evening.log.transcripts" / "settlement.json").read_text())
    assert settlement["messages"][0]["body"]["charged"] == [1] and signers(settlement) == [0]
    report = verify_log(tmp_path / "evening.log")
    assert report.ok, [f.line() for f in report.failures]
    assert any("player p2 did not countersign the settlement" in note for note in report.notes)


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_dropped_settlement_countersignature_is_the_relay_s_and_costs_no_one(cell: tuple[str, int]) -> None:
    name, players = cell
    docs, _ = evening(table(get_convention(name), players, 0, Player), hands=2)
    # A countersignature dropped before another: the later one chains to it, and the relay is named.
    first = copy.deepcopy(docs)
    first[-1]["messages"] = [
        e for e in first[-1]["messages"] if not (e["kind"] == m.SETTLEMENT_SIGN and e["sender"] == 0)
    ]
    assert blamed(verify(first)) == {("service", "chain link")}
    # The last one dropped: indistinguishable from an absent seat (the spec's relay limit), so it must cost nothing:
    # the amounts stand as the replayed sheet, and the seat is named only as absent-or-dropped.
    last = copy.deepcopy(docs)
    last[-1]["messages"] = last[-1]["messages"][:-1]
    report = verify(last)
    gone = f"player p{players - 1} did not countersign"
    assert report.ok and any(gone in n and "dropped by the relay" in n for n in report.notes)
    assert amounts(last[-1]) == amounts(docs[-1])
    # Out of seat order or twice: the grammar or the chain names the service.
    swapped = copy.deepcopy(docs)
    head, one, two, *rest = swapped[-1]["messages"]
    swapped[-1]["messages"] = [head, two, one, *rest]
    twice = copy.deepcopy(docs)
    twice[-1]["messages"].append(twice[-1]["messages"][-1])
    for mutated in (swapped, twice):
        report = verify(mutated)
        assert report.failures and {f.party for f in report.failures} == {"service"}
