"""A mental-poker settlement a seat refuses does not settle the evening (issue 13), as a refused commit-reveal
settlement does not: `fairdeal deal` stops with the refusal and the file it is in, the log gets no settlement
line, the refused settlement is filed beside the transcripts, and `fairdeal verify --log` names the publisher
for a founded refusal and the refuser for one without cause."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from settlement_refused_helpers import blamed, page_judges_as_verify, settled_and_cut_short
from settlement_refused_helpers import refused_evening as shared_refused_evening

from fairdeal.cli import dealing
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import decode
from fairdeal.protocols.mental_poker import source as mp_source
from fairdeal.protocols.mental_poker.source import MentalPokerSource
from fairdeal.protocols.mental_poker.statements import sign_settlement


class Grudging(MentalPokerSource):
    """Boris signs a refusal of every settlement put to him, however sound."""

    def close_session(self, amounts: Sequence[Any]) -> dict[str, Any] | None:
        doc = super().close_session(amounts)
        assert doc is not None and self.seating is not None
        put = {k: v for k, v in signed.parse(doc["statements"][1]).body.items() if k not in ("agrees", "reason")}
        doc["statements"][1] = sign_settlement(self.identities["Boris"], self.seating, put, "I do not like it")
        self.refusals = ["Boris"]
        return doc


def refused_evening(out: Path) -> Result:
    return shared_refused_evening(out, "mental-poker")


def test_a_refusal_without_cause_names_the_refuser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dealing, "_mental_poker_source", lambda spec, seed, keys: Grudging(spec))
    result = refused_evening(tmp_path)
    path = tmp_path / "evening.log.transcripts" / "settlement.json"
    assert "player Boris refused the settlement: I do not like it" in result.output and str(path) in result.output
    found, _ = blamed(tmp_path)
    assert found == {("player Boris", "settlement refusal")}


def test_a_founded_refusal_names_the_publisher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skimming(monkeypatch)
    result = refused_evening(tmp_path)
    assert "player Anna refused the settlement: the amounts are not my sheet's" in result.output
    doc = decode((tmp_path / "evening.log.transcripts" / "settlement.json").read_bytes())
    assert [signed.parse(s).body["agrees"] for s in doc["statements"]] == [False] * 3
    found, _ = blamed(tmp_path)
    assert found == {("record", "settlement")}


def test_a_settled_evening_still_verifies_and_a_dropped_settlement_line_is_still_cut_short(tmp_path: Path) -> None:
    settled_and_cut_short(tmp_path, "mental-poker")


def skimming(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service proposes a settlement one unit off between the first two seats: every seat refuses it."""
    proposal = mp_source.settlement_proposal

    def skimmed(seating: Any, hands: int, last: str, amounts: Sequence[Fraction], end: Any = None) -> Any:
        return proposal(seating, hands, last, [amounts[0] + 1, amounts[1] - 1, *amounts[2:]], end)

    monkeypatch.setattr(mp_source, "settlement_proposal", skimmed)


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the offline page's JavaScript")
@pytest.mark.parametrize("refuser", ["grudging", "skimming"], ids=["without-cause", "founded"])
def test_the_offline_page_judges_a_refused_settlement_as_verify_does(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refuser: str
) -> None:
    """The page's engine replays the records, so the page judges the refusal itself, with the log or from the
    transcripts and the settlement alone: Boris refusing a sound settlement is his fault; every seat refusing a
    skimmed one names the amounts (record: settlement) -- the lines fairdeal verify gives."""
    if refuser == "grudging":
        monkeypatch.setattr(dealing, "_mental_poker_source", lambda spec, seed, keys: Grudging(spec))
    else:
        skimming(monkeypatch)
    refused_evening(tmp_path)
    assert len(page_judges_as_verify(page, tmp_path)) == 2
