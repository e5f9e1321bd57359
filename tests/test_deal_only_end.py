"""`fairdeal deal --deal-only` ends an evening as `fairdeal deal` does (issue 13): a third aborted opening (commit-
reveal) or an opening walked away from to the last attempt (mental poker) gives the void hand, a signed end and
settlement charging the absent seat, exit status 0 and the reason, and `fairdeal verify` accepts the files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from fairdeal.cli import cli, dealing
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import new_sheet
from fairdeal.protocols.canonical import decode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.parties import Player
from fairdeal.protocols.mental_poker.player import Player as PokerPlayer
from fairdeal.protocols.mental_poker.player import Unresponsive
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.source import MentalPokerSource
from fairdeal.protocols.signed import Envelope
from fairdeal.protocols.table import TableSpec
from fairdeal.systems import get_convention

ABSENT, AT = 1, 2  # Boris never deals hand 2
NAMES = ("Anna", "Boris", "Vera")


class NeverCommits(Player):
    def commit(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:  # type: ignore[override]
        if hand != AT:
            return super().commit(hand, shown, deadline)
        self._accept_all(shown, hand)
        return None


class NeverDeals(PokerPlayer):
    def deal(self) -> Any:
        if self.setup.context.hand == AT:
            raise Unresponsive()
        return super().deal()


@pytest.fixture
def absent_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat ``ABSENT`` walks away from every attempt of hand ``AT``, in either protocol."""
    commit_reveal = dealing._commit_reveal_source

    def walker(spec: TableSpec, seed: int | None, keys: Path | None, beacon: bytes | None = None) -> Any:
        source = commit_reveal(spec, seed, keys, beacon)
        hostile = NeverCommits.__new__(NeverCommits)
        hostile.__dict__.update(source.players[ABSENT].__dict__)
        source.players[ABSENT] = hostile
        return source

    def poker(spec: TableSpec, seed: int | None, keys: Path | None) -> MentalPokerSource:
        def make(setup: TableSetup, name: str) -> PokerPlayer:
            return (NeverDeals if name == spec.players[ABSENT] else PokerPlayer)(setup, name)

        return MentalPokerSource(spec, make)

    monkeypatch.setattr(dealing, "_commit_reveal_source", walker)
    monkeypatch.setattr(dealing, "_mental_poker_source", poker)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def deal(protocol: str, out: Path, *extra: str) -> Result:
    return run("deal", "--protocol", protocol, "--hands", "3", "--seed", "3", "--out", str(out), *extra)


@pytest.mark.parametrize("protocol", ["commit-reveal", "mental-poker"])
def test_deal_only_ends_the_evening_as_the_played_evening_does(
    tmp_path: Path, absent_seat: None, protocol: str
) -> None:
    played = deal(protocol, tmp_path / "played")
    assert played.exit_code == 0, played.output
    dealt = deal(protocol, tmp_path / "dealt", "--deal-only")
    assert dealt.exit_code == 0, dealt.output
    reason = played.output.splitlines()[-1].split(" (", 1)[1].removesuffix(")")
    assert "Boris" in reason and ("charged" in reason or "abandoned" in reason)
    out = tmp_path / "dealt"
    lines = dealt.output.splitlines()
    assert lines[0].startswith("hand 1: dealer Anna") and lines[1].startswith(f"hand {AT}: void, hand-0002.json")
    assert lines[2].startswith("settlement: ") and f"({reason}); settlement.json sha256" in lines[2]
    assert sorted(p.name for p in out.glob("*.json")) == [
        "hand-0001.json",
        "hand-0002.json",
        "roster.json",
        "settlement.json",
    ]
    # Nothing was played: the settlement is the end's charge alone, as every honest seat checked before signing.
    convention = get_convention("sochi")
    charges = 3 if protocol == "commit-reveal" else 1  # commit-reveal charges each abort, mental poker the end
    sheet = new_sheet(convention, 3).apply(abort_penalty(convention, ABSENT, 3) * charges)
    paid = settle(sheet, convention).amounts
    assert lines[2].startswith("settlement: " + ", ".join(f"{n} {float(a):+g}" for n, a in zip(NAMES, paid)))
    files = [str(out / name) for name in ("hand-0001.json", "hand-0002.json", "settlement.json")]
    checked = run("verify", "--roster", str(out / "roster.json"), *files)
    assert checked.exit_code == 0 and "ok: 3 transcript(s) verified" in checked.output, checked.output
    settlement = decode((out / "settlement.json").read_bytes())
    if protocol == "commit-reveal":
        end = settlement["messages"][0]
        assert end["kind"] == m.END and end["body"]["step"] == m.ABORT and end["body"]["charged"] == [ABSENT] * 3
    else:
        assert len(settlement["statements"]) == 2  # every seat but the charged one signed
    as_json = json.loads(deal(protocol, tmp_path / "json", "--deal-only", "--json").output)
    assert as_json["stopped"] == reason and as_json["ended"]["hand"] == AT
    assert list(as_json["settlement"].values()) == [float(a) for a in paid]


def test_verify_checks_a_mental_poker_settlement_given_beside_its_transcripts(
    tmp_path: Path, absent_seat: None
) -> None:
    assert deal("mental-poker", tmp_path, "--deal-only").exit_code == 0
    files = [str(tmp_path / name) for name in ("hand-0001.json", "hand-0002.json", "settlement.json")]
    assert run("verify", *files[:2]).exit_code == 0
    short = run("verify", files[0], files[2])  # the void hand left out: the settlement closes elsewhere
    assert short.exit_code == 1 and "record: settlement" in short.output, short.output
