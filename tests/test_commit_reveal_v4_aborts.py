"""Aborts with consequences in fairdeal-commit-reveal/4 (issue 13): the absent seat, proved by the signed request
its answer is missing after, is charged the convention's penalty on the sheet, for every registered system and
table size; verify accepts the charge only on the seat the evidence proves absent, and an honest player refuses to
countersign any other."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from commit_reveal_parties import TABLES, Silent, fixed_source, key

from fairdeal.audit.legality import check_legality
from fairdeal.cli import cli
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.engine.recount import sheet_from_log
from fairdeal.engine.scoring import abort_penalty, penalty_lines
from fairdeal.engine.sheet import ScoreLine
from fairdeal.errors import ScoringError
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4 import parties, source
from fairdeal.protocols.commit_reveal4.parties import Player
from fairdeal.protocols.commit_reveal4.source import STEP_TIMEOUTS, CommitRevealSource4, RefusedHand
from fairdeal.protocols.signed import SERVICE, Context, Envelope, parse, seal
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents, verify_log
from fairdeal.rules.convention import Convention
from fairdeal.systems import get_convention, rebuild_convention


def table(convention: Convention, players: int, silent: int, step: str, hands: int = 2) -> CommitRevealSource4:
    names = tuple(f"p{i}" for i in range(players))
    spec = TableSpec("club", "night", hands, names, convention)
    src = fixed_source(spec, b"\x09" * 32, "ab")
    src.players[silent] = Silent(src.players[silent], 1, step)
    return src


def evening(src: CommitRevealSource4, hands: int = 2, log: Path | None = None) -> list[dict[str, Any]]:
    bots = [HeuristicBot() for _ in src.players]
    result = play_match(src.spec.convention, src.spec.players, bots, source=src, max_hands=hands, log=log)
    return [*copy.deepcopy(src.transcripts), src.close(result.settlement.amounts)]


def verify(docs: Sequence[Mapping[str, Any]]) -> Report:
    return verify_documents([(f"doc{i}", d) for i, d in enumerate(docs)])


def record_of(doc: dict[str, Any]) -> dict[str, Any]:
    return next(e["body"]["record"] for e in doc["messages"] if e["kind"] == m.CLOSE)


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_the_absent_seat_alone_is_charged_on_every_system(cell: tuple[str, int]) -> None:
    name, players = cell
    convention = get_convention(name)
    silent = players - 1
    lines = abort_penalty(convention, silent, players)
    assert lines and all(line.points > 0 for line in lines)
    assert all((line.seat, line.column) == (silent, "gora") or line.on == silent for line in lines)
    src = table(convention, players, silent, m.REVEAL, hands=1)
    docs = evening(src, hands=1)
    assert record_of(docs[0])["penalty"] == [line.to_record() for line in lines]
    report = verify(docs)
    assert report.ok, [f.line() for f in report.failures]
    assert any(f"player p{silent} charged" in note for note in report.notes)


def test_the_penalty_is_on_the_sheet_the_settlement_and_the_log(tmp_path: Path) -> None:
    convention = get_convention("sochi")
    honest_src = table(convention, 3, 1, "never")
    honest = evening(honest_src)
    src = table(convention, 3, 1, m.COMMIT)
    log = tmp_path / "evening.log"
    docs = evening(src, log=log)
    gora = abort_penalty(convention, 1, 3)[0].points
    assert gora == convention.scoring.value(6)
    assert [s.points for s in penalty_lines(record_of(docs[0])["penalty"], 3)] == [gora]
    assert "penalty" not in record_of(honest[0])
    recount = sheet_from_log(log)
    assert recount.problems == ()
    assert recount.sheet.gora[1] >= gora
    assert check_legality(log).findings == ()
    settlement = next(e for e in docs[-1]["messages"] if e["kind"] == m.SETTLEMENT)
    assert sum(Fraction(v) for v in settlement["body"]["amounts"].values()) == 0
    assert verify(docs).ok


def test_verify_refuses_a_charge_on_a_seat_the_evidence_does_not_prove_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    # Service and every player collude to charge seat 0 for seat 1's absence: the signatures all hold.
    def framed(convention: Convention, absent: int, num_seats: int) -> tuple[ScoreLine, ...]:
        return abort_penalty(convention, 0, num_seats)

    def framed_records(convention: Convention, num_seats: int, absent: Sequence[int]) -> list[dict[str, Any]]:
        return [line.to_record() for _ in absent for line in framed(convention, 0, num_seats)]

    monkeypatch.setattr(source, "abort_penalty", framed)
    monkeypatch.setattr(parties, "expected_penalty", framed_records)
    docs = evening(table(get_convention("sochi"), 3, 1, m.REVEAL))
    report = verify(docs)
    assert ("record", "abort penalty") in {(f.party, f.check) for f in report.failures}
    assert not any(f.party.startswith("player ") for f in report.failures)


def test_verify_refuses_an_abort_that_goes_uncharged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "abort_penalty", lambda convention, absent, num_seats: ())
    monkeypatch.setattr(parties, "expected_penalty", lambda convention, num_seats, absent: [])
    report = verify(evening(table(get_convention("leningrad"), 4, 2, m.COMMIT)))
    assert ("record", "abort penalty") in {(f.party, f.check) for f in report.failures}


def test_an_honest_player_refuses_to_countersign_a_misplaced_charge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "abort_penalty", lambda convention, absent, num_seats: abort_penalty(convention, 0, 3))
    src = table(get_convention("sochi"), 3, 1, m.REVEAL)
    with pytest.raises(RefusedHand) as refused:
        evening(src)
    assert src.ended is not None
    refusal = src.ended["messages"][-1]
    assert refusal["kind"] == m.REFUSAL and refusal["body"]["check"] == "abort penalty"
    # The service then charges the refuser, whose refusal was founded: the next honest player will not sign that.
    last = refused.value.document["messages"][-1]
    assert last["kind"] == m.REFUSAL and last["sender"] == 1 and last["body"]["check"] == "end"


def test_a_house_rule_sets_the_charge_and_zero_charges_nothing() -> None:
    double = rebuild_convention("sochi", {"scoring.abort_penalty_undertricks": 2}, 20)
    assert abort_penalty(double, 0, 3)[0].points == 2 * double.scoring.value(6)
    free = rebuild_convention("sochi", {"scoring.abort_penalty_undertricks": 0}, 20)
    assert abort_penalty(free, 0, 3) == ()
    docs = evening(table(free, 3, 0, m.COMMIT))
    assert "penalty" not in record_of(docs[0]) and verify(docs).ok


@pytest.mark.parametrize(
    "bad",
    [
        {"seat": 3, "column": "gora", "points": 1},
        {"seat": 0, "column": "whists", "points": 1},
        {"seat": 0, "column": "whists", "points": 1, "on": 0},
        {"seat": 0, "column": "gora", "points": True},
        {"seat": 0, "column": "gora", "points": float("inf")},
        {"seat": 1.0, "column": "gora", "points": 1},
        {"seat": 0, "column": "gora", "points": 1, "x": 1},
        "gora",
    ],
)
def test_a_malformed_penalty_is_one_clear_error(bad: Any) -> None:
    with pytest.raises(ScoringError, match=r"penalty\[0\]"):
        penalty_lines([bad], 3)


def test_verify_of_the_written_evening_with_an_abort(tmp_path: Path) -> None:
    from fairdeal.protocols.commit_reveal4.source import SETTLEMENT_FILE

    src = table(get_convention("rostov"), 3, 2, m.REVEAL)
    log = tmp_path / "evening.log"
    docs = evening(src, log=log)
    src.write_transcript(docs[-1], Path(f"{log}.transcripts") / SETTLEMENT_FILE)
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]


# --- the service leaves no choice: its seed is fixed first, an optional public beacon is mixed in -----------------

BEACON = "ab" * 32


def test_a_beacon_given_to_deal_is_mixed_in_and_pinned_by_verify(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "out"
    args = ["deal", "--hands", "2", "--seed", "7", "--out", str(out)]
    assert runner.invoke(cli, [*args, "--beacon", BEACON]).exit_code == 0
    plain = tmp_path / "plain"
    assert runner.invoke(cli, ["deal", "--hands", "2", "--seed", "7", "--out", str(plain)]).exit_code == 0
    mixed = json.loads((out / "evening.log.transcripts" / "hand-0001.json").read_text())
    unmixed = json.loads((plain / "evening.log.transcripts" / "hand-0001.json").read_text())
    head = next(e for e in mixed["messages"] if e["kind"] == m.HAND_OPEN)
    assert head["body"]["beacon"] == BEACON
    close = [next(e for e in d["messages"] if e["kind"] == m.CLOSE) for d in (mixed, unmixed)]
    assert close[0]["body"]["deck_order"] != close[1]["body"]["deck_order"]  # same seeds, another deck
    log = str(out / "evening.log")
    assert runner.invoke(cli, ["verify", "--log", log, "--beacon", BEACON]).exit_code == 0
    wrong = runner.invoke(cli, ["verify", "--log", log, "--beacon", "cd" * 32])
    assert wrong.exit_code == 1 and "service: beacon pin" in wrong.output
    none = runner.invoke(cli, ["verify", "--log", str(plain / "evening.log"), "--beacon", BEACON])
    assert none.exit_code == 1 and "service: beacon pin" in none.output
    assert runner.invoke(cli, ["verify", "--log", str(plain / "evening.log")]).exit_code == 0  # null stays allowed


@pytest.mark.parametrize("bad", ["ab", "zz" * 32, "ab" * 33])
def test_a_malformed_beacon_is_a_usage_error(tmp_path: Path, bad: str) -> None:
    runner = CliRunner()
    dealt = runner.invoke(cli, ["deal", "--hands", "1", "--out", str(tmp_path / "o"), "--beacon", bad])
    assert dealt.exit_code == 2 and "--beacon" in dealt.output and "Traceback" not in dealt.output
    checked = runner.invoke(cli, ["verify", "--beacon", bad, str(tmp_path / "x.json")])
    assert checked.exit_code == 2 and "64 hex digits" in checked.output
    poker = ["deal", "--protocol", "mental-poker", "--hands", "1", "--out", str(tmp_path / "p"), "--beacon", BEACON]
    assert runner.invoke(cli, poker).exit_code == 2


def test_a_beacon_the_service_swaps_after_the_seeds_does_not_verify() -> None:
    # The service re-signs its hand-open with another beacon once it has seen the seeds: every player's
    # commitment chains to the original hand-open, so the swap breaks the chain and is the service's.
    src = table(get_convention("sochi"), 3, 0, "never", hands=1)
    src.beacon = bytes.fromhex(BEACON)
    docs = evening(src, hands=1)
    doc = copy.deepcopy(docs[0])
    head = parse(doc["messages"][0])
    body = dict(head.body, beacon="cd" * 32)
    doc["messages"][0] = seal(
        key("s"), Context("club", "night", 1, src.roster.hash), SERVICE, m.HAND_OPEN, body, head.prev
    ).to_json()
    report = verify([doc, docs[1]])
    assert {f.party for f in report.failures} == {"service"}


def test_the_service_seed_is_fixed_before_any_player_commits() -> None:
    # The anchor the players accept in the opening fixes every service seed: a hand-open with another
    # commitment is refused by the honest player before it commits anything.
    src = table(get_convention("sochi"), 3, 0, "never", hands=2)
    opening = next(e for e in src.opening if e.kind == m.OPEN)
    assert src.opening.index(opening) == 0 and all(e.kind == m.ACCEPT for e in src.opening[1:])
    links = src.service.session.build_chain(b"\x01" * 32, 2)
    forged = seal(
        key("s"),
        Context("club", "night", 1, src.roster.hash),
        SERVICE,
        m.HAND_OPEN,
        {"attempt": 0, "dealer": 0, "commitment": links[0].hex(), "beacon": None},
        src.opening[-1].digest,
    )
    answer = src.players[0].commit(1, [*src._log, forged])
    assert answer.kind == m.REFUSAL and answer.body["check"] == "commitment"


# --- timeouts and truncated sessions ------------------------------------------------------------------------------


class Slow(Player):
    """Answers its first commitment request of hand 1 just past the step's time."""

    def __init__(self, player: Player):
        self.__dict__.update(player.__dict__)
        self._slept = False

    def commit(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        if hand == 1 and not self._slept:
            assert deadline is not None
            self._slept = True
            time.sleep(deadline - time.monotonic() + 0.05)
        return super().commit(hand, shown, deadline)


def test_a_seat_past_its_step_time_is_absent_and_charged() -> None:
    names = ("p0", "p1", "p2")
    spec = TableSpec("club", "night", 1, names, get_convention("sochi"))
    timeouts = dict(STEP_TIMEOUTS, **{m.COMMIT: 1.0})
    src = fixed_source(spec, b"\x09" * 32, "ab", timeouts)
    src.players[1] = Slow(src.players[1])
    docs = evening(src, hands=1)
    aborts = [e for e in docs[0]["messages"] if e["kind"] == m.ABORT]
    assert [a["body"]["missing"] for a in aborts] == [[1]] and a_step(aborts[0]) == m.COMMIT
    assert record_of(docs[0])["penalty"] == [line.to_record() for line in abort_penalty(spec.convention, 1, 3)]
    time.sleep(0.2)  # the slow seat has woken, seen it is too late and sent nothing: its state is unchanged
    mine = [e for e in src.players[1].chain if (e.sender, e.kind, e.hand) == (1, m.COMMIT, 1)]
    assert [e.body["attempt"] for e in mine] == [1]
    assert verify(docs).ok


def a_step(abort: dict[str, Any]) -> str:
    return str(abort["body"]["step"])


class NoCountersign(Player):
    def countersign(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        assert deadline is not None
        time.sleep(deadline - time.monotonic() + 0.05)  # just late, however long the honest seats may take
        return super().countersign(hand, shown, deadline)


def test_a_countersignature_past_its_time_ends_the_evening_and_charges_the_seat() -> None:
    names = ("p0", "p1", "p2")
    spec = TableSpec("club", "night", 2, names, get_convention("sochi"))
    timeouts = dict(STEP_TIMEOUTS, **{m.RECORD_SIGN: 1.0})
    src = fixed_source(spec, b"\x09" * 32, "ab", timeouts)
    late = NoCountersign.__new__(NoCountersign)
    late.__dict__.update(src.players[2].__dict__)
    src.players[2] = late
    docs = evening(src, hands=2)
    assert src.ended is not None and docs[-1]["messages"][0]["body"]["charged"] == [2]
    assert [(f.party, f.check) for f in verify([src.ended]).failures] == [("player p2", "missing record-sign")]
    ended = verify([src.ended, docs[-1]])
    assert ended.ok and any("player p2 charged" in note for note in ended.notes)


def test_a_truncated_session_cannot_be_healed_by_the_service() -> None:
    # The service drops the last hand and signs a settlement of the hands left: the players' countersignatures
    # name the settlement they signed, so the healed one fails, and no honest player is blamed.
    src = table(get_convention("sochi"), 3, 0, "never", hands=3)
    docs = evening(src, hands=3)
    honest = verify(docs)
    assert honest.ok
    healed = [copy.deepcopy(d) for d in docs[:-2]]
    settlement = copy.deepcopy(docs[-1])
    head = parse(settlement["messages"][0])
    replay = verify(healed).notes
    assert replay is not None
    body = dict(head.body, hands=len(healed))
    ctx = Context("club", "night", 0, src.roster.hash)
    last = parse(healed[-1]["messages"][-1]).digest
    settlement["messages"][0] = seal(key("s"), ctx, SERVICE, m.SETTLEMENT, body, last).to_json()
    report = verify([*healed, settlement])
    assert not report.ok
    assert all(not f.party.startswith("player ") for f in report.failures), [f.line() for f in report.failures]
    without = copy.deepcopy(settlement)
    without["messages"] = without["messages"][:1]  # the countersignatures dropped too: a note, and still no cover
    dropped = verify([*healed, without])
    assert not dropped.ok and ("service", "settlement") in {(f.party, f.check) for f in dropped.failures}
    cut = verify(docs[:-2])  # no settlement at all: never "ok" for a log, a note for transcripts
    assert any("no signed settlement" in n for n in cut.notes)
