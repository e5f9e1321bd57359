"""The offline page judges an ended mental-poker evening (issue 14) as ``fairdeal verify --log`` does: the voided
hand after the last one the log cites, the end it proves, the settlement every other seat signed with that end
and the log's end penalty; and a commit-reveal evening that ended in its first hand (no hand line). Real evenings
made by the Python parties, honest and forged, each judged by both with the same parties and checks."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mental_poker_parties import SwappedShares
from test_mental_poker_v4_end import Paranoid, StopsPlaying
from test_verifier_page import NODE, node, run_batch, verdicts_in_chromium

from fairdeal.cli.dealing import _deal_evening
from fairdeal.engine.system import rebuild_convention
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.mental_poker.player import Player, Unresponsive
from fairdeal.protocols.mental_poker.source import MentalPokerSource
from fairdeal.protocols.mental_poker.statements import SETTLEMENT, sign_settlement
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_log
from fairdeal.rules.convention import Convention
from fairdeal.systems import get_convention

pytestmark = pytest.mark.skipif(NODE is None, reason="node is needed to run the page's JavaScript")


class StopsAfterHandOne(StopsPlaying):
    """Plays hand 1, then walks away at his first card: the log cites the hands before the voided one."""

    def play(self, card: int) -> Any:
        return super().play(card) if self.setup.context.hand >= 2 else Player.play(self, card)


class NeverSendsKeys(Player):
    """Walks away from every opening of the first hand: after the third aborted attempt the evening ends."""

    def keys(self) -> Any:
        raise Unresponsive()


def _ended(folder: Path, convention: Convention, players: int, who: str, kind: type[Player]) -> MentalPokerSource:
    names = ("ann", "bob", "cyd", "dan")[:players]
    spec = TableSpec("club", "friday", 40, names, convention)
    source = MentalPokerSource(spec, make_player=lambda setup, name: (kind if name == who else Player)(setup, name))
    folder.mkdir(parents=True)
    _deal_evening(source, spec, "mental-poker", folder)
    assert source.end is not None and source.end["charged"] == [who]
    return source


def _files(folder: Path) -> list[str]:
    return [str(folder / "evening.log"), *sorted(str(p) for p in (folder / "evening.log.transcripts").iterdir())]


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


def _log_lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "evening.log").read_text().splitlines()]


def _write_end(folder: Path, **change: Any) -> None:
    lines = _log_lines(folder)
    lines[-1] = dict(lines[-1], **change)
    (folder / "evening.log").write_text("".join(json.dumps(line) + "\n" for line in lines))


def _resign(folder: Path, source: MentalPokerSource, signers: Sequence[str], **change: Any) -> None:
    """The settlement re-signed by ``signers`` with ``change`` in its body (``prev`` follows ``last``): what
    colluding players could publish."""
    path = folder / "evening.log.transcripts" / "settlement.json"
    doc = decode(path.read_bytes())
    first = signed.parse(doc["statements"][0])
    body = dict(first.body, **change)
    seating = source.seating
    assert seating is not None
    names = list(source.spec.players)
    doc["statements"] = [
        signed.seal(
            source.identities[name], seating.context(0), names.index(name), SETTLEMENT, body, body["last"]
        ).to_json()
        for name in signers
    ]
    path.write_bytes(encode(doc))


def _blamed(report: Report) -> set[tuple[str, str]]:
    return {(f.party, f.check) for f in report.failures}


@pytest.fixture(scope="module")
def evenings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, MentalPokerSource]]:
    """One of each real end, made once: bob walks away at his first card (in sochi after hand 1; in hussar, whose
    penalty is whists on the walker), cyd never sends his keys (three aborted openings: the log cites no hand), cyd
    refuses a sound deal, bob sends a deal with swapped shares (refused with cause)."""
    root = tmp_path_factory.mktemp("ended")
    made = {}
    for label, convention, players, who, kind in (
        ("walk-away", get_convention("sochi"), 3, "bob", StopsAfterHandOne),
        ("hussar walk-away", get_convention("hussar"), 2, "bob", StopsPlaying),
        ("three aborts", get_convention("sochi"), 3, "cyd", NeverSendsKeys),
        ("refusal without cause", get_convention("sochi"), 3, "cyd", Paranoid),
        ("refusal with cause", get_convention("sochi"), 3, "bob", SwappedShares),
    ):
        folder = root / label.replace(" ", "-")
        made[label] = folder, _ended(folder, convention, players, who, kind)
    return made


def _cases(tmp: Path, evenings: dict[str, tuple[Path, MentalPokerSource]]) -> list[tuple[str, Path]]:
    """The honest evenings, and the walk-away (or the three aborts) forged: another seat charged, a penalty of
    another amount or seat, other amounts, the voided transcript dropped, a settlement whose ``last`` points at
    the last hand the log cites instead of the voided one, the charged seat signing, a signature missing, a
    signed refusal of the honest settlement."""
    cases = [(label, folder) for label, (folder, _) in evenings.items()]
    walked, source = evenings["walk-away"]
    aborted, _ = evenings["three aborts"]
    end = dict(source.end or {})
    voided = walked / "evening.log.transcripts" / f"hand-{end['hand']:04d}.json"
    last_cited = walked / "evening.log.transcripts" / f"hand-{end['hand'] - 1:04d}.json"

    framed = _copy(walked, tmp / "framed")
    _resign(framed, source, ["bob", "cyd"], end=dict(end, charged=["ann"]))
    cases.append(("another seat charged", framed))
    penalty = _log_lines(walked)[-1]["penalty"]
    for label, items in (
        ("a penalty twice the amount", [dict(item, points=2 * item["points"]) for item in penalty]),
        ("a penalty on another seat", [dict(item, seat=0) for item in penalty]),
        ("no penalty", []),
    ):
        forged = _copy(walked, tmp / label.replace(" ", "-"))
        _write_end(forged, penalty=items)
        cases.append((label, forged))
    amounts = _copy(walked, tmp / "amounts")
    settlement = dict(_log_lines(walked)[-1]["settlement"])
    settlement["ann"], settlement["cyd"] = settlement["ann"] + 1, settlement["cyd"] - 1
    _write_end(amounts, settlement=settlement)
    cases.append(("other amounts", amounts))
    dropped = _copy(walked, tmp / "dropped")
    (dropped / "evening.log.transcripts" / voided.name).unlink()
    cases.append(("the voided transcript dropped", dropped))
    no_evidence = _copy(aborted, tmp / "no-evidence")
    (no_evidence / "evening.log.transcripts" / "hand-0001.json").unlink()
    cases.append(("three aborts without the voided transcript", no_evidence))
    elsewhere = _copy(walked, tmp / "elsewhere")
    _resign(elsewhere, source, ["ann", "cyd"], last=hashlib.sha256(last_cited.read_bytes()).hexdigest())
    cases.append(("the settlement's last on the last cited hand", elsewhere))
    own = _copy(walked, tmp / "own")
    _resign(own, source, ["ann", "bob", "cyd"])
    cases.append(("the charged seat signs his own end", own))
    missing = _copy(walked, tmp / "missing")
    _resign(missing, source, ["ann"])
    cases.append(("a signature missing", missing))
    refused = _copy(walked, tmp / "refused")
    path = refused / "evening.log.transcripts" / "settlement.json"
    doc = decode(path.read_bytes())
    assert source.seating is not None
    proposal = dict(signed.parse(doc["statements"][1]).body)
    doc["statements"][1] = sign_settlement(source.identities["cyd"], source.seating, proposal, "I do not like it")
    path.write_bytes(encode(doc))
    cases.append(("a refusal of the honest settlement", refused))
    return cases


def test_the_page_judges_ended_mental_poker_evenings_as_verify_does(
    page: Path, tmp_path: Path, evenings: dict[str, tuple[Path, MentalPokerSource]]
) -> None:
    """Both accept the honest ends (the page states the end) and name the refuser or the cheat of a refused
    hand; both refuse every forgery with the same findings, word for word."""
    cases = _cases(tmp_path, evenings)
    reports = run_batch(page, tmp_path, [{"files": _files(folder), "pins": []} for _, folder in cases])
    disagreements = []
    judged = {}
    for (label, folder), report in zip(cases, reports, strict=True):
        python = verify_log(folder / "evening.log")
        # Every finding in the same words: source, party, check and detail.
        js = sorted((f["source"], f["party"], f["check"], f["detail"]) for f in report.get("failures", []))
        expected = sorted((f.source, f.party, f.check, f.detail) for f in python.failures)
        judged[label] = (report, python)
        if "crash" in report or report["usage"] or report["ok"] != python.ok or js != expected:
            disagreements.append(f"{label}: JS {report['ok']} {js} / Python {python.ok} {expected}")
        if not python.ok and not python.failures:
            disagreements.append(f"{label}: Python refuses without a finding")
    assert not disagreements, "\n".join(disagreements)
    for label in ("walk-away", "hussar walk-away", "three aborts"):
        report, _ = judged[label]
        assert report["ok"] and report["unverified"] == [], label
        assert report["mentalPokerEnd"] == evenings[label][1].end, label  # the page states the end it judged
    assert _blamed(judged["refusal without cause"][1]) == {("player cyd", "refusal")}
    assert {party for party, _ in _blamed(judged["refusal with cause"][1])} == {"player bob"}
    for label, check in (
        ("another seat charged", "settlement end"),
        ("a penalty twice the amount", "end penalty"),
        ("a penalty on another seat", "end penalty"),
        ("no penalty", "end penalty"),
        ("other amounts", "settlement"),
        ("three aborts without the voided transcript", "settlement"),
        ("the settlement's last on the last cited hand", "settlement"),
        ("the charged seat signs his own end", "settlement end"),
        ("a signature missing", "settlement"),
    ):
        assert ("record", check) in _blamed(judged[label][1]), label
    assert not judged["the voided transcript dropped"][1].ok
    assert _blamed(judged["a refusal of the honest settlement"][1]) == {("player cyd", "settlement refusal")}


def test_a_house_rule_on_the_abort_penalty_is_computed_by_the_pages_engine(page: Path, tmp_path: Path) -> None:
    """The page carries each system's abort penalty; under a house rule that changes it, the page's engine computes
    the end's charge as verify does: the honest end is accepted, a log charging one point a line is refused with
    verify's finding. A page whose engine cannot start says plainly that it did not check the charge."""
    convention = rebuild_convention("sochi", {"scoring.abort_penalty_undertricks": 2})
    folder = tmp_path / "house"
    _ended(folder, convention, 3, "bob", StopsPlaying)
    assert verify_log(folder / "evening.log").ok
    forged = _copy(folder, tmp_path / "forged")
    _write_end(forged, penalty=[dict(item, points=1) for item in _log_lines(folder)[-1]["penalty"]])
    python = verify_log(forged / "evening.log")
    assert ("record", "end penalty") in _blamed(python)
    honest, lying = run_batch(page, tmp_path, [{"files": _files(f), "pins": []} for f in (folder, forged)])
    assert honest["ok"] and honest["failures"] == [] and honest["unverified"] == []
    assert {(f["party"], f["check"]) for f in lying["failures"]} == _blamed(python)
    without = node(page, "--no-replay", *_files(forged))
    assert without["ok"] and without["failures"] == []
    (item,) = without["unverified"]
    assert "scoring.abort_penalty_undertricks" in item and "fairdeal verify" in item


def test_a_commit_reveal_evening_ended_in_its_first_hand(page: Path, tmp_path: Path) -> None:
    """The log holds no hand line, only the end's penalty (three aborted openings of hand 1): verify accepts it,
    and so does the page; a log whose end charges another penalty than the signed end is refused by both."""
    from test_commit_reveal_v4_end import NeverCommits, table

    class FirstHand(NeverCommits):
        at = 1

    folder = tmp_path / "honest"
    folder.mkdir()
    src = table(get_convention("sochi"), 3, 1, FirstHand)
    _deal_evening(src, src.spec, "commit-reveal", folder)
    assert [line["type"] for line in _log_lines(folder)] == ["table", "end"]
    forged = _copy(folder, tmp_path / "forged")
    _write_end(forged, penalty=_log_lines(folder)[-1]["penalty"][:1])
    honest, lying = run_batch(page, tmp_path, [{"files": _files(f), "pins": []} for f in (folder, forged)])
    assert verify_log(folder / "evening.log").ok
    assert honest["ok"], honest["failures"]
    python = verify_log(forged / "evening.log")
    assert _blamed(python) == {("record", "end penalty")}
    assert sorted((f["source"], f["party"], f["check"], f["detail"]) for f in lying["failures"]) == sorted(
        (f.source, f.party, f.check, f.detail) for f in python.failures
    )


def test_chromium_shows_an_ended_mental_poker_evening(
    page: Path, tmp_path: Path, evenings: dict[str, tuple[Path, MentalPokerSource]]
) -> None:
    """Debian's headless Chromium, from file://: the walk-away's files are verified and the end is stated in
    English and Russian; the house rule's end charge is computed by the page's engine, nothing left unverified."""
    walked, source = evenings["walk-away"]
    assert source.end is not None
    house = tmp_path / "house"
    _ended(house, rebuild_convention("sochi", {"scoring.abort_penalty_undertricks": 2}), 3, "bob", StopsPlaying)
    shown, errors, _ = verdicts_in_chromium(page, [_files(walked), _files(house)])
    assert not errors, errors
    (verdict, report), (house_verdict, house_report) = shown
    assert verdict.startswith("VERIFIED"), report
    assert f"The mental-poker evening ended early at hand {source.end['hand']}" in report
    assert "prove bob at fault" in report and f"окончен досрочно на раздаче {source.end['hand']}" in report
    assert house_verdict.startswith("VERIFIED") and "not verified here" not in house_verdict, house_report
    assert "the penalty of the evening's end is not checked" not in house_report
