"""A commit-reveal settlement a seat refuses does not settle the evening (issue 13), as in mental poker: the source
raises ``SettlementRefused``, the match writes the log without its settlement line and files the refused
settlement beside the transcripts, `fairdeal deal` exits 2 naming the refuser, his reason and the file, and
`fairdeal verify --log` judges the refusal: the publisher for a founded one, ``player X: settlement refusal`` for
one without cause — on every registered system and table size."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from commit_reveal_parties import TABLES, Grudging, fixed_source
from settlement_refused_helpers import blamed as blamed_by_cli
from settlement_refused_helpers import page_judges_as_verify, settled_and_cut_short
from settlement_refused_helpers import refused_evening as shared_refused_evening

from fairdeal.cli import dealing
from fairdeal.cli.dealing import _deal_evening
from fairdeal.engine.match import Unsettled
from fairdeal.protocols.canonical import decode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.parties import Player, Service
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4, SettlementRefused
from fairdeal.protocols.signed import Envelope
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents, verify_log
from fairdeal.systems import get_convention

NOT_MINE = "the settlement is not my sheet's"  # an honest seat's reason for refusing a wrong settlement


def skimming(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostile service: the settlement it puts moves a point from the second seat to the first."""
    settle = Service.settle

    def skimmed(self: Service, hands: int, amounts: Sequence[Fraction]) -> Any:
        return settle(self, hands, [amounts[0] + 1, amounts[1] - 1, *amounts[2:]])

    monkeypatch.setattr(Service, "settle", skimmed)


def grudging(src: CommitRevealSource4, seat: int) -> CommitRevealSource4:
    hostile = Grudging.__new__(Grudging)
    hostile.__dict__.update(src.players[seat].__dict__)
    src.players[seat] = hostile
    return src


def blamed(report: Report) -> set[tuple[str, str]]:
    return {(f.party, f.check) for f in report.failures}


def refused_log(tmp_path: Path, src: CommitRevealSource4) -> tuple[SettlementRefused, Path]:
    tmp_path.mkdir(exist_ok=True)
    with pytest.raises(SettlementRefused) as refused:
        _deal_evening(src, src.spec, "commit-reveal", tmp_path)
    log = tmp_path / "evening.log"
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "table" and lines[-1]["type"] == "hand"  # no settlement line
    filed = decode((tmp_path / "evening.log.transcripts" / "settlement.json").read_bytes())
    assert filed == refused.value.document and filed["messages"][-1]["kind"] == m.REFUSAL
    assert isinstance(refused.value, Unsettled)
    return refused.value, log


def judged(log: Path) -> Report:
    report = verify_log(log)
    assert not report.ok
    assert any("refused the settlement: the evening did not settle" in note for note in report.notes)
    return report


def table(tmp_path: Path, cell: tuple[str, int], hands: int = 1) -> CommitRevealSource4:
    name, players = cell
    spec = TableSpec("club", "night", hands, tuple(f"p{i}" for i in range(players)), get_convention(name))
    return fixed_source(spec, b"\x07" * 32, "refused", None)


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_refusal_without_cause_names_the_refuser(tmp_path: Path, cell: tuple[str, int]) -> None:
    src = grudging(table(tmp_path, cell), cell[1] - 1)
    refused, log = refused_log(tmp_path, src)
    assert str(refused) == f"player p{cell[1] - 1} refused the settlement: {Grudging.REASON}"
    assert blamed(judged(log)) == {(f"player p{cell[1] - 1}", "settlement refusal")}


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_founded_refusal_names_the_publisher(
    tmp_path: Path, cell: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    skimming(monkeypatch)
    refused, log = refused_log(tmp_path, table(tmp_path, cell))
    assert str(refused).startswith(f"player p0 refused the settlement: service: settlement: {NOT_MINE}")
    report = judged(log)
    assert blamed(report) == {("service", "settlement")}
    assert any("a founded refusal (player p0 refused the settlement:" in note for note in report.notes)


def test_the_documents_alone_judge_the_refusal_as_the_log_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the log (``fairdeal verify`` of the files, ``--no-replay`` too: a refused settlement is judged on
    the replayed sheet all the same)."""
    for replay in (True, False):
        src = grudging(table(tmp_path, ("sochi", 3), 2), 1)
        refused, _ = refused_log(tmp_path / f"grudging-{replay}", src)
        docs = [(f"doc-{i}", d) for i, d in enumerate([*src.transcripts, refused.document])]
        assert blamed(verify_documents(docs, replay_records=replay)) == {("player p1", "settlement refusal")}
    with monkeypatch.context() as patched:
        skimming(patched)
        src = table(tmp_path, ("sochi", 3), 2)
        refused, _ = refused_log(tmp_path / "skimmed", src)
    docs = [(f"doc-{i}", d) for i, d in enumerate([*src.transcripts, refused.document])]
    for replay in (True, False):
        assert blamed(verify_documents(docs, replay_records=replay)) == {("service", "settlement")}


def test_a_refusal_after_an_evenings_end_is_judged_with_the_voided_hand(tmp_path: Path) -> None:
    """The hand a walk-out voided is the end's evidence: the refused settlement that carries the end is judged with
    it, and the end's charge still stands."""
    from test_commit_reveal_v4_end import WalksAway

    src = table(tmp_path, ("sochi", 3), 3)
    walker = WalksAway.__new__(WalksAway)
    walker.__dict__.update(src.players[2].__dict__)
    src.players[2] = walker
    src = grudging(src, 0)
    refused, log = refused_log(tmp_path, src)
    assert refused.document["messages"][0]["kind"] == m.END
    report = judged(log)
    assert blamed(report) == {("player p0", "settlement refusal")}
    assert any("player p2 charged" in note for note in report.notes)


def refused_evening(out: Path) -> Result:
    return shared_refused_evening(out, "commit-reveal")


def cli_blamed(out: Path) -> set[tuple[str, str]]:
    return blamed_by_cli(out)[0]


def grudging_boris(monkeypatch: pytest.MonkeyPatch) -> None:
    real = dealing._commit_reveal_source

    def source(spec: TableSpec, *args: Any) -> CommitRevealSource4:
        return grudging(real(spec, *args), 1)

    monkeypatch.setattr(dealing, "_commit_reveal_source", source)


def test_fairdeal_deal_stops_naming_the_refuser_his_reason_and_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grudging_boris(monkeypatch)
    result = refused_evening(tmp_path)
    path = tmp_path / "evening.log.transcripts" / "settlement.json"
    assert f"player Boris refused the settlement: {Grudging.REASON}; settlement {path}" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert cli_blamed(tmp_path) == {("player Boris", "settlement refusal")}


def test_fairdeal_deal_stops_on_a_founded_refusal_and_verify_names_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skimming(monkeypatch)
    result = refused_evening(tmp_path)
    assert f"player Anna refused the settlement: service: settlement: {NOT_MINE}" in result.output
    assert cli_blamed(tmp_path) == {("service", "settlement")}


def test_a_settled_evening_still_verifies_and_a_dropped_settlement_line_is_still_cut_short(tmp_path: Path) -> None:
    settled_and_cut_short(tmp_path, "commit-reveal")


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the offline page's JavaScript")
@pytest.mark.parametrize("refuser", ["grudging", "skimming"], ids=["without-cause", "founded"])
def test_the_offline_page_judges_a_refused_settlement_as_verify_does(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refuser: str
) -> None:
    """The page replays the records, so it judges the refusal itself: Boris refusing a right settlement is his
    fault; Anna refusing a skimmed one is a note, and the service is to blame -- as fairdeal verify says, with the
    log or from the transcripts alone."""
    (grudging_boris if refuser == "grudging" else skimming)(monkeypatch)
    refused_evening(tmp_path)
    for report, python in page_judges_as_verify(page, tmp_path):
        founded = any("a founded refusal" in note for note in report["notes"])
        assert founded == any("a founded refusal" in note for note in python.notes) == (refuser == "skimming")


class Misanswering(Player):
    """Answers the settlement with something other than its countersignature of it: a record countersignature,
    or a countersignature of another settlement (signed and chained, so the fault is its own)."""

    WRONG = "record-sign"

    def sign_settlement(self, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        accepted = self._accept_all(shown, 0, self.done + 1)
        settlement = next(e for e in reversed(accepted) if e.kind == m.SETTLEMENT)
        if self.WRONG == m.RECORD_SIGN:
            return self.send(0, m.RECORD_SIGN, {"record": settlement.digest})
        return self.send(0, m.SETTLEMENT_SIGN, {"settlement": "00" * 32})


class OtherSettlement(Misanswering):
    WRONG = m.SETTLEMENT_SIGN


def misanswered(tmp_path: Path, cell: tuple[str, int], kind: type[Misanswering]) -> tuple[SettlementRefused, Path]:
    src = table(tmp_path, cell)
    seat = cell[1] - 1
    hostile = kind.__new__(kind)
    hostile.__dict__.update(src.players[seat].__dict__)
    src.players[seat] = hostile
    tmp_path.mkdir(exist_ok=True)
    with pytest.raises(SettlementRefused) as stopped:
        _deal_evening(src, src.spec, "commit-reveal", tmp_path)
    lines = [json.loads(line) for line in (tmp_path / "evening.log").read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["type"] == "hand"  # no settlement line
    filed = decode((tmp_path / "evening.log.transcripts" / "settlement.json").read_bytes())
    assert filed == stopped.value.document and filed["messages"][-1]["sender"] == seat
    return stopped.value, tmp_path / "evening.log"


@pytest.mark.parametrize("kind", [Misanswering, OtherSettlement], ids=["record-sign", "other-settlement"])
@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_settlement_answered_with_anything_but_its_countersignature_names_the_seat(
    tmp_path: Path, cell: tuple[str, int], kind: type[Misanswering]
) -> None:
    """Not a refusal, and not an evening cut short either: the seat that answered wrongly is to blame."""
    stopped, log = misanswered(tmp_path, cell, kind)
    seat = f"player p{cell[1] - 1}"
    assert str(stopped).startswith(seat)
    report = verify_log(log)
    assert not report.ok and {f.party for f in report.failures} == {seat}
    assert any("instead of its countersignature: the evening did not settle" in note for note in report.notes)
    assert not any("cut short" in f.detail for f in report.failures)


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the offline page's JavaScript")
@pytest.mark.parametrize("kind", [Misanswering, OtherSettlement], ids=["record-sign", "other-settlement"])
def test_the_offline_page_names_the_seat_that_misanswered_the_settlement(
    page: Path, tmp_path: Path, kind: type[Misanswering]
) -> None:
    misanswered(tmp_path, ("sochi", 3), kind)
    for report, _ in page_judges_as_verify(page, tmp_path):
        assert {f["party"] for f in report["failures"]} == {"player p2"}
